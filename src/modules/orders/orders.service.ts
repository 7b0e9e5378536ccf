import crypto from 'node:crypto';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { AppError, type FieldErrors, invalidData } from '../../http/errors.js';
import { inventoryChanged } from '../../lib/inventory-events.js';
import { countHolds } from '../../platform/metrics.js';
import type { ChannelRecord } from '../../db/channel-record.js';
import type { BuyerKey, CartChannel } from './orders.buyer.js';
import { assertHoldCaps, holdLimitReached } from './hold-caps.service.js';
import { buildOrderView, orderViewFromRows, type OrderRows, type OrderView } from './orders.view.js';
import * as repo from './orders.repo.js';
import { notOnSaleError } from '../../platform/sale-state.js';
import { recordIntegrationStep } from '../../platform/integration-checklist.js';
import type { HoldOutcome, OrderRow, SeatInfo } from './orders.repo.js';
import { priceItems, rateFitsUnit, sumAmounts } from './orders.pricing.js';
import { toAmount } from '../../lib/money.js';
import { randomBase32 } from '../../lib/secrets.js';

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
  return `TQ-${randomBase32(REFERENCE_ALPHABET, 8)}`;
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
  // D73: a card checkout freezes the cart until its attempt ends (the order row is locked here).
  if (order.paymentOpen) throw new AppError('payment_in_progress', 'A card payment of this order is in progress; the cart cannot change until it ends');
}

/** The channel's cart lifetime in milliseconds (D13; a channel may override the deployment's). */
const cartTtlMs = (ctx: AppContext, channel: ChannelRecord) => (channel.cartTtlSeconds ?? ctx.config.cartTtlSeconds) * 1000;

/**
 * Locks a live cart of the channel for a change: 404 for another channel's order (D5) and for an
 * order not open to the caller (D57), 409 when not live, 409 `not_on_sale` when a session of its
 * items is no longer on sale (D59, D74: every cart write; only deleting the order stays possible).
 */
async function lockCartForChange(tx: Db, channel: CartChannel, orderToken: string, now: Date): Promise<OrderRow> {
  const order = await repo.lockChannelOrder(tx, channel.id, orderToken, channel.cartCaller);
  if (!order) throw orderNotFound();
  assertModifiable(order, now);
  const closed = await repo.sessionOfOrderNotOnSale(tx, order.id, now);
  if (closed !== null) throw await notOnSaleError(tx, closed);
  return order;
}

/**
 * Recomputes the order's discounts from its voucher and its items' HELD amounts, and its totals
 * (same transaction). Base prices and fees stay as they were held (D75): an organiser's later
 * change of a rate or a fee never reaches a cart, and removing an item never reprices another
 * (a fixed voucher's amount is shared again over the items it still covers).
 */
export async function repriceOrder(tx: Db, orderId: number, now: Date): Promise<void> {
  const inputs = await repo.loadPricingInputs(tx, orderId);
  const items = priceItems(inputs.items, [], inputs.voucher);
  await repo.writeAmounts(tx, orderId, items, sumAmounts(items), now);
}

/**
 * D75: when the organiser has withdrawn the order's voucher (disabled, expired, restricted away
 * from every item), removes it and reprices the order, in the caller's transaction, and returns its
 * code; null when there is nothing to withdraw. The caller commits, then answers voucherWithdrawn.
 */
async function withdrawVoucherIfWithdrawn(tx: Db, orderId: number, now: Date): Promise<string | null> {
  const code = await repo.withdrawnVoucher(tx, orderId, now);
  if (code === null) return null;
  await repo.deleteOrderVouchers(tx, orderId);
  await repriceOrder(tx, orderId, now);
  return code;
}

/** 409 voucher_withdrawn (D75), with the order (its new total) in `data`; after the removal committed. */
async function voucherWithdrawn(ctx: AppContext, orderId: number, code: string, lang: string): Promise<AppError> {
  const view = await buildOrderView(ctx, orderId, lang);
  const total = toAmount(Math.round(view.total_amount * 100)).toFixed(2);
  return new AppError('voucher_withdrawn', { code, total }).withData(view);
}

