import { sql } from 'drizzle-orm';
import { registerAjvFormats } from '@fastify/type-provider-typebox';
import type { AppContext } from '../../app-context.js';
import type { AppEnv } from '../../config.js';
import type { Db } from '../../db/client.js';
import * as t from '../../db/schema/index.js';
import { type FieldErrors, invalidData, schemaErrors } from '../../http/errors.js';
import { toMinor } from '../../lib/money.js';
import { needsCheckoutUrl } from '../../lib/integration-policy.js';
import { sha256 } from '../../lib/secrets.js';
import { urlProblem } from '../../lib/url-rules.js';
import { brandingProblems } from '../channels/channels.service.js';
import { CatalogueDocument } from './import.schemas.js';

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
  if (minor === null) throw invalidData({ [where]: ['at most two decimals'] });
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
  // percent is stored in basis points (10 % = 1000), fixed in minor units
  amount: fee.kind === 'percent' ? Math.round(fee.amount * 100) : money(fee.amount, where),
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
  return ctx.db.transaction((tx) => importInto(tx, d));
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
    for (const [field, texts] of Object.entries(brandingProblems(c.branding ?? {}, appEnv))) errors[`channels.${c.slug}.${field}`] = texts;
  }
  return Object.keys(errors).length ? errors : null;
}

