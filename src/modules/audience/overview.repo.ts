import { sql, type SQL } from 'drizzle-orm';
import { parseJson, queryRows, type Db, type Json } from '../../db/client.js';
import { rateNameSql } from '../../platform/i18n.js';

/** Money figures of a group of sold items, in minor units (D66). */
export interface MoneyFigures {
  /** Tickets sold and not refunded. */
  tickets: number;
  refunded_tickets: number;
  base_amount: number;
  discount_amount: number;
  fee_amount: number;
  /** What buyers paid: base - discount + fee. */
  gross_amount: number;
  /** What refunds gave back (a positive number). */
  refund_amount: number;
  net_amount: number;
}

export interface InventoryFigures {
  capacity: number;
  sold: number;
  /** Held by a live cart now (an expired hold counts as free, D15). */
  held: number;
  free: number;
  blocked: number;
}

interface SessionFigures extends MoneyFigures, InventoryFigures {
  id: number;
  start_datetime: Date;
  status: string;
  checked_in: number;
}

export interface Overview {
  sessions: SessionFigures[];
  channels: (MoneyFigures & { id: number; name: string })[];
  rates: (MoneyFigures & { name: string })[];
  sectors: (MoneyFigures & InventoryFigures & { id: number; name: string })[];
  /** Sales per bucket (hour or day in the deployment's zone), by completion time. */
  timeline: { bucket: string; tickets: number; gross_amount: number }[];
}

// Every sold item of the event with what refunds gave back for it (refund_items, negative amounts).
const soldItems = (eventId: number, sessionId: number | null) => sql`
  SELECT i.id, i.session_id, i.sector_id, i.rate_id, o.channel_id, o.completed_at,
         i.base_amount, i.discount_amount, i.fee_amount, i.total_amount,
         ri.order_item_id IS NOT NULL AS refunded,
         COALESCE(-ri.total_amount, 0) AS refund_amount
  FROM order_items i
  JOIN orders o ON o.id = i.order_id AND o.status = 'completed' AND o.type IN ('purchase', 'reservation')
  LEFT JOIN refund_items ri ON ri.order_item_id = i.id
  WHERE i.event_id = ${eventId} AND (${sessionId}::integer IS NULL OR i.session_id = ${sessionId}::integer)
    -- order_items has no index on event_id (one more write on every sale): its sessions' index finds them.
    AND i.session_id IN (SELECT id FROM sessions WHERE event_id = ${eventId})`;

// The money columns of a group of `items` rows, as json_build_object arguments.
const itemMoney: SQL = sql`
  'tickets', count(*) FILTER (WHERE NOT s.refunded), 'refunded_tickets', count(*) FILTER (WHERE s.refunded),
  'base_amount', COALESCE(sum(s.base_amount), 0), 'discount_amount', COALESCE(sum(s.discount_amount), 0),
  'fee_amount', COALESCE(sum(s.fee_amount), 0), 'gross_amount', COALESCE(sum(s.total_amount), 0),
  'refund_amount', COALESCE(sum(s.refund_amount), 0), 'net_amount', COALESCE(sum(s.total_amount) - sum(s.refund_amount), 0)`;

// Inventory of a group of session_seats rows `ss`.
const inventory = (now: Date): SQL => sql`
  'capacity', count(ss.id), 'sold', count(ss.id) FILTER (WHERE ss.status = 'sold'),
  'held', count(ss.id) FILTER (WHERE ss.status = 'held' AND ss.hold_expires_at > ${now}),
  'free', count(ss.id) FILTER (WHERE ss.status = 'available' OR (ss.status = 'held' AND (ss.hold_expires_at IS NULL OR ss.hold_expires_at <= ${now}))),
  'blocked', count(ss.id) FILTER (WHERE ss.status = 'blocked')`;

