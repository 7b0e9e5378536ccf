import { and, asc, desc, eq, sql } from 'drizzle-orm';
import { queryRows, type Db } from '../../db/client.js';
import * as t from '../../db/schema/index.js';
import type { DbTime } from '../../db/instants.js';

// Venues and their layout versions (D64). layouts.service.ts owns the transactions.

export async function insertVenue(db: Db, venue: typeof t.venues.$inferInsert) {
  const [row] = await db.insert(t.venues).values(venue).returning();
  return row!;
}

export async function updateVenue(db: Db, id: number, patch: Partial<typeof t.venues.$inferInsert>) {
  const [row] = await db.update(t.venues).set(patch).where(eq(t.venues.id, id)).returning();
  return row!;
}

/** The venue row, locked until the transaction ends: versions of one venue are saved one at a time. */
export async function lockVenue(tx: Db, id: number): Promise<void> {
  await tx.execute(sql`SELECT id FROM venues WHERE id = ${id} FOR UPDATE`);
}

export async function latestVersions(db: Db, venueIds: number[]): Promise<Map<number, number>> {
  if (!venueIds.length) return new Map();
  const rows = await queryRows<{ venue_id: number; version: number }>(
    db,
    sql`SELECT venue_id, max(version)::int AS version FROM venue_layouts
        WHERE venue_id IN (${sql.join(venueIds.map((id) => sql`${id}`), sql`, `)}) GROUP BY venue_id`,
  );
  return new Map(rows.map((r) => [Number(r.venue_id), Number(r.version)]));
}

/** Sectors of the venues' newest versions. */
export async function currentSectors(db: Db, venueIds: number[]) {
  if (!venueIds.length) return [];
  return db
    .select()
    .from(t.sectors)
    .where(and(sql`${t.sectors.venueId} IN (${sql.join(venueIds.map((id) => sql`${id}`), sql`, `)})`, eq(t.sectors.retired, false)))
    .orderBy(asc(t.sectors.sortOrder), asc(t.sectors.id));
}

export async function allSectors(db: Db, venueId: number) {
  return db.select().from(t.sectors).where(eq(t.sectors.venueId, venueId));
}

export async function insertSector(db: Db, sector: typeof t.sectors.$inferInsert): Promise<number> {
  const [row] = await db.insert(t.sectors).values(sector).returning({ id: t.sectors.id });
  return row!.id;
}

export async function updateSector(db: Db, id: number, patch: Partial<typeof t.sectors.$inferInsert>): Promise<void> {
  await db.update(t.sectors).set(patch).where(eq(t.sectors.id, id));
}

export async function insertLayout(db: Db, layout: typeof t.venueLayouts.$inferInsert) {
  const [row] = await db.insert(t.venueLayouts).values(layout).returning();
  return row!;
}

export async function insertSeats(db: Db, seats: (typeof t.seats.$inferInsert)[]): Promise<void> {
  for (let i = 0; i < seats.length; i += 1000) await db.insert(t.seats).values(seats.slice(i, i + 1000));
}

export async function findLayout(db: Db, venueId: number, version: number) {
  const rows = await db.select().from(t.venueLayouts).where(and(eq(t.venueLayouts.venueId, venueId), eq(t.venueLayouts.version, version)));
  return rows[0] ?? null;
}

export async function newestVersion(db: Db, venueId: number): Promise<number> {
  const rows = await db.select({ version: t.venueLayouts.version }).from(t.venueLayouts).where(eq(t.venueLayouts.venueId, venueId)).orderBy(desc(t.venueLayouts.version)).limit(1);
  return rows[0]?.version ?? 0;
}

/** Every version of a venue with its seat count, zone places and the sessions that use it. */
export async function layoutSummaries(db: Db, venueId: number) {
  return queryRows<{ version: number; seats: number; places: number; sessions: number; created_at: DbTime }>(
    db,
    sql`SELECT l.version,
          (SELECT count(*)::int FROM seats st WHERE st.layout_id = l.id) AS seats,
          coalesce((SELECT sum((sc->>'capacity')::int)::int FROM jsonb_array_elements(l.document->'sectors') sc
                    WHERE (sc->>'numbered')::boolean IS FALSE), 0) AS places,
          (SELECT count(*)::int FROM sessions s WHERE s.layout_id = l.id) AS sessions,
          l.created_at
        FROM venue_layouts l WHERE l.venue_id = ${venueId} ORDER BY l.version`,
  );
}

// ---- moving sessions onto a new version

/** Upcoming sessions of the venue on another version: drafts and sessions on sale that have not started. */
export async function sessionsToMove(tx: Db, venueId: number, layoutId: number, now: Date): Promise<number[]> {
  const rows = await queryRows<{ id: number }>(
    tx,
    sql`SELECT id FROM sessions WHERE venue_id = ${venueId} AND layout_id IS DISTINCT FROM ${layoutId}
          AND status IN ('draft', 'on_sale') AND start_datetime > ${now.toISOString()}::timestamptz ORDER BY id`,
  );
  return rows.map((r) => Number(r.id));
}

const idList = (ids: number[]) => sql`ARRAY[${sql.join(ids.map((id) => sql`${id}`), sql`, `)}]::int[]`;

/**
 * Locks every inventory row of the sessions in id order, the order the holds lock in
 * (cart_hold_seats): a hold running beside the move either commits first (and its seat is seen
 * held) or waits and then finds the seat gone or moved.
 */
export async function lockInventory(tx: Db, sessionIds: number[]): Promise<void> {
  await tx.execute(sql`SELECT id FROM session_seats WHERE session_id = ANY(${idList(sessionIds)}) ORDER BY id FOR UPDATE`);
}

