import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import type { IntegrationMode } from '../../db/schema/index.js';
import { AppError } from '../../http/errors.js';
import { toAmount } from '../../lib/money.js';
import { inventoryChanged } from '../../lib/inventory-events.js';
import { ticketCodesOfOrder } from '../tickets/tickets.repo.js';
import { newTicketCode } from '../tickets/tickets.service.js';
import * as repo from './checkout.repo.js';
import type { Buyer, OrderItemRef } from './checkout.repo.js';

export type { Buyer } from './checkout.repo.js';

export interface CloseOrderInput {
  /** The order to close; confirm may name it by token within its channel instead (`orderRef`). */
  orderId?: number;
  orderRef?: repo.OrderRef;
  buyer: Buyer;
  paymentMethod?: string | null;
  transactionId?: string | null;
  /** Who closes: 'confirm' (models B, D), 'portal_payment' (models A, C), ... For logs and audits. */
  source: string;
  /** The amount the payer declared or paid, in minor units; checked against the total under the lock. */
  expectedAmount?: number;
  /**
   * Complete the order even though its cart expired, provided every one of its seats is still free
   * (a card payment that was already taken when the notification arrives late).
   */
  allowExpired?: boolean;
}

export interface ClosedOrder {
  orderId: number;
  /** True when the order was already completed: nothing ran again (D22). */
  alreadyCompleted: boolean;
  /** Ticket codes in item order. */
  ticketCodes: string[];
}

/** The service e-mails tickets in models A, B and C, never in D (SPEC, D24). */
export const sendsTicketEmail = (mode: IntegrationMode) => mode !== 'widget_external_payment';

/**
 * The one closing process (D21), shared by confirm and the portal's payment notification. In one
 * transaction: lock the order, return the existing result if it is completed already, sell its
 * held seats (all of them or nothing), write the buyer, issue one ticket per item, complete the
 * order and queue the ticket e-mail. Concurrent calls for one order queue on the row lock, so
 * exactly one of them closes and the others see its result.
 */
export async function closeOrder(ctx: AppContext, input: CloseOrderInput): Promise<ClosedOrder> {
  const now = ctx.clock.now();
  let sessionIds: number[] = [];
  const result = await ctx.db.transaction(async (tx) => {
    const order = await repo.lockOrder(tx, input.orderRef ?? { orderId: input.orderId! });
    if (!order || order.type === 'refund') throw new AppError('not_found', 'Order not found');
    if (order.status === 'completed') {
      return { orderId: order.id, alreadyCompleted: true, ticketCodes: await ticketCodesOfOrder(tx, order.id) };
    }
    if (order.status === 'cancelled') throw new AppError('order_not_modifiable', 'The order was cancelled and cannot be confirmed');
    if (order.itemCount === 0) throw new AppError('order_empty', 'The order has no items');
    const expired = order.status === 'expired' || (order.expiresAt !== null && order.expiresAt <= now);
    if (expired && !input.allowExpired) throw new AppError('order_expired', 'The order has expired');
    if (input.expectedAmount !== undefined && input.expectedAmount !== order.totalAmount) {
      throw new AppError('amount_mismatch', 'The declared amount does not match the order total', {
        amount: [`must equal the order total ${toAmount(order.totalAmount).toFixed(2)}`],
      });
    }
    const items = await repo.sellOrderSeats(tx, order.id, now, expired);
    if (items.length !== order.itemCount || items.some((i) => !i.sold)) {
      throw new AppError('seat_unavailable', 'Some seats of the order are no longer available');
    }
    const ticketCodes = await completeOrder(tx, {
      orderId: order.id,
      mode: order.integrationMode,
      items,
      buyer: input.buyer,
      paymentMethod: input.paymentMethod ?? null,
      transactionId: input.transactionId ?? null,
      at: now,
    });
    sessionIds = items.map((i) => i.sessionId);
    return { orderId: order.id, alreadyCompleted: false, ticketCodes };
  });
  inventoryChanged(ctx, sessionIds);
  return result;
}

/**
 * The part of closing after the seats are sold, shared with reservations: buyer record, tickets,
 * order completed, ticket e-mail queued. Runs inside the caller's transaction.
 */
export async function completeOrder(
  tx: Db,
  o: {
    orderId: number;
    mode: IntegrationMode;
    items: OrderItemRef[];
    buyer: Buyer;
    paymentMethod: string | null;
    transactionId: string | null;
    at: Date;
  },
): Promise<string[]> {
  const codes = o.items.map(() => newTicketCode());
  await repo.writeCompletion(tx, {
    orderId: o.orderId,
    buyer: o.buyer,
    tickets: o.items.map((item, i) => ({ itemId: item.id, code: codes[i]! })),
    paymentMethod: o.paymentMethod,
    transactionId: o.transactionId,
    emailTo: sendsTicketEmail(o.mode) ? o.buyer.email : null,
    at: o.at,
  });
  return codes;
}
