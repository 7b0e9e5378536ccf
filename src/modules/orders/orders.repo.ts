import { sql, type SQL } from 'drizzle-orm';
import { parseJson, queryRows, type Db, type Json } from '../../db/client.js';
import type { OrderStatus, OrderType } from '../../db/schema/index.js';
import type { OrderRows } from './orders.view.js';
import type { FeeRule, ItemAmounts, OrderAmounts, PricingItem, VoucherRule } from './orders.pricing.js';

// SQL of the cart. Every function takes a Db, which is a transaction inside a use case. Claims are
// conditional UPDATEs whose returned rows are counted by the caller (docs/architecture.md).

/** A PostgreSQL integer array parameter, the same on both drivers. */
export const intArray = (ids: readonly number[]): SQL => sql`${`{${ids.map((n) => Math.trunc(n)).join(',')}}`}::bigint[]`;

/** An inventory row is free at `now` (D15): the SQL rule seat_is_free (src/db/functions), inlined by the planner. */
const isFree = (now: Date) => sql`seat_is_free(status, hold_expires_at, ${now}::timestamptz)`;

export interface OrderRow {
  id: number;
  channelId: number;
  orderToken: string;
  status: OrderStatus;
  type: OrderType;
  expiresAt: Date | null;
  /** Who the holds count against (D44, orders.buyer.ts); null = no per-buyer caps. */
  buyerKey: string | null;
}

interface RawOrder {
  id: string | number;
  channel_id: number;
  order_token: string;
  status: OrderStatus;
  type: OrderType;
  expires_at: Date | string | null;
  buyer_key: string | null;
}

const toDate = (v: Date | string | null): Date | null => (v === null ? null : v instanceof Date ? v : new Date(v));

const orderRow = (r: RawOrder): OrderRow => ({
  id: Number(r.id),
  channelId: r.channel_id,
  orderToken: r.order_token,
  status: r.status,
  type: r.type,
  expiresAt: toDate(r.expires_at),
  buyerKey: r.buyer_key,
});

const ORDER_COLUMNS = sql`id, channel_id, order_token, status, type, expires_at, buyer_key`;

/** The order named by a token (any channel), locked for the rest of the transaction. */
export async function lockOrderByToken(db: Db, orderToken: string): Promise<OrderRow | null> {
  const rows = await queryRows<RawOrder>(db, sql`SELECT ${ORDER_COLUMNS} FROM orders WHERE order_token = ${orderToken} FOR UPDATE`);
  return rows[0] ? orderRow(rows[0]) : null;
}

/** The order of a channel named by a token, locked for the rest of the transaction. */
export async function lockChannelOrder(db: Db, channelId: number, orderToken: string): Promise<OrderRow | null> {
  const rows = await queryRows<RawOrder>(
    db,
    sql`SELECT ${ORDER_COLUMNS} FROM orders WHERE order_token = ${orderToken} AND channel_id = ${channelId} FOR UPDATE`,
  );
  return rows[0] ? orderRow(rows[0]) : null;
}

/** The order of a channel named by a token, without locking (reads). */
export async function findOrder(db: Db, channelId: number, orderToken: string): Promise<OrderRow | null> {
  const rows = await queryRows<RawOrder>(
    db,
    sql`SELECT ${ORDER_COLUMNS} FROM orders WHERE order_token = ${orderToken} AND channel_id = ${channelId}`,
  );
  return rows[0] ? orderRow(rows[0]) : null;
}

export interface NewOrder {
  orderToken: string;
  reference: string;
  channelId: number;
  lang: string;
  currency: string;
  expiresAt: Date | null;
  buyerKey: string | null;
  now: Date;
}

/**
 * Inserts an empty pending order; null when the token or the reference is already taken (the
 * caller tells which). A concurrent insert of the same token waits for the other transaction.
 */
export async function insertOrder(db: Db, o: NewOrder): Promise<OrderRow | null> {
  const rows = await queryRows<RawOrder>(
    db,
    sql`INSERT INTO orders (order_token, reference, channel_id, lang, currency, expires_at, buyer_key, created_at, updated_at)
        VALUES (${o.orderToken}, ${o.reference}, ${o.channelId}, ${o.lang}, ${o.currency}, ${o.expiresAt}, ${o.buyerKey}, ${o.now}, ${o.now})
        ON CONFLICT DO NOTHING
        RETURNING ${ORDER_COLUMNS}`,
  );
  return rows[0] ? orderRow(rows[0]) : null;
}

