import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../../db/client.js';
import type { OrderStatus, OrderType } from '../../db/schema/index.js';
import { AppError } from '../../http/errors.js';
import { toAmount } from '../../lib/money.js';
import { isoWithOffset } from '../../lib/time.js';

// The order as every interface shows it (DECISIONS D35): the B2B routes, the portal, the widget,
// confirm. Amounts are JSON numbers (toAmount), timestamps ISO 8601 with offset.

export interface OrderItemView {
  id: number;
  /** The seat's inventory id; null for a place of an unnumbered zone. */
  session_seat_id: number | null;
  sector_id: number;
  sector_name: string;
  row: string | null;
  number: string | null;
  rate_id: number;
  rate_name: string;
  base_amount: number;
  discount_amount: number;
  fee_amount: number;
  total_amount: number;
}

export interface OrderView {
  order_token: string;
  reference: string;
  type: OrderType;
  status: OrderStatus;
  currency: string;
  base_amount: number;
  discount_amount: number;
  fee_amount: number;
  total_amount: number;
  expires_at: string | null;
  events: {
    id: number;
    name: string;
    sessions: { id: number; start_datetime: string; items: OrderItemView[] }[];
  }[];
  vouchers: { code: string; kind: 'percent' | 'fixed'; value: number; discount_amount: number }[];
}

interface OrderRowRaw {
  order_token: string;
  reference: string;
  type: OrderType;
  status: OrderStatus;
  currency: string;
  o_base: number;
  o_discount: number;
  o_fee: number;
  o_total: number;
  expires_at: Date | string | null;
  vouchers: { code: string; kind: 'percent' | 'fixed'; value: number }[] | string | null;
}

interface ItemRowRaw {
  id: string | number;
  event_id: number;
  event_name: string | null;
  session_id: number;
  start_datetime: Date | string;
  session_seat_id: number;
  seat_id: number | null;
  sector_id: number;
  sector_name: string;
  row: string | null;
  number: string | null;
  rate_id: number;
  rate_name: string;
  base_amount: number;
  discount_amount: number;
  fee_amount: number;
  total_amount: number;
}

const asDate = (v: Date | string) => (v instanceof Date ? v : new Date(v));

/**
 * The D35 view of one order, names in `lang` (falling back to the event's default language).
 * With `now`, a pending cart whose time has run out shows as `expired` even before the sweep.
 */
export async function buildOrderView(db: Db, orderId: number, lang: string, now?: Date): Promise<OrderView> {
  // One round trip; the SQL lives in order_view_json (migration 0025), shared with cart_hold_seat.
  const [row] = await queryRows<{ rows: ViewRows }>(db, sql`SELECT order_view_json(${orderId}, ${lang}) AS rows`);
  return orderViewFromRows(row?.rows ?? null, now);
}

/** The rows of order_view_json: the order's columns repeat on each item row (one row with NULL items when empty). */
export type ViewRows = (OrderRowRaw & Partial<ItemRowRaw> & { id: string | number | null })[] | string | null;

/** Assembles the D35 view from the rows of order_view_json (as returned by the driver: parsed or text). */
export function orderViewFromRows(raw: ViewRows, now?: Date): OrderView {
  const rows: Exclude<ViewRows, string | null> = (typeof raw === 'string' ? JSON.parse(raw) : raw) ?? [];
  const order = rows[0];
  if (!order) throw new AppError('not_found', 'Order not found');
  const items = rows.filter((r) => r.id !== null) as unknown as ItemRowRaw[];

  const events: OrderView['events'] = [];
  for (const it of items) {
    let event = events.at(-1);
    if (!event || event.id !== it.event_id) events.push((event = { id: it.event_id, name: it.event_name ?? '', sessions: [] }));
    let session = event.sessions.at(-1);
    if (!session || session.id !== it.session_id) {
      event.sessions.push((session = { id: it.session_id, start_datetime: isoWithOffset(asDate(it.start_datetime))!, items: [] }));
    }
    session.items.push({
      id: Number(it.id),
      session_seat_id: it.seat_id === null ? null : it.session_seat_id,
      sector_id: it.sector_id,
      sector_name: it.sector_name,
      row: it.row,
      number: it.number,
      rate_id: it.rate_id,
      rate_name: it.rate_name,
      base_amount: toAmount(it.base_amount),
      discount_amount: toAmount(it.discount_amount),
      fee_amount: toAmount(it.fee_amount),
      total_amount: toAmount(it.total_amount),
    });
  }

  const expiresAt = order.expires_at === null ? null : asDate(order.expires_at);
  const timedOut = order.status === 'pending' && now !== undefined && expiresAt !== null && expiresAt <= now;
  const vouchers = (typeof order.vouchers === 'string' ? JSON.parse(order.vouchers) : order.vouchers) ?? [];
  return {
    order_token: order.order_token,
    reference: order.reference,
    type: order.type,
    status: timedOut ? 'expired' : order.status,
    currency: order.currency,
    base_amount: toAmount(order.o_base),
    discount_amount: toAmount(order.o_discount),
    fee_amount: toAmount(order.o_fee),
    total_amount: toAmount(order.o_total),
    expires_at: isoWithOffset(expiresAt),
    events,
    // One voucher per order (docs/cart.md): its discount is the order's.
    vouchers: vouchers.map((v: { code: string; kind: 'percent' | 'fixed'; value: number }) => ({
      code: v.code,
      kind: v.kind,
      // percent: the percentage (10 for 10 %); fixed: the amount off the order.
      value: v.kind === 'percent' ? v.value / 100 : toAmount(v.value),
      discount_amount: toAmount(order.o_discount),
    })),
  };
}