async function importInto(tx: Db, d: CatalogueDocument): Promise<ImportSummary> {
  const summary: ImportSummary = { organisers: 0, venues: 0, seats: 0, events: 0, sessions: 0, rates: 0, vouchers: 0, channels: 0 };
  const organisers = new Map<string, number>();
  const venues = new Map<string, number>();
  const sectorsByVenue = new Map<number, Map<string, number>>();
  const events = new Map<string, number>();
  const sessions = new Map<string, number>();
  const rates = new Map<string, number>();

  for (const o of d.organisers) {
    const [row] = await tx.insert(t.organisers).values({ name: o.name }).returning({ id: t.organisers.id });
    organisers.set(o.key, row!.id);
    summary.organisers++;
  }

  for (const v of d.venues) {
    const [venue] = await tx
      .insert(t.venues)
      .values({ organiserId: resolve(organisers, v.organiser, 'venues.organiser'), name: v.name, address: v.address, city: v.city })
      .returning({ id: t.venues.id });
    venues.set(v.key, venue!.id);
    const sectorKeys = new Map<string, number>();
    sectorsByVenue.set(venue!.id, sectorKeys);
    for (const [i, s] of v.sectors.entries()) {
      const seatList = [
        ...(s.seats ?? []),
        ...(s.rows ?? []).flatMap((r) =>
          Array.from({ length: r.seats }, (_, n) => ({
            row: r.row,
            number: String((r.start ?? 1) + n),
            x: r.x + n * (r.dx ?? 1),
            y: r.y,
          })),
        ),
      ];
      if (s.numbered && seatList.length === 0) {
        throw invalidData({ [`sectors.${s.key}`]: ['a numbered sector needs seats or rows'] });
      }
      if (!s.numbered && !s.capacity) {
        throw invalidData({ [`sectors.${s.key}`]: ['an unnumbered zone needs a capacity'] });
      }
      const [sector] = await tx
        .insert(t.sectors)
        .values({ venueId: venue!.id, name: s.name, numbered: s.numbered, capacity: s.numbered ? seatList.length : s.capacity!, sortOrder: i })
        .returning({ id: t.sectors.id });
      sectorKeys.set(s.key, sector!.id);
      for (let i = 0; i < seatList.length; i += 1000) {
        await tx.insert(t.seats).values(seatList.slice(i, i + 1000).map((seat) => ({ sectorId: sector!.id, ...seat })));
      }
      summary.seats += seatList.length;
    }
    summary.venues++;
  }

  for (const e of d.events) {
    const venueId = resolve(venues, e.venue, 'events.venue');
    const [event] = await tx
      .insert(t.events)
      .values({
        organiserId: resolve(organisers, e.organiser, 'events.organiser'),
        venueId,
        defaultLang: e.default_lang ?? Object.keys(e.names)[0] ?? 'es',
        status: e.status ?? 'published',
        imageUrl: e.image_url,
      })
      .returning({ id: t.events.id });
    const eventId = event!.id;
    events.set(e.key, eventId);
    await tx.insert(t.eventTranslations).values(
      Object.entries(e.names).map(([lang, name]) => ({ eventId, lang, name, description: e.descriptions?.[lang] ?? null })),
    );
    for (const fee of e.fees ?? []) await tx.insert(t.fees).values({ eventId, ...feeRow(fee, `events.${e.key}.fees`) });

    for (const s of e.sessions) {
      const [session] = await tx
        .insert(t.sessions)
        .values({
          eventId,
          venueId,
          startDatetime: new Date(s.start_datetime),
          endDatetime: s.end_datetime ? new Date(s.end_datetime) : null,
          maxTicketsPerBuyer: s.max_tickets_per_buyer ?? null,
        })
        .returning({ id: t.sessions.id });
      const sessionId = session!.id;
      sessions.set(`${e.key}/${s.key}`, sessionId);
      if (!sessions.has(s.key)) sessions.set(s.key, sessionId);
      for (const [i, r] of s.rates.entries()) {
        const sectorId = r.sector ? resolve(sectorsByVenue.get(venueId)!, r.sector, `rates.${r.key}.sector`) : null;
        const [rate] = await tx
          .insert(t.rates)
          .values({ sessionId, sectorId, name: r.name, names: r.names ?? {}, price: money(r.price, `rates.${r.key}.price`), meta: r.meta ?? {}, sortOrder: i })
          .returning({ id: t.rates.id });
        rates.set(`${e.key}/${s.key}/${r.key}`, rate!.id);
        if (!rates.has(r.key)) rates.set(r.key, rate!.id);
        summary.rates++;
      }
      for (const fee of s.fees ?? []) await tx.insert(t.fees).values({ sessionId, ...feeRow(fee, `sessions.${s.key}.fees`) });
      await createSessionInventory(tx, sessionId, venueId);
      summary.sessions++;
    }
    summary.events++;
  }

  for (const v of d.vouchers ?? []) {
    await tx.insert(t.vouchers).values({
      organiserId: resolve(organisers, v.organiser, 'vouchers.organiser'),
      code: v.code.toUpperCase(),
      kind: v.kind,
      value: v.kind === 'percent' ? Math.round(v.value * 100) : money(v.value, `vouchers.${v.code}.value`),
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
    const organiserId = resolve(organisers, c.organiser, 'channels.organiser');
    const [channel] = await tx
      .insert(t.salesChannels)
      .values({
        organiserId,
        slug: c.slug,
        name: c.name,
        integrationMode: c.integration_mode,
        checkoutUrl: c.checkout_url ?? null,
        branding: c.branding ?? {},
        cartTtlSeconds: c.cart_ttl_seconds ?? null,
        defaultLang: c.default_lang ?? 'es',
      })
      .returning({ id: t.salesChannels.id });
    const channelId = channel!.id;
    const eventIds = c.events === 'all' ? [...events.values()] : c.events.map((k) => resolve(events, k, `channels.${c.slug}.events`));
    if (eventIds.length) await tx.insert(t.channelEvents).values(eventIds.map((eventId) => ({ channelId, eventId })));
    for (const key of c.widget_keys ?? []) {
      await tx.insert(t.widgetKeys).values({ channelId, keyHash: sha256(key), lastFour: key.slice(-4) });
    }
    for (const key of c.server_keys ?? []) {
      await tx.insert(t.serverKeys).values({ channelId, keyHash: sha256(key), lastFour: key.slice(-4) });
    }
    summary.channels++;
  }
  return summary;
}

/** One inventory row per numbered seat and per place of each unnumbered zone of the venue. */
export async function createSessionInventory(tx: Db, sessionId: number, venueId: number): Promise<void> {
  await tx.execute(sql`
    INSERT INTO session_seats (session_id, sector_id, seat_id)
    SELECT ${sessionId}, s.id, st.id FROM sectors s JOIN seats st ON st.sector_id = s.id
    WHERE s.venue_id = ${venueId} AND s.numbered
    ORDER BY s.sort_order, st.id`);
  await tx.execute(sql`
    INSERT INTO session_seats (session_id, sector_id, seat_id)
    SELECT ${sessionId}, s.id, NULL FROM sectors s CROSS JOIN generate_series(1, s.capacity)
    WHERE s.venue_id = ${venueId} AND NOT s.numbered`);
}
