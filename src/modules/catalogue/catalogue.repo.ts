import { and, asc, eq, gt, inArray, isNull, or, sql } from 'drizzle-orm';
import { queryRows, type Db } from '../../db/client.js';
import * as t from '../../db/schema/index.js';

// Read side of the catalogue: events a channel sells, their sessions, maps and live inventory.
// "Free" follows D15: a hold whose hold_expires_at has passed counts as available.

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

export async function eventTranslations(db: Db, eventIds: number[]): Promise<TranslationRow[]> {
  if (eventIds.length === 0) return [];
  return db
    .select({
      eventId: t.eventTranslations.eventId,
      lang: t.eventTranslations.lang,
      name: t.eventTranslations.name,
      description: t.eventTranslations.description,
    })
    .from(t.eventTranslations)
    .where(inArray(t.eventTranslations.eventId, eventIds))
    .orderBy(asc(t.eventTranslations.lang));
}

export interface SessionSummaryRow {
  id: number;
  eventId: number;
  startDatetime: Date;
  endDatetime: Date | null;
  status: string;
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
          count(*) FILTER (WHERE ${freeCondition(now)})::int AS available
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
    .where(eq(t.sectors.venueId, venueId))
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

/** The session-independent seat layout of a venue (for drawing the map). */
export async function venueSeats(db: Db, venueId: number): Promise<LayoutSeatRow[]> {
  return db
    .select({ id: t.seats.id, sectorId: t.seats.sectorId, row: t.seats.row, number: t.seats.number, x: t.seats.x, y: t.seats.y })
    .from(t.seats)
    .innerJoin(t.sectors, eq(t.sectors.id, t.seats.sectorId))
    .where(eq(t.sectors.venueId, venueId))
    .orderBy(asc(t.sectors.sortOrder), asc(t.seats.id));
}

export interface SessionHeaderRow {
  id: number;
  eventId: number;
  venueId: number;
  startDatetime: Date;
  status: string;
  eventStatus: string;
  defaultLang: string;
}

export async function findSession(db: Db, sessionId: number): Promise<SessionHeaderRow | null> {
  const rows = await db
    .select({
      id: t.sessions.id,
      eventId: t.sessions.eventId,
      venueId: t.sessions.venueId,
      startDatetime: t.sessions.startDatetime,
      status: t.sessions.status,
      eventStatus: t.events.status,
      defaultLang: t.events.defaultLang,
    })
    .from(t.sessions)
    .innerJoin(t.events, eq(t.events.id, t.sessions.eventId))
    .where(eq(t.sessions.id, sessionId));
  return rows[0] ?? null;
}

/** Ids of the channels that sell an event. */
export async function channelsSelling(db: Db, eventId: number): Promise<number[]> {
  const rows = await db.select({ id: t.channelEvents.channelId }).from(t.channelEvents).where(eq(t.channelEvents.eventId, eventId));
  return rows.map((r) => r.id);
}

export interface RateRow {
  id: number;
  sectorId: number | null;
  name: string;
  names: Record<string, string>;
  price: number;
  meta: Record<string, unknown>;
}

export async function sessionRates(db: Db, sessionId: number): Promise<RateRow[]> {
  return db
    .select({ id: t.rates.id, sectorId: t.rates.sectorId, name: t.rates.name, names: t.rates.names, price: t.rates.price, meta: t.rates.meta })
    .from(t.rates)
    .where(eq(t.rates.sessionId, sessionId))
    .orderBy(asc(t.rates.sortOrder), asc(t.rates.id));
}

export interface InventorySeatRow {
  id: number;
  sector_id: number;
  row: string;
  number: string;
  x: number;
  y: number;
  status: 'available' | 'held' | 'sold' | 'blocked';
}

/** Numbered seats of a session with the status a buyer sees at `now` (expired holds are free). */
export async function sessionSeats(db: Db, sessionId: number, now: Date): Promise<InventorySeatRow[]> {
  return queryRows<InventorySeatRow>(
    db,
    sql`SELECT ss.id, ss.sector_id, st.row, st.number, st.x, st.y,
          CASE WHEN ${freeCondition(now, 'ss')} THEN 'available' ELSE ss.status END AS status
        FROM session_seats ss JOIN seats st ON st.id = ss.seat_id
        WHERE ss.session_id = ${sessionId}
        ORDER BY ss.id`,
  );
}

export interface SectorInventoryRow {
  sectorId: number;
  capacity: number;
  available: number;
}

/**
 * Per sector of a session: sellable units, free units, and the earliest future hold expiry of the
 * whole session (when a cached payload stops being true without any write).
 */
export async function sectorInventory(
  db: Db,
  sessionId: number,
  now: Date,
): Promise<{ sectors: SectorInventoryRow[]; nextHoldExpiry: Date | null }> {
  const rows = await queryRows<{ sector_id: number; capacity: number; available: number; next_expiry: string | Date | null }>(
    db,
    sql`SELECT sector_id, count(*)::int AS capacity,
          count(*) FILTER (WHERE ${freeCondition(now)})::int AS available,
          min(hold_expires_at) FILTER (WHERE status = 'held' AND hold_expires_at > ${now.toISOString()}::timestamptz) AS next_expiry
        FROM session_seats WHERE session_id = ${sessionId}
        GROUP BY sector_id`,
  );
  let next: Date | null = null;
  for (const r of rows) {
    if (r.next_expiry === null) continue;
    const at = new Date(r.next_expiry);
    if (!next || at < next) next = at;
  }
  return {
    sectors: rows.map((r) => ({ sectorId: Number(r.sector_id), capacity: Number(r.capacity), available: Number(r.available) })),
    nextHoldExpiry: next,
  };
}

/** The SQL condition "this unit is free at `now`" (D15). */
function freeCondition(now: Date, alias?: string) {
  const col = (name: string) => sql.raw(alias ? `${alias}.${name}` : name);
  return sql`(${col('status')} = 'available' OR (${col('status')} = 'held' AND ${col('hold_expires_at')} <= ${now.toISOString()}::timestamptz))`;
}