/**
 * D75 at confirm: close_order refused a cart whose voucher was withdrawn; remove it (one short
 * transaction) and return the 409 to answer with.
 */
export async function withdrawVoucherAtConfirm(ctx: AppContext, orderId: number, lang: string): Promise<AppError> {
  const now = ctx.clock.now();
  const code = await ctx.db.transaction(async (tx) => {
    const order = await repo.lockOrderById(tx, orderId);
    return order ? withdrawVoucherIfWithdrawn(tx, orderId, now) : null;
  });
  if (code === null) return new AppError('conflict', 'The order changed meanwhile; try again');
  return voucherWithdrawn(ctx, orderId, code, lang);
}

type SeatName = Pick<SeatInfo, 'id' | 'sectorName' | 'row' | 'number'>;

/** 409 naming the seat that another live order holds. */
const seatUnavailable = (seat: SeatName) =>
  new AppError('seat_unavailable', { sector: seat.sectorName, row: seat.row, number: seat.number }, {
    session_seat_id: [String(seat.id)],
  });

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

/** The API's answer to a refusal of cart_hold_seats (every outcome but ok, needs_transaction and retry). */
async function holdRefusal(db: Db, result: Exclude<HoldOutcome, { outcome: 'ok' | 'needs_transaction' | 'retry' }>, fieldPrefix: (i: number) => string): Promise<AppError> {
  switch (result.outcome) {
    case 'order_not_found':
      return orderNotFound();
    case 'order_state':
      return result.status === 'completed'
        ? new AppError('order_completed', 'The order is completed and can no longer be changed')
        : result.status === 'cancelled'
          ? new AppError('order_not_modifiable', 'The order is cancelled and can no longer be changed')
          : new AppError('order_expired', 'The order has expired; start a new order');
    case 'duplicate':
      return invalidData({ [`${fieldPrefix(result.index)}session_seat_id`]: ['appears more than once'] });
    case 'seat_not_found':
      return new AppError('not_found.seat', { seat: result.sessionSeatId });
    case 'invalid': {
      const errors: FieldErrors = {};
      for (const e of result.errors) {
        if (e.field === 'zone') errors[`${fieldPrefix(e.index)}session_seat_id`] = ['is a place of an unnumbered zone; add it with items/sector'];
        else errors[`${fieldPrefix(e.index)}rate_id`] = [`is not a rate of session ${e.sessionId} for this seat`];
      }
      return invalidData(errors);
    }
    case 'not_on_sale':
      // D59/D74: 409 not_on_sale with the session's window.
      return notOnSaleError(db, result.sessionId);
    case 'hold_limit_reached':
      return holdLimitReached(result.cap, result.limit, result.sessionId ?? undefined);
    case 'seat_unavailable':
      return seatUnavailable(result.seat);
  }
}

/** Where a hold goes: a new order of `buyer`, or the live cart named by `orderToken`. */
type HoldTarget = { create: true; buyer: BuyerKey } | { create: false; orderToken: string };

/**
 * Holds seats for a locked live cart inside a cart change's transaction (cart_hold_seats), all or
 * nothing, and reprices the voucher's discounts when the cart has one. Returns the sessions touched.
 */
async function holdSeatsInCart(
  ctx: AppContext,
  tx: Db,
  channel: CartChannel,
  order: OrderRow,
  lang: string,
  items: readonly ItemRequest[],
  now: Date,
  fieldPrefix: (i: number) => string,
): Promise<number[]> {
  const result = await repo.holdSeats(tx, holdRequest(ctx, channel, lang, { create: false, orderToken: order.orderToken }, items, now, true));
  if (result.outcome !== 'ok') {
    if (result.outcome === 'needs_transaction' || result.outcome === 'retry') throw new Error(`cart_hold_seats: ${result.outcome} inside a transaction`);
    throw await holdRefusal(tx, result, fieldPrefix);
  }
  if (result.hasVoucher) await repriceOrder(tx, order.id, now);
  order.expiresAt ??= newLifetime(ctx, channel, now);
  return result.sessionIds;
}

