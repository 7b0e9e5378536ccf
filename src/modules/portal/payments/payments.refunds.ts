import type { AppContext } from '../../../app-context.js';
import type { Db } from '../../../db/client.js';
import { AppError, invalidData, notFound } from '../../../http/errors.js';
import { providerNamed } from './payments.providers.js';
import * as repo from './refunds.repo.js';

export interface PaymentRefundInput {
  paymentId: string;
  /** Minor units, at most what is left of the payment. */
  amount: number;
  reason: string;
  /** Idempotency key: the same key refunds once, whoever calls and however often. */
  key: string;
}

/**
 * Refunds `amount` of a captured payment through its provider, at most once per `key`; records the
 * provider's reference (table payment_refunds). Throws AppError('payment_provider_refused', <reason>)
 * (HTTP 502) when the provider refuses; then nothing is recorded as refunded.
 *
 * The payment row is locked while the provider is asked, so that parallel calls decide one after
 * the other: the second finds the first's record under the key (`alreadyDone`) and asks nobody.
 * With `within` (the caller's transaction, e.g. an order refund) the record commits or rolls back
 * with the caller's changes; the key is also the provider's idempotency key, so a retry after a
 * rollback gets the provider's same refund back instead of a second one.
 */
export async function refundPayment(
  ctx: AppContext,
  input: PaymentRefundInput,
  within?: Db,
): Promise<{ refundRef: string; alreadyDone: boolean }> {
  const run = async (tx: Db) => {
    const payment = await repo.lockPayment(tx, input.paymentId);
    if (!payment) throw notFound('Payment');
    const earlier = await repo.paymentRefundByKey(tx, input.key);
    if (earlier) {
      if (earlier.paymentId !== payment.id) throw new AppError('conflict', 'This refund key was used for another payment');
      return { refundRef: earlier.providerRefundRef, alreadyDone: true };
    }
    if (!Number.isInteger(input.amount) || input.amount <= 0) throw invalidData({ amount: ['must be a positive amount'] });
    if (payment.status !== 'succeeded' && payment.status !== 'refund_required') {
      throw new AppError('conflict.nothing_captured', { payment: payment.id });
    }
    const left = payment.amount - (await repo.refundedAmount(tx, payment.id));
    if (input.amount > left) throw new AppError('conflict.refund_exceeds', { payment: payment.id });
    const provider = providerNamed(ctx, payment.provider);
    const answer = await provider.refund(
      {
        paymentId: payment.id,
        providerRef: payment.providerRef,
        transactionRef: payment.transactionRef,
        amount: input.amount,
        currency: payment.currency,
        reason: input.reason,
        idempotencyKey: input.key,
      },
      tx,
    );
    if (!answer.ok) throw new AppError('payment_provider_refused', { reason: answer.reason });
    await repo.insertPaymentRefund(tx, {
      paymentId: payment.id,
      provider: payment.provider,
      amount: input.amount,
      currency: payment.currency,
      providerRefundRef: answer.refundRef,
      reason: input.reason,
      key: input.key,
      now: ctx.clock.now(),
    });
    return { refundRef: answer.refundRef, alreadyDone: false };
  };
  return within ? run(within) : ctx.db.transaction(run);
}

/**
 * The card refund of an order refund (D58): refunds `amount` of the payment that paid the order,
 * when a card payment of this service paid it; null when none did (models B and D, reservations,
 * box-office sales). Runs in the order refund's transaction.
 */
export async function refundOrderPayment(
  ctx: AppContext,
  input: { orderId: number; amount: number; reason: string; key: string },
  tx: Db,
): Promise<{ paymentId: string; provider: string; refundRef: string } | null> {
  const payment = await repo.cardPaymentOfOrder(tx, input.orderId);
  if (!payment || input.amount <= 0) return null;
  const done = await refundPayment(ctx, { paymentId: payment.id, amount: input.amount, reason: input.reason, key: input.key }, tx);
  return { paymentId: payment.id, provider: payment.provider, refundRef: done.refundRef };
}