// The inventory of the event's sessions per (session, sector) without reading every place: the
// places from their kept count (session_inventory, written only when places are made or removed,
// migration 0330), the sold ones from the kept sales figures (a counted order's items less the
// refunded ones: the places its completed purchases and reservations hold), the live holds and the
// blocked places from their partial indexes (session_seats_held_idx, session_seats_blocked_idx: a
// few rows). An expired hold is free (D15). The purchase path writes none of these counts.
const keptInventory = (eventId: number, sessionId: number | null, now: Date) => {
  const sessions = sql`(SELECT id FROM sessions WHERE event_id = ${eventId} AND (${sessionId}::integer IS NULL OR id = ${sessionId}::integer))`;
  const taken = (status: string, extra: SQL) => sql`
    SELECT ss.session_id, ss.sector_id, count(*) AS n FROM session_seats ss
    WHERE ss.status = ${status} ${extra} AND ss.session_id IN ${sessions}
    GROUP BY ss.session_id, ss.sector_id`;
  return sql`
  SELECT p.session_id, p.sector_id, p.seats, COALESCE(f.sold, 0) AS sold, COALESCE(h.n, 0) AS held, COALESCE(b.n, 0) AS blocked,
         p.seats - COALESCE(f.sold, 0) - COALESCE(h.n, 0) - COALESCE(b.n, 0) AS free
  FROM (SELECT v.session_id, v.sector_id, sum(v.seats) AS seats FROM session_inventory v
        WHERE v.session_id IN ${sessions} GROUP BY v.session_id, v.sector_id HAVING sum(v.seats) <> 0) p
  LEFT JOIN (SELECT f.session_id, f.sector_id, sum(f.items - f.refunded) AS sold FROM sales_figures_current() f
             WHERE f.session_id IN ${sessions} GROUP BY f.session_id, f.sector_id) f
    ON f.session_id = p.session_id AND f.sector_id = p.sector_id
  LEFT JOIN (${taken('held', sql`AND ss.hold_expires_at > ${now}`)}) h ON h.session_id = p.session_id AND h.sector_id = p.sector_id
  LEFT JOIN (${taken('blocked', sql``)}) b ON b.session_id = p.session_id AND b.sector_id = p.sector_id`;
};

// Inventory of a group of keptInventory rows `k`.
const keptInventoryFigures: SQL = sql`
  'capacity', COALESCE(sum(k.seats), 0), 'sold', COALESCE(sum(k.sold), 0), 'held', COALESCE(sum(k.held), 0),
  'free', COALESCE(sum(k.free), 0), 'blocked', COALESCE(sum(k.blocked), 0)`;

type OverviewQuery = { eventId: number; sessionId: number | null; now: Date; timezone: string; bucket: 'hour' | 'day'; lang: string };

// The money columns of a group of kept figures `f` (sales_figures summed over its slots).
const keptMoney: SQL = sql`
  'tickets', COALESCE(sum(s.items - s.refunded), 0), 'refunded_tickets', COALESCE(sum(s.refunded), 0),
  'base_amount', COALESCE(sum(s.base_amount), 0), 'discount_amount', COALESCE(sum(s.discount_amount), 0),
  'fee_amount', COALESCE(sum(s.fee_amount), 0), 'gross_amount', COALESCE(sum(s.total_amount), 0),
  'refund_amount', COALESCE(sum(s.refund_amount), 0), 'net_amount', COALESCE(sum(s.total_amount) - sum(s.refund_amount), 0)`;

// The kept figures of the event's sessions (migration 0270, with the orders not added yet: 0342), one
// row per (session, channel, rate, sector) with sold items: what soldItems would give once grouped that way.
const keptFigures = (eventId: number, sessionId: number | null) => sql`
  SELECT f.session_id, f.channel_id, f.rate_id, f.sector_id, sum(f.items) AS items, sum(f.refunded) AS refunded,
         sum(f.base_amount) AS base_amount, sum(f.discount_amount) AS discount_amount, sum(f.fee_amount) AS fee_amount,
         sum(f.total_amount) AS total_amount, sum(f.refund_amount) AS refund_amount
  FROM sales_figures_current() f
  WHERE f.session_id IN (SELECT id FROM sessions WHERE event_id = ${eventId} AND (${sessionId}::integer IS NULL OR id = ${sessionId}::integer))
  GROUP BY f.session_id, f.channel_id, f.rate_id, f.sector_id
  HAVING sum(f.items) <> 0`;

