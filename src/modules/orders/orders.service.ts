import crypto from 'node:crypto';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { AppError, type FieldErrors, invalidData } from '../../http/errors.js';
import { inventoryChanged } from '../../lib/inventory-events.js';
import { countHolds } from '../../platform/metrics.js';
import type { ChannelRecord } from '../../db/channel-record.js';
import type { BuyerKey } from './orders.buyer.js';
import { assertHoldCaps, holdLimitReached } from './hold-caps.service.js';
import { buildOrderView, orderViewFromRows, type OrderView } from './orders.view.js';
import * as repo from './orders.repo.js';
import { notOnSaleError } from '../catalogue/sale-state.js';
import { recordIntegrationStep } from '../../platform/integration-checklist.js';
import type { OrderRow, SeatInfo } from './orders.repo.js';
import { priceItems, rateFitsUnit, sumAmounts } from './orders.pricing.js';

// Cart use cases. Each takes the channel and the order token, so that the B2B routes and the
// portal's public cart call the same functions; each runs in one transaction that first locks the
// order row (changes to one cart are serialised), claims inventory with conditional UPDATEs in
// ascending id order, keeps every amount consistent (item and order totals), and announces the
// inventory change after commit.

export interface ItemRequest {
  session_seat_id: number;
  rate_id: number;
}

export interface SectorRequest {
  sector_id: number;
  rate_id: number;
  quantity: number;
}

const REFERENCE_ALPHABET = 'ABCDEFGHJKMNPQRSTVWXYZ0123456789'; // 32 characters

/** A readable order reference: `TQ-` + 8 base32 characters (no I, L, O, U: easy to read aloud). */
export function newReference(): string {
  let out = 'TQ-';
  for (const byte of crypto.randomBytes(8)) out += REFERENCE_ALPHABET[byte % 32];
  return out;
}

const orderNotFound = () => new AppError('not_found', 'Order not found');

/** A pending cart whose lifetime has run out, swept or not (D15). */
const isTimedOut = (order: Pick<OrderRow, 'status' | 'expiresAt'>, now: Date) =>
  order.status === 'expired' || (order.status === 'pending' && order.expiresAt !== null && order.expiresAt <= now);

/** 409 unless the order is a live cart. */
function assertModifiable(order: OrderRow, now: Date): void {
  if (order.status === 'completed') throw new AppError('order_completed', 'The order is completed and can no longer be changed');
  if (order.status === 'cancelled') throw new AppError('order_not_modifiable', 'The order is cancelled and can no longer be changed');
  if (isTimedOut(order, now)) throw new AppError('order_expired', 'The order has expired; start a new order');
}

/** The channel's cart lifetime in milliseconds (D13; a channel may override the deployment's). */
const cartTtlMs = (ctx: AppContext, channel: ChannelRecord) => (channel.cartTtlSeconds ?? ctx.config.cartTtlSeconds) * 1000;

/**
 * Locks a live cart of the channel for a change: 404 for another channel's order (D5), 409 when not
 * live, 409 `not_on_sale` when a session of its items is no longer on sale (D59, D74: every cart
 * write; only deleting the order stays possible).
 */
async function lockCartForChange(tx: Db, channel: ChannelRecord, orderToken: string, now: Date): Promise<OrderRow> {
  const order = await repo.lockChannelOrder(tx, channel.id, orderToken);
  if (!order) throw orderNotFound();
  assertModifiable(order, now);
  const closed = await repo.sessionOfOrderNotOnSale(tx, order.id, now);
  if (closed !== null) throw await notOnSaleError(tx, closed);
  return order;
}

/** Recomputes every amount of the order from its items, fee rules and voucher (same transaction). */
export async function repriceOrder(tx: Db, orderId: number, now: Date): Promise<void> {
  const inputs = await repo.loadPricingInputs(tx, orderId);
  const items = priceItems(inputs.items, inputs.fees, inputs.voucher);
  await repo.writeAmounts(tx, orderId, items, sumAmounts(items), now);
}

type SeatName = Pick<SeatInfo, 'id' | 'sectorName' | 'row' | 'number'>;

/** 409 naming the seat that another live order holds. */
const seatUnavailable = (seat: SeatName) =>
  new AppError('seat_unavailable', `Seat ${seat.sectorName}, row ${seat.row}, number ${seat.number} is not available`, {
    session_seat_id: [String(seat.id)],
  });

