import { appSingleton, type AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { notFound } from '../../http/errors.js';
import { onInventoryChanged } from '../../lib/inventory-events.js';
import { toAmount } from '../../lib/money.js';
import { isoWithOffset } from '../../lib/time.js';
import { appCache, namedCache } from '../../platform/cache.js';
import type { ChannelRecord } from '../../db/channel-record.js';
import { PayloadCache, PayloadVersion, type BuiltPayload, type CachedPayload } from './catalogue.cache.js';
import { languageChain, pickByLanguage, translatedName } from '../../platform/i18n.js';
import { rateFitsSector } from '../orders/orders.pricing.js';
import * as repo from './catalogue.repo.js';
import { readingLayout, type ReadingLayout } from './layout-reading.js';
import { saleStateOf, windowJson, type SaleState } from '../../platform/sale-state.js';

/**
 * How long one instance serves a cached session payload at most. Writes made by this instance drop
 * the entry at once (inventory notices); writes made by another instance show within this bound.
 */
const SESSION_PAYLOAD_MAX_AGE_MS = 1_000;

const iso = (date: Date) => isoWithOffset(date)!;

/** Event texts along the language chain (platform/i18n), each field on its own. */
function eventTexts(translations: repo.TranslationRow[], eventId: number, chain: string[]) {
  const own = translations.filter((r) => r.eventId === eventId);
  const field = (key: 'name' | 'description') => pickByLanguage(new Map(own.map((r) => [r.lang, r[key]])), chain);
  return { name: field('name') ?? '', description: field('description') ?? null };
}

function eventHeader(event: repo.EventRow, translations: repo.TranslationRow[], lang: string) {
  const chain = languageChain(lang, event.defaultLang);
  return {
    id: event.id,
    ...eventTexts(translations, event.id, chain),
    image_url: event.imageUrl,
    default_lang: event.defaultLang,
    venue: { id: event.venueId, name: event.venueName, city: event.venueCity },
  };
}

/** The event of the channel or 404 (unknown, unpublished, or not sold by this channel: D5). */
async function channelEvent(ctx: AppContext, channel: ChannelRecord, eventId: number) {
  const [event] = await repo.channelEvents(ctx.db, channel.id, eventId);
  if (!event) throw notFound('Event');
  return event;
}

/** Events the channel sells, simplified (SPEC Catalogue rule 1): sessions hold id and start only. */
export async function listEvents(ctx: AppContext, channel: ChannelRecord, lang: string) {
  const events = await repo.channelEvents(ctx.db, channel.id);
  const ids = events.map((e) => e.id);
  const now = ctx.clock.now();
  const [translations, sessions] = await Promise.all([repo.eventTranslations(ctx.db, ids), repo.upcomingSessions(ctx.db, ids, now)]);
  const availability = new Map((await repo.sessionAvailability(ctx.db, sessions.map((s) => s.id), now)).map((a) => [a.sessionId, a.available]));
  return events.map((event) => ({
    ...eventHeader(event, translations, lang),
    sessions: sessions
      .filter((s) => s.eventId === event.id)
      .map((s) => ({ id: s.id, start_datetime: iso(s.startDatetime), ...saleFields(s, availability.get(s.id) ?? 0, now) })),
  }));
}

const earliest = (dates: Date[]): Date | null => (dates.length ? new Date(Math.min(...dates.map((d) => d.getTime()))) : null);

/** The sales window and `sale_state` of a listed session (D59). */
function saleFields(s: { status: string; startDatetime: Date; salesStartAt: Date | null; salesEndAt: Date | null }, available: number, now: Date) {
  return { ...windowJson(s), sale_state: saleStateOf({ ...s, available }, now) };
}

/** Upcoming sessions of an event with their availability. */
async function sessionSummaries(ctx: AppContext, eventId: number) {
  const now = ctx.clock.now();
  const sessions = await repo.upcomingSessions(ctx.db, [eventId], now);
  const availability = new Map((await repo.sessionAvailability(ctx.db, sessions.map((s) => s.id), now)).map((a) => [a.sessionId, a]));
  return sessions.map((s) => ({
    id: s.id,
    event_id: s.eventId,
    start_datetime: iso(s.startDatetime),
    end_datetime: isoWithOffset(s.endDatetime),
    status: s.status,
    capacity: availability.get(s.id)?.capacity ?? 0,
    available: availability.get(s.id)?.available ?? 0,
    ...saleFields(s, availability.get(s.id)?.available ?? 0, now),
  }));
}

/** Fee amounts as the API shows them: fixed in currency units, percent as a percentage. */
const feeAmount = (fee: repo.FeeRow) => (fee.kind === 'percent' ? fee.amount / 100 : toAmount(fee.amount));

/** One event in full: fees, manual promotions (none yet) and upcoming sessions with availability. */
export async function getEvent(ctx: AppContext, channel: ChannelRecord, eventId: number, lang: string) {
  const event = await channelEvent(ctx, channel, eventId);
  const [translations, sessions] = await Promise.all([repo.eventTranslations(ctx.db, [event.id]), sessionSummaries(ctx, event.id)]);
  const fees = await repo.eventFees(ctx.db, event.id, sessions.map((s) => s.id));
  return {
    ...eventHeader(event, translations, lang),
    fees: fees.map((f) => ({ name: f.name, kind: f.kind, amount: feeAmount(f), session_id: f.sessionId })),
    manual_promotions: [] as never[],
    sessions,
  };
}

/** Upcoming sessions of one event of the channel. */
export async function listSessions(ctx: AppContext, channel: ChannelRecord, eventId: number) {
  const event = await channelEvent(ctx, channel, eventId);
  return sessionSummaries(ctx, event.id);
}

/** The venue map of an event: sectors with their session-independent seat layout, zones with capacity. */
export async function getMaps(ctx: AppContext, channel: ChannelRecord, eventId: number) {
  const event = await channelEvent(ctx, channel, eventId);
  const [sectors, seats] = await Promise.all([repo.venueSectors(ctx.db, event.venueId), repo.venueSeats(ctx.db, event.venueId)]);
  return sectors.map((sector) => ({
    id: sector.id,
    name: sector.name,
    numbered: sector.numbered,
    capacity: sector.capacity,
    seats: seats.filter((s) => s.sectorId === sector.id).map((s) => ({ id: s.id, row: s.row, number: s.number, x: s.x, y: s.y })),
  }));
}

// ---- Session detail (D34), cached per session and language ----

interface SessionMeta {
  eventId: number;
  channelIds: ReadonlySet<number>;
}

/** The session payload cache of one app, subscribed to the inventory notices of its writers. */
const sessionPayloadCache = appSingleton('catalogue.session-payloads', (ctx) => {
  const cache = new PayloadCache<SessionMeta>(SESSION_PAYLOAD_MAX_AGE_MS);
  onInventoryChanged(ctx, (sessionIds) => cache.invalidate(sessionIds));
  return cache;
});

/** Rate meta as sent to buyers: bookkeeping timestamps never leave (SPEC Catalogue rule 2). */
function publicMeta(meta: Record<string, unknown>): Record<string, unknown> {
  if (!('created_at' in meta) && !('updated_at' in meta)) return meta;
  const { created_at: _c, updated_at: _u, ...rest } = meta;
  return rest;
}

/**
 * The seat layout of a session with each seat's JSON prefix rendered once. It changes only when a new
 * layout version moves the session (D64), so it is kept long per version, bounded by age and count.
 */
interface SessionLayout {
  seats: repo.LayoutUnitRow[];
  /** `{"id":..,"sector_id":..,"row":..,"number":..,"x":..,"y":..,"status":"` of each seat. */
  seatPrefixes: string[];
  unitsPerSector: Map<number, number>;
  version: number;
}
const LAYOUT_MAX_AGE_MS = 5 * 60_000;
const LAYOUT_MAX_ENTRIES = 200;
let layoutVersions = 0;

async function loadSessionLayout(db: Db, sessionId: number): Promise<SessionLayout> {
  const [seats, unitsPerSector] = await Promise.all([repo.sessionSeatLayout(db, sessionId), repo.sessionUnitsPerSector(db, sessionId)]);
  const seatPrefixes = seats.map(
    (s) =>
      `{"id":${Number(s.id)},"sector_id":${Number(s.sector_id)},"row":${JSON.stringify(s.row)},"number":${JSON.stringify(s.number)},` +
      `"x":${JSON.stringify(Number(s.x))},"y":${JSON.stringify(Number(s.y))},"status":"`,
  );
  return { seats, seatPrefixes, unitsPerSector, version: ++layoutVersions };
}

/**
 * Layouts by session and layout version: a new version that moves the session (D64) changes its
 * layout_id, which the session's context (re-read at once after the move's inventory notice, else
 * within 10 s) carries, and so the key. Concurrent misses of one key read it once.
 */
const sessionLayouts = appCache<string, SessionLayout, { db: Db; sessionId: number }>('catalogue.session-layouts', (ctx) => ({
  max: LAYOUT_MAX_ENTRIES,
  ttl: LAYOUT_MAX_AGE_MS,
  now: () => ctx.clock.now().getTime(),
  fetch: (_key, { db, sessionId }) => loadSessionLayout(db, sessionId),
}));

export async function sessionLayout(ctx: AppContext, sessionId: number): Promise<SessionLayout> {
  const layoutId = (await sessionContext(ctx, sessionId))?.layoutId ?? null;
  return (await sessionLayouts(ctx).fetch(`${sessionId}/${layoutId}`, { context: { db: ctx.db, sessionId } }))!;
}

/**
 * Catalogue facts of a session (names, rates, sectors, which channels sell it, its status) change
 * rarely and cost more to read than the inventory, so they are re-read every 10 s at most, and at
 * once after an inventory notice for the session on this instance.
 */
const SESSION_CONTEXT_MAX_AGE_MS = 10_000;
const sessionContexts = appSingleton('catalogue.session-contexts', (ctx) => {
  const cache = namedCache<number, repo.SessionContextRow>({
    name: 'catalogue.session-contexts',
    max: LAYOUT_MAX_ENTRIES,
    ttl: SESSION_CONTEXT_MAX_AGE_MS,
    now: () => ctx.clock.now().getTime(),
  });
  onInventoryChanged(ctx, (sessionIds) => sessionIds.forEach((id) => cache.delete(id)));
  return cache;
});

export async function sessionContext(ctx: AppContext, sessionId: number): Promise<repo.SessionContextRow | null> {
  const cache = sessionContexts(ctx);
  const hit = cache.get(sessionId);
  if (hit) return hit;
  const row = await repo.sessionContext(ctx.db, sessionId);
  // An id not found is not remembered: the next session created may take it.
  if (row) cache.set(sessionId, row);
  return row;
}

/**
 * A session's numbered seats (the cached layout, ordered by id), its sellable units per sector, and
 * what is taken at `now`: the taken seats and the taken units per sector, from the one short read
 * the session detail and the live map make (over the partial index of taken units). For the
 * portal's seat page, which read every seat of the session with its state on every view: 20,000
 * rows a view for a big venue (issue 29).
 */
export async function liveSessionSeats(ctx: AppContext, sessionId: number, now: Date) {
  const layout = await sessionLayout(ctx, sessionId);
  const live = await repo.liveInventory(ctx.db, sessionId, now);
  return { seats: layout.seats, unitsPerSector: layout.unitsPerSector, taken: parseTakenSeats(live.seats), takenPerSector: live.takenPerSector };
}

const STATUS_BY_LETTER = { h: 'held', s: 'sold', b: 'blocked' } as const;
type TakenStatus = (typeof STATUS_BY_LETTER)[keyof typeof STATUS_BY_LETTER];

/** "12s,15h" -> Map { 12 => 'sold', 15 => 'held' } */
export function parseTakenSeats(seats: string): Map<number, TakenStatus> {
  const statusOf = new Map<number, TakenStatus>();
  if (seats === '') return statusOf;
  for (const item of seats.split(',')) {
    statusOf.set(Number(item.slice(0, -1)), STATUS_BY_LETTER[item.slice(-1) as keyof typeof STATUS_BY_LETTER]);
  }
  return statusOf;
}

/**
 * Reads a session's live state (one one-row query; catalogue facts and the seat layout come from
 * their own caches) and
 * returns how to render the D34 payload. Rendering is string assembly over pre-rendered seat
 * prefixes: the payload of a 5,000-seat session is about 1 MB of JSON.
 */
async function buildSessionPayload(ctx: AppContext, sessionId: number, lang: string, withSeats = true): Promise<BuiltPayload<SessionMeta> | null> {
  const now = ctx.clock.now();
  const context = await sessionContext(ctx, sessionId);
  if (!context || context.status === 'draft' || context.eventStatus !== 'published') return null;
  // Seat statuses and sector counts both derive from this one read, so they always agree.
  const live = await repo.liveInventory(ctx.db, sessionId, now);
  const layout = await sessionLayout(ctx, sessionId);
  const chain = languageChain(lang, context.defaultLang);

  const ratesOf = new Map<number, { id: number; name: string; price: number; meta: Record<string, unknown> }[]>();
  for (const sector of context.sectors) {
    ratesOf.set(
      sector.id,
      context.rates
        .filter((r) => rateFitsSector(r, sector.id))
        .map((r) => ({ id: r.id, name: translatedName(r.name, r.names, chain), price: toAmount(r.price), meta: publicMeta(r.meta) })),
    );
  }
  const names = new Map(context.translations.map((tr) => [tr.lang, tr.name]));
  const session = {
    id: context.id,
    event_id: context.eventId,
    event_name: pickByLanguage(names, chain) ?? '',
    start_datetime: iso(context.startDatetime),
    status: context.status,
    ...windowJson(context),
    sale_state: 'on_sale' as SaleState,
  };
  const sectors = context.sectors.map((sector) => {
    const capacity = layout.unitsPerSector.get(sector.id) ?? 0;
    return {
      id: sector.id,
      name: sector.name,
      numbered: sector.numbered,
      capacity,
      available: Math.max(0, capacity - (live.takenPerSector.get(sector.id) ?? 0)),
      rates: ratesOf.get(sector.id) ?? [],
    };
  });
  session.sale_state = saleStateOf({ ...context, available: sectors.reduce((n, s) => n + s.available, 0) }, now);
  const render = () => {
    const statusOf = parseTakenSeats(live.seats);
    const ratesJson = new Map([...ratesOf].map(([sectorId, list]) => [sectorId, JSON.stringify(list)]));
    // `seats=none`: the seats come from the layout and availability routes instead (issue 29).
    const seats = withSeats
      ? layout.seats.map((s, i) => `${layout.seatPrefixes[i]}${statusOf.get(Number(s.id)) ?? 'available'}","rates":${ratesJson.get(Number(s.sector_id)) ?? '[]'}}`)
      : [];
    // The envelope of D33, written out so that the seats need no second serialisation pass.
    return (
      `{"status":200,"success":true,"data":{"session":${JSON.stringify(session)},` +
      `"elements":{"seats":[${seats.join(',')}],"sectors":${JSON.stringify(sectors)}}},"message":"Session detail"}`
    );
  };
  return {
    fingerprint: `${withSeats ? '' : 'none|'}${JSON.stringify([layout.version, session, sectors])}|${live.seats}`,
    render,
    meta: { eventId: context.eventId, channelIds: new Set(context.channelIds.map(Number)) },
    // The sale_state changes without any write at the window's ends and at the start (D59).
    validUntil: earliest([live.nextHoldExpiry, context.salesStartAt, context.salesEndAt, context.startDatetime].filter((d): d is Date => d !== null && d > now)),
  };
}

/**
 * The serialised session detail (D34) for the channel: seats and zones with live availability.
 * 404 for an unknown or draft session, one of another event, or an event the channel does not sell.
 */
export async function getSessionDetail(
  ctx: AppContext,
  channel: ChannelRecord,
  eventId: number,
  sessionId: number,
  lang: string,
  seats: 'all' | 'none' = 'all',
): Promise<CachedPayload<SessionMeta>> {
  const cache = sessionPayloadCache(ctx);
  const cached = await cache.get(`${sessionId}:${lang}${seats === 'none' ? ':none' : ''}`, sessionId, ctx.clock.now().getTime(), () =>
    buildSessionPayload(ctx, sessionId, lang, seats === 'all'),
  );
  if (!cached || cached.meta.eventId !== eventId) throw notFound('Session');
  if (!cached.meta.channelIds.has(channel.id)) throw notFound('Event');
  return cached;
}

/** Each cached session layout in reading order, by the order of the sectors (which may change apart from the seats), with its serialised body. */
const readingLayouts = new WeakMap<SessionLayout, Map<string, { reading: ReadingLayout; payload: (sessionId: number) => PayloadVersion }>>();

/**
 * The session's layout in reading order (layout-reading.ts), made once per layout version and
 * sector order: the layout route's body and the availability's `form=index` read it.
 */
export async function sessionReadingLayout(ctx: AppContext, sessionId: number) {
  const [layout, context] = await Promise.all([sessionLayout(ctx, sessionId), sessionContext(ctx, sessionId)]);
  const sectorOrder = (context?.sectors ?? []).map((s) => Number(s.id));
  let bySectors = readingLayouts.get(layout);
  if (!bySectors) readingLayouts.set(layout, (bySectors = new Map()));
  const key = sectorOrder.join(',');
  let hit = bySectors.get(key);
  if (!hit) {
    const reading = readingLayout(layout.seats, sectorOrder);
    let version: PayloadVersion | undefined;
    const payload = (id: number) =>
      (version ??= new PayloadVersion(Buffer.from(`{"status":200,"success":true,"data":{"session_id":${id},${reading.json.slice(1)},"message":"Session layout"}`), `layout|${id}`));
    bySectors.set(key, (hit = { reading, payload }));
  }
  return hit;
}

/**
 * The session's seat layout in columns (issue 29), without statuses or rates: `seats.id[i]`,
 * `seats.sector_id[i]`, ... describe seat i, in reading order, with each sector's range and
 * bounds, the rows and the bounds (docs/catalogue.md "Large venues"). It changes only when the
 * session's layout (or its sectors' order) does, so a client keeps it (ETag) and follows the
 * availability route for the statuses. 404 exactly where the session detail answers 404.
 */
export async function getSessionLayout(ctx: AppContext, channel: ChannelRecord, eventId: number, sessionId: number, lang: string): Promise<PayloadVersion> {
  await getSessionDetail(ctx, channel, eventId, sessionId, lang, 'none');
  return (await sessionReadingLayout(ctx, sessionId)).payload(sessionId);
}