function holdRequest(ctx: AppContext, channel: CartChannel, lang: string, target: HoldTarget, items: readonly ItemRequest[], now: Date, inTransaction: boolean): repo.HoldRequest {
  return {
    channelId: channel.id,
    orderToken: target.create ? crypto.randomUUID() : target.orderToken,
    create: target.create,
    reference: newReference(),
    lang,
    currency: ctx.config.currency,
    newExpiry: newLifetime(ctx, channel, now),
    items,
    maxItems: ctx.config.maxItemsPerOrder,
    // For an add, the caller (D57): cart_hold_seats finds an order only when it is open to it.
    buyerKey: target.create ? target.buyer : (channel.cartCaller ?? null),
    maxLiveOrders: ctx.config.maxLiveOrdersPerBuyer,
    now,
    inTransaction,
  };
}

/**
 * The hold in ONE statement and one commit (cart_hold_seats, the one home of the hold's rules):
 * create an order with its seats, or add seats to a cart, all or nothing. Null when the cart has a
 * voucher (nothing written): the caller runs the hold inside a cart change's transaction, which
 * also reprices the discounts and withdraws a voucher the organiser withdrew (D75). Every refusal
 * is thrown as the API's error.
 */
async function holdSeatsAtOnce(
  ctx: AppContext,
  channel: CartChannel,
  lang: string,
  target: HoldTarget,
  items: readonly ItemRequest[],
  fieldPrefix: (i: number) => string = () => '',
): Promise<OrderView | null> {
  const now = ctx.clock.now();
  for (let attempt = 0; attempt < 5; attempt++) {
    const result = await repo.holdSeats(ctx.db, holdRequest(ctx, channel, lang, target, items, now, false));
    if (result.outcome === 'retry') continue; // the random reference collided: another one
    if (result.outcome === 'needs_transaction') return null;
    if (result.outcome !== 'ok') throw await holdRefusal(ctx.db, result, fieldPrefix);
    // The statement has committed: announce, then answer with the view it returned.
    inventoryChanged(ctx, result.sessionIds);
    countHolds(items.length);
    return orderViewFromRows(ctx, result.rows, lang, now);
  }
  throw new AppError('conflict', 'Could not start a cart; try again');
}

/**
 * One seat held in one statement (holdSeatsAtOnce with one item). Exported so that
 * test/orders/hold-paths.property.test.ts can drive it on its own.
 */
export const holdSeatFast = (ctx: AppContext, channel: CartChannel, lang: string, target: HoldTarget, item: ItemRequest): Promise<OrderView | null> =>
  holdSeatsAtOnce(ctx, channel, lang, target, [item]);

/**
 * Holds seats chosen inside the caller's transaction (best available, D61: the choice and the
 * claim are one transaction): a new order of `buyer`, or the live cart `order` that the caller has
 * locked (changeCart). The one hold, cart_hold_seats; every refusal is thrown as the API's error.
 */
export async function holdInTransaction(
  ctx: AppContext,
  tx: Db,
  channel: CartChannel,
  lang: string,
  target: { create: true; buyer: BuyerKey } | { create: false; order: OrderRow },
  items: readonly ItemRequest[],
  now: Date,
): Promise<{ orderId: number; sessionIds: number[]; rows: OrderRows | null }> {
  if (!target.create) {
    return { orderId: target.order.id, sessionIds: await holdSeatsInCart(ctx, tx, channel, target.order, lang, items, now, () => ''), rows: null };
  }
  for (let attempt = 0; attempt < 5; attempt++) {
    const result = await repo.holdSeats(tx, holdRequest(ctx, channel, lang, target, items, now, true));
    if (result.outcome === 'retry') continue; // the random reference collided: another one
    // A new order has no voucher: the hold returns its rows (the view needs no other query).
    if (result.outcome === 'ok') return { orderId: result.orderId, sessionIds: result.sessionIds, rows: result.rows };
    if (result.outcome === 'needs_transaction') throw new Error('cart_hold_seats: needs_transaction inside a transaction');
    throw await holdRefusal(tx, result, () => '');
  }
  throw new AppError('conflict', 'Could not start a cart; try again');
}

