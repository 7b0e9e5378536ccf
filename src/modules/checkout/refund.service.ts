import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../app-context.js';
import { queryRows, type Db } from '../../db/client.js';
import { AppError, invalidData, notFound } from '../../http/errors.js';
import { inventoryChanged } from '../../lib/inventory-events.js';
import { toAmount } from '../../lib/money.js';
import { voidTicketsOfOrder } from '../tickets/tickets.repo.js';

export interface RefundInput {
  /** When given, only an order of this channel can be refunded (admin API of a channel). */
  channelId?: number;
  /** order_reference of the completed order. */
  reference: string;
  reason: string;
  /** When given, only an order of a channel of this organiser can be refunded (a promoter). */
  organiserId?: number;
  /** Who refunds: an admin user, `cli:<user>`, ... */
  actor: string;
  /**
   * Runs inside the refund's transaction after the refund is recorded (e.g. the admin audit
   * entry), so that both commit or roll back together. Gets the organiser of the order's channel.
   */
  audit?: (tx: Db, result: RefundResult & { organiser_id: number }) => Promise<void>;
}

export interface RefundResult {
  refund_order_id: number;
  refund_reference: string;
  refunded_order_reference: string;
  /** Negative, like every amount of the refund row (D30). */
  total_amount: number;
  released_seats: number;
  voided_tickets: number;
}

/**
 * Refunds a completed purchase or reservation in one transaction: its seats become available,
 * its tickets void, and a refund order row (type 'refund', negative amounts, refunded_order_id)
 * records the money (docs/architecture.md "Orders"). A second refund of the same order is 409.
 */
export async function refundOrder(ctx: AppContext, input: RefundInput): Promise<RefundResult> {
  const reason = input.reason?.trim();
  const actor = input.actor?.trim();
  if (!reason || !actor) {
    throw invalidData({ ...(reason ? {} : { reason: ['is required'] }), ...(actor ? {} : { actor: ['is required'] }) });
  }
  const now = ctx.clock.now();
  let sessionIds: number[] = [];
  const result = await ctx.db.transaction(async (tx) => {
    const channelFilter = input.channelId === undefined ? sql`` : sql` AND channel_id = ${input.channelId}`;
    const organiserFilter =
      input.organiserId === undefined ? sql`` : sql` AND channel_id IN (SELECT id FROM sales_channels WHERE organiser_id = ${input.organiserId})`;
    const [order] = await queryRows<{
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
    }>(tx, sql`SELECT * FROM orders WHERE reference = ${input.reference}${channelFilter}${organiserFilter} FOR UPDATE`);
    if (!order) throw notFound('Order');
    const orderId = Number(order.id);
    if (order.type === 'refund') throw new AppError('conflict', 'A refund cannot be refunded');
    if (order.status !== 'completed') throw new AppError('conflict', 'Only a completed order can be refunded');
    const [previous] = await queryRows<{ n: number }>(
      tx,
      sql`SELECT 1 AS n FROM order_refunds WHERE refunded_order_id = ${orderId}`,
    );
    if (previous) throw new AppError('order_already_refunded', `Order ${order.reference} is already refunded`);

    const released = await queryRows<{ session_id: number }>(
      tx,
      sql`UPDATE session_seats SET status = 'available', order_id = NULL, hold_expires_at = NULL
          WHERE order_id = ${orderId} AND status = 'sold' RETURNING session_id`,
    );
    const voided = await voidTicketsOfOrder(tx, orderId, now);
    const refundReference = `${order.reference}-R`;
    const [refund] = await queryRows<{ id: string | number }>(
      tx,
      sql`INSERT INTO orders (order_token, reference, channel_id, type, status, lang, currency, base_amount,
            discount_amount, fee_amount, total_amount, customer_id, payment_method, refunded_order_id,
            created_at, updated_at, completed_at)
          VALUES (${crypto.randomUUID()}, ${refundReference}, ${order.channel_id}, 'refund', 'completed', ${order.lang},
            ${order.currency}, ${-order.base_amount}, ${-order.discount_amount}, ${-order.fee_amount}, ${-order.total_amount},
            ${order.customer_id}, ${order.payment_method}, ${orderId}, ${now}, ${now}, ${now})
          RETURNING id`,
    );
    const refundId = Number(refund!.id);
    await tx.execute(sql`
      INSERT INTO order_refunds (refund_order_id, refunded_order_id, reason, actor, created_at)
      VALUES (${refundId}, ${orderId}, ${reason}, ${actor}, ${now})`);
    await tx.execute(sql`UPDATE orders SET updated_at = ${now} WHERE id = ${orderId}`);
    sessionIds = released.map((r) => r.session_id);
    const done: RefundResult = {
      refund_order_id: refundId,
      refund_reference: refundReference,
      refunded_order_reference: order.reference,
      total_amount: toAmount(-order.total_amount),
      released_seats: released.length,
      voided_tickets: voided,
    };
    if (input.audit) {
      const [channel] = await queryRows<{ organiser_id: number }>(tx, sql`SELECT organiser_id FROM sales_channels WHERE id = ${order.channel_id}`);
      await input.audit(tx, { ...done, organiser_id: channel!.organiser_id });
    }
    return done;
  });
  inventoryChanged(ctx, sessionIds);
  return result;
}
