import type { AppContext } from '../../app-context.js';
import { ok } from '../../http/envelope.js';
import { notFound } from '../../http/errors.js';
import { onInventoryChanged } from '../../lib/inventory-events.js';
import { toAmount } from '../../lib/money.js';
import { isoWithOffset } from '../../lib/time.js';
import type { ChannelRecord } from '../channels/channels.repo.js';
import { PayloadCache, type BuiltPayload, type CachedPayload } from './catalogue.cache.js';
import { languageChain, pickByLanguage, rateName } from './catalogue.lang.js';
import * as repo from './catalogue.repo.js';

/**
 * How long one instance serves a cached session payload at most. Writes made by this instance drop
 * the entry at once (inventory notices); writes made by another instance show within this bound.
 */
export const SESSION_PAYLOAD_MAX_AGE_MS = 1_000;

const iso = (date: Date) => isoWithOffset(date)!;

/** Event texts in the requested language, falling back to the event's default, then any. */
function eventTexts(translations: repo.TranslationRow[], eventId: number, chain: string[]) {
  const byLang = new Map(translations.filter((r) => r.eventId === eventId).map((r) => [r.lang, r]));
  const picked = pickByLanguage(byLang, chain);
  const fallback = pickByLanguage(byLang, chain.slice(-1));
  return { name: picked?.name ?? '', description: picked?.description ?? fallback?.description ?? null };
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
  const [translations, sessions] = await Promise.all([
    repo.eventTranslations(ctx.db, ids),
    repo.upcomingSessions(ctx.db, ids, ctx.clock.now()),
  ]);
  return events.map((event) => ({
    ...eventHeader(event, translations, lang),
    sessions: sessions.filter((s) => s.eventId === event.id).map((s) => ({ id: s.id, start_datetime: iso(s.startDatetime) })),
  }));
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

const caches = new WeakMap<AppContext, PayloadCache<SessionMeta>>();

/** The session payload cache of one app, subscribed to the inventory notices of its writers. */
export function sessionPayloadCache(ctx: AppContext): PayloadCache<SessionMeta> {
  let cache = caches.get(ctx);
  if (!cache) {
    const created = new PayloadCache<SessionMeta>(SESSION_PAYLOAD_MAX_AGE_MS);
    onInventoryChanged(ctx, (sessionIds) => created.invalidate(sessionIds));
    caches.set(ctx, (cache = created));
  }
  return cache;
}

/** Rate meta as sent to buyers: bookkeeping timestamps never leave (SPEC Catalogue rule 2). */
function publicMeta(meta: Record<string, unknown>): Record<string, unknown> {
  if (!('created_at' in meta) && !('updated_at' in meta)) return meta;
  const { created_at: _c, updated_at: _u, ...rest } = meta;
  return rest;
}

async function buildSessionPayload(ctx: AppContext, sessionId: number, lang: string): Promise<BuiltPayload<SessionMeta> | null> {
  const now = ctx.clock.now();
  // One snapshot, so that seat statuses and sector counts agree with each other.
  const read = await ctx.db.transaction(
    async (tx) => {
      const session = await repo.findSession(tx, sessionId);
      if (!session || session.status === 'draft' || session.eventStatus !== 'published') return null;
      const translations = await repo.eventTranslations(tx, [session.eventId]);
      const sectors = await repo.venueSectors(tx, session.venueId);
      const rates = await repo.sessionRates(tx, sessionId);
      const seats = await repo.sessionSeats(tx, sessionId, now);
      const inventory = await repo.sectorInventory(tx, sessionId, now);
      const channelIds = await repo.channelsSelling(tx, session.eventId);
      return { session, translations, sectors, rates, seats, inventory, channelIds };
    },
    { isolationLevel: 'repeatable read', accessMode: 'read only' },
  );
  if (!read) return null;
  const { session, translations, sectors, rates, seats, inventory, channelIds } = read;
  const chain = languageChain(lang, session.defaultLang);
  const ratesOf = new Map<number, { id: number; name: string; price: number; meta: Record<string, unknown> }[]>();
  for (const sector of sectors) {
    ratesOf.set(
      sector.id,
      rates
        .filter((r) => r.sectorId === null || r.sectorId === sector.id)
        .map((r) => ({ id: r.id, name: rateName(r, chain), price: toAmount(r.price), meta: publicMeta(r.meta) })),
    );
  }
  const counts = new Map(inventory.sectors.map((s) => [s.sectorId, s]));
  const body = ok(
    {
      session: {
        id: session.id,
        event_id: session.eventId,
        event_name: eventTexts(translations, session.eventId, chain).name,
        start_datetime: iso(session.startDatetime),
        status: session.status,
      },
      elements: {
        seats: seats.map((s) => ({
          id: s.id,
          sector_id: s.sector_id,
          row: s.row,
          number: s.number,
          x: s.x,
          y: s.y,
          status: s.status,
          rates: ratesOf.get(s.sector_id) ?? [],
        })),
        sectors: sectors.map((sector) => ({
          id: sector.id,
          name: sector.name,
          numbered: sector.numbered,
          capacity: counts.get(sector.id)?.capacity ?? 0,
          available: counts.get(sector.id)?.available ?? 0,
          rates: ratesOf.get(sector.id) ?? [],
        })),
      },
    },
    'Session detail',
  );
  return { body, meta: { eventId: session.eventId, channelIds: new Set(channelIds) }, validUntil: inventory.nextHoldExpiry };
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
): Promise<CachedPayload<SessionMeta>> {
  const cache = sessionPayloadCache(ctx);
  const cached = await cache.get(`${sessionId}:${lang}`, sessionId, ctx.clock.now().getTime(), () =>
    buildSessionPayload(ctx, sessionId, lang),
  );
  if (!cached || cached.meta.eventId !== eventId) throw notFound('Session');
  if (!cached.meta.channelIds.has(channel.id)) throw notFound('Event');
  return cached;
}