/** A session of the order's items that is not on sale at `now` (session_is_on_sale, D74), or null. */
export async function sessionOfOrderNotOnSale(db: Db, orderId: number, now: Date): Promise<number | null> {
  const rows = await queryRows<{ session_id: number }>(
    db,
    sql`SELECT DISTINCT session_id FROM order_items
        WHERE order_id = ${orderId} AND NOT session_is_on_sale(session_id, ${now}::timestamptz) ORDER BY session_id LIMIT 1`,
  );
  return rows[0] ? Number(rows[0].session_id) : null;
}

export async function countItems(db: Db, orderId: number): Promise<number> {
  const [row] = await queryRows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM order_items WHERE order_id = ${orderId}`);
  return Number(row?.n ?? 0);
}

/** An inventory row of an event the channel sells. */
export interface SeatInfo {
  id: number;
  sessionId: number;
  eventId: number;
  sectorId: number;
  seatId: number | null;
  row: string | null;
  number: string | null;
  sectorName: string;
  onSale: boolean;
  /** The session's hold cap per buyer (D44); null = none. */
  maxTicketsPerBuyer: number | null;
}

export interface ZoneInfo {
  sectorId: number;
  sectorName: string;
  numbered: boolean;
  sessionId: number;
  eventId: number;
  onSale: boolean;
  maxTicketsPerBuyer: number | null;
}

/** A sector of the venue of a session the channel sells; null when there is none. */
export async function findSellableSector(db: Db, channelId: number, sessionId: number, sectorId: number, now: Date): Promise<ZoneInfo | null> {
  const rows = await queryRows<{ sector_id: number; sector_name: string; numbered: boolean; session_id: number; event_id: number; on_sale: boolean; max_tickets_per_buyer: number | null }>(
    db,
    sql`SELECT sec.id AS sector_id, sec.name AS sector_name, sec.numbered, se.id AS session_id, se.event_id,
               session_is_on_sale(se.id, ${now}::timestamptz) AS on_sale, se.max_tickets_per_buyer
        FROM sessions se
        JOIN events e ON e.id = se.event_id
        JOIN channel_events ce ON ce.event_id = e.id AND ce.channel_id = ${channelId}
        JOIN sectors sec ON sec.venue_id = se.venue_id AND sec.id = ${sectorId}
        WHERE se.id = ${sessionId}`,
  );
  const r = rows[0];
  return r
    ? {
        sectorId: r.sector_id,
        sectorName: r.sector_name,
        numbered: r.numbered,
        sessionId: r.session_id,
        eventId: r.event_id,
        onSale: r.on_sale,
        maxTicketsPerBuyer: r.max_tickets_per_buyer,
      }
    : null;
}

export interface RateInfo {
  id: number;
  sessionId: number;
  sectorId: number | null;
  price: number;
}

export async function findRates(db: Db, rateIds: readonly number[]): Promise<RateInfo[]> {
  const rows = await queryRows<{ id: number; session_id: number; sector_id: number | null; price: number }>(
    db,
    sql`SELECT id, session_id, sector_id, price FROM rates WHERE id = ANY(${intArray(rateIds)})`,
  );
  return rows.map((r) => ({ id: r.id, sessionId: r.session_id, sectorId: r.sector_id, price: r.price }));
}

export interface AddContext {
  seats: SeatInfo[];
  rates: RateInfo[];
  /** Fee rules of the seats' events and sessions. */
  fees: FeeRule[];
  itemCount: number;
  hasVoucher: boolean;
}


/**
 * Everything adding seats to a (locked) order needs, in one round trip: the seats as the channel
 * may sell them, the rates, the fee rules, and the order's item count and voucher. Run after the
 * order lock so that the count is current.
 */
export async function loadAddContext(db: Db, channelId: number, orderId: number, sessionSeatIds: readonly number[], rateIds: readonly number[], now: Date): Promise<AddContext> {
  const seatIds = intArray(sessionSeatIds);
  const [row] = await queryRows<{
    seats: Json<{ id: number; session_id: number; event_id: number; sector_id: number; seat_id: number | null; row: string | null; number: string | null; sector_name: string; on_sale: boolean; max_tickets_per_buyer: number | null }[]>;
    rates: Json<{ id: number; session_id: number; sector_id: number | null; price: number }[]>;
    fees: Json<{ event_id: number | null; session_id: number | null; kind: 'fixed' | 'percent'; amount: number }[]>;
    item_count: number;
    has_voucher: boolean;
  }>(
    db,
    sql`WITH s AS (
          SELECT ss.id, ss.session_id, se.event_id, ss.sector_id, ss.seat_id, st.row, st.number, sec.name AS sector_name,
                 session_is_on_sale(ss.session_id, ${now}::timestamptz) AS on_sale, se.max_tickets_per_buyer
          FROM session_seats ss
          JOIN sessions se ON se.id = ss.session_id
          JOIN events e ON e.id = se.event_id
          JOIN channel_events ce ON ce.event_id = e.id AND ce.channel_id = ${channelId}
          JOIN sectors sec ON sec.id = ss.sector_id
          LEFT JOIN seats st ON st.id = ss.seat_id
          WHERE ss.id = ANY(${seatIds}))
        SELECT
          (SELECT COALESCE(json_agg(s), '[]'::json) FROM s) AS seats,
          (SELECT COALESCE(json_agg(json_build_object('id', r.id, 'session_id', r.session_id, 'sector_id', r.sector_id, 'price', r.price)), '[]'::json)
             FROM rates r WHERE r.id = ANY(${intArray(rateIds)})) AS rates,
          (SELECT COALESCE(json_agg(json_build_object('event_id', f.event_id, 'session_id', f.session_id, 'kind', f.kind, 'amount', f.amount) ORDER BY f.id), '[]'::json)
             FROM fees f WHERE f.event_id IN (SELECT event_id FROM s) OR f.session_id IN (SELECT session_id FROM s)) AS fees,
          (SELECT count(*)::int FROM order_items WHERE order_id = ${orderId}) AS item_count,
          EXISTS (SELECT 1 FROM order_vouchers WHERE order_id = ${orderId}) AS has_voucher`,
  );
  return {
    seats: parseJson(row!.seats).map((r) => ({
      id: Number(r.id),
      sessionId: r.session_id,
      eventId: r.event_id,
      sectorId: r.sector_id,
      seatId: r.seat_id,
      row: r.row,
      number: r.number,
      sectorName: r.sector_name,
      onSale: r.on_sale,
      maxTicketsPerBuyer: r.max_tickets_per_buyer,
    })),
    rates: parseJson(row!.rates).map((r) => ({ id: r.id, sessionId: r.session_id, sectorId: r.sector_id, price: r.price })),
    fees: parseJson(row!.fees).map((f) => ({ eventId: f.event_id, sessionId: f.session_id, kind: f.kind, amount: f.amount })),
    itemCount: Number(row!.item_count),
    hasVoucher: Boolean(row!.has_voucher),
  };
}

/**
 * Claims one seat for a cart and, in the same statement, adds its item with its amounts and adds
 * those to the order's totals (and sets its expiry). False when the seat is not free (D14: the
 * claim's row count decides; nothing is written then).
 */
export async function claimSeatAsItem(
  db: Db,
  a: { orderId: number; seat: SeatInfo; rateId: number; amounts: ItemAmounts; holdUntil: Date; now: Date },
): Promise<boolean> {
  const { base, discount, fee, total } = a.amounts;
  const rows = await queryRows<{ claimed: number }>(
    db,
    sql`WITH claimed AS (
          UPDATE session_seats SET status = 'held', order_id = ${a.orderId}, hold_expires_at = ${a.holdUntil}
          WHERE id = ${a.seat.id} AND ${isFree(a.now)}
          RETURNING id),
        item AS (
          INSERT INTO order_items (order_id, event_id, session_id, sector_id, session_seat_id, rate_id,
                                   base_amount, discount_amount, fee_amount, total_amount, created_at)
          SELECT ${a.orderId}, ${a.seat.eventId}, ${a.seat.sessionId}, ${a.seat.sectorId}, id, ${a.rateId},
                 ${base}, ${discount}, ${fee}, ${total}, ${a.now}
          FROM claimed
          RETURNING id)
        UPDATE orders SET base_amount = base_amount + ${base}, discount_amount = discount_amount + ${discount},
                          fee_amount = fee_amount + ${fee}, total_amount = total_amount + ${total},
                          expires_at = ${a.holdUntil}, updated_at = ${a.now}
        WHERE id = ${a.orderId} AND EXISTS (SELECT 1 FROM item)
        RETURNING 1 AS claimed`,
  );
  return rows.length === 1;
}

/**
 * Claims up to `quantity` free places of an unnumbered zone, lowest ids first, skipping rows other
 * transactions are claiming right now; returns the ids claimed (the caller checks the count).
 */
export async function claimZonePlaces(
  db: Db,
  z: { sessionId: number; sectorId: number; quantity: number; orderId: number; holdUntil: Date; now: Date },
): Promise<number[]> {
  const rows = await queryRows<{ id: number }>(
    db,
    sql`UPDATE session_seats SET status = 'held', order_id = ${z.orderId}, hold_expires_at = ${z.holdUntil}
        WHERE id IN (
          SELECT id FROM session_seats
          WHERE session_id = ${z.sessionId} AND sector_id = ${z.sectorId} AND seat_id IS NULL AND ${isFree(z.now)}
          ORDER BY id LIMIT ${z.quantity}
          FOR UPDATE SKIP LOCKED)
        AND ${isFree(z.now)}
        RETURNING id`,
  );
  return rows.map((r) => Number(r.id)).sort((a, b) => a - b);
}

/** Frees the rows an order holds (all of them, or the listed ones); returns their session ids. */
export async function releaseHeldRows(db: Db, orderId: number, sessionSeatIds?: readonly number[]): Promise<number[]> {
  const only = sessionSeatIds ? sql`AND id = ANY(${intArray(sessionSeatIds)})` : sql``;
  const rows = await queryRows<{ session_id: number }>(
    db,
    sql`UPDATE session_seats SET status = 'available', order_id = NULL, hold_expires_at = NULL
        WHERE order_id = ${orderId} AND status = 'held' ${only}
        RETURNING session_id`,
  );
  return rows.map((r) => r.session_id);
}

export interface NewItem {
  eventId: number;
  sessionId: number;
  sectorId: number;
  sessionSeatId: number;
  rateId: number;
  price: number;
}

/** Inserts items at their base price; the caller reprices the order in the same transaction. */
export async function insertItems(db: Db, orderId: number, items: readonly NewItem[], now: Date): Promise<void> {
  if (items.length === 0) return;
  const values = sql.join(
    items.map(
      (i) =>
        sql`(${orderId}, ${i.eventId}, ${i.sessionId}, ${i.sectorId}, ${i.sessionSeatId}, ${i.rateId}, ${i.price}, 0, 0, ${i.price}, ${now})`,
    ),
    sql`, `,
  );
  await db.execute(sql`
    INSERT INTO order_items (order_id, event_id, session_id, sector_id, session_seat_id, rate_id,
                             base_amount, discount_amount, fee_amount, total_amount, created_at)
    VALUES ${values}`);
}

export interface ItemRow {
  id: number;
  eventId: number;
  sessionId: number;
  sectorId: number;
  sessionSeatId: number;
  rateId: number;
}

/** The order's items with the listed ids (all of them when ids is omitted). */
export async function findItems(db: Db, orderId: number, itemIds?: readonly number[]): Promise<ItemRow[]> {
  const only = itemIds ? sql`AND id = ANY(${intArray(itemIds)})` : sql``;
  const rows = await queryRows<{ id: string | number; event_id: number; session_id: number; sector_id: number; session_seat_id: number; rate_id: number }>(
    db,
    sql`SELECT id, event_id, session_id, sector_id, session_seat_id, rate_id FROM order_items WHERE order_id = ${orderId} ${only} ORDER BY id`,
  );
  return rows.map((r) => ({ id: Number(r.id), eventId: r.event_id, sessionId: r.session_id, sectorId: r.sector_id, sessionSeatId: r.session_seat_id, rateId: r.rate_id }));
}

export async function deleteItems(db: Db, orderId: number, itemIds: readonly number[]): Promise<void> {
  await db.execute(sql`DELETE FROM order_items WHERE order_id = ${orderId} AND id = ANY(${intArray(itemIds)})`);
}

export async function setItemsRate(db: Db, orderId: number, itemIds: readonly number[], rateId: number): Promise<void> {
  await db.execute(sql`UPDATE order_items SET rate_id = ${rateId} WHERE order_id = ${orderId} AND id = ANY(${intArray(itemIds)})`);
}

export async function setOrderExpiry(db: Db, orderId: number, expiresAt: Date | null, now: Date): Promise<void> {
  await db.execute(sql`UPDATE orders SET expires_at = ${expiresAt}, updated_at = ${now} WHERE id = ${orderId}`);
}

export async function setOrderStatus(db: Db, orderId: number, status: OrderStatus, now: Date): Promise<void> {
  await db.execute(sql`UPDATE orders SET status = ${status}, expires_at = NULL, updated_at = ${now} WHERE id = ${orderId}`);
}

export interface PricingInputs {
  items: PricingItem[];
  fees: FeeRule[];
  voucher: VoucherRule | null;
}

/** What pricing needs: the items with their rates' prices, the fee rules that touch them, the voucher. */
export async function loadPricingInputs(db: Db, orderId: number): Promise<PricingInputs> {
  const items = await queryRows<{ id: string | number; event_id: number; session_id: number; rate_id: number; price: number }>(
    db,
    sql`SELECT oi.id, oi.event_id, oi.session_id, oi.rate_id, r.price
        FROM order_items oi JOIN rates r ON r.id = oi.rate_id
        WHERE oi.order_id = ${orderId} ORDER BY oi.id`,
  );
  if (items.length === 0) return { items: [], fees: [], voucher: null };
  const eventIds = [...new Set(items.map((i) => i.event_id))];
  const sessionIds = [...new Set(items.map((i) => i.session_id))];
  const fees = await queryRows<{ event_id: number | null; session_id: number | null; kind: 'fixed' | 'percent'; amount: number }>(
    db,
    sql`SELECT event_id, session_id, kind, amount FROM fees
        WHERE event_id = ANY(${intArray(eventIds)}) OR session_id = ANY(${intArray(sessionIds)})
        ORDER BY id`,
  );
  const vouchers = await queryRows<{ kind: 'percent' | 'fixed'; value: number; event_id: number | null; session_id: number | null; rate_id: number | null }>(
    db,
    sql`SELECT v.kind, v.value, v.event_id, v.session_id, v.rate_id
        FROM order_vouchers ov JOIN vouchers v ON v.id = ov.voucher_id
        WHERE ov.order_id = ${orderId} ORDER BY ov.created_at LIMIT 1`,
  );
  const v = vouchers[0];
  return {
    items: items.map((i) => ({ id: Number(i.id), eventId: i.event_id, sessionId: i.session_id, rateId: i.rate_id, price: i.price })),
    fees: fees.map((f) => ({ eventId: f.event_id, sessionId: f.session_id, kind: f.kind, amount: f.amount })),
    voucher: v ? { kind: v.kind, value: v.value, eventId: v.event_id, sessionId: v.session_id, rateId: v.rate_id } : null,
  };
}

/** Writes every item's amounts and the order's totals (their sum) in two statements. */
export async function writeAmounts(db: Db, orderId: number, items: readonly ItemAmounts[], totals: OrderAmounts, now: Date): Promise<void> {
  if (items.length > 0) {
    const values = sql.join(
      items.map((i) => sql`(${i.id}::bigint, ${i.base}::int, ${i.discount}::int, ${i.fee}::int, ${i.total}::int)`),
      sql`, `,
    );
    await db.execute(sql`
      UPDATE order_items oi SET base_amount = v.base, discount_amount = v.discount, fee_amount = v.fee, total_amount = v.total
      FROM (VALUES ${values}) AS v(id, base, discount, fee, total)
      WHERE oi.id = v.id AND oi.order_id = ${orderId}
        AND (oi.base_amount, oi.discount_amount, oi.fee_amount) IS DISTINCT FROM (v.base, v.discount, v.fee)`);
  }
  await db.execute(sql`
    UPDATE orders SET base_amount = ${totals.base}, discount_amount = ${totals.discount}, fee_amount = ${totals.fee},
                      total_amount = ${totals.total}, updated_at = ${now}
    WHERE id = ${orderId}`);
}

/** Removes every voucher from an order (an emptied cart gives its voucher back). */
export async function deleteOrderVouchers(db: Db, orderId: number): Promise<void> {
  await db.execute(sql`DELETE FROM order_vouchers WHERE order_id = ${orderId}`);
}

/**
 * Marks up to `limit` expired carts `expired` and frees their holds, skipping carts another
 * transaction has locked (several instances may sweep at once). Returns the orders and sessions touched.
 */
export async function sweepExpiredBatch(
  db: Db,
  now: Date,
  limit: number,
): Promise<{ orderIds: number[]; sessionIds: number[]; channelIds: number[] }> {
  const orders = await queryRows<{ id: string | number; channel_id: number }>(
    db,
    sql`UPDATE orders SET status = 'expired', updated_at = ${now}
        WHERE id IN (
          SELECT id FROM orders
          WHERE status = 'pending' AND expires_at <= ${now}
          ORDER BY expires_at, id LIMIT ${limit}
          FOR UPDATE SKIP LOCKED)
        RETURNING id, channel_id`,
  );
  const orderIds = orders.map((o) => Number(o.id));
  const channelIds = [...new Set(orders.map((o) => o.channel_id))];
  if (orderIds.length === 0) return { orderIds, sessionIds: [], channelIds };
  const rows = await queryRows<{ session_id: number }>(
    db,
    sql`UPDATE session_seats SET status = 'available', order_id = NULL, hold_expires_at = NULL
        WHERE order_id = ANY(${intArray(orderIds)}) AND status = 'held'
        RETURNING session_id`,
  );
  return { orderIds, sessionIds: [...new Set(rows.map((r) => r.session_id))], channelIds };
}

export type FastHold =
  | { outcome: 'ok'; orderId: number; sessionId: number; rows: OrderRows }
  | { outcome: 'seat_unavailable'; seat: { id: number; sectorName: string; row: string | null; number: string | null } }
  | { outcome: 'hold_limit_reached'; cap: 'live_orders' | 'session_tickets'; limit: number; sessionId: number }
  | { outcome: 'fallback' };

/**
 * Holds one seat for a cart in ONE statement (cart_hold_seat, src/db/functions): locks the order (or
 * inserts it when `create`), claims the seat with the conditional UPDATE, inserts the item priced
 * from its rate and fees, adds to the order's totals and returns the order view. It applies the
 * hold caps (D44) of `buyerKey` (a new order's buyer; an existing order's own is used for an add).
 * Outcome 'fallback' (nothing written) leaves the request to the full transaction of the service.
 */
export async function holdSeatInOneStatement(
  db: Db,
  h: {
    channelId: number;
    orderToken: string;
    create: boolean;
    reference: string;
    lang: string;
    currency: string;
    newExpiry: Date;
    sessionSeatId: number;
    rateId: number;
    maxItems: number;
    buyerKey: string | null;
    maxLiveOrders: number;
    now: Date;
  },
): Promise<FastHold> {
  const [row] = await queryRows<{
    r: Json<{ outcome: string; order_id?: number; session_id?: number; rows?: OrderRows; session_seat_id?: number; sector_name?: string; row?: string | null; number?: string | null; cap?: 'live_orders' | 'session_tickets'; limit?: number }>;
  }>(
    db,
    sql`SELECT cart_hold_seat(${h.channelId}::int, ${h.orderToken}::text, ${h.create}::boolean, ${h.reference}::text, ${h.lang}::text,
                              ${h.currency}::text, ${h.newExpiry}::timestamptz, ${Math.trunc(h.sessionSeatId)}::bigint,
                              ${Math.trunc(h.rateId)}::bigint, ${h.maxItems}::int, ${h.now}::timestamptz,
                              ${h.buyerKey}::text, ${h.maxLiveOrders}::int) AS r`,
  );
  const r = parseJson(row!.r);
  if (r.outcome === 'ok') return { outcome: 'ok', orderId: Number(r.order_id), sessionId: Number(r.session_id), rows: r.rows ?? null };
  if (r.outcome === 'hold_limit_reached') return { outcome: 'hold_limit_reached', cap: r.cap!, limit: Number(r.limit), sessionId: Number(r.session_id) };
  if (r.outcome === 'seat_unavailable') {
    return { outcome: 'seat_unavailable', seat: { id: Number(r.session_seat_id), sectorName: r.sector_name!, row: r.row ?? null, number: r.number ?? null } };
  }
  return { outcome: 'fallback' };
}