/** Seats and rates of an add request, checked: 404 unknown seat, 422 wrong rate or zone place (the caller checks the sale). */
function resolveSeatRequests(context: repo.AddContext, requests: readonly ItemRequest[], fieldPrefix: (i: number) => string) {
  const seats = new Map(context.seats.map((s) => [s.id, s]));
  const rates = new Map(context.rates.map((r) => [r.id, r]));
  const errors: FieldErrors = {};
  const resolved = requests.map((req, i) => {
    const seat = seats.get(req.session_seat_id);
    if (!seat) throw new AppError('not_found', `Seat ${req.session_seat_id} not found`);
    if (seat.seatId === null) {
      errors[`${fieldPrefix(i)}session_seat_id`] = ['is a place of an unnumbered zone; add it with items/sector'];
    }
    const rate = rates.get(req.rate_id);
    if (!rate || !rateFitsUnit(rate, seat)) {
      errors[`${fieldPrefix(i)}rate_id`] = [`is not a rate of session ${seat.sessionId} for this seat`];
    }
    return { seat, rate: rate! };
  });
  if (Object.keys(errors).length) throw invalidData(errors);
  return resolved;
}

/**
 * The expiry of a new cart lifetime (D13), to the millisecond: the order's `expires_at` keeps its
 * milliseconds (orders.view.ts), so a client counts down exactly the hold's lifetime.
 */
const newLifetime = (ctx: AppContext, channel: ChannelRecord, now: Date) => new Date(now.getTime() + cartTtlMs(ctx, channel));

/** The hold expiry of a cart: its own, or a new lifetime when it is empty (written to the order). */
async function holdUntil(ctx: AppContext, tx: Db, channel: ChannelRecord, order: OrderRow, now: Date): Promise<Date> {
  if (order.expiresAt) return order.expiresAt;
  const until = newLifetime(ctx, channel, now);
  await repo.setOrderExpiry(tx, order.id, until, now);
  order.expiresAt = until;
  return until;
}

/**
 * Claims seats for a locked live cart, all or nothing, and adds them as items. Returns the sessions
 * touched. Without a voucher an item's amounts depend on that item alone, so each claim writes its
 * item and the order's totals in one statement; with a voucher the whole order is repriced after.
 */
async function addSeatsToCart(
  ctx: AppContext,
  tx: Db,
  channel: ChannelRecord,
  order: OrderRow,
  requests: readonly ItemRequest[],
  now: Date,
  fieldPrefix: (i: number) => string,
) {
  const seen = new Set<number>();
  for (const [i, r] of requests.entries()) {
    if (seen.has(r.session_seat_id)) {
      throw invalidData({ [`${fieldPrefix(i)}session_seat_id`]: ['appears more than once'] });
    }
    seen.add(r.session_seat_id);
  }
  const seatIds = requests.map((r) => r.session_seat_id);
  const context = await repo.loadAddContext(tx, channel.id, order.id, seatIds, [...new Set(requests.map((r) => r.rate_id))], now);
  const resolved = resolveSeatRequests(context, requests, fieldPrefix);
  // D59/D74: 409 not_on_sale with the session's window when a seat's session is not on sale.
  const closed = resolved.find((r) => !r.seat.onSale);
  if (closed) throw await notOnSaleError(tx, closed.seat.sessionId);
  const claims = resolved.map(({ seat }) => ({ sessionId: seat.sessionId, maxTicketsPerBuyer: seat.maxTicketsPerBuyer, quantity: 1 }));
  await assertHoldCaps(ctx, tx, order, context.itemCount, claims, now);
  const until = order.expiresAt ?? newLifetime(ctx, channel, now);
  // Ascending id order, so that two bulk claims over the same seats cannot deadlock (D14).
  resolved.sort((a, b) => a.seat.id - b.seat.id);
  for (const { seat, rate } of resolved) {
    const pricing = { id: 0, eventId: seat.eventId, sessionId: seat.sessionId, rateId: rate.id, price: rate.price };
    const [amounts] = priceItems([pricing], context.fees, null);
    if (!(await repo.claimSeatAsItem(tx, { orderId: order.id, seat, rateId: rate.id, amounts: amounts!, holdUntil: until, now }))) {
      throw seatUnavailable(seat);
    }
  }
  order.expiresAt = until;
  if (context.hasVoucher) await repriceOrder(tx, order.id, now);
  return resolved.map((r) => r.seat.sessionId);
}

/**
 * The flash-sale path (bench:holds): one seat held in ONE database round trip by cart_hold_seat,
 * which applies the same rules as addSeatsToCart for a plain cart (no voucher, room left, seat and
 * rate valid, on sale). Null when it declined (nothing written): the caller runs the full path,
 * which gives every other answer (404, 409, 422) exactly as before. Exported so that
 * test/orders/hold-paths.property.test.ts can drive each path on its own.
 */