/**
 * Runs a change of a live cart in one transaction (the order row locked first), then announces the
 * inventory change and returns the view. `work` returns the session ids whose inventory it touched.
 * A voucher the organiser has withdrawn (D75) is removed first instead: that commits, and the
 * change answers 409 voucher_withdrawn with the new total (the buyer sees the price before going
 * on). `keepVoucher`: removing a voucher is itself the answer to a withdrawn one.
 */
export async function changeCart(
  ctx: AppContext,
  channel: CartChannel,
  orderToken: string,
  lang: string,
  work: (tx: Db, order: OrderRow, now: Date) => Promise<number[]>,
  options: { keepVoucher?: boolean } = {},
): Promise<OrderView> {
  const now = ctx.clock.now();
  const done = await ctx.db.transaction(async (tx) => {
    const order = await lockCartForChange(tx, channel, orderToken, now);
    const withdrawn = options.keepVoucher ? null : await withdrawVoucherIfWithdrawn(tx, order.id, now);
    if (withdrawn !== null) return { orderId: order.id, withdrawn, sessionIds: [] };
    return { orderId: order.id, withdrawn: null, sessionIds: await work(tx, order, now) };
  });
  if (done.withdrawn !== null) throw await voucherWithdrawn(ctx, done.orderId, done.withdrawn, lang);
  inventoryChanged(ctx, done.sessionIds);
  return buildOrderView(ctx, done.orderId, lang, now);
}

/**
 * Creates an order with its first item (D17), or with every seat of `items` (D63: all or nothing,
 * D18), for `buyer` (whose hold caps it counts against, D44). A caller-chosen `order_token` that
 * already names an order of the channel adds the seats to it (`created: false`; the caps are then
 * that order's buyer's); another channel's token is 409.
 */
export async function createOrder(
  ctx: AppContext,
  channel: CartChannel,
  buyer: BuyerKey,
  lang: string,
  input: CreateOrderInput,
): Promise<{ order: OrderView; created: boolean }> {
  const { items, fieldPrefix } = createItems(input);
  if (input.order_token === undefined) {
    const order = await holdSeatsAtOnce(ctx, channel, lang, { create: true, buyer }, items, fieldPrefix);
    if (order) return { order, created: true };
  }
  const now = ctx.clock.now();
  const token = input.order_token ?? crypto.randomUUID();
  const done = await ctx.db.transaction(async (tx) => {
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
        expiresAt: null,
        buyerKey: buyer,
        now,
      });
      created = order !== null;
      // null: the token appeared meanwhile (loop reads it) or the reference collided (loop retries).
    }
    if (!order) throw new AppError('order_token_taken', 'The order_token is already in use');
    if (order.channelId !== channel.id) throw new AppError('order_token_taken', 'The order_token is already in use');
    // Another widget buyer's cart: D57 gives every token but its buyer's (and the server's) the 404 of D5.
    if (!created && !(await repo.lockChannelOrder(tx, channel.id, token, channel.cartCaller))) throw orderNotFound();
    if (!created) assertModifiable(order, now);
    const withdrawn = created ? null : await withdrawVoucherIfWithdrawn(tx, order.id, now);
    if (withdrawn !== null) return { orderId: order.id, created, withdrawn, sessionIds: [] };
    const sessionIds = await holdSeatsInCart(ctx, tx, channel, order, lang, items, now, fieldPrefix);
    return { orderId: order.id, created, withdrawn: null, sessionIds };
  });
  if (done.withdrawn !== null) throw await voucherWithdrawn(ctx, done.orderId, done.withdrawn, lang);
  inventoryChanged(ctx, done.sessionIds);
  countHolds(items.length);
  return { order: await buildOrderView(ctx, done.orderId, lang, now), created: done.created };
}

/** Whether a create with this order_token adds to an existing cart of the caller (which needs no queue pass, D60). */
export async function cartExists(ctx: AppContext, channel: CartChannel, orderToken: string): Promise<boolean> {
  return (await repo.findOrder(ctx.db, channel.id, orderToken, channel.cartCaller)) !== null;
}

