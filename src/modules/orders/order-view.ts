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
  // One round trip: the order's columns repeat on each item row (one row with NULL items when empty).
  const rows = await queryRows<OrderRowRaw & Partial<ItemRowRaw> & { id: string | number | null }>(
    db,
    sql`SELECT o.order_token, o.reference, o.type, o.status, o.currency, o.base_amount AS o_base, o.discount_amount AS o_discount,
               o.fee_amount AS o_fee, o.total_amount AS o_total, o.expires_at,
               (SELECT json_agg(json_build_object('code', ov.code, 'kind', v.kind, 'value', v.value) ORDER BY ov.created_at)
                FROM order_vouchers ov JOIN vouchers v ON v.id = ov.voucher_id WHERE ov.order_id = o.id) AS vouchers,
               oi.id, oi.event_id, COALESCE(et.name, etd.name) AS event_name, oi.session_id, se.start_datetime,
               oi.session_seat_id, ss.seat_id, oi.sector_id, sec.name AS sector_name, st.row, st.number,
               oi.rate_id, COALESCE(r.names ->> ${lang}, r.name) AS rate_name,
               oi.base_amount, oi.discount_amount, oi.fee_amount, oi.total_amount
        FROM orders o
        LEFT JOIN order_items oi ON oi.order_id = o.id
        LEFT JOIN session_seats ss ON ss.id = oi.session_seat_id
        LEFT JOIN seats st ON st.id = ss.seat_id
        LEFT JOIN sectors sec ON sec.id = oi.sector_id
        LEFT JOIN rates r ON r.id = oi.rate_id
        LEFT JOIN sessions se ON se.id = oi.session_id
        LEFT JOIN events e ON e.id = oi.event_id
        LEFT JOIN event_translations et ON et.event_id = e.id AND et.lang = ${lang}
        LEFT JOIN event_translations etd ON etd.event_id = e.id AND etd.lang = e.default_lang
        WHERE o.id = ${orderId}
        ORDER BY oi.event_id, se.start_datetime, oi.session_id, oi.id`,
  );
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
