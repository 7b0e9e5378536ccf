import type { AppContext } from '../../../app-context.js';
import type { Db } from '../../../db/client.js';
import { announceClosed, closeOrderWithin } from '../../checkout/closing.service.js';
import type { PaymentRow } from './payments.repo.js';

export type CloseOutcome =
  | { outcome: 'completed'; sessionIds: number[] }
  | { outcome: 'seats_unavailable' | 'amount_mismatch' | 'order_cancelled' | 'order_expired' | 'order_empty' | 'order_already_paid' | 'order_missing' };

/**
 * Runs the one closing process (D21, close_order: seats sold, buyer written, tickets issued and
 * e-mailed) for an order a card payment has paid, inside the caller's transaction, which already
 * holds the order's row lock and has decided that this payment may complete it (D73). An expired
 * cart whose seats are still free is completed; one whose seats were taken meanwhile is not.
 * Nothing is announced here: the caller calls afterOrderClosed once it has committed.
 */
export async function closePaidOrderInTransaction(ctx: AppContext, tx: Db, orderId: number, payment: PaymentRow): Promise<CloseOutcome> {
  const result = await closeOrderWithin(ctx, tx, {
    orderId,
    allowExpired: true,
    expectedAmount: payment.amount,
    buyer: { name: payment.buyerName, surname: payment.buyerSurname, email: payment.buyerEmail, phone: payment.buyerPhone },
    paymentMethod: 'card',
    transactionId: payment.id,
  });
  switch (result.outcome) {
    case 'closed':
      return { outcome: 'completed', sessionIds: result.sessionIds };
    // What the caller's checks under the same lock rule out; mapped anyway, never a second completion.
    case 'already_completed':
      return { outcome: 'order_already_paid' };
    case 'seat_unavailable':
      return { outcome: 'seats_unavailable' };
    case 'amount_mismatch':
      return { outcome: 'amount_mismatch' };
    case 'cancelled':
      return { outcome: 'order_cancelled' };
    case 'expired':
      return { outcome: 'order_expired' };
    case 'empty':
      return { outcome: 'order_empty' };
    case 'not_found':
      return { outcome: 'order_missing' };
    // close_order answers it only to a confirm by token (D75: a cart paying by card keeps its voucher).
    case 'voucher_withdrawn':
      return { outcome: 'amount_mismatch' };
    // D74: the session is no longer on sale (cancelled, started, window ended): the money goes back.
    case 'not_on_sale':
      return { outcome: 'order_cancelled' };
  }
}

/** After the completing transaction has committed: inventory news and the metric. */
export const afterOrderClosed = (ctx: AppContext, sessionIds: number[]): void => announceClosed(ctx, sessionIds);
