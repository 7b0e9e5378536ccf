import { sql, type SQL } from 'drizzle-orm';
import { parseJson, queryRows, queryRowsPrepared, type Db, type Json } from '../../db/client.js';
import type { LayoutSeat, LayoutSector } from './best-available.js';
import { intArray } from './orders.repo.js';

// SQL of best available (D61). The claim itself is cart_hold_seats (orders.repo.ts holdSeats).

export interface BestAvailableSession {
  id: number;
  venueId: number;
  /** The venue layout version the session's seats are on (D64): a new version may move the session. */
  layoutId: number | null;
  onSale: boolean;
  /** The venue's sectors in their order. */
  sectors: { id: number; numbered: boolean }[];
  /** The session's rates in the catalogue's order (sort order, then id): the first fitting one is a seat's default. */
  rates: { id: number; sectorId: number | null }[];
  /** The session's seats that are not free at `now`, when asked for (takenSeatIds). */
  taken: TakenSeats | null;
}

export interface TakenSeats {
  ids: Set<number>;
  /** When the first of the holds among them expires, if any does. */
  firstExpiry: Date | null;
}

/** The seats of a session that are not free at `now`, as one text value (a row per seat would cost more at the end of a sale). */
const takenQuery = (sessionId: number | SQL, now: Date) =>
  sql`SELECT json_build_object('ids', string_agg(id::text, ','), 'first_expiry', min(hold_expires_at) FILTER (WHERE status = 'held'))
      FROM session_seats
      WHERE session_id = ${sessionId} AND status <> 'available' AND NOT seat_is_free(status, hold_expires_at, ${now}::timestamptz)`;
const takenSeats = (value: Json<{ ids: string | null; first_expiry: string | null }> | null): TakenSeats => {
  const parsed = value === null ? null : parseJson(value);
  return {
    ids: new Set(parsed?.ids ? parsed.ids.split(',').map(Number) : []),
    firstExpiry: parsed?.first_expiry ? new Date(parsed.first_expiry) : null,
  };
};

/**
 * A session of an event the channel sells, with its sectors, rates and (`withTaken`) taken seats,
 * in one query, the first of best available's transaction; null when there is none (404).
 */
export async function findSellableSession(db: Db, channelId: number, sessionId: number, now: Date, withTaken: boolean): Promise<BestAvailableSession | null> {
  const [row] = await queryRowsPrepared<{
    id: number;
    venue_id: number;
    layout_id: number | null;
    on_sale: boolean;
    sectors: Json<{ id: number; numbered: boolean }[]>;
    rates: Json<{ id: number; sector_id: number | null }[]> | null;
    taken: Json<{ ids: string | null; first_expiry: string | null }> | null;
  }>(
    db,
    withTaken ? 'best_available_session_taken' : 'best_available_session',
    sql`SELECT se.id, se.venue_id, se.layout_id, session_is_on_sale(se.id, ${now}::timestamptz) AS on_sale,
               ${withTaken ? sql`(${takenQuery(sql`se.id`, now)})` : sql`NULL::json`} AS taken,
               (SELECT json_agg(json_build_object('id', sec.id, 'numbered', sec.numbered) ORDER BY sec.sort_order, sec.id)
                FROM sectors sec WHERE sec.venue_id = se.venue_id) AS sectors,
               (SELECT json_agg(json_build_object('id', r.id, 'sector_id', r.sector_id) ORDER BY r.sort_order, r.id)
                FROM rates r WHERE r.session_id = se.id) AS rates
        FROM sessions se JOIN channel_events ce ON ce.event_id = se.event_id AND ce.channel_id = ${channelId}
        WHERE se.id = ${sessionId}`,
  );
  if (!row) return null;
  return {
    id: row.id,
    venueId: row.venue_id,
    layoutId: row.layout_id == null ? null : Number(row.layout_id),
    onSale: row.on_sale,
    sectors: parseJson(row.sectors) ?? [],
    rates: (parseJson(row.rates ?? '[]') ?? []).map((r) => ({ id: Number(r.id), sectorId: r.sector_id })),
    taken: withTaken ? takenSeats(row.taken) : null,
  };
}

/**
 * The numbered seats of a session (id = session_seat_id) with their place, flags and row priority,
 * the venue's sectors, and the focal point of the session's layout (D64, migration 0215) when it
 * has one: every sector is then chosen around it.
 */
export async function sessionLayout(db: Db, sessionId: number): Promise<{ seats: LayoutSeat[]; sectors: LayoutSector[] }> {
  const seats = await queryRows<{ id: number; sector_id: number; row: string; x: number; y: number; wheelchair: boolean; companion: boolean; row_priority: number }>(
    db,
    sql`SELECT ss.id, ss.sector_id, st.row, st.x, st.y, st.wheelchair, st.companion, st.row_priority
        FROM session_seats ss JOIN seats st ON st.id = ss.seat_id
        WHERE ss.session_id = ${sessionId}`,
  );
  const sectors = await queryRows<{ id: number; sort_order: number; focal_x: number | null; focal_y: number | null }>(
    db,
    sql`SELECT sec.id, sec.sort_order, vl.focal_x, vl.focal_y
        FROM sectors sec JOIN sessions se ON se.venue_id = sec.venue_id LEFT JOIN venue_layouts vl ON vl.id = se.layout_id
        WHERE se.id = ${sessionId}`,
  );
  return {
    seats: seats.map((s) => ({
      id: Number(s.id),
      sectorId: s.sector_id,
      row: s.row,
      x: Number(s.x),
      y: Number(s.y),
      wheelchair: s.wheelchair,
      companion: s.companion,
      rowPriority: Number(s.row_priority),
    })),
    sectors: sectors.map((s) => ({
      id: s.id,
      order: s.sort_order,
      ...(s.focal_x !== null && s.focal_y !== null ? { focal: { x: Number(s.focal_x), y: Number(s.focal_y) } } : {}),
    })),
  };
}

/**
 * The session's seats that are not free at `now` (held, sold, blocked; an expired hold is free,
 * D15), read through the partial index of the rows that are not 'available' (migration 0010).
 */
export async function takenSeatIds(db: Db, sessionId: number, now: Date): Promise<TakenSeats> {
  const [row] = await queryRowsPrepared<{ taken: Json<{ ids: string | null; first_expiry: string | null }> | null }>(
    db,
    'best_available_taken',
    sql`SELECT (${takenQuery(sessionId, now)}) AS taken`,
  );
  return takenSeats(row?.taken ?? null);
}

/**
 * Locks the chosen seats without waiting (lock_free_seats, src/db/functions): the ids it could not
 * take, none when every seat is locked for this transaction and free.
 */
export async function lockFreeSeats(db: Db, ids: readonly number[], now: Date): Promise<number[]> {
  const [row] = await queryRows<{ missing: string }>(db, sql`SELECT array_to_string(lock_free_seats(${intArray(ids)}, ${now}::timestamptz), ',') AS missing`);
  return row?.missing ? row.missing.split(',').map(Number) : [];
}