export async function holdSeatFast(
  ctx: AppContext,
  channel: ChannelRecord,
  lang: string,
  target: { create: true; buyer: BuyerKey } | { create: false; orderToken: string },
  item: ItemRequest,
): Promise<OrderView | null> {
  const now = ctx.clock.now();
  const result = await repo.holdSeatInOneStatement(ctx.db, {
    channelId: channel.id,
    orderToken: target.create ? crypto.randomUUID() : target.orderToken,
    create: target.create,
    reference: newReference(),
    lang,
    currency: ctx.config.currency,
    newExpiry: newLifetime(ctx, channel, now),
    sessionSeatId: item.session_seat_id,
    rateId: item.rate_id,
    maxItems: ctx.config.maxItemsPerOrder,
    buyerKey: target.create ? target.buyer : null,
    maxLiveOrders: ctx.config.maxLiveOrdersPerBuyer,
    now,
  });
  if (result.outcome === 'seat_unavailable') throw seatUnavailable(result.seat);
  if (result.outcome === 'hold_limit_reached') throw holdLimitReached(result.cap, result.limit, result.sessionId);
  if (result.outcome === 'fallback') return null;
  // The statement has committed: announce, then answer with the view it returned.
  inventoryChanged(ctx, [result.sessionId]);
  countHolds(1);
  return orderViewFromRows(ctx, result.rows, lang, now);
}

/**
 * Runs a change of a live cart in one transaction (the order row locked first), then announces the
 * inventory change and returns the view. `work` returns the session ids whose inventory it touched.
 */
export async function changeCart(
  ctx: AppContext,
  channel: ChannelRecord,
  orderToken: string,
  lang: string,
  work: (tx: Db, order: OrderRow, now: Date) => Promise<number[]>,
): Promise<OrderView> {
  const now = ctx.clock.now();
  const { orderId, sessionIds } = await ctx.db.transaction(async (tx) => {
    const order = await lockCartForChange(tx, channel, orderToken, now);
    return { orderId: order.id, sessionIds: await work(tx, order, now) };
  });
  inventoryChanged(ctx, sessionIds);
  return buildOrderView(ctx, orderId, lang, now);
}

/**
 * Creates an order with its first item (D17) for `buyer` (whose hold caps it counts against, D44).
 * A caller-chosen `order_token` that already names an order of the channel adds the item to it
 * (`created: false`; the caps are then that order's buyer's); another channel's token is 409.
 */
export async function createOrder(
  ctx: AppContext,
  channel: ChannelRecord,
  buyer: BuyerKey,
  lang: string,
  input: ItemRequest & { order_token?: string },
): Promise<{ order: OrderView; created: boolean }> {
  if (input.order_token === undefined) {
    const order = await holdSeatFast(ctx, channel, lang, { create: true, buyer }, input);
    if (order) return { order, created: true };
  }
  const now = ctx.clock.now();
  const token = input.order_token ?? crypto.randomUUID();
  const { orderId, created, sessionIds } = await ctx.db.transaction(async (tx) => {
    let order: OrderRow | null = null;
    let created = false;
    for (let attempt = 0; !order && attempt < 5; attempt++) {
      // A supplied token may already exist; a concurrent insert of the same token waits for the other.
      order = input.order_token ? await repo.lockOrderByToken(tx, token) : null;
      if (order) break;
      order = await repo.insertOrder(tx, {
        orderToken: token,
        reference: newReference(),
        channelId: channel.id,
        lang,
        currency: ctx.config.currency,
        expiresAt: newLifetime(ctx, channel, now),
        buyerKey: buyer,
        now,
      });
      created = order !== null;
      // null: the token appeared meanwhile (loop reads it) or the reference collided (loop retries).
    }
    if (!order) throw new AppError('order_token_taken', 'The order_token is already in use');
    if (order.channelId !== channel.id) throw new AppError('order_token_taken', 'The order_token is already in use');
    if (!created) assertModifiable(order, now);
    const sessionIds = await addSeatsToCart(ctx, tx, channel, order, [input], now, () => '');
    return { orderId: order.id, created, sessionIds };
  });
  inventoryChanged(ctx, sessionIds);
  countHolds(1);
  return { order: await buildOrderView(ctx, orderId, lang, now), created };
}