/** A create request: SPEC's one seat (`session_seat_id` + `rate_id`) or D63's `items`, exactly one form. */
export interface CreateOrderInput {
  session_seat_id?: number;
  rate_id?: number;
  items?: readonly ItemRequest[];
  order_token?: string;
}

/** The seats of a create request and how its field errors are named; 422 unless exactly one form is used. */
function createItems(input: CreateOrderInput): { items: readonly ItemRequest[]; fieldPrefix: (i: number) => string } {
  const single = input.session_seat_id !== undefined || input.rate_id !== undefined;
  if (input.items !== undefined && single) {
    throw invalidData({ items: ['send either items or session_seat_id and rate_id, not both'] });
  }
  if (input.items !== undefined) {
    if (input.items.length === 0) throw invalidData({ items: ['must hold at least one seat'] });
    return { items: input.items, fieldPrefix: (i) => `items.${i}.` };
  }
  const errors: FieldErrors = {};
  if (input.session_seat_id === undefined) errors.session_seat_id = [single ? 'is required' : 'is required (or send items)'];
  if (input.rate_id === undefined) errors.rate_id = ['is required'];
  if (Object.keys(errors).length) throw invalidData(errors);
  return { items: [{ session_seat_id: input.session_seat_id!, rate_id: input.rate_id! }], fieldPrefix: () => '' };
}

/** The order of the channel (reading never extends its lifetime, D13). */
export async function getOrder(ctx: AppContext, channel: CartChannel, orderToken: string, lang: string): Promise<OrderView> {
  const order = await repo.findOrder(ctx.db, channel.id, orderToken, channel.cartCaller);
  if (!order) throw orderNotFound();
  return buildOrderView(ctx, order.id, lang, ctx.clock.now());
}

/** Adds one seat to a live cart (one statement; a cart with a voucher: a transaction that reprices it). */
export const addItem = (ctx: AppContext, channel: CartChannel, orderToken: string, lang: string, item: ItemRequest): Promise<OrderView> =>
  addSeats(ctx, channel, orderToken, lang, [item], () => '');

/** Adds seats to a live cart, all or nothing (D18): one statement, or the cart change's transaction with a voucher. */
async function addSeats(
  ctx: AppContext,
  channel: CartChannel,
  orderToken: string,
  lang: string,
  items: readonly ItemRequest[],
  fieldPrefix: (i: number) => string,
): Promise<OrderView> {
  return (
    (await holdSeatsAtOnce(ctx, channel, lang, { create: false, orderToken }, items, fieldPrefix)) ??
    holding(items.length, changeCart(ctx, channel, orderToken, lang, (tx, order, now) => holdSeatsInCart(ctx, tx, channel, order, lang, items, now, fieldPrefix)))
  );
}

/**
 * Claims `quantity` places of the unnumbered zone for the order until `holdUntil` (claimZonePlaces)
 * and adds them as items at the rate, repriced: the places, or null when fewer were free (then
 * the caller throws, and its transaction undoes the claim).
 */
async function holdZonePlaces(tx: Db, zone: repo.ZoneInfo, rate: repo.RateInfo, orderId: number, quantity: number, holdUntil: Date, now: Date): Promise<number[] | null> {
  const claimed = await repo.claimZonePlaces(tx, { sessionId: zone.sessionId, sectorId: zone.sectorId, quantity, orderId, holdUntil, now });
  if (claimed.length < quantity) return null;
  await repo.insertItems(
    tx,
    orderId,
    claimed.map((id) => ({ eventId: zone.eventId, sessionId: zone.sessionId, sectorId: zone.sectorId, sessionSeatId: id, rateId: rate.id, price: rate.price })),
    now,
  );
  await repriceOrder(tx, orderId, now);
  return claimed;
}

/** A cart change that holds `count` seats or places (all or nothing): counted once it has committed. */
async function holding(count: number, change: Promise<OrderView>): Promise<OrderView> {
  const view = await change;
  countHolds(count);
  return view;
}

