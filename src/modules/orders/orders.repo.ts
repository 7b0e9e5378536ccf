import { sql, type SQL } from 'drizzle-orm';
import { hotStatement, parseJson, queryRows, type Db, type Json } from '../../db/client.js';
import type { OrderStatus, OrderType } from '../../db/schema/index.js';
import type { OrderRows } from './orders.view.js';
import type { ItemAmounts, OrderAmounts, PricingItem, VoucherRule } from './orders.pricing.js';

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
  /** A card payment attempt of the order is open (D73): the cart is frozen. */
  paymentOpen: boolean;
}

interface RawOrder {
  id: string | number;
  channel_id: number;
  order_token: string;
  status: OrderStatus;
  type: OrderType;
  expires_at: Date | string | null;
  buyer_key: string | null;
  payment_open: boolean;
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
  paymentOpen: r.payment_open === true,
});

const ORDER_COLUMNS = sql`id, channel_id, order_token, status, type, expires_at, buyer_key,
  EXISTS (SELECT 1 FROM payments p WHERE p.order_id = orders.id AND p.status = 'pending') AS payment_open`;

/** The order named by a token (any channel), locked for the rest of the transaction. */
export async function lockOrderByToken(db: Db, orderToken: string): Promise<OrderRow | null> {
  const rows = await queryRows<RawOrder>(db, sql`SELECT ${ORDER_COLUMNS} FROM orders WHERE order_token = ${orderToken} FOR UPDATE`);
  return rows[0] ? orderRow(rows[0]) : null;
}

/**
 * The order of a channel named by a token, as `caller` may see it (D57, cart_open_to in
 * src/db/functions): `caller` is a CartChannel's `cartCaller` (a widget buyer of models C and D),
 * null or undefined for a caller who sees every order of the channel. The one lookup of the cart
 * routes: every read, change and cancel of a cart by its token goes through it, so an order another
 * widget buyer created is not found (404, D5). `lock`: FOR UPDATE, for the rest of the transaction.
 */
const channelOrder = (channelId: number, orderToken: string, caller: string | null | undefined, lock: boolean) =>
  sql`SELECT ${ORDER_COLUMNS} FROM orders
      WHERE order_token = ${orderToken} AND channel_id = ${channelId} AND cart_open_to(buyer_key, ${caller ?? null}::text)
      ${lock ? sql`FOR UPDATE` : sql``}`;

/** The order of a channel named by a token, open to `caller` (D57), locked for the rest of the transaction. */
export async function lockChannelOrder(db: Db, channelId: number, orderToken: string, caller: string | null | undefined): Promise<OrderRow | null> {
  const rows = await queryRows<RawOrder>(db, channelOrder(channelId, orderToken, caller, true));
  return rows[0] ? orderRow(rows[0]) : null;
}

/** The order with this id, locked for the rest of the transaction. */
export async function lockOrderById(db: Db, orderId: number): Promise<OrderRow | null> {
  const rows = await queryRows<RawOrder>(db, sql`SELECT ${ORDER_COLUMNS} FROM orders WHERE id = ${orderId} FOR UPDATE`);
  return rows[0] ? orderRow(rows[0]) : null;
}