/** The order of the channel (reading never extends its lifetime, D13). */
export async function getOrder(ctx: AppContext, channel: ChannelRecord, orderToken: string, lang: string): Promise<OrderView> {
  const order = await repo.findOrder(ctx.db, channel.id, orderToken);
  if (!order) throw orderNotFound();
  return buildOrderView(ctx, order.id, lang, ctx.clock.now());
}

/** Adds one seat to a live cart (one round trip in the common case, else the full transaction). */
export async function addItem(ctx: AppContext, channel: ChannelRecord, orderToken: string, lang: string, item: ItemRequest): Promise<OrderView> {
  return (
    (await holdSeatFast(ctx, channel, lang, { create: false, orderToken }, item)) ??
    holding(1, changeCart(ctx, channel, orderToken, lang, (tx, order, now) => addSeatsToCart(ctx, tx, channel, order, [item], now, () => '')))
  );
}

/** A cart change that holds `count` seats or places (all or nothing): counted once it has committed. */
async function holding(count: number, change: Promise<OrderView>): Promise<OrderView> {
  const view = await change;
  countHolds(count);
  return view;
}

/** Adds several seats, all or nothing (D18). */
export const addItemsBulk = (ctx: AppContext, channel: ChannelRecord, orderToken: string, lang: string, items: readonly ItemRequest[]) =>
  holding(items.length, changeCart(ctx, channel, orderToken, lang, (tx, order, now) => addSeatsToCart(ctx, tx, channel, order, items, now, (i) => `items.${i}.`)));

/** Adds `quantity` places of an unnumbered zone; the session is the rate's. All or nothing. */
export const addSectorItems = (ctx: AppContext, channel: ChannelRecord, orderToken: string, lang: string, req: SectorRequest) =>
  holding(req.quantity, changeCart(ctx, channel, orderToken, lang, async (tx, order, now) => {
    const [rate] = await repo.findRates(tx, [req.rate_id]);
    if (!rate) throw invalidData({ rate_id: ['unknown rate'] });
    const zone = await repo.findSellableSector(tx, channel.id, rate.sessionId, req.sector_id, now);
    if (!zone) throw new AppError('not_found', `Sector ${req.sector_id} not found`);
    if (zone.numbered) {
      throw invalidData({ sector_id: ['is a numbered sector; add its seats with items'] });
    }
    if (!rateFitsUnit(rate, zone)) {
      throw invalidData({ rate_id: ['is not a rate of this sector'] });
    }
    if (!zone.onSale) throw await notOnSaleError(tx, zone.sessionId);
    const claim = { sessionId: zone.sessionId, maxTicketsPerBuyer: zone.maxTicketsPerBuyer, quantity: req.quantity };
    await assertHoldCaps(ctx, tx, order, await repo.countItems(tx, order.id), [claim], now);
    const until = await holdUntil(ctx, tx, channel, order, now);
    const claimed = await repo.claimZonePlaces(tx, {
      sessionId: zone.sessionId,
      sectorId: zone.sectorId,
      quantity: req.quantity,
      orderId: order.id,
      holdUntil: until,
      now,
    });
    if (claimed.length < req.quantity) {
      throw new AppError('zone_capacity_exceeded', `Not enough free places in ${zone.sectorName} for ${req.quantity} tickets`);
    }
    await repo.insertItems(
      tx,
      order.id,
      claimed.map((id) => ({ eventId: zone.eventId, sessionId: zone.sessionId, sectorId: zone.sectorId, sessionSeatId: id, rateId: rate.id, price: rate.price })),
      now,
    );
    await repriceOrder(tx, order.id, now);
    return [zone.sessionId];
  }));

/** Removes items of a live cart and frees their seats at once; all or nothing (unknown id: 404). */
async function removeItemsFromCart(tx: Db, order: OrderRow, itemIds: readonly number[], now: Date): Promise<number[]> {
  const unique = [...new Set(itemIds)];
  const items = await repo.findItems(tx, order.id, unique);
  const missing = unique.find((id) => !items.some((item) => item.id === id));
  if (missing !== undefined) throw new AppError('not_found', `Item ${missing} not found`);
  const sessionIds = await repo.releaseHeldRows(tx, order.id, items.map((i) => i.sessionSeatId));
  await repo.deleteItems(tx, order.id, unique);
  if ((await repo.countItems(tx, order.id)) === 0) {
    // An emptied cart has no countdown (D13) and gives its voucher back (docs/cart.md).
    await repo.setOrderExpiry(tx, order.id, null, now);
    await repo.deleteOrderVouchers(tx, order.id);
  }
  await repriceOrder(tx, order.id, now);
  return sessionIds;
}

