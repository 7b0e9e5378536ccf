import { prepareQueueDraw, queueSettingsOf } from '../queue/queue.service.js';
import { registerAjvFormats } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../app-context.js';
import type { AppEnv } from '../../config.js';
import type { Db } from '../../db/client.js';
import { type FieldErrors, invalidData, schemaErrors } from '../../http/errors.js';
import { toMinor } from '../../lib/money.js';
import { needsCheckoutUrl } from '../../lib/integration-policy.js';
import { urlProblem } from '../../lib/url-rules.js';
import { brandingProblems } from '../channels/channels.service.js';
import * as adminRepo from './catalogue-admin.repo.js';
import { CatalogueDocument } from './import.schemas.js';
import * as repo from './import.repo.js';
import type { Layout } from './layout.schemas.js';
import { layoutProblems, saveLayoutVersion } from './layouts.service.js';

registerAjvFormats();

export interface ImportSummary {
  organisers: number;
  venues: number;
  seats: number;
  events: number;
  sessions: number;
  rates: number;
  vouchers: number;
  channels: number;
}

/** Field errors of a document that does not match the schema, keyed by JSON path. */
export const validateCatalogue = (doc: unknown): FieldErrors | null => schemaErrors(CatalogueDocument, doc, 'document');

function money(value: number, where: string): number {
  const minor = toMinor(value);
  if (minor === null) throw invalidData({ [where]: ['must have at most two decimals'] });
  return minor;
}

function resolve<T>(map: Map<string, T>, key: string, what: string): T {
  const found = map.get(key);
  if (found === undefined) {
    throw invalidData({ [what]: [`unknown key "${key}"`] });
  }
  return found;
}

const feeRow = (fee: { name: string; kind: 'fixed' | 'percent'; amount: number }, where: string) => ({
  name: fee.name,
  kind: fee.kind,
  // percent is stored in basis points (10 % = 1000), fixed in minor units: both are the number
  // times 100, with at most two decimals (D56)
  amount: money(fee.amount, where),
});

/**
 * Imports a catalogue document (venues, maps, events, sessions, rates, fees, vouchers, channels)
 * in one transaction: either all of it lands or nothing does. Creates each session's inventory.
 */
export async function importCatalogue(ctx: AppContext, doc: unknown): Promise<ImportSummary> {
  const errors = validateCatalogue(doc);
  if (errors) throw invalidData(errors);
  const d = doc as CatalogueDocument;
  if (ctx.config.appEnv === 'production') {
    // Fixed keys are published in the docs (wk_demo_*, sk_demo_*): never in production (D3, D43).
    const fixed: FieldErrors = {};
    for (const c of d.channels ?? []) {
      for (const field of ['widget_keys', 'server_keys'] as const) {
        if (c[field]?.length) fixed[`channels.${c.slug}.${field}`] = ['fixed keys are refused when APP_ENV=production: generate keys with keys:generate'];
      }
    }
    if (Object.keys(fixed).length) throw invalidData(fixed);
  }
  const unsafe = urlAndColourProblems(d, ctx.config.appEnv);
  if (unsafe) throw invalidData(unsafe);
  return ctx.db.transaction((tx) => importInto(ctx, tx, d));
}

/**
 * The URL and colour rule of every entry point (D50), which the schema states but cannot apply in
 * full: https only in production. Keys are JSON paths with the event key or channel slug.
 */
function urlAndColourProblems(d: CatalogueDocument, appEnv: AppEnv): Record<string, string[]> | null {
  const errors: Record<string, string[]> = {};
  for (const e of d.events) {
    const problem = e.image_url ? urlProblem(e.image_url, appEnv) : null;
    if (problem) errors[`events.${e.key}.image_url`] = [problem];
  }
  for (const c of d.channels ?? []) {
    const problem = c.checkout_url ? urlProblem(c.checkout_url, appEnv) : null;
    if (problem) errors[`channels.${c.slug}.checkout_url`] = [problem];
    const siteProblem = c.website_url ? urlProblem(c.website_url, appEnv) : null;
    if (siteProblem) errors[`channels.${c.slug}.website_url`] = [siteProblem];
    for (const [field, texts] of Object.entries(brandingProblems(c.branding ?? {}, appEnv))) errors[`channels.${c.slug}.${field}`] = texts;
  }
  return Object.keys(errors).length ? errors : null;
}

