import type { AppContext } from '../../../app-context.js';
import type { Job } from '../../../platform/scheduler.js';
import { refundPayment } from './payments.refunds.js';
import * as payRepo from './payments.repo.js';
import { closeAtProvider } from './payments.service.js';

// D73, in the background: closed attempts get their provider session closed, and every payment
// that took money but could not complete its order (`refund_required`) is refunded through its
// provider (once: one idempotency key per payment), with an e-mail to the buyer, then `refunded`.

const INTERVAL_MS = 10_000;
const BATCH = 20;
/** A claimed refund is left alone by the other instances for this long. */
const LEASE_MS = 5 * 60_000;
const FIRST_RETRY_MS = 60_000;
const MAX_RETRY_MS = 6 * 3_600_000;

/** Backoff of the automatic refund: 1 min, 2 min, 4 min, ... at most 6 hours (attempts counts this one). */
const refundRetryDelayMs = (attempts: number) => Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1), MAX_RETRY_MS);

/** The refund's idempotency key: one per payment, so that no retry, instance or race refunds it twice. */
const automaticRefundKey = (paymentId: string) => `d73-${paymentId}`;

export interface RefundPassResult {
  refunded: number;
  retrying: number;
}

/**
 * One pass of the automatic refunds: claims the due `refund_required` payments, refunds each
 * through its provider, marks it `refunded` and queues the buyer's e-mail in one transaction; a
 * failure (provider refusal or unreachable) is retried with backoff.
 */
export async function refundDuePayments(ctx: AppContext, opts: { limit?: number } = {}): Promise<RefundPassResult> {
  const now = ctx.clock.now();
  const claimed = await payRepo.claimDueRefunds(ctx.db, now, new Date(now.getTime() + LEASE_MS), opts.limit ?? BATCH);
  const result: RefundPassResult = { refunded: 0, retrying: 0 };
  for (const payment of claimed) {
    try {
      const done = await refundPayment(ctx, {
        paymentId: payment.id,
        amount: payment.amount,
        reason: `D73 ${payment.failureReason ?? 'refund_required'}`,
        key: automaticRefundKey(payment.id),
      });
      const at = ctx.clock.now();
      await ctx.db.transaction(async (tx) => {
        if (await payRepo.markRefunded(tx, payment.id, done.refundRef, at)) {
          await payRepo.queueRefundEmail(tx, { orderId: payment.orderId, paymentId: payment.id, recipient: payment.buyerEmail, at });
        }
      });
      result.refunded++;
    } catch (err) {
      const at = ctx.clock.now();
      await payRepo.markRefundFailed(ctx.db, payment.id, (err as Error).message ?? String(err), new Date(at.getTime() + refundRetryDelayMs(payment.refundAttempts)), at);
      result.retrying++;
    }
  }
  return result;
}

/** Closes at the provider the sessions of attempts closed on our side (cancel, sweep, another completion). */
async function closeEndedAttempts(ctx: AppContext, opts: { limit?: number } = {}): Promise<number> {
  let closed = 0;
  for (const payment of await payRepo.attemptsToCloseAtProvider(ctx.db, opts.limit ?? 50)) {
    if (await closeAtProvider(ctx, payment)) closed++;
  }
  return closed;
}

/** The scheduler's job: provider sessions of ended attempts first, then the due refunds. */
export function paymentAttemptsJob(ctx: AppContext): Job {
  return {
    name: 'payment-attempts',
    intervalMs: INTERVAL_MS,
    describe: () => 'closes ended card attempts at the provider and refunds payments that completed no order',
    async run() {
      await closeEndedAttempts(ctx);
      for (;;) {
        const r = await refundDuePayments(ctx);
        if (r.refunded + r.retrying < BATCH) break;
      }
    },
  };
}