// Sales per bucket from the hourly kept figures; exact when every stored UTC hour starts on a whole
// hour of the zone (offsets of whole hours), which the query reports as timeline_exact.
const keptTimeline = (q: OverviewQuery) => sql`
  SELECT to_char(date_trunc(${q.bucket}, h.hour AT TIME ZONE ${q.timezone}), 'YYYY-MM-DD"T"HH24:MI') AS bucket,
         sum(h.items) AS tickets, sum(h.total_amount) AS gross_amount,
         bool_and(date_trunc('hour', h.hour AT TIME ZONE ${q.timezone}) = h.hour AT TIME ZONE ${q.timezone}) AS exact
  -- Summed per hour first (sessions and slots): the zone's conversion then runs once per hour.
  FROM (SELECT h.hour, sum(h.items) AS items, sum(h.total_amount) AS total_amount
        FROM sales_figures_hourly_current() h
        WHERE h.session_id IN (SELECT id FROM sessions WHERE event_id = ${q.eventId} AND (${q.sessionId}::integer IS NULL OR id = ${q.sessionId}::integer))
        GROUP BY h.hour) h
  GROUP BY 1 HAVING sum(h.items) <> 0`;

const itemsTimeline = (q: OverviewQuery) => sql`
  SELECT to_char(date_trunc(${q.bucket}, s.completed_at AT TIME ZONE ${q.timezone}), 'YYYY-MM-DD"T"HH24:MI') AS bucket,
         count(*) AS tickets, sum(s.total_amount) AS gross_amount, true AS exact
  FROM s WHERE s.completed_at IS NOT NULL GROUP BY 1`;

/**
 * The sales overview of one event (or one of its sessions) in one statement: per session, channel,
 * rate and sector, and over time. Amounts in minor units; `bucket` is 'hour' or 'day' in `timezone`.
 * The money and the timeline come from the kept figures (sales_figures, sales_figures_hourly,
 * migration 0270; read through sales_figures_current() and its hourly twin, which add the orders
 * completed since the last sales_figures_apply_pending, 0342: exact at once, D66), the inventory
 * from the kept place counts (session_inventory, 0330), the
 * figures and the held and blocked places (keptInventory): a few rows per group instead of every sold item and every place; in a zone whose offset is not
 * a whole number of hours the hourly figures cannot be bucketed exactly, and the whole overview is
 * recomputed from the items (eventOverviewFromItems).
 */
export async function eventOverview(db: Db, q: OverviewQuery): Promise<Overview> {
  const o = await overviewQuery(db, q, 'kept');
  return o.exact ? o.overview : (await overviewQuery(db, q, 'items')).overview;
}

/** The same overview computed from the sold items and the places (the base tables): the reference of the kept figures. */
export async function eventOverviewFromItems(db: Db, q: OverviewQuery): Promise<Overview> {
  return (await overviewQuery(db, q, 'items')).overview;
}

