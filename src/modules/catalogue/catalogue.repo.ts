import { and, asc, eq, gt, inArray, isNull, or, sql } from 'drizzle-orm';
import { parseJson, queryRows, type Db, type Json } from '../../db/client.js';
import * as t from '../../db/schema/index.js';
import type { LayoutUnitRow } from './catalogue.schemas.js';

// Read side of the catalogue: events a channel sells, their sessions, maps and live inventory.
// "Free" follows D15 through the SQL rule seat_is_free (src/db/functions): a hold whose
// hold_expires_at has passed counts as available.

export interface EventRow {
  id: number;
  defaultLang: string;
  imageUrl: string | null;
  venueId: number;
  venueName: string;
  venueCity: string | null;
}

export interface TranslationRow {
  eventId: number;
  lang: string;
  name: string;
  description: string | null;
}

const eventColumns = {
  id: t.events.id,
  defaultLang: t.events.defaultLang,
  imageUrl: t.events.imageUrl,
  venueId: t.venues.id,
  venueName: t.venues.name,
  venueCity: t.venues.city,
};

/** Published events the channel sells, by id; one event when `eventId` is given. */
export async function channelEvents(db: Db, channelId: number, eventId?: number): Promise<EventRow[]> {
  return db
    .select(eventColumns)
    .from(t.channelEvents)
    .innerJoin(t.events, eq(t.events.id, t.channelEvents.eventId))
    .innerJoin(t.venues, eq(t.venues.id, t.events.venueId))
    .where(
      and(
        eq(t.channelEvents.channelId, channelId),
        eq(t.events.status, 'published'),
        eventId === undefined ? undefined : eq(t.events.id, eventId),
      ),
    )
    .orderBy(asc(t.events.id));
}

/** The names and descriptions of events in every language (the storefront's and the back office's). */
export async function eventTranslations(db: Db, eventIds: number[]): Promise<TranslationRow[]> {
  if (eventIds.length === 0) return [];
  return db.select().from(t.eventTranslations).where(inArray(t.eventTranslations.eventId, eventIds)).orderBy(asc(t.eventTranslations.lang));
}

export interface SessionSummaryRow {
  id: number;
  eventId: number;
  startDatetime: Date;
  endDatetime: Date | null;
  status: string;
  salesStartAt: Date | null;
  salesEndAt: Date | null;
}

/** Sessions a buyer can still buy: on sale and starting after `now`. */
export async function upcomingSessions(db: Db, eventIds: number[], now: Date): Promise<SessionSummaryRow[]> {
  if (eventIds.length === 0) return [];
  return db
    .select({
      id: t.sessions.id,
      eventId: t.sessions.eventId,
      startDatetime: t.sessions.startDatetime,
      endDatetime: t.sessions.endDatetime,
      status: t.sessions.status,
      salesStartAt: t.sessions.salesStartAt,
      salesEndAt: t.sessions.salesEndAt,
    })
    .from(t.sessions)
    .where(and(inArray(t.sessions.eventId, eventIds), eq(t.sessions.status, 'on_sale'), gt(t.sessions.startDatetime, now)))
    .orderBy(asc(t.sessions.startDatetime), asc(t.sessions.id));
}

export interface Availability {
  sessionId: number;
  capacity: number;
  available: number;
}

/** Sellable units and free units per session (numbered seats and zone places together). */
export async function sessionAvailability(db: Db, sessionIds: number[], now: Date): Promise<Availability[]> {
  if (sessionIds.length === 0) return [];
  const rows = await queryRows<{ session_id: number; capacity: number; available: number }>(
    db,
    sql`SELECT session_id, count(*)::int AS capacity,
          count(*) FILTER (WHERE seat_is_free(status, hold_expires_at, ${now.toISOString()}::timestamptz))::int AS available
        FROM session_seats WHERE session_id IN (${sql.join(sessionIds.map((id) => sql`${id}`), sql`, `)})
        GROUP BY session_id`,
  );
  return rows.map((r) => ({ sessionId: Number(r.session_id), capacity: Number(r.capacity), available: Number(r.available) }));
}

export interface FeeRow {
  sessionId: number | null;
  name: string;
  kind: 'fixed' | 'percent';
  amount: number;
}

