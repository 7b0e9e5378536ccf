import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { AppError, invalidData, notFound } from '../../http/errors.js';
import { inventoryChanged } from '../../lib/inventory-events.js';
import { toAmount } from '../../lib/money.js';
import { countRefund } from '../../platform/metrics.js';
import { voidTicketsOfOrder } from '../tickets/tickets.service.js';
import * as repo from './refund.repo.js';

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
    const order = await repo.lockOrderByReference(tx, input.reference, { channelId: input.channelId, organiserId: input.organiserId });
    if (!order) throw notFound('Order');
    const orderId = Number(order.id);
    if (order.type === 'refund') throw new AppError('conflict', 'A refund cannot be refunded');
    if (order.status !== 'completed') throw new AppError('conflict', 'Only a completed order can be refunded');
    if (await repo.isRefunded(tx, orderId)) throw new AppError('order_already_refunded', `Order ${order.reference} is already refunded`);

    sessionIds = await repo.releaseSoldSeats(tx, orderId);
    const voided = await voidTicketsOfOrder(tx, orderId, now);
    const refundReference = `${order.reference}-R`;
    const refundId = await repo.insertRefund(tx, order, { reference: refundReference, reason, actor, now });
    const done: RefundResult = {
      refund_order_id: refundId,
      refund_reference: refundReference,
      refunded_order_reference: order.reference,
      total_amount: toAmount(-order.total_amount),
      released_seats: sessionIds.length,
      voided_tickets: voided,
    };
    if (input.audit) await input.audit(tx, { ...done, organiser_id: await repo.organiserOfChannel(tx, order.channel_id) });
    return done;
  });
  inventoryChanged(ctx, sessionIds);
  countRefund();
  return result;
}