/** Adds several seats, all or nothing (D18). */
export const addItemsBulk = (ctx: AppContext, channel: CartChannel, orderToken: string, lang: string, items: readonly ItemRequest[]) =>
  addSeats(ctx, channel, orderToken, lang, items, (i) => `items.${i}.`);

/** Adds `quantity` places of an unnumbered zone; the session is the rate's. All or nothing. */
export const addSectorItems = (ctx: AppContext, channel: CartChannel, orderToken: string, lang: string, req: SectorRequest) =>
  holding(req.quantity, changeCart(ctx, channel, orderToken, lang, async (tx, order, now) => {
    const [rate] = await repo.findRates(tx, [req.rate_id]);
    if (!rate) throw invalidData({ rate_id: ['unknown rate'] });
    const zone = await repo.findSellableSector(tx, channel.id, rate.sessionId, req.sector_id, now);
    if (!zone) throw new AppError('not_found.sector', { sector: req.sector_id });
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
    if (!(await holdZonePlaces(tx, zone, rate, order.id, req.quantity, until, now))) {
      throw new AppError('zone_capacity_exceeded', { zone: zone.sectorName, quantity: req.quantity });
    }
    return [zone.sessionId];
  }));

/** Removes items of a live cart and frees their seats at once; all or nothing (unknown id: 404). */
async function removeItemsFromCart(tx: Db, order: OrderRow, itemIds: readonly number[], now: Date): Promise<number[]> {
  const unique = [...new Set(itemIds)];
  const items = await repo.findItems(tx, order.id, unique);
  const missing = unique.find((id) => !items.some((item) => item.id === id));
  if (missing !== undefined) throw new AppError('not_found.item', { item: missing });
  const sessionIds = await repo.releaseHeldRows(tx, order.id, items.map((i) => i.sessionSeatId));
  await repo.deleteItems(tx, order.id, unique);
  // A voucher that covered only the removed items goes with them (it would discount nothing).
  await repo.dropVoucherWithoutItems(tx, order.id);
  if ((await repo.countItems(tx, order.id)) === 0) {
    // An emptied cart has no countdown (D13) and gives its voucher back (docs/cart.md).
    await repo.setOrderExpiry(tx, order.id, null, now);
    await repo.deleteOrderVouchers(tx, order.id);
  }
  await repriceOrder(tx, order.id, now);
  return sessionIds;
}

/** Removes one item. */
export const removeItem = (ctx: AppContext, channel: CartChannel, orderToken: string, lang: string, itemId: number) =>
  changeCart(ctx, channel, orderToken, lang, (tx, order, now) => removeItemsFromCart(tx, order, [itemId], now));

/** Removes several items, all or nothing. */
export const removeItemsBulk = (ctx: AppContext, channel: CartChannel, orderToken: string, lang: string, itemIds: readonly number[]) =>
  changeCart(ctx, channel, orderToken, lang, (tx, order, now) => removeItemsFromCart(tx, order, itemIds, now));