export interface SeatInUse {
  session_id: number;
  sector: string;
  row: string | null;
  number: string | null;
  status: 'sold' | 'held';
}

const TAKEN = (now: Date) => sql`ss.status IN ('sold', 'held') AND seat_is_free(ss.status, ss.hold_expires_at, ${now.toISOString()}::timestamptz) IS NOT TRUE`;
const UNMATCHED = (layoutId: number) =>
  sql`NOT EXISTS (SELECT 1 FROM seats n WHERE n.layout_id = ${layoutId} AND n.sector_id = st.sector_id AND n.row = st.row AND n.number = st.number)`;

/** Sold or held seats of the sessions that the new version no longer has (by sector, row and number). */
export async function seatsInUseMissing(tx: Db, sessionIds: number[], layoutId: number, now: Date): Promise<SeatInUse[]> {
  return queryRows<SeatInUse>(
    tx,
    sql`SELECT ss.session_id, sc.name AS sector, st.row, st.number, ss.status
        FROM session_seats ss JOIN seats st ON st.id = ss.seat_id JOIN sectors sc ON sc.id = ss.sector_id
        WHERE ss.session_id = ANY(${idList(sessionIds)}) AND ${TAKEN(now)} AND ${UNMATCHED(layoutId)}
        ORDER BY ss.session_id, sc.sort_order, ss.id`,
  );
}

/** Zone places per session and sector: all of them and the sold or held ones. */
export async function zonePlaces(tx: Db, sessionIds: number[], now: Date) {
  return queryRows<{ session_id: number; sector_id: number; sector: string; places: number; taken: number }>(
    tx,
    sql`SELECT ss.session_id, ss.sector_id, sc.name AS sector, count(*)::int AS places, (count(*) FILTER (WHERE ${TAKEN(now)}))::int AS taken
        FROM session_seats ss JOIN sectors sc ON sc.id = ss.sector_id
        WHERE ss.session_id = ANY(${idList(sessionIds)}) AND ss.seat_id IS NULL
        GROUP BY ss.session_id, ss.sector_id, sc.name`,
  );
}

/**
 * Retires inventory rows the new version no longer has (numbered seats without a match, or the
 * given zone places): deleted, or, when an old cart item still names one, kept blocked.
 */
async function retire(tx: Db, where: ReturnType<typeof sql>): Promise<void> {
  await tx.execute(sql`DELETE FROM session_seats ss WHERE ${where} AND NOT EXISTS (SELECT 1 FROM order_items oi WHERE oi.session_seat_id = ss.id)`);
  await tx.execute(sql`UPDATE session_seats ss SET status = 'blocked', order_id = NULL, hold_expires_at = NULL WHERE ${where}`);
}

export async function retireMissingSeats(tx: Db, sessionIds: number[], layoutId: number): Promise<void> {
  await retire(
    tx,
    sql`ss.session_id = ANY(${idList(sessionIds)}) AND ss.seat_id IS NOT NULL
        AND EXISTS (SELECT 1 FROM seats st WHERE st.id = ss.seat_id AND ${UNMATCHED(layoutId)})`,
  );
}

/** Points the kept seats' inventory rows at the new version's seats, and adds the new seats. */
export async function remapSeats(tx: Db, sessionIds: number[], layoutId: number): Promise<void> {
  await tx.execute(sql`
    UPDATE session_seats ss SET seat_id = n.id
    FROM seats st, seats n
    WHERE ss.session_id = ANY(${idList(sessionIds)}) AND st.id = ss.seat_id AND st.layout_id <> ${layoutId}
      AND n.layout_id = ${layoutId} AND n.sector_id = st.sector_id AND n.row = st.row AND n.number = st.number`);
  await tx.execute(sql`
    INSERT INTO session_seats (session_id, sector_id, seat_id)
    SELECT s.id, n.sector_id, n.id FROM unnest(${idList(sessionIds)}) AS s(id)
      JOIN seats n ON n.layout_id = ${layoutId}
      JOIN sectors sc ON sc.id = n.sector_id
    WHERE NOT EXISTS (SELECT 1 FROM session_seats x WHERE x.session_id = s.id AND x.seat_id = n.id)
    ORDER BY s.id, sc.sort_order, n.id`);
}

export async function addZonePlaces(tx: Db, sessionId: number, sectorId: number, count: number): Promise<void> {
  await tx.execute(sql`INSERT INTO session_seats (session_id, sector_id, seat_id) SELECT ${sessionId}, ${sectorId}, NULL FROM generate_series(1, ${count})`);
}

/** Retires `count` free places of a zone (the newest first). */
export async function removeZonePlaces(tx: Db, sessionId: number, sectorId: number, count: number, now: Date): Promise<void> {
  const rows = await queryRows<{ id: number }>(
    tx,
    sql`SELECT id FROM session_seats WHERE session_id = ${sessionId} AND sector_id = ${sectorId} AND seat_id IS NULL
          AND (status = 'blocked' OR seat_is_free(status, hold_expires_at, ${now.toISOString()}::timestamptz))
        ORDER BY id DESC LIMIT ${count}`,
  );
  if (rows.length) await retire(tx, sql`ss.id = ANY(${idList(rows.map((r) => Number(r.id)))})`);
}

export async function setSessionsLayout(tx: Db, sessionIds: number[], layoutId: number, now: Date): Promise<void> {
  await tx.execute(sql`UPDATE sessions SET layout_id = ${layoutId}, updated_at = ${now.toISOString()}::timestamptz WHERE id = ANY(${idList(sessionIds)})`);
}