/** Removes one item. */
export const removeItem = (ctx: AppContext, channel: ChannelRecord, orderToken: string, lang: string, itemId: number) =>
  changeCart(ctx, channel, orderToken, lang, (tx, order, now) => removeItemsFromCart(tx, order, [itemId], now));

/** Removes several items, all or nothing. */
export const removeItemsBulk = (ctx: AppContext, channel: ChannelRecord, orderToken: string, lang: string, itemIds: readonly number[]) =>
  changeCart(ctx, channel, orderToken, lang, (tx, order, now) => removeItemsFromCart(tx, order, itemIds, now));

/** Moves items to another rate of their session (and sector); reprices the order. */
export const changeRate = (ctx: AppContext, channel: ChannelRecord, orderToken: string, lang: string, itemIds: readonly number[], rateId: number) =>
  changeCart(ctx, channel, orderToken, lang, async (tx, order, now) => {
    const unique = [...new Set(itemIds)];
    const items = await repo.findItems(tx, order.id, unique);
    const missing = unique.find((id) => !items.some((item) => item.id === id));
    if (missing !== undefined) throw new AppError('not_found', `Item ${missing} not found`);
    const [rate] = await repo.findRates(tx, [rateId]);
    const misfit = items.find((item) => !rate || !rateFitsUnit(rate, item));
    if (misfit) {
      throw invalidData({ rate_id: [`is not a rate of the session and sector of item ${misfit.id}`] });
    }
    await repo.setItemsRate(tx, order.id, unique, rateId);
    await repriceOrder(tx, order.id, now);
    return [];
  });

/**
 * Cancels an order (D16): its seats are free at once. Already cancelled or expired: unchanged, 200.
 * Completed: 409.
 */
export async function cancelOrder(ctx: AppContext, channel: ChannelRecord, orderToken: string, lang: string): Promise<OrderView> {
  const now = ctx.clock.now();
  const { orderId, sessionIds } = await ctx.db.transaction(async (tx) => {
    const order = await repo.lockChannelOrder(tx, channel.id, orderToken);
    if (!order) throw orderNotFound();
    if (order.status === 'completed') throw new AppError('order_completed', 'A completed order cannot be deleted');
    if (order.status !== 'pending') return { orderId: order.id, sessionIds: [] };
    const released = await repo.releaseHeldRows(tx, order.id);
    await repo.setOrderStatus(tx, order.id, 'cancelled', now);
    return { orderId: order.id, sessionIds: released };
  });
  inventoryChanged(ctx, sessionIds);
  return buildOrderView(ctx, orderId, lang, now);
}

const SWEEP_BATCH = 500;

/**
 * Marks expired carts `expired` and frees their holds (D15), in batches; safe to run on several
 * instances at once. Returns how many orders it expired.
 */
export async function sweepExpiredOrders(ctx: AppContext): Promise<number> {
  let total = 0;
  for (;;) {
    const now = ctx.clock.now();
    const batch = await ctx.db.transaction((tx) => repo.sweepExpiredBatch(tx, now, SWEEP_BATCH));
    inventoryChanged(ctx, batch.sessionIds);
    // Pre-production checklist: the channel has seen one of its carts expire (docs/preproduction.md).
    // Advisory: a failure to record it never stops the sweep.
    for (const channelId of batch.channelIds) await recordIntegrationStep(ctx.db, channelId, 'order_expired', now).catch(() => undefined);
    total += batch.orderIds.length;
    if (batch.orderIds.length < SWEEP_BATCH) return total;
  }
}

/**
 * Starts an empty cart for `buyer` (the state an emptied cart has, D13: no expiry) and returns its
 * order token: the portal's zone cart adds its places to it next.
 */
export async function startEmptyCart(ctx: AppContext, channel: ChannelRecord, buyer: BuyerKey, lang: string): Promise<string> {
  const now = ctx.clock.now();
  for (let attempt = 0; attempt < 5; attempt++) {
    const order = await repo.insertOrder(ctx.db, { orderToken: crypto.randomUUID(), reference: newReference(), channelId: channel.id, lang, currency: ctx.config.currency, expiresAt: null, buyerKey: buyer, now });
    if (order) return order.orderToken;
    // null only when the random reference collided: try another.
  }
  throw new AppError('conflict', 'Could not start a cart; try again');
}

/** The items of an order, read inside a cart change's transaction (`changeCart`'s `tx`). */
export const orderItems = (tx: Db, orderId: number) => repo.findItems(tx, orderId);
