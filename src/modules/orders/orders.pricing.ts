import { percentOf } from '../../lib/money.js';

// Pricing of a cart, pure: the service loads the inputs, this decides every amount in minor units.
// Per item: base = the rate's price; fee = sum of the event's and the session's management fees
// (fixed per ticket, or basis points of the base); discount = the voucher's share (<= 0);
// total = base + discount + fee. Base and fee are fixed when the item is held (D75, in SQL:
// cart_hold_seats, ticket_fee): repricing a cart passes them in (`price`, `fee`) and only the
// voucher's discounts are recomputed.

export interface PricingItem {
  id: number;
  eventId: number;
  sessionId: number;
  rateId: number;
  /** The item's base price in minor units: its rate's price when it was held (D75). */
  price: number;
  /** The fee held on the item (D75); without it, the fee rules price it (feeFor). */
  fee?: number;
}

export interface FeeRule {
  eventId: number | null;
  sessionId: number | null;
  kind: 'fixed' | 'percent';
  /** fixed: minor units per ticket; percent: basis points of the base price. */
  amount: number;
}

export interface VoucherRule {
  kind: 'percent' | 'fixed';
  /** percent: basis points (1000 = 10 %); fixed: minor units off the order, once. */
  value: number;
  eventId: number | null;
  sessionId: number | null;
  rateId: number | null;
}

export interface ItemAmounts {
  id: number;
  base: number;
  discount: number;
  fee: number;
  total: number;
}

export interface OrderAmounts {
  base: number;
  discount: number;
  fee: number;
  total: number;
}

/**
 * Whether a rate may price an inventory unit: a rate of the unit's session that names no sector or
 * the unit's sector. The SQL twin is rate_fits_seat (src/db/functions/011_rate_fits_seat.sql), used
 * by the one-statement hold and reservations; test/orders/hold-paths.property.test.ts holds the two
 * to the same answers.
 */
export const rateFitsUnit = (
  rate: { sessionId: number; sectorId: number | null },
  unit: { sessionId: number; sectorId: number },
): boolean => rate.sessionId === unit.sessionId && rateFitsSector(rate, unit.sectorId);

/** Whether a rate of a session applies to a sector of that session: it names none, or this one. */
export const rateFitsSector = (rate: { sectorId: number | null }, sectorId: number): boolean =>
  rate.sectorId === null || rate.sectorId === sectorId;

/** Whether an item falls in a voucher's optional scope (event, session, rate: each must match when set). */
export function inVoucherScope(item: Pick<PricingItem, 'eventId' | 'sessionId' | 'rateId'>, voucher: VoucherRule): boolean {
  return (
    (voucher.eventId === null || voucher.eventId === item.eventId) &&
    (voucher.sessionId === null || voucher.sessionId === item.sessionId) &&
    (voucher.rateId === null || voucher.rateId === item.rateId)
  );
}

/**
 * Splits `amount` across `weights` proportionally, in whole units, by the largest remainder method:
 * the parts sum to `amount` exactly and no part exceeds its weight when amount <= sum(weights).
 */
export function splitLargestRemainder(amount: number, weights: readonly number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  if (sum === 0 || amount === 0) return weights.map(() => 0);
  const exact = weights.map((w) => (amount * w) / sum);
  const parts = exact.map(Math.floor);
  let left = amount - parts.reduce((a, b) => a + b, 0);
  // Ties go to the earlier item, so the split is deterministic.
  const order = exact.map((x, i) => ({ i, rest: x - Math.floor(x) })).sort((a, b) => b.rest - a.rest || a.i - b.i);
  for (const { i } of order) {
    if (left === 0) break;
    parts[i]! += 1;
    left -= 1;
  }
  return parts;
}

/**
 * The management fees of one item: each rule of its event or its session, fixed per ticket or basis
 * points of the price (percentOf). Items are priced in SQL when held (fee_of_rule / ticket_fee,
 * src/db/functions, D75) and carry their held fee here; this twin prices an item given without one,
 * and test/orders/hold-paths.property.test.ts holds the two to the same amounts.
 */
function feeFor(item: PricingItem, fees: readonly FeeRule[]): number {
  let fee = 0;
  for (const rule of fees) {
    const applies = (rule.eventId !== null && rule.eventId === item.eventId) || (rule.sessionId !== null && rule.sessionId === item.sessionId);
    if (!applies) continue;
    fee += rule.kind === 'fixed' ? rule.amount : percentOf(item.price, rule.amount);
  }
  return fee;
}

/** Discounts (as positive numbers) of each item for one voucher. */
function discountsFor(items: readonly PricingItem[], voucher: VoucherRule | null): number[] {
  if (!voucher) return items.map(() => 0);
  const scoped = items.map((item) => inVoucherScope(item, voucher));
  if (voucher.kind === 'percent') {
    return items.map((item, i) => (scoped[i] ? Math.min(item.price, percentOf(item.price, voucher.value)) : 0));
  }
  const weights = items.map((item, i) => (scoped[i] ? item.price : 0));
  const cap = Math.min(voucher.value, weights.reduce((a, b) => a + b, 0));
  return splitLargestRemainder(cap, weights);
}

/** Every item's amounts for the order's items, its fee rules and its voucher (at most one). */
export function priceItems(items: readonly PricingItem[], fees: readonly FeeRule[], voucher: VoucherRule | null): ItemAmounts[] {
  const discounts = discountsFor(items, voucher);
  return items.map((item, i) => {
    const base = item.price;
    const discount = discounts[i] === 0 ? 0 : -discounts[i]!;
    const fee = item.fee ?? feeFor(item, fees);
    return { id: item.id, base, discount, fee, total: base + discount + fee };
  });
}

/** The order's amounts: the sum of its items'. */
export function sumAmounts(items: readonly ItemAmounts[]): OrderAmounts {
  const out = { base: 0, discount: 0, fee: 0, total: 0 };
  for (const item of items) {
    out.base += item.base;
    out.discount += item.discount;
    out.fee += item.fee;
    out.total += item.total;
  }
  return out;
}