async function overviewQuery(db: Db, q: OverviewQuery, source: 'kept' | 'items'): Promise<{ overview: Overview; exact: boolean }> {
  const sessionFilter = sql`(${q.sessionId}::integer IS NULL OR ses.id = ${q.sessionId}::integer)`;
  const kept = source === 'kept';
  const money = kept ? keptMoney : itemMoney;
  // The inventory: kept counts (k) or every place of the sessions (session_seats).
  const sessionInventory = kept
    ? sql`(SELECT json_build_object(${keptInventoryFigures}) FROM k WHERE k.session_id = ses.id)`
    : sql`(SELECT json_build_object(${inventory(q.now)}) FROM session_seats ss WHERE ss.session_id = ses.id)`;
  const sectorInventory = kept
    ? sql`(SELECT json_build_object(${keptInventoryFigures}) FROM k WHERE k.sector_id = sec.id)`
    : sql`(SELECT json_build_object(${inventory(q.now)}) FROM session_seats ss JOIN sessions ses ON ses.id = ss.session_id
           WHERE ss.sector_id = sec.id AND ses.event_id = ${q.eventId} AND ${sessionFilter})`;
  const sectorListed = kept
    ? sql`sec.id IN (SELECT k.sector_id FROM k)`
    : sql`sec.id IN (SELECT ss.sector_id FROM session_seats ss JOIN sessions ses ON ses.id = ss.session_id
                     WHERE ses.event_id = ${q.eventId} AND ${sessionFilter})`;
  const [row] = await queryRows<{ overview: Json<Overview & { exact: boolean | null }> }>(
    db,
    sql`
    WITH s AS (${kept ? keptFigures(q.eventId, q.sessionId) : soldItems(q.eventId, q.sessionId)}),
    -- Each group's money in one pass over the sold items (not one pass per session or sector);
    -- a group without sales gets the figures of no rows (zeros).
    none AS (SELECT json_build_object(${money}) AS money FROM s WHERE false),
    by_session AS (SELECT s.session_id, json_build_object(${money}) AS money FROM s GROUP BY s.session_id),
    by_sector AS (SELECT s.sector_id, json_build_object(${money}) AS money FROM s GROUP BY s.sector_id),
    timeline AS (${kept ? keptTimeline(q) : itemsTimeline(q)}),
    k AS (${kept ? keptInventory(q.eventId, q.sessionId, q.now) : sql`SELECT 1 WHERE false`})
    SELECT json_build_object(
      'sessions', COALESCE((
        SELECT json_agg(x ORDER BY x.start_datetime, x.id) FROM (
          SELECT ses.id, ses.start_datetime, ses.status,
                 ${sessionInventory} AS inv,
                 COALESCE((SELECT b.money FROM by_session b WHERE b.session_id = ses.id), (SELECT money FROM none)) AS money,
                 (SELECT count(DISTINCT t.id) FROM tickets t JOIN order_items i ON i.id = t.order_item_id
                    JOIN checkin_entries ce ON ce.ticket_id = t.id
                  WHERE i.session_id = ses.id AND t.status = 'valid') AS checked_in
          FROM sessions ses WHERE ses.event_id = ${q.eventId} AND ${sessionFilter}) x), '[]'::json),
      'channels', COALESCE((
        SELECT json_agg(x ORDER BY x.name, x.id) FROM (
          SELECT ch.id, ch.name, json_build_object(${money}) AS money
          FROM s JOIN sales_channels ch ON ch.id = s.channel_id GROUP BY ch.id, ch.name) x), '[]'::json),
      'rates', COALESCE((
        SELECT json_agg(x ORDER BY x.name) FROM (
          SELECT ${rateNameSql(sql`r.names`, sql`r.name`, q.lang, sql`e.default_lang`)} AS name, json_build_object(${money}) AS money
          FROM s JOIN rates r ON r.id = s.rate_id JOIN events e ON e.id = ${q.eventId}
          GROUP BY 1) x), '[]'::json),
      'sectors', COALESCE((
        SELECT json_agg(x ORDER BY x.name, x.id) FROM (
          SELECT sec.id, sec.name,
                 ${sectorInventory} AS inv,
                 COALESCE((SELECT b.money FROM by_sector b WHERE b.sector_id = sec.id), (SELECT money FROM none)) AS money
          FROM sectors sec
          WHERE ${sectorListed}) x), '[]'::json),
      'timeline', COALESCE((
        SELECT json_agg(json_build_object('bucket', x.bucket, 'tickets', x.tickets, 'gross_amount', x.gross_amount) ORDER BY x.bucket)
        FROM timeline x), '[]'::json),
      'exact', (SELECT COALESCE(bool_and(x.exact), true) FROM timeline x)
    ) AS overview`,
  );
  type Raw = Record<string, unknown> & { inv?: Record<string, number>; money: Record<string, number> };
  const raw = parseJson(row!.overview) as unknown as { sessions: Raw[]; channels: Raw[]; rates: Raw[]; sectors: Raw[]; timeline: Overview['timeline']; exact: boolean };
  const flat = ({ inv, money: m, ...rest }: Raw) => ({ ...rest, ...(inv ?? {}), ...m });
  return {
    exact: raw.exact !== false,
    overview: {
      sessions: raw.sessions.map((r) => ({ ...flat(r), start_datetime: new Date(r.start_datetime as string) }) as unknown as SessionFigures),
      channels: raw.channels.map(flat) as unknown as Overview['channels'],
      rates: raw.rates.map(flat) as unknown as Overview['rates'],
      sectors: raw.sectors.map(flat) as unknown as Overview['sectors'],
      timeline: raw.timeline.map((p) => ({ ...p, tickets: Number(p.tickets), gross_amount: Number(p.gross_amount) })),
    },
  };
}