/**
 * A venue's sectors of the import document as its layout version 1: rows generated from `rows`
 * and seats listed one by one, in the document's order; positions absolute.
 */
function importedLayout(sectors: CatalogueDocument['venues'][number]['sectors']): Layout {
  const names = new Set<string>();
  return {
    sectors: sectors.map((s) => {
      if (names.has(s.name)) throw invalidData({ [`sectors.${s.key}.name`]: ['repeats a sector name of the venue: sector names are unique in a venue'] });
      names.add(s.name);
      if (!s.numbered) {
        if (!s.capacity) throw invalidData({ [`sectors.${s.key}`]: ['an unnumbered zone needs a capacity'] });
        return { name: s.name, numbered: false, capacity: s.capacity };
      }
      const rows = new Map<string, { number: string; x: number; y: number }[]>();
      const seat = (row: string, number: string, x: number, y: number) => {
        if (!rows.has(row)) rows.set(row, []);
        rows.get(row)!.push({ number, x, y });
      };
      for (const one of s.seats ?? []) seat(one.row, one.number, one.x, one.y);
      for (const r of s.rows ?? []) {
        for (let n = 0; n < r.seats; n++) seat(r.row, String((r.start ?? 1) + n), r.x + n * (r.dx ?? 1), r.y);
      }
      if (rows.size === 0) throw invalidData({ [`sectors.${s.key}`]: ['a numbered sector needs seats or rows'] });
      const list = [...rows].map(([label, seats]) => ({ label, seats }));
      const problems = layoutProblems({ sectors: [{ name: s.name, numbered: true, rows: list }] });
      if (problems) throw invalidData({ [`sectors.${s.key}`]: ['repeats a seat: (row, number) is unique in a sector'] });
      return { name: s.name, numbered: true, rows: list };
    }),
  };
}