/** Moves items to another rate of their session (and sector); reprices the order. */
export const changeRate = (ctx: AppContext, channel: CartChannel, orderToken: string, lang: string, itemIds: readonly number[], rateId: number) =>
  changeCart(ctx, channel, orderToken, lang, async (tx, order, now) => {
    const unique = [...new Set(itemIds)];
    const items = await repo.findItems(tx, order.id, unique);
    const missing = unique.find((id) => !items.some((item) => item.id === id));
    if (missing !== undefined) throw new AppError('not_found.item', { item: missing });
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
export async function cancelOrder(ctx: AppContext, channel: CartChannel, orderToken: string, lang: string): Promise<OrderView> {
  const now = ctx.clock.now();
  const { orderId, sessionIds } = await ctx.db.transaction(async (tx) => {
    const order = await repo.lockChannelOrder(tx, channel.id, orderToken, channel.cartCaller);
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
export async function startEmptyCart(ctx: AppContext, channel: CartChannel, buyer: BuyerKey, lang: string): Promise<string> {
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

/** A waiting-list offer's hold (D69): the new order, or why cart_hold_seats refused it. */
export type OfferHold = { held: true; orderId: number; orderToken: string; reference: string } | { held: false; outcome: string };

/**
 * D69: holds `items` for a waiting-list offer, inside the caller's transaction, as a new pending
 * order of `channelId` for `buyer` that lives until `until`: the one set-based hold
 * (cart_hold_seats) with all its rules, not a second path. A refusal (a seat taken meanwhile, the
 * session no longer on sale, a cap) wrote nothing; the caller tries again later.
 */
export async function holdSeatsForOffer(
  ctx: AppContext,
  tx: Db,
  offer: { channelId: number; buyer: BuyerKey; lang: string; items: readonly ItemRequest[]; until: Date; now: Date },
): Promise<OfferHold> {
  const orderToken = crypto.randomUUID();
  const reference = newReference();
  const result = await repo.holdSeats(tx, {
    channelId: offer.channelId,
    orderToken,
    create: true,
    reference,
    lang: offer.lang,
    currency: ctx.config.currency,
    newExpiry: offer.until,
    items: offer.items,
    maxItems: ctx.config.maxItemsPerOrder,
    buyerKey: offer.buyer,
    maxLiveOrders: ctx.config.maxLiveOrdersPerBuyer,
    now: offer.now,
    inTransaction: true,
  });
  if (result.outcome !== 'ok') return { held: false, outcome: result.outcome };
  countHolds(offer.items.length);
  return { held: true, orderId: result.orderId, orderToken, reference };
}

/** Thrown inside a zone offer's savepoint to undo it: the zone had fewer free places than asked. */
class ZoneShort extends Error {}

/**
 * D69: holds `quantity` places of the unnumbered zone `sectorId` for a waiting-list offer, inside
 * the caller's transaction, as a new pending order of `channelId` for `buyer` that lives until
 * `until`: the zone's one claim (claimZonePlaces, the same as a cart's addSectorItems: conditional
 * UPDATE of free rows under row locks, so a place never sits in two orders) and the hold caps. In a
 * savepoint: a refusal (too few free places now, a cap, the session off sale) wrote nothing.
 */
export async function holdZoneForOffer(
  ctx: AppContext,
  tx: Db,
  offer: { channelId: number; buyer: BuyerKey; lang: string; sessionId: number; sectorId: number; rateId: number; quantity: number; until: Date; now: Date },
): Promise<OfferHold & { sessionSeatIds?: number[] }> {
  const { now } = offer;
  try {
    return await tx.transaction(async (sp) => {
      const [rate] = await repo.findRates(sp, [offer.rateId]);
      const zone = await repo.findSellableSector(sp, offer.channelId, offer.sessionId, offer.sectorId, now);
      if (!rate || !zone || zone.numbered || !rateFitsUnit(rate, zone)) return { held: false as const, outcome: 'invalid' };
      if (!zone.onSale) return { held: false as const, outcome: 'not_on_sale' };
      const reference = newReference();
      const order = await repo.insertOrder(sp, {
        orderToken: crypto.randomUUID(),
        reference,
        channelId: offer.channelId,
        lang: offer.lang,
        currency: ctx.config.currency,
        expiresAt: offer.until,
        buyerKey: offer.buyer,
        now,
      });
      if (!order) return { held: false as const, outcome: 'retry' };
      await assertHoldCaps(ctx, sp, order, 0, [{ sessionId: zone.sessionId, maxTicketsPerBuyer: zone.maxTicketsPerBuyer, quantity: offer.quantity }], now);
      const claimed = await holdZonePlaces(sp, zone, rate, order.id, offer.quantity, offer.until, now);
      if (!claimed) throw new ZoneShort();
      countHolds(offer.quantity);
      return { held: true as const, orderId: order.id, orderToken: order.orderToken, reference, sessionSeatIds: claimed };
    });
  } catch (err) {
    // Rolled back to the savepoint: nothing of this offer was written.
    if (err instanceof ZoneShort) return { held: false, outcome: 'seat_unavailable' };
    if (err instanceof AppError) return { held: false, outcome: err.code };
    throw err;
  }
}
