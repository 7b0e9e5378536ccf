// Stand-in for the cart branch's buildOrderView (src/modules/orders/order-view.ts, D35 shape) until
// that lands; same signature, built from the same tables. Swap the import in checkout.service.ts.
import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../../db/client.js';
import { toAmount } from '../../lib/money.js';
import { isoWithOffset } from '../../lib/time.js';

export interface OrderView {
  order_token: string;
  status: string;
  total_amount: number;
  expires_at: string | null;
  currency: string;
  events: {
    id: number;
    name: string;
    sessions: {
      id: number;
      start_datetime: string | null;
      items: {
        id: number;
        session_seat_id: number;
        sector_id: number;
        rate_id: number;
        base_amount: number;
        discount_amount: number;
        fee_amount: number;
        total_amount: number;
      }[];
    }[];
  }[];
  vouchers: { code: string }[];
}

/** The order as D35 shows it, or null when there is no such order. */
export async function buildOrderView(db: Db, orderId: number, lang: string): Promise<OrderView | null> {
  const [order] = await queryRows<{
    order_token: string;
    status: string;
    total_amount: number;
    expires_at: string | Date | null;
    currency: string;
  }>(db, sql`SELECT order_token, status, total_amount, expires_at, currency FROM orders WHERE id = ${orderId}`);
  if (!order) return null;
  const items = await queryRows<{
    id: string | number;
    event_id: number;
    event_name: string;
    session_id: number;
    start_datetime: string | Date;
    session_seat_id: number;
    sector_id: number;
    rate_id: number;
    base_amount: number;
    discount_amount: number;
    fee_amount: number;
    total_amount: number;
  }>(
    db,
    sql`SELECT i.id, i.event_id, COALESCE(et.name, etd.name, '') AS event_name, i.session_id, s.start_datetime,
          i.session_seat_id, i.sector_id, i.rate_id, i.base_amount, i.discount_amount, i.fee_amount, i.total_amount
        FROM order_items i
        JOIN events e ON e.id = i.event_id
        JOIN sessions s ON s.id = i.session_id
        LEFT JOIN event_translations et ON et.event_id = e.id AND et.lang = ${lang}
        LEFT JOIN event_translations etd ON etd.event_id = e.id AND etd.lang = e.default_lang
        WHERE i.order_id = ${orderId}
        ORDER BY i.event_id, s.start_datetime, i.session_id, i.id`,
  );
  const vouchers = await queryRows<{ code: string }>(db, sql`SELECT code FROM order_vouchers WHERE order_id = ${orderId} ORDER BY code`);
  const events: OrderView['events'] = [];
  for (const i of items) {
    let event = events.find((e) => e.id === i.event_id);
    if (!event) events.push((event = { id: i.event_id, name: i.event_name, sessions: [] }));
    let session = event.sessions.find((s) => s.id === i.session_id);
    if (!session) event.sessions.push((session = { id: i.session_id, start_datetime: isoWithOffset(new Date(i.start_datetime)), items: [] }));
    session.items.push({
      id: Number(i.id),
      session_seat_id: i.session_seat_id,
      sector_id: i.sector_id,
      rate_id: i.rate_id,
      base_amount: toAmount(i.base_amount),
      discount_amount: toAmount(i.discount_amount),
      fee_amount: toAmount(i.fee_amount),
      total_amount: toAmount(i.total_amount),
    });
  }
  return {
    order_token: order.order_token,
    status: order.status,
    total_amount: toAmount(order.total_amount),
    expires_at: isoWithOffset(order.expires_at === null ? null : new Date(order.expires_at)),
    currency: order.currency,
    events,
    vouchers: vouchers.map((v) => ({ code: v.code })),
  };
}