async function importInto(ctx: AppContext, tx: Db, d: CatalogueDocument): Promise<ImportSummary> {
  const summary: ImportSummary = { organisers: 0, venues: 0, seats: 0, events: 0, sessions: 0, rates: 0, vouchers: 0, channels: 0 };
  const organisers = new Map<string, number>();
  const venues = new Map<string, number>();
  const sectorsByVenue = new Map<number, Map<string, number>>();
  const events = new Map<string, number>();
  const sessions = new Map<string, number>();
  const rates = new Map<string, number>();

  for (const o of d.organisers) {
    organisers.set(o.key, await repo.insertOrganiser(tx, o.name));
    summary.organisers++;
  }

  for (const v of d.venues) {
    const venueId = await repo.insertVenue(tx, {
      organiserId: resolve(organisers, v.organiser, 'venues.organiser'),
      name: v.name,
      address: v.address,
      city: v.city,
    });
    venues.set(v.key, venueId);
    const sectorKeys = new Map<string, number>();
    sectorsByVenue.set(venueId, sectorKeys);
    const layout = importedLayout(v.sectors);
    const saved = await saveLayoutVersion(tx, venueId, layout, new Date());
    for (const s of v.sectors) sectorKeys.set(s.key, saved.sectorIds.get(s.name)!);
    summary.seats += layout.sectors.reduce((n, s) => n + (s.rows ?? []).reduce((m, r) => m + r.seats.length, 0), 0);
    summary.venues++;
  }

  for (const e of d.events) {
    const venueId = resolve(venues, e.venue, 'events.venue');
    const { id: eventId } = await adminRepo.insertEvent(tx, {
      organiserId: resolve(organisers, e.organiser, 'events.organiser'),
      venueId,
      defaultLang: e.default_lang ?? Object.keys(e.names)[0] ?? 'es',
      status: e.status ?? 'published',
      imageUrl: e.image_url,
    });
    events.set(e.key, eventId);
    await repo.insertTranslations(
      tx,
      Object.entries(e.names).map(([lang, name]) => ({ eventId, lang, name, description: e.descriptions?.[lang] ?? null })),
    );
    for (const fee of e.fees ?? []) await adminRepo.insertFee(tx, { eventId, ...feeRow(fee, `events.${e.key}.fees`) });

    for (const s of e.sessions) {
      if (s.sales_start_at && s.sales_end_at && new Date(s.sales_end_at) <= new Date(s.sales_start_at)) {
        throw invalidData({ [`events.${e.key}.sessions.${s.key}.sales_end_at`]: ['must be after sales_start_at'] });
      }
      const queueField = `events.${e.key}.sessions.${s.key}.queue`;
      const queue = s.queue ? queueSettingsOf(s.queue, null, queueField) : null;
      if (queue?.enabled && !s.sales_start_at) throw invalidData({ [`${queueField}.enabled`]: ['needs sales_start_at: the pre-queue is drawn at the sales start'] });
      const { id: sessionId } = await adminRepo.insertSession(tx, {
        eventId,
        venueId,
        startDatetime: new Date(s.start_datetime),
        endDatetime: s.end_datetime ? new Date(s.end_datetime) : null,
        maxTicketsPerBuyer: s.max_tickets_per_buyer ?? null,
        salesStartAt: s.sales_start_at ? new Date(s.sales_start_at) : null,
        salesEndAt: s.sales_end_at ? new Date(s.sales_end_at) : null,
        queue,
      });
      await prepareQueueDraw(ctx, tx, sessionId, queue);
      sessions.set(`${e.key}/${s.key}`, sessionId);
      if (!sessions.has(s.key)) sessions.set(s.key, sessionId);
      for (const [i, r] of s.rates.entries()) {
        const sectorId = r.sector ? resolve(sectorsByVenue.get(venueId)!, r.sector, `rates.${r.key}.sector`) : null;
        const { id: rateId } = await adminRepo.insertRate(tx, {
          sessionId,
          sectorId,
          name: r.name,
          names: r.names ?? {},
          price: money(r.price, `rates.${r.key}.price`),
          meta: r.meta ?? {},
          sortOrder: i,
        });
        rates.set(`${e.key}/${s.key}/${r.key}`, rateId);
        if (!rates.has(r.key)) rates.set(r.key, rateId);
        summary.rates++;
      }
      for (const fee of s.fees ?? []) await adminRepo.insertFee(tx, { sessionId, ...feeRow(fee, `sessions.${s.key}.fees`) });
      await repo.createSessionInventory(tx, sessionId, venueId);
      summary.sessions++;
    }
    summary.events++;
  }

  for (const v of d.vouchers ?? []) {
    await repo.insertVoucher(tx, {
      organiserId: resolve(organisers, v.organiser, 'vouchers.organiser'),
      code: v.code.toUpperCase(),
      kind: v.kind,
      value: money(v.value, `vouchers.${v.code}.value`),
      validFrom: v.valid_from ? new Date(v.valid_from) : null,
      validUntil: v.valid_until ? new Date(v.valid_until) : null,
      maxUses: v.max_uses ?? null,
      eventId: v.event ? resolve(events, v.event, 'vouchers.event') : null,
      sessionId: v.session ? resolve(sessions, v.session, 'vouchers.session') : null,
      rateId: v.rate ? resolve(rates, v.rate, 'vouchers.rate') : null,
    });
    summary.vouchers++;
  }

  for (const c of d.channels ?? []) {
    if (needsCheckoutUrl(c.integration_mode) && !c.checkout_url) {
      throw invalidData({ [`channels.${c.slug}.checkout_url`]: ['required for model B'] });
    }
    const channelId = await repo.insertChannel(tx, {
      organiserId: resolve(organisers, c.organiser, 'channels.organiser'),
      slug: c.slug,
      name: c.name,
      integrationMode: c.integration_mode,
      checkoutUrl: c.checkout_url ?? null,
      websiteUrl: c.website_url ?? null,
      branding: c.branding ?? {},
      cartTtlSeconds: c.cart_ttl_seconds ?? null,
      defaultLang: c.default_lang ?? 'es',
    });
    const eventIds = c.events === 'all' ? [...events.values()] : c.events.map((k) => resolve(events, k, `channels.${c.slug}.events`));
    await repo.linkChannelEvents(tx, channelId, eventIds);
    await repo.insertFixedKeys(tx, 'widget', channelId, c.widget_keys ?? []);
    await repo.insertFixedKeys(tx, 'server', channelId, c.server_keys ?? []);
    summary.channels++;
  }
  return summary;
}