/** The order of a channel named by a token, without locking (reads). */
export async function findOrder(db: Db, channelId: number, orderToken: string, caller: string | null | undefined): Promise<OrderRow | null> {
  const rows = await queryRows<RawOrder>(db, channelOrder(channelId, orderToken, caller, false));
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

/**
 * Inserts items at their held amounts (D75): the rate's price now and the fees of their event and
 * session now (ticket_fee); the caller reprices the order's discounts in the same transaction.
 */
export async function insertItems(db: Db, orderId: number, items: readonly NewItem[], now: Date): Promise<void> {
  if (items.length === 0) return;
  const values = sql.join(
    items.map(
      (i) =>
        sql`(${orderId}::bigint, ${i.eventId}::int, ${i.sessionId}::int, ${i.sectorId}::int, ${i.sessionSeatId}::bigint, ${i.rateId}::int, ${i.price}::int, ${now}::timestamptz)`,
    ),
    sql`, `,
  );
  await db.execute(sql`
    INSERT INTO order_items (order_id, event_id, session_id, sector_id, session_seat_id, rate_id,
                             base_amount, discount_amount, fee_amount, total_amount, created_at)
    SELECT v.order_id, v.event_id, v.session_id, v.sector_id, v.session_seat_id, v.rate_id, v.price, 0, f.fee, v.price + f.fee, v.at
    FROM (VALUES ${values}) AS v(order_id, event_id, session_id, sector_id, session_seat_id, rate_id, price, at),
         LATERAL (SELECT ticket_fee(v.price, v.event_id, v.session_id) AS fee) f`);
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

/**
 * Moves items to another rate: their price and fees are held anew at that rate's price and the
 * fees of now (D75: a change of rate is a new hold of the item at that rate; other items keep theirs).
 */
export async function setItemsRate(db: Db, orderId: number, itemIds: readonly number[], rateId: number): Promise<void> {
  await db.execute(sql`
    UPDATE order_items oi SET rate_id = r.id, base_amount = r.price, discount_amount = 0,
                              fee_amount = ticket_fee(r.price, oi.event_id, oi.session_id),
                              total_amount = r.price + ticket_fee(r.price, oi.event_id, oi.session_id)
    FROM rates r
    WHERE r.id = ${rateId} AND oi.order_id = ${orderId} AND oi.id = ANY(${intArray(itemIds)}) AND oi.rate_id <> r.id`);
}

export async function setOrderExpiry(db: Db, orderId: number, expiresAt: Date | null, now: Date): Promise<void> {
  await db.execute(sql`UPDATE orders SET expires_at = ${expiresAt}, updated_at = ${now} WHERE id = ${orderId}`);
}

export async function setOrderStatus(db: Db, orderId: number, status: OrderStatus, now: Date): Promise<void> {
  await db.execute(sql`UPDATE orders SET status = ${status}, expires_at = NULL, updated_at = ${now} WHERE id = ${orderId}`);
}

export interface PricingInputs {
  /** With `fee`: the fee held on the item. */
  items: PricingItem[];
  voucher: VoucherRule | null;
}

/**
 * What repricing needs: the items with their HELD amounts (D75: base and fee fixed at hold time,
 * never re-read from the rate or the fee rules) and the order's voucher (at most one).
 */
export async function loadPricingInputs(db: Db, orderId: number): Promise<PricingInputs> {
  const items = await queryRows<{ id: string | number; event_id: number; session_id: number; rate_id: number; base_amount: number; fee_amount: number }>(
    db,
    sql`SELECT oi.id, oi.event_id, oi.session_id, oi.rate_id, oi.base_amount, oi.fee_amount
        FROM order_items oi WHERE oi.order_id = ${orderId} ORDER BY oi.id`,
  );
  if (items.length === 0) return { items: [], voucher: null };
  const vouchers = await queryRows<{ kind: 'percent' | 'fixed'; value: number; event_id: number | null; session_id: number | null; rate_id: number | null }>(
    db,
    sql`SELECT v.kind, v.value, v.event_id, v.session_id, v.rate_id
        FROM order_vouchers ov JOIN vouchers v ON v.id = ov.voucher_id
        WHERE ov.order_id = ${orderId} ORDER BY ov.created_at LIMIT 1`,
  );
  const v = vouchers[0];
  return {
    items: items.map((i) => ({ id: Number(i.id), eventId: i.event_id, sessionId: i.session_id, rateId: i.rate_id, price: i.base_amount, fee: i.fee_amount })),
    voucher: v ? { kind: v.kind, value: v.value, eventId: v.event_id, sessionId: v.session_id, rateId: v.rate_id } : null,
  };
}

/**
 * The code of the order's voucher when its organiser has withdrawn it (D75: disabled, expired,
 * restricted away from every item); null otherwise. The rule is voucher_withdrawn (src/db/functions).
 */
export async function withdrawnVoucher(db: Db, orderId: number, now: Date): Promise<string | null> {
  const rows = await queryRows<{ code: string }>(
    db,
    sql`SELECT code FROM order_vouchers WHERE order_id = ${orderId} AND voucher_withdrawn(${orderId}::bigint, ${now}::timestamptz) LIMIT 1`,
  );
  return rows[0]?.code ?? null;
}

/** Drops the order's voucher when it no longer covers any item (the buyer removed the items it covered). */
export async function dropVoucherWithoutItems(db: Db, orderId: number): Promise<void> {
  await db.execute(sql`
    DELETE FROM order_vouchers ov USING vouchers v
    WHERE ov.order_id = ${orderId} AND v.id = ov.voucher_id
      AND NOT EXISTS (SELECT 1 FROM order_items i WHERE i.order_id = ${orderId}
                        AND (v.event_id IS NULL OR v.event_id = i.event_id)
                        AND (v.session_id IS NULL OR v.session_id = i.session_id)
                        AND (v.rate_id IS NULL OR v.rate_id = i.rate_id))`);
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

interface RawHold {
  outcome: HoldOutcome['outcome'];
  order_id?: number | string;
  session_ids?: number[] | null;
  has_voucher?: boolean;
  rows?: OrderRows;
  status?: 'completed' | 'cancelled' | 'expired';
  index?: number;
  session_seat_id?: number;
  errors?: { index: number; field: 'zone' | 'rate'; session_id: number }[];
  session_id?: number | null;
  cap?: 'items_per_order' | 'live_orders' | 'session_tickets';
  limit?: number;
  sector_name?: string;
  row?: string | null;
  number?: string | null;
}

/** What cart_hold_seats (src/db/functions) answered; every outcome but `ok` wrote nothing. */
export type HoldOutcome =
  | { outcome: 'ok'; orderId: number; sessionIds: number[]; hasVoucher: boolean; rows: OrderRows }
  | { outcome: 'order_not_found' }
  | { outcome: 'needs_transaction' }
  | { outcome: 'retry' }
  | { outcome: 'order_state'; status: 'completed' | 'cancelled' | 'expired' }
  | { outcome: 'duplicate'; index: number }
  | { outcome: 'seat_not_found'; sessionSeatId: number }
  | { outcome: 'invalid'; errors: { index: number; field: 'zone' | 'rate'; sessionId: number }[] }
  | { outcome: 'not_on_sale'; sessionId: number }
  | { outcome: 'hold_limit_reached'; cap: 'items_per_order' | 'live_orders' | 'session_tickets'; limit: number; sessionId: number | null }
  | { outcome: 'seat_unavailable'; seat: { id: number; sectorName: string; row: string | null; number: string | null } };

export interface HoldRequest {
  channelId: number;
  orderToken: string;
  create: boolean;
  reference: string;
  lang: string;
  currency: string;
  newExpiry: Date;
  items: readonly { session_seat_id: number; rate_id: number }[];
  maxItems: number;
  buyerKey: string | null;
  maxLiveOrders: number;
  now: Date;
  /** The caller runs this inside its own transaction (and reprices a voucher's discounts after). */
  inTransaction: boolean;
}

/**
 * Holds seats for a cart in ONE statement (cart_hold_seats, src/db/functions, the one home of the
 * hold's rules): locks the order (or inserts it when `create`), checks the seats, rates, sale and
 * hold caps (D44), claims every seat or none (D14, D18), inserts the items at their held amounts
 * (D75) and adds them to the order's totals. `buyerKey` is a new order's buyer; an add counts
 * against the order's own.
 */
const cartHoldSeats = hotStatement<{ r: Json<RawHold> }>(
  'cart_hold_seats',
  'SELECT cart_hold_seats($1::int, $2::text, $3::boolean, $4::text, $5::text, $6::text, $7::timestamptz, $8::bigint[], $9::bigint[], $10::int, $11::timestamptz, $12::text, $13::int, $14::boolean) AS r',
);

/** A bigint[] parameter's text ('{1,2}'). */
const intArrayText = (ids: readonly number[]) => `{${ids.map((n) => Math.trunc(n)).join(',')}}`;

export async function holdSeats(db: Db, h: HoldRequest): Promise<HoldOutcome> {
  const [row] = await cartHoldSeats(db, [
    h.channelId, h.orderToken, h.create, h.reference, h.lang, h.currency, h.newExpiry, intArrayText(h.items.map((i) => i.session_seat_id)),
    intArrayText(h.items.map((i) => i.rate_id)), h.maxItems, h.now, h.buyerKey, h.maxLiveOrders, h.inTransaction,
  ]);
  const r = parseJson(row!.r);
  switch (r.outcome) {
    case 'ok':
      return {
        outcome: 'ok',
        orderId: Number(r.order_id),
        sessionIds: (r.session_ids ?? []).map(Number),
        hasVoucher: Boolean(r.has_voucher),
        rows: r.rows ?? null,
      };
    case 'order_state':
      return { outcome: 'order_state', status: r.status! };
    case 'duplicate':
      return { outcome: 'duplicate', index: Number(r.index) };
    case 'seat_not_found':
      return { outcome: 'seat_not_found', sessionSeatId: Number(r.session_seat_id) };
    case 'invalid':
      return {
        outcome: 'invalid',
        errors: (r.errors ?? []).map((e) => ({ index: Number(e.index), field: e.field, sessionId: Number(e.session_id) })),
      };
    case 'not_on_sale':
      return { outcome: 'not_on_sale', sessionId: Number(r.session_id) };
    case 'hold_limit_reached':
      return { outcome: 'hold_limit_reached', cap: r.cap!, limit: Number(r.limit), sessionId: r.session_id == null ? null : Number(r.session_id) };
    case 'seat_unavailable':
      return { outcome: 'seat_unavailable', seat: { id: Number(r.session_seat_id), sectorName: r.sector_name!, row: r.row ?? null, number: r.number ?? null } };
    default:
      return { outcome: r.outcome === 'order_not_found' ? 'order_not_found' : r.outcome === 'retry' ? 'retry' : 'needs_transaction' };
  }
}