/** Fees of the event itself and of any of the given sessions. */
export async function eventFees(db: Db, eventId: number, sessionIds: number[]): Promise<FeeRow[]> {
  const bySession = sessionIds.length ? inArray(t.fees.sessionId, sessionIds) : undefined;
  return db
    .select({ sessionId: t.fees.sessionId, name: t.fees.name, kind: t.fees.kind, amount: t.fees.amount })
    .from(t.fees)
    .where(bySession ? or(and(eq(t.fees.eventId, eventId), isNull(t.fees.sessionId)), bySession) : and(eq(t.fees.eventId, eventId), isNull(t.fees.sessionId)))
    .orderBy(asc(t.fees.id));
}

export interface SectorRow {
  id: number;
  name: string;
  numbered: boolean;
  capacity: number;
}

export async function venueSectors(db: Db, venueId: number): Promise<SectorRow[]> {
  return db
    .select({ id: t.sectors.id, name: t.sectors.name, numbered: t.sectors.numbered, capacity: t.sectors.capacity })
    .from(t.sectors)
    .where(and(eq(t.sectors.venueId, venueId), eq(t.sectors.retired, false)))
    .orderBy(asc(t.sectors.sortOrder), asc(t.sectors.id));
}

export interface LayoutSeatRow {
  id: number;
  sectorId: number;
  row: string;
  number: string;
  x: number;
  y: number;
}

/** The session-independent seat layout of a venue's newest version (for drawing the map). */
export async function venueSeats(db: Db, venueId: number): Promise<LayoutSeatRow[]> {
  return db
    .select({ id: t.seats.id, sectorId: t.seats.sectorId, row: t.seats.row, number: t.seats.number, x: t.seats.x, y: t.seats.y })
    .from(t.seats)
    .innerJoin(t.sectors, eq(t.sectors.id, t.seats.sectorId))
    .where(
      and(
        eq(t.sectors.venueId, venueId),
        sql`${t.seats.layoutId} = (SELECT id FROM venue_layouts WHERE venue_id = ${venueId} ORDER BY version DESC LIMIT 1)`,
      ),
    )
    .orderBy(asc(t.sectors.sortOrder), asc(t.seats.id));
}

interface SessionHeaderRow {
  id: number;
  eventId: number;
  venueId: number;
  /** The venue layout version the session's seats are on (D64); a new version may move the session. */
  layoutId: number | null;
  startDatetime: Date;
  status: string;
  /** The sales window (D59); null ends are open. */
  salesStartAt: Date | null;
  salesEndAt: Date | null;
  eventStatus: string;
  defaultLang: string;
}

interface RateRow {
  id: number;
  sectorId: number | null;
  name: string;
  names: Record<string, string>;
  price: number;
  meta: Record<string, unknown>;
}

export interface LiveInventory {
  /** Taken numbered seats as "<id><h|s|b>" joined by commas, ascending id ("12s,15h"); compact on purpose. */
  seats: string;
  /** Taken units (seats and zone places) per sector. */
  takenPerSector: Map<number, number>;
  /** Earliest future hold expiry: when this state stops being true without any write. */
  nextHoldExpiry: Date | null;
}

export interface SessionContextRow extends SessionHeaderRow {
  translations: { lang: string; name: string }[];
  channelIds: number[];
  sectors: { id: number; name: string; numbered: boolean }[];
  rates: RateRow[];
}

/**
 * Everything the session detail needs but seats and inventory, in one round trip: the session, its
 * event's state and names, the channels selling it, the venue's sectors, the rates.
 */
