import type { AppContext } from '../../../app-context.js';
import type { Db } from '../../../db/client.js';
import { announceClosed, closeOrderWithin, type ClosingOutcome } from '../../checkout/closing.service.js';
import type { PaymentRow } from './payments.repo.js';

export type CloseOutcome =
  | { outcome: 'completed'; sessionIds: number[] }
  | { outcome: 'seats_unavailable' | 'amount_mismatch' | 'order_cancelled' | 'order_expired' | 'order_empty' | 'order_already_paid' | 'order_missing' };

/** What each refusal of close_order means for the payment. */
const REFUSED: Record<Exclude<ClosingOutcome['outcome'], 'closed'>, Exclude<CloseOutcome['outcome'], 'completed'>> = {
  // What the caller's checks under the same lock rule out; mapped anyway, never a second completion.
  already_completed: 'order_already_paid',
  seat_unavailable: 'seats_unavailable',
  amount_mismatch: 'amount_mismatch',
  cancelled: 'order_cancelled',
  expired: 'order_expired',
  empty: 'order_empty',
  not_found: 'order_missing',
  // close_order answers it only to a confirm by token (D75: a cart paying by card keeps its voucher).
  voucher_withdrawn: 'amount_mismatch',
  // D74: the session is no longer on sale (cancelled, started, window ended): the money goes back.
  not_on_sale: 'order_cancelled',
};

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
  return result.outcome === 'closed' ? { outcome: 'completed', sessionIds: result.sessionIds } : { outcome: REFUSED[result.outcome] };
}

/** After the completing transaction has committed: inventory news and the metric. */
export const afterOrderClosed = (ctx: AppContext, sessionIds: number[]): void => announceClosed(ctx, sessionIds);
