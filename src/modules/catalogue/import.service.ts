import { prepareQueueDraw, queueSessionChanged, queueSettingsOf } from '../queue/queue.service.js';
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
import { eventTranslations } from './catalogue.repo.js';
import { CatalogueDocument } from './import.schemas.js';
import * as repo from './import.repo.js';
import type { Layout } from './layout.schemas.js';
import { layoutProblems, moveSessions, saveLayoutVersion } from './layouts.service.js';
import { inventoryChanged } from '../../lib/inventory-events.js';
import { announceRevocation } from '../auth/auth.revocations.js';
import { lockSessionSale, recordSessionMove } from './session-changes.service.js';

registerAjvFormats();

/** What an import did, per kind of record (issue 29): the document's records split three ways. */
type ImportCounts = Record<ImportKind, number>;
type ImportKind = 'organisers' | 'venues' | 'events' | 'sessions' | 'rates' | 'vouchers' | 'channels';

export interface ImportSummary {
  /** The document's records of each kind (created, updated or unchanged), as before issue 29. */
  organisers: number;
  venues: number;
  seats: number;
  events: number;
  sessions: number;
  rates: number;
  vouchers: number;
  channels: number;
  /** What changed: without an import_key everything is created. */
  changes: { created: ImportCounts; updated: ImportCounts; unchanged: ImportCounts };
  /** Sessions moved onto a venue's new layout version (D64) because the document's plan changed. */
  sessions_moved: number;
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
  const { summary, touched } = await ctx.db.transaction((tx) => importInto(ctx, tx, d));
  // After the commit: live availability and the waiting room read the changed sessions again.
  inventoryChanged(ctx, touched);
  for (const id of touched) queueSessionChanged(ctx, id);
  return summary;
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


const KINDS: ImportKind[] = ['organisers', 'venues', 'events', 'sessions', 'rates', 'vouchers', 'channels'];
const zero = (): ImportCounts => Object.fromEntries(KINDS.map((k) => [k, 0])) as ImportCounts;

/** JSON with sorted object keys: jsonb gives keys back in its own order, so compare this. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}
const same = (a: unknown, b: unknown) => canonical(a) === canonical(b);
const time = (iso: string | undefined) => (iso ? new Date(iso) : null);
const sameTime = (a: Date | null, b: Date | null) => (a?.getTime() ?? null) === (b?.getTime() ?? null);

/**
 * Whether each record of the document is new or was created by an earlier import of the same
 * import_key (catalogue_import_keys). Without an import_key every record is new, as before.
 */
class Recorded {
  constructor(
    private readonly tx: Db,
    private readonly scope: string | null,
  ) {}
  /** The object an earlier import of this document created for `key`, if it still exists. */
  async find(kind: string, key: string, exists: (id: number) => Promise<boolean>): Promise<number | null> {
    if (this.scope === null) return null;
    const id = await repo.recordedObject(this.tx, this.scope, kind, key);
    if (id === null) return null;
    if (await exists(id)) return id;
    // Deleted since (a rate deleted while unused, D65): the document makes it again.
    await repo.forgetObject(this.tx, this.scope, kind, key);
    return null;
  }
  async remember(kind: string, key: string, id: number): Promise<void> {
    if (this.scope !== null) await repo.rememberObject(this.tx, this.scope, kind, key, id);
  }
}

type FeeDoc = { name: string; kind: 'fixed' | 'percent'; amount: number };

/** Replaces an event's or session's fees when the document's list differs; true when it did. */
async function syncFees(tx: Db, target: { eventId: number } | { sessionId: number }, wanted: FeeDoc[], where: string): Promise<boolean> {
  const rows = wanted.map((f) => feeRow(f, where));
  const current = await adminRepo.feesOf(tx, target);
  const mine = current.filter((f) => ('eventId' in target ? f.eventId === target.eventId : f.sessionId === target.sessionId));
  if (same(mine.map((f) => ({ name: f.name, kind: f.kind, amount: f.amount })), rows)) return false;
  // Fees are read when a seat is held (D75: prices of new holds), never referenced by sold rows.
  for (const f of mine) await adminRepo.deleteFee(tx, f.id);
  for (const f of rows) await adminRepo.insertFee(tx, { ...target, ...f });
  return true;
}

async function importInto(ctx: AppContext, tx: Db, d: CatalogueDocument): Promise<{ summary: ImportSummary; touched: Set<number> }> {
  const created = zero();
  const updated = zero();
  const unchanged = zero();
  const summary: ImportSummary = { organisers: 0, venues: 0, seats: 0, events: 0, sessions: 0, rates: 0, vouchers: 0, channels: 0, changes: { created, updated, unchanged }, sessions_moved: 0 };
  const count = (kind: ImportKind, outcome: 'created' | 'updated' | 'unchanged') => {
    summary[kind]++;
    summary.changes[outcome][kind]++;
  };
  const now = ctx.clock.now();
  const scope = d.import_key ?? null;
  // Two imports of one document at once: the second waits here on the first's row (the primary
  // key decides), then sees what the first created and updates it instead of copying it.
  if (scope !== null) await repo.lockImportScope(tx, scope);
  const recorded = new Recorded(tx, scope);
  const touched = new Set<number>();
  const organisers = new Map<string, number>();
  const venues = new Map<string, number>();
  const sectorsByVenue = new Map<number, Map<string, number>>();
  const events = new Map<string, number>();
  const sessions = new Map<string, number>();
  const rates = new Map<string, number>();

  for (const o of d.organisers) {
    const found = await recorded.find('organiser', o.key, async (id) => (await repo.findOrganiser(tx, id)) !== null);
    if (found === null) {
      const id = await repo.insertOrganiser(tx, o.name);
      await recorded.remember('organiser', o.key, id);
      organisers.set(o.key, id);
      count('organisers', 'created');
      continue;
    }
    organisers.set(o.key, found);
    const row = (await repo.findOrganiser(tx, found))!;
    if (row.name === o.name) count('organisers', 'unchanged');
    else {
      await repo.updateOrganiserName(tx, found, o.name);
      count('organisers', 'updated');
    }
  }

  for (const v of d.venues) {
    const organiserId = resolve(organisers, v.organiser, 'venues.organiser');
    const layout = importedLayout(v.sectors);
    summary.seats += layout.sectors.reduce((n, s) => n + (s.rows ?? []).reduce((m, r) => m + r.seats.length, 0), 0);
    const fields = { name: v.name, address: v.address ?? null, city: v.city ?? null };
    const found = await recorded.find('venue', v.key, async (id) => (await adminRepo.findVenue(tx, id)) != null);
    let venueId: number;
    let sectorIds: Map<string, number>;
    if (found === null) {
      venueId = await repo.insertVenue(tx, { organiserId, ...fields });
      await recorded.remember('venue', v.key, venueId);
      sectorIds = (await saveLayoutVersion(tx, venueId, layout, now)).sectorIds;
      count('venues', 'created');
    } else {
      venueId = found;
      const row = (await adminRepo.findVenue(tx, venueId))!;
      if (row.organiserId !== organiserId) throw invalidData({ [`venues.${v.key}.organiser`]: ['an imported venue keeps its organiser'] });
      let changed = false;
      if (row.name !== fields.name || row.address !== fields.address || row.city !== fields.city) {
        await repo.updateVenueFields(tx, venueId, fields);
        changed = true;
      }
      const newest = await repo.newestLayoutDocument(tx, venueId);
      if (newest !== null && same(newest, layout)) {
        sectorIds = new Map((await repo.currentSectorIds(tx, venueId)).map((s) => [s.name, s.id]));
      } else {
        // The plan changed: a new version, and the upcoming sessions move onto it under the
        // layouts API's guard (409 layout_seat_in_use when a sold or held seat would go).
        const saved = await saveLayoutVersion(tx, venueId, layout, now);
        const moved = await moveSessions(tx, venueId, layout, saved, now);
        for (const id of moved) touched.add(id);
        summary.sessions_moved += moved.length;
        sectorIds = saved.sectorIds;
        changed = true;
      }
      count('venues', changed ? 'updated' : 'unchanged');
    }
    venues.set(v.key, venueId);
    const sectorKeys = new Map<string, number>();
    sectorsByVenue.set(venueId, sectorKeys);
    for (const s of v.sectors) sectorKeys.set(s.key, sectorIds.get(s.name)!);
  }

  for (const e of d.events) {
    const venueId = resolve(venues, e.venue, 'events.venue');
    const organiserId = resolve(organisers, e.organiser, 'events.organiser');
    const translations = Object.entries(e.names).map(([lang, name]) => ({ lang, name, description: e.descriptions?.[lang] ?? null }));
    const defaultLang = e.default_lang ?? Object.keys(e.names)[0] ?? 'es';
    const found = await recorded.find('event', e.key, async (id) => (await adminRepo.findEvent(tx, id)) != null);
    let eventId: number;
    if (found === null) {
      ({ id: eventId } = await adminRepo.insertEvent(tx, { organiserId, venueId, defaultLang, status: e.status ?? 'published', imageUrl: e.image_url }));
      await recorded.remember('event', e.key, eventId);
      await repo.insertTranslations(tx, translations.map((t) => ({ eventId, ...t })));
      for (const fee of e.fees ?? []) await adminRepo.insertFee(tx, { eventId, ...feeRow(fee, `events.${e.key}.fees`) });
      count('events', 'created');
    } else {
      eventId = found;
      const row = (await adminRepo.findEvent(tx, eventId))!;
      if (row.venueId !== venueId || row.organiserId !== organiserId) {
        throw invalidData({ [`events.${e.key}.venue`]: ['an imported event keeps its organiser and venue: its sessions and seats are there'] });
      }
      // `status` only when the document states it: an event archived in the back office stays so.
      const patch: Partial<typeof row> = {};
      if (row.defaultLang !== defaultLang) patch.defaultLang = defaultLang;
      if (row.imageUrl !== (e.image_url ?? null)) patch.imageUrl = e.image_url ?? null;
      if (e.status && row.status !== e.status) patch.status = e.status;
      let changed = Object.keys(patch).length > 0;
      if (changed) await adminRepo.updateEvent(tx, eventId, { ...patch, updatedAt: now });
      const current = (await eventTranslations(tx, [eventId])).map((t) => ({ lang: t.lang, name: t.name, description: t.description }));
      const sortByLang = <T extends { lang: string }>(list: T[]) => [...list].sort((a, b) => (a.lang < b.lang ? -1 : 1));
      if (!same(sortByLang(current), sortByLang(translations))) {
        await adminRepo.replaceTranslations(tx, eventId, translations);
        changed = true;
      }
      if (await syncFees(tx, { eventId }, e.fees ?? [], `events.${e.key}.fees`)) changed = true;
      count('events', changed ? 'updated' : 'unchanged');
    }
    events.set(e.key, eventId);

    for (const s of e.sessions) {
      const where = `events.${e.key}.sessions.${s.key}`;
      if (s.sales_start_at && s.sales_end_at && new Date(s.sales_end_at) <= new Date(s.sales_start_at)) {
        throw invalidData({ [`${where}.sales_end_at`]: ['must be after sales_start_at'] });
      }
      const queueField = `${where}.queue`;
      const queue = s.queue ? queueSettingsOf(s.queue, null, queueField) : null;
      if (queue?.enabled && !s.sales_start_at) throw invalidData({ [`${queueField}.enabled`]: ['needs sales_start_at: the pre-queue is drawn at the sales start'] });
      const fields = {
        startDatetime: new Date(s.start_datetime),
        endDatetime: time(s.end_datetime),
        maxTicketsPerBuyer: s.max_tickets_per_buyer ?? null,
        salesStartAt: time(s.sales_start_at),
        salesEndAt: time(s.sales_end_at),
        queue,
      };
      const sessionKey = `${e.key}/${s.key}`;
      const found = await recorded.find('session', sessionKey, async (id) => (await adminRepo.findSession(tx, id)) !== null);
      let sessionId: number;
      let isNew = false;
      let changed = false;
      if (found === null) {
        ({ id: sessionId } = await adminRepo.insertSession(tx, { eventId, venueId, ...fields }));
        await recorded.remember('session', sessionKey, sessionId);
        await prepareQueueDraw(ctx, tx, sessionId, queue);
        isNew = true;
      } else {
        sessionId = found;
        const { session: row } = (await adminRepo.findSession(tx, sessionId))!;
        const differs =
          !sameTime(row.startDatetime, fields.startDatetime) ||
          !sameTime(row.endDatetime, fields.endDatetime) ||
          row.maxTicketsPerBuyer !== fields.maxTicketsPerBuyer ||
          !sameTime(row.salesStartAt, fields.salesStartAt) ||
          !sameTime(row.salesEndAt, fields.salesEndAt) ||
          !same(row.queue, fields.queue);
        if (differs) {
          // As the back office edits a session (updateSessionAs): under the sale lock, and a new
          // start tells every ticket holder and channel once (D74).
          await lockSessionSale(tx, sessionId);
          await adminRepo.updateSession(tx, sessionId, { ...fields, updatedAt: now });
          await prepareQueueDraw(ctx, tx, sessionId, queue);
          if (!sameTime(row.startDatetime, fields.startDatetime)) await recordSessionMove(tx, sessionId, row.startDatetime, now);
          touched.add(sessionId);
          changed = true;
        }
      }
      sessions.set(sessionKey, sessionId);
      if (!sessions.has(s.key)) sessions.set(s.key, sessionId);
      for (const [i, r] of s.rates.entries()) {
        const rateFields = {
          sectorId: r.sector ? resolve(sectorsByVenue.get(venueId)!, r.sector, `rates.${r.key}.sector`) : null,
          name: r.name,
          names: r.names ?? {},
          price: money(r.price, `rates.${r.key}.price`),
          meta: r.meta ?? {},
          sortOrder: i,
        };
        const rateKey = `${sessionKey}/${r.key}`;
        const rateFound = isNew ? null : await recorded.find('rate', rateKey, async (id) => (await adminRepo.findRate(tx, id)) != null);
        let rateId: number;
        if (rateFound === null) {
          ({ id: rateId } = await adminRepo.insertRate(tx, { sessionId, ...rateFields }));
          await recorded.remember('rate', rateKey, rateId);
          count('rates', 'created');
          if (!isNew) touched.add(sessionId);
        } else {
          rateId = rateFound;
          const { rate: row } = (await adminRepo.findRate(tx, rateId))!;
          const current = { sectorId: row.sectorId, name: row.name, names: row.names, price: row.price, meta: row.meta, sortOrder: row.sortOrder };
          if (same(current, rateFields)) count('rates', 'unchanged');
          else {
            // D75: a new price applies to new holds only; sold tickets keep what they were sold at.
            await adminRepo.updateRate(tx, rateId, { ...rateFields, updatedAt: now });
            count('rates', 'updated');
            touched.add(sessionId);
          }
        }
        rates.set(rateKey, rateId);
        if (!rates.has(r.key)) rates.set(r.key, rateId);
      }
      if (isNew) {
        for (const fee of s.fees ?? []) await adminRepo.insertFee(tx, { sessionId, ...feeRow(fee, `sessions.${s.key}.fees`) });
        await repo.createSessionInventory(tx, sessionId, venueId);
        count('sessions', 'created');
      } else {
        if (await syncFees(tx, { sessionId }, s.fees ?? [], `sessions.${s.key}.fees`)) changed = true;
        count('sessions', changed ? 'updated' : 'unchanged');
      }
    }
  }

  for (const v of d.vouchers ?? []) {
    const organiserId = resolve(organisers, v.organiser, 'vouchers.organiser');
    const code = v.code.toUpperCase();
    const fields = {
      kind: v.kind,
      value: money(v.value, `vouchers.${v.code}.value`),
      validFrom: time(v.valid_from),
      validUntil: time(v.valid_until),
      maxUses: v.max_uses ?? null,
      eventId: v.event ? resolve(events, v.event, 'vouchers.event') : null,
      sessionId: v.session ? resolve(sessions, v.session, 'vouchers.session') : null,
      rateId: v.rate ? resolve(rates, v.rate, 'vouchers.rate') : null,
    };
    // A voucher's own key is its code, unique per organiser.
    const key = `${v.organiser}/${code}`;
    const found = await recorded.find('voucher', key, async (id) => (await repo.findVoucher(tx, id)) !== null);
    if (found === null) {
      const id = await repo.insertVoucher(tx, { organiserId, code, ...fields });
      await recorded.remember('voucher', key, id);
      count('vouchers', 'created');
      continue;
    }
    const row = (await repo.findVoucher(tx, found))!;
    const current = {
      kind: row.kind,
      value: row.value,
      validFrom: row.validFrom,
      validUntil: row.validUntil,
      maxUses: row.maxUses,
      eventId: row.eventId,
      sessionId: row.sessionId,
      rateId: row.rateId,
    };
    if (same(current, fields)) count('vouchers', 'unchanged');
    else {
      // `active` is the organiser's switch (D75) and stays as the back office left it.
      await repo.updateVoucher(tx, found, fields);
      count('vouchers', 'updated');
    }
  }

  for (const c of d.channels ?? []) {
    if (needsCheckoutUrl(c.integration_mode) && !c.checkout_url) {
      throw invalidData({ [`channels.${c.slug}.checkout_url`]: ['required for model B'] });
    }
    const organiserId = resolve(organisers, c.organiser, 'channels.organiser');
    const fields = {
      name: c.name,
      integrationMode: c.integration_mode,
      checkoutUrl: c.checkout_url ?? null,
      websiteUrl: c.website_url ?? null,
      branding: c.branding ?? {},
      cartTtlSeconds: c.cart_ttl_seconds ?? null,
      defaultLang: c.default_lang ?? 'es',
    };
    const eventIds = c.events === 'all' ? [...events.values()] : c.events.map((k) => resolve(events, k, `channels.${c.slug}.events`));
    const found = await recorded.find('channel', c.slug, async (id) => (await repo.findChannel(tx, id)) !== null);
    if (found === null) {
      const channelId = await repo.insertChannel(tx, { organiserId, slug: c.slug, ...fields });
      await recorded.remember('channel', c.slug, channelId);
      await repo.linkChannelEvents(tx, channelId, eventIds);
      await repo.insertFixedKeys(tx, 'widget', channelId, c.widget_keys ?? []);
      await repo.insertFixedKeys(tx, 'server', channelId, c.server_keys ?? []);
      count('channels', 'created');
      continue;
    }
    const row = (await repo.findChannel(tx, found))!;
    if (row.integrationMode !== fields.integrationMode) {
      // A mode change revokes the channel's tokens (D42): an act of its own, not a side effect.
      throw invalidData({ [`channels.${c.slug}.integration_mode`]: ["an imported channel keeps its mode: change it in the dashboard or with PATCH /channels/{id}, which revokes the channel's tokens (D42)"] });
    }
    const current = { name: row.name, integrationMode: row.integrationMode, checkoutUrl: row.checkoutUrl, websiteUrl: row.websiteUrl, branding: row.branding, cartTtlSeconds: row.cartTtlSeconds, defaultLang: row.defaultLang };
    let changed = false;
    if (!same(current, fields)) {
      await repo.updateChannel(tx, found, { ...fields, updatedAt: now });
      changed = true;
    }
    // Links and fixed keys are added, never removed: what the document leaves out is left alone.
    if (await repo.addChannelEvents(tx, found, eventIds)) changed = true;
    if (await repo.addFixedKeys(tx, 'widget', found, c.widget_keys ?? [])) changed = true;
    if (await repo.addFixedKeys(tx, 'server', found, c.server_keys ?? [])) changed = true;
    // Cached tokens carry the channel record: every instance drops them (as PATCH /channels does).
    if (changed) await announceRevocation(ctx, tx, { channelIds: [found] });
    count('channels', changed ? 'updated' : 'unchanged');
  }
  return { summary, touched };
}