export async function sessionContext(db: Db, sessionId: number): Promise<SessionContextRow | null> {
  const rows = await queryRows<Record<string, unknown>>(
    db,
    sql`SELECT s.id, s.event_id, s.venue_id, s.layout_id, s.start_datetime, s.status, s.sales_start_at, s.sales_end_at, e.status AS event_status, e.default_lang,
          (SELECT coalesce(json_agg(json_build_object('lang', tr.lang, 'name', tr.name) ORDER BY tr.lang), '[]'::json)
             FROM event_translations tr WHERE tr.event_id = s.event_id) AS translations,
          (SELECT coalesce(json_agg(ce.channel_id ORDER BY ce.channel_id), '[]'::json)
             FROM channel_events ce WHERE ce.event_id = s.event_id) AS channel_ids,
          (SELECT coalesce(json_agg(json_build_object('id', sc.id, 'name', sc.name, 'numbered', sc.numbered) ORDER BY sc.sort_order, sc.id), '[]'::json)
             FROM sectors sc WHERE sc.venue_id = s.venue_id) AS sectors,
          (SELECT coalesce(json_agg(json_build_object('id', r.id, 'sectorId', r.sector_id, 'name', r.name, 'names', r.names,
                    'price', r.price, 'meta', r.meta) ORDER BY r.sort_order, r.id), '[]'::json)
             FROM rates r WHERE r.session_id = s.id) AS rates
        FROM sessions s JOIN events e ON e.id = s.event_id
        WHERE s.id = ${sessionId}`,
  );
  const r = rows[0];
  if (!r) return null;
  return {
    id: Number(r.id),
    eventId: Number(r.event_id),
    venueId: Number(r.venue_id),
    layoutId: r.layout_id == null ? null : Number(r.layout_id),
    startDatetime: new Date(r.start_datetime as string | Date),
    status: r.status as string,
    salesStartAt: r.sales_start_at == null ? null : new Date(r.sales_start_at as string | Date),
    salesEndAt: r.sales_end_at == null ? null : new Date(r.sales_end_at as string | Date),
    eventStatus: r.event_status as string,
    defaultLang: r.default_lang as string,
    translations: json(r.translations),
    channelIds: json(r.channel_ids),
    sectors: json(r.sectors),
    rates: json(r.rates),
  };
}

/**
 * The live inventory of a session at `now` in one short row: which numbered seats are held, sold or
 * blocked, how many units each sector has taken, and the next hold expiry. Expired holds count as
 * free (D15). Aggregated in SQL (over the partial index of taken units) because it is re-read about
 * once a second per busy session.
 */
export async function liveInventory(db: Db, sessionId: number, now: Date): Promise<LiveInventory> {
  const at = now.toISOString();
  const [r] = await queryRows<Record<string, unknown>>(
    db,
    sql`WITH taken AS (
          SELECT id, sector_id, seat_id, status, hold_expires_at FROM session_seats
          -- status <> 'available' written out: it is the predicate of the partial index (0010).
          WHERE session_id = ${sessionId} AND status <> 'available'
            AND seat_is_free(status, hold_expires_at, ${at}::timestamptz) IS NOT TRUE
        )
        SELECT
          (SELECT coalesce(string_agg(id::text || left(status, 1), ',' ORDER BY id), '') FROM taken WHERE seat_id IS NOT NULL) AS live_seats,
          (SELECT coalesce(json_agg(json_build_array(sector_id, n)), '[]'::json)
             FROM (SELECT sector_id, count(*)::int AS n FROM taken GROUP BY sector_id) g) AS live_per_sector,
          (SELECT min(hold_expires_at) FROM taken WHERE status = 'held') AS next_expiry`,
  );
  const perSector = json<[number, number][]>(r!.live_per_sector);
  return {
    seats: r!.live_seats as string,
    takenPerSector: new Map(perSector.map(([sector, n]) => [Number(sector), Number(n)])),
    nextHoldExpiry: r!.next_expiry === null ? null : new Date(r!.next_expiry as string | Date),
  };
}

const json = <T>(v: unknown): T => parseJson(v as Json<T>);

export type { LayoutUnitRow } from './catalogue.schemas.js';

/**
 * The numbered seats of a session (`id` = session_seat_id) with their place on the map. This never
 * changes once the session exists, so callers may keep it far longer than the inventory.
 */
export async function sessionSeatLayout(db: Db, sessionId: number): Promise<LayoutUnitRow[]> {
  return queryRows<LayoutUnitRow>(
    db,
    sql`SELECT ss.id, ss.sector_id, st.row, st.number, st.x, st.y
        FROM session_seats ss JOIN seats st ON st.id = ss.seat_id
        WHERE ss.session_id = ${sessionId} AND st.layout_id = (SELECT layout_id FROM sessions WHERE id = ${sessionId})
        ORDER BY ss.id`,
  );
}

/** Sellable units (numbered seats and zone places) per sector of a session. */
export async function sessionUnitsPerSector(db: Db, sessionId: number): Promise<Map<number, number>> {
  const rows = await queryRows<{ sector_id: number; units: number }>(
    db,
    sql`SELECT sector_id, count(*)::int AS units FROM session_seats WHERE session_id = ${sessionId} GROUP BY sector_id`,
  );
  return new Map(rows.map((r) => [Number(r.sector_id), Number(r.units)]));
}
