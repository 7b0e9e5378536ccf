import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../../db/client.js';

// The SQL of a refund (refund.service.ts): the refunded order, its seats and the refund row.

/** The columns of an order a refund reads. */
export interface RefundableOrder {
  id: string | number;
  reference: string;
  channel_id: number;
  type: string;
  status: string;
  lang: string;
  currency: string;
  base_amount: number;
  discount_amount: number;
  fee_amount: number;
  total_amount: number;
  customer_id: number | null;
  payment_method: string | null;
}

/** The order with this reference, locked; limited to one channel or one organiser's channels when given. */
export async function lockOrderByReference(tx: Db, reference: string, scope: { channelId?: number; organiserId?: number }): Promise<RefundableOrder | null> {
  const channelFilter = scope.channelId === undefined ? sql`` : sql` AND channel_id = ${scope.channelId}`;
  const organiserFilter =
    scope.organiserId === undefined ? sql`` : sql` AND channel_id IN (SELECT id FROM sales_channels WHERE organiser_id = ${scope.organiserId})`;
  const [order] = await queryRows<RefundableOrder>(tx, sql`SELECT * FROM orders WHERE reference = ${reference}${channelFilter}${organiserFilter} FOR UPDATE`);
  return order ?? null;
}

export async function isRefunded(tx: Db, orderId: number): Promise<boolean> {
  const [previous] = await queryRows<{ n: number }>(tx, sql`SELECT 1 AS n FROM order_refunds WHERE refunded_order_id = ${orderId}`);
  return previous !== undefined;
}

/** Makes the sold seats of an order available again; the session id of each released seat. */
export async function releaseSoldSeats(tx: Db, orderId: number): Promise<number[]> {
  const released = await queryRows<{ session_id: number }>(
    tx,
    sql`UPDATE session_seats SET status = 'available', order_id = NULL, hold_expires_at = NULL
        WHERE order_id = ${orderId} AND status = 'sold' RETURNING session_id`,
  );
  return released.map((r) => r.session_id);
}

/**
 * Inserts the refund row of `order` (type 'refund', completed, negative amounts) and its
 * `order_refunds` record, and touches the refunded order; the refund row's id.
 */
export async function insertRefund(
  tx: Db,
  order: RefundableOrder,
  refund: { reference: string; reason: string; actor: string; now: Date },
): Promise<number> {
  const orderId = Number(order.id);
  const { now } = refund;
  const [row] = await queryRows<{ id: string | number }>(
    tx,
    sql`INSERT INTO orders (order_token, reference, channel_id, type, status, lang, currency, base_amount,
          discount_amount, fee_amount, total_amount, customer_id, payment_method, refunded_order_id,
          created_at, updated_at, completed_at)
        VALUES (${crypto.randomUUID()}, ${refund.reference}, ${order.channel_id}, 'refund', 'completed', ${order.lang},
          ${order.currency}, ${-order.base_amount}, ${-order.discount_amount}, ${-order.fee_amount}, ${-order.total_amount},
          ${order.customer_id}, ${order.payment_method}, ${orderId}, ${now}, ${now}, ${now})
        RETURNING id`,
  );
  const refundId = Number(row!.id);
  await tx.execute(sql`
    INSERT INTO order_refunds (refund_order_id, refunded_order_id, reason, actor, created_at)
    VALUES (${refundId}, ${orderId}, ${refund.reason}, ${refund.actor}, ${now})`);
  await tx.execute(sql`UPDATE orders SET updated_at = ${now} WHERE id = ${orderId}`);
  return refundId;
}

/** The organiser of a channel. */
export async function organiserOfChannel(tx: Db, channelId: number): Promise<number> {
  const [channel] = await queryRows<{ organiser_id: number }>(tx, sql`SELECT organiser_id FROM sales_channels WHERE id = ${channelId}`);
  return channel!.organiser_id;
}