/** A place's status on the overview's heat map: a hold that has expired is free (D15), as in the figures. */
export type PlaceStatus = 'sold' | 'held' | 'free' | 'blocked';

export interface SeatMapSector {
  id: number;
  name: string;
  numbered: boolean;
  /** Places per status (a zone's places, or a numbered sector's seats). */
  sold: number;
  held: number;
  free: number;
  blocked: number;
}

export interface SeatMap {
  sectors: SeatMapSector[];
  /** Every numbered seat of the session with where the layout puts it. */
  seats: { sectorId: number; row: string; x: number; y: number; status: PlaceStatus }[];
}

// A session_seats row `ss`'s status on the heat map.
const placeStatus = (now: Date) => sql`CASE WHEN ss.status = 'held' AND ss.hold_expires_at > ${now} THEN 'held'
  WHEN ss.status IN ('sold', 'blocked') THEN ss.status ELSE 'free' END`;

/**
 * The places of one session for the heat map of its seats (D66): each sector (in the venue's order)
 * with its counts per status, and each numbered seat with where the layout puts it and its status.
 */
export async function sessionSeatMap(db: Db, sessionId: number, now: Date): Promise<SeatMap> {
  const [sectors, seats] = await Promise.all([
    queryRows<SeatMapSector>(
      db,
      sql`SELECT sec.id, sec.name, sec.numbered,
                 count(*) FILTER (WHERE p.st = 'sold')::int AS sold, count(*) FILTER (WHERE p.st = 'held')::int AS held,
                 count(*) FILTER (WHERE p.st = 'free')::int AS free, count(*) FILTER (WHERE p.st = 'blocked')::int AS blocked
          FROM (SELECT ss.sector_id, ${placeStatus(now)} AS st FROM session_seats ss WHERE ss.session_id = ${sessionId}) p
          JOIN sectors sec ON sec.id = p.sector_id
          GROUP BY sec.id, sec.name, sec.numbered, sec.sort_order
          ORDER BY sec.sort_order, sec.id`,
    ),
    queryRows<{ sector_id: number; row: string; x: number; y: number; status: PlaceStatus }>(
      db,
      sql`SELECT ss.sector_id, s.row, s.x, s.y, ${placeStatus(now)} AS status
          FROM session_seats ss JOIN seats s ON s.id = ss.seat_id
          WHERE ss.session_id = ${sessionId}`,
    ),
  ]);
  return {
    sectors: sectors.map((s) => ({ ...s, id: Number(s.id), sold: Number(s.sold), held: Number(s.held), free: Number(s.free), blocked: Number(s.blocked) })),
    seats: seats.map((s) => ({ sectorId: Number(s.sector_id), row: s.row, x: Number(s.x), y: Number(s.y), status: s.status })),
  };
}
