import type { AppContext } from '../../../app-context.js';
import { AppError } from '../../../http/errors.js';
import { closeOrder } from '../../checkout/closing.service.js';
import type { PaymentRow } from '../portal.repo.js';

export type CloseOutcome = 'completed' | 'seats_unavailable' | 'amount_mismatch' | 'order_cancelled';

/**
 * Runs the one closing process (the same as confirm: seats sold, buyer written, tickets issued and
 * e-mailed) for an order the card provider has paid. An expired order whose seats are still free
 * is completed; one whose seats were taken meanwhile is not.
 */
export async function closePaidOrder(ctx: AppContext, orderId: number, payment: PaymentRow): Promise<CloseOutcome> {
  try {
    await closeOrder(ctx, {
      orderId,
      buyer: { name: payment.buyerName, surname: payment.buyerSurname, email: payment.buyerEmail, phone: payment.buyerPhone },
      paymentMethod: 'card',
      transactionId: payment.id,
      expectedAmount: payment.amount,
      allowExpired: true,
    });
    return 'completed';
  } catch (err) {
    // What changed under the lock since the checks of the caller: the money is taken, so refund.
    if (err instanceof AppError && err.code === 'seat_unavailable') return 'seats_unavailable';
    if (err instanceof AppError && err.code === 'amount_mismatch') return 'amount_mismatch';
    if (err instanceof AppError && err.code === 'order_not_modifiable') return 'order_cancelled';
    throw err;
  }
}
