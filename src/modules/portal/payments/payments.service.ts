import crypto from 'node:crypto';
import type { AppContext } from '../../../app-context.js';
import type { PaymentProviderName } from '../../../db/schema/index.js';
import { AppError, invalidData, notFound, type FieldErrors } from '../../../http/errors.js';
import { emailProblem } from '../../../lib/email-address.js';
import { policyOf } from '../../../lib/integration-policy.js';
import { countPaymentNotification } from '../../../platform/metrics.js';
import type { ChannelRecord } from '../../../db/channel-record.js';
import * as repo from '../portal.repo.js';
import { afterOrderClosed, closePaidOrderInTransaction } from './payments.closing.js';
import type { Headers, PaymentNotice, PaymentStart } from './payments.provider.js';
import * as payRepo from './payments.repo.js';
import type { PaymentRow } from './payments.repo.js';
import { activeProvider, providerNamed } from './payments.providers.js';

export interface Buyer {
  name?: string;
  surname?: string;
  email?: string;
  phone?: string;
}

export type CheckoutResult =
  | { kind: 'card'; provider: PaymentProviderName; paymentId: string; redirectUrl: string; params: Record<string, string>; amount: number; currency: string }
  | { kind: 'external'; checkoutUrl: string };

function buyerErrors(buyer: Buyer): FieldErrors | null {
  const errors: FieldErrors = {};
  if (!buyer.name?.trim()) errors.name = ['is required'];
  if (!buyer.surname?.trim()) errors.surname = ['is required'];
  const email = buyer.email?.trim();
  const badEmail = email ? emailProblem(email) : 'is required';
  if (badEmail) errors.email = [badEmail];
  return Object.keys(errors).length ? errors : null;
}

/** The order must be a live, non-empty cart of this channel. */
function assertPayable(order: repo.PortalOrder | null, now: Date): asserts order is repo.PortalOrder {
  if (!order) throw notFound('Order');
  if (order.status === 'completed') throw new AppError('order_completed', 'The order is already paid');
  if (order.status !== 'pending' || (order.expiresAt && order.expiresAt <= now)) {
    throw new AppError('order_expired', 'The order has expired or was cancelled');
  }
  if (order.itemCount === 0) throw new AppError('order_empty', 'The order has no items');
}

/** `{checkout_url}?order_token=...`, keeping any query the channel's address already has (SPEC Redirects 1). */
function externalCheckoutUrl(channel: ChannelRecord, orderToken: string): string {
  const url = new URL(channel.checkoutUrl!);
  url.searchParams.set('order_token', orderToken);
  return url.toString();
}

/** Portal page addresses: under PORTAL_CHECKOUT_BASE_URL, where buyers reach the portal. */
export const portalPageUrl = (ctx: AppContext, slug: string, lang: string, path: string) =>
  `${ctx.config.portalCheckoutBaseUrl}/${slug}/${lang}${path}`;

/**
 * POST /portal/{slug}/{lang}/checkout (D26): models A and C start a card payment and get the
 * provider's parameters; model B gets its own checkout address; model D is refused.
 */
export async function startCheckout(
  ctx: AppContext,
  channel: ChannelRecord,
  lang: string,
  orderToken: string,
  buyer: Buyer,
): Promise<CheckoutResult> {
  const { portalCheckout } = policyOf(channel.integrationMode);
  if (portalCheckout === null) {
    throw new AppError('forbidden_for_integration_mode', 'This sales channel collects payment itself: the portal checkout is not available');
  }
  const now = ctx.clock.now();
  const order = await repo.findChannelOrder(ctx.db, channel.id, orderToken);
  assertPayable(order, now);
  if (portalCheckout === 'external_page') return { kind: 'external', checkoutUrl: externalCheckoutUrl(channel, orderToken) };

  const errors = buyerErrors(buyer);
  if (errors) throw invalidData(errors);
  const provider = activeProvider(ctx);
  // D73: under the order's lock, so that no cart write and no second checkout can slip between:
  // an attempt already open is closed (superseded: never two payable attempts), the cart is
  // extended once to cover the provider's session, and the new attempt opens (freezing the cart).
  const { payment, superseded, order: locked } = await ctx.db.transaction(async (tx) => {
    await payRepo.lockChannelOrderId(tx, channel.id, orderToken);
    const current = await repo.findChannelOrder(tx, channel.id, orderToken);
    assertPayable(current, now);
    const open = await payRepo.openAttemptOf(tx, current.id);
    if (open) await payRepo.closeAttempt(tx, open.id, 'superseded', now);
    if ((await payRepo.countAttempts(tx, current.id)) === 0) {
      await payRepo.extendCart(tx, current.id, new Date(now.getTime() + ctx.config.checkoutHoldSeconds * 1000), now);
    }
    const inserted = await repo.insertPayment(tx, {
      id: `pay_${crypto.randomBytes(16).toString('hex')}`,
      orderId: current.id,
      channelId: channel.id,
      provider: provider.name,
      amount: current.totalAmount,
      currency: current.currency,
      lang,
      buyerName: buyer.name!.trim(),
      buyerSurname: buyer.surname!.trim(),
      buyerEmail: buyer.email!.trim(),
      buyerPhone: buyer.phone?.trim() || null,
      createdAt: now,
      updatedAt: now,
    });
    return { payment: inserted, superseded: open, order: current };
  });
  if (superseded) await closeAtProvider(ctx, superseded);
  let start: PaymentStart;
  try {
    start = await provider.startPayment({
      paymentId: payment.id,
      orderToken: locked.orderToken,
      orderReference: locked.reference,
      amount: locked.totalAmount,
      currency: locked.currency,
      lang,
      buyerEmail: payment.buyerEmail,
      successUrl: portalPageUrl(ctx, channel.slug, lang, `/orders/${encodeURIComponent(locked.orderToken)}?payment_id=${payment.id}`),
      cancelUrl: portalPageUrl(ctx, channel.slug, lang, cancelPath(locked.orderToken, payment.id)),
      now,
    });
  } catch (err) {
    // No page to pay on: the attempt ends here and the cart opens again.
    await payRepo.closeAttempt(ctx.db, payment.id, 'provider_unavailable', ctx.clock.now());
    await payRepo.markClosedAtProvider(ctx.db, payment.id, ctx.clock.now());
    throw err;
  }
  if (start.providerRef) await repo.setProviderRef(ctx.db, payment.id, start.providerRef, now);
  return {
    kind: 'card',
    provider: provider.name,
    paymentId: payment.id,
    redirectUrl: start.redirectUrl,
    params: start.params,
    amount: locked.totalAmount,
    currency: locked.currency,
  };
}

/** The portal checkout page that abandons an attempt (the provider's "back"/cancel link): it reopens the cart. */
export const cancelPath = (orderToken: string, paymentId: string) =>
  `/checkout?order_token=${encodeURIComponent(orderToken)}&payment=cancelled&payment_id=${encodeURIComponent(paymentId)}`;

/**
 * The buyer gave up an attempt (D73): it is closed (at the provider too) and the cart can change
 * again. Only the order's own open attempt; anything else is left as it is.
 */
export async function abandonAttempt(ctx: AppContext, orderId: number, paymentId: string): Promise<boolean> {
  const payment = await repo.findPayment(ctx.db, paymentId);
  if (!payment || payment.orderId !== orderId) return false;
  if (!(await payRepo.closeAttempt(ctx.db, payment.id, 'abandoned', ctx.clock.now()))) return false;
  await closeAtProvider(ctx, payment);
  return true;
}

/**
 * Closes a closed attempt's session at its provider; a failure is left to the scheduler
 * (payment-attempts job), which tries again.
 */
export async function closeAtProvider(ctx: AppContext, payment: Pick<PaymentRow, 'id' | 'provider' | 'providerRef'>): Promise<boolean> {
  try {
    await providerNamed(ctx, payment.provider).closeAttempt({ paymentId: payment.id, providerRef: payment.providerRef });
    await payRepo.markClosedAtProvider(ctx.db, payment.id, ctx.clock.now());
    return true;
  } catch {
    return false;
  }
}

/** What became of a notification; the notification endpoint answers 200 with it. */
export type NotificationResult =
  | 'completed'
  | 'declined'
  | 'refund_required'
  | 'duplicate'
  | 'ignored'
  | 'unknown_payment';

/**
 * Verifies and applies one provider notification, at most once per notification id: a replay
 * answers `duplicate` and changes nothing. A failure forgets the id so the provider's retry counts.
 */
export async function handleNotification(
  ctx: AppContext,
  providerName: PaymentProviderName,
  rawBody: string,
  headers: Headers,
): Promise<{ result: NotificationResult; payment_id: string | null }> {
  const provider = providerNamed(ctx, providerName);
  const now = ctx.clock.now();
  const notice = provider.verifyNotification(rawBody, headers, now);
  const payment = notice.paymentId
    ? await repo.findPayment(ctx.db, notice.paymentId)
    : notice.providerRef
      ? await repo.findPaymentByProviderRef(ctx.db, providerName, notice.providerRef)
      : null;
  const paymentId = payment?.id ?? null;
  const fresh = await repo.claimNotification(ctx.db, { provider: providerName, notificationId: notice.notificationId, paymentId, kind: notice.kind, now });
  if (!fresh) return { result: 'duplicate', payment_id: paymentId };
  try {
    // What a refund will name (D58), whatever becomes of the payment.
    if (payment && notice.outcome === 'succeeded' && notice.transactionRef) await repo.setTransactionRef(ctx.db, payment.id, notice.transactionRef);
    const result = notice.outcome === 'ignored' ? 'ignored' : payment ? await applyNotice(ctx, payment, notice) : 'unknown_payment';
    await repo.setNotificationResult(ctx.db, providerName, notice.notificationId, result);
    countPaymentNotification(providerName, result);
    return { result, payment_id: paymentId };
  } catch (err) {
    await repo.releaseNotification(ctx.db, providerName, notice.notificationId).catch(() => {});
    throw err;
  }
}

/** A pending attempt is open while its order is a live cart (D73); the sandbox page takes cards only then. */
export function attemptIsOpen(payment: Pick<PaymentRow, 'status'>, order: { status: string; expiresAt: Date | null }, now: Date): boolean {
  return payment.status === 'pending' && order.status === 'pending' && (order.expiresAt === null || order.expiresAt > now);
}

/**
 * When the attempt stopped taking payments: closed on our side, declined, or its cart timed out.
 * Null while it is open.
 */
function attemptEndedAt(payment: PaymentRow, order: payRepo.LockedOrder): Date | null {
  const ends: Date[] = [];
  if (payment.status !== 'pending') ends.push(payment.closedAt ?? payment.updatedAt);
  if ((order.status === 'pending' || order.status === 'expired') && order.expiresAt) ends.push(order.expiresAt);
  return ends.length ? new Date(Math.min(...ends.map((d) => d.getTime()))) : null;
}

/** Whole seconds (providers state their times in seconds): a capture in the closing's second counts as after it. */
const second = (d: Date) => Math.floor(d.getTime() / 1000);

/** Why an ended attempt's payment is refunded (payments.failure_reason, the refund e-mail says it). */
function endedReason(payment: PaymentRow): string {
  if (payment.status === 'pending') return 'order_expired';
  if (payment.status === 'declined') return 'attempt_declined';
  switch (payment.failureReason) {
    case 'order_expired':
    case 'order_cancelled':
      return payment.failureReason;
    case 'order_completed':
      return 'order_already_paid';
    default:
      return `attempt_${payment.failureReason ?? 'closed'}`;
  }
}

type Decision =
  | { kind: 'duplicate' }
  | { kind: 'completed_before' }
  | { kind: 'declined'; reason: string }
  | { kind: 'refund'; reason: string }
  | { kind: 'complete' };

/**
 * What a notice does to its payment, decided under the order's row lock (D73): never a second
 * completion; money that cannot complete the order (another payment completed it, the cart was
 * cancelled or expired before the payment, the amount is not the order's total) is refunded.
 */
function decide(payment: PaymentRow, order: payRepo.LockedOrder | null, notice: PaymentNotice, now: Date): Decision {
  if (payment.status === 'succeeded' || payment.status === 'refund_required' || payment.status === 'refunded') return { kind: 'duplicate' };
  if (notice.outcome === 'declined') {
    return payment.status === 'pending' ? { kind: 'declined', reason: notice.reason ?? 'declined' } : { kind: 'duplicate' };
  }
  if (notice.amount !== payment.amount || (notice.currency && notice.currency.toUpperCase() !== payment.currency)) {
    return { kind: 'refund', reason: 'amount_mismatch' };
  }
  if (!order) return { kind: 'refund', reason: 'order_missing' };
  // Completed by this very payment: a retry after a crash.
  if (order.status === 'completed' && order.transactionId === payment.id) return { kind: 'completed_before' };
  // Taken after the attempt had ended (closed, declined, superseded, its cart expired): refunded,
  // for that reason, whichever notice of the order's payments is decided first.
  // Taken while it was open (the provider's own time of the capture), it may still complete the
  // order, even one the sweep has expired meanwhile, provided its seats are still free.
  const endedAt = attemptEndedAt(payment, order);
  const takenAt = notice.capturedAt && notice.capturedAt < now ? notice.capturedAt : now;
  if (endedAt && second(takenAt) >= second(endedAt)) {
    return { kind: 'refund', reason: endedReason(payment) };
  }
  if (order.status === 'completed') return { kind: 'refund', reason: 'order_already_paid' }; // paid twice
  if (order.status === 'cancelled') return { kind: 'refund', reason: 'order_cancelled' };
  // The cart changed after the payment started: what was paid is not what is ordered.
  if (order.totalAmount !== payment.amount) return { kind: 'refund', reason: 'amount_mismatch' };
  if (order.itemCount === 0) return { kind: 'refund', reason: 'order_empty' };
  return { kind: 'complete' };
}

async function applyNotice(ctx: AppContext, payment: PaymentRow, notice: PaymentNotice): Promise<NotificationResult> {
  const now = ctx.clock.now();
  const outcome = await ctx.db.transaction(async (tx) => {
    // The order's row lock first, then the payment's: every completion of one order queues here,
    // so the one that decides sees what the others did.
    const order = await payRepo.lockOrder(tx, payment.orderId);
    const current = (await payRepo.lockPayment(tx, payment.id))!;
    const decision = decide(current, order, notice, now);
    switch (decision.kind) {
      case 'duplicate':
        return { result: 'duplicate' as const };
      case 'completed_before':
        await payRepo.settle(tx, current.id, 'succeeded', null, now);
        return { result: 'completed' as const };
      case 'declined':
        await payRepo.settle(tx, current.id, 'declined', decision.reason, now);
        return { result: 'declined' as const };
      case 'refund':
        await payRepo.settle(tx, current.id, 'refund_required', decision.reason, now);
        return { result: 'refund_required' as const };
      case 'complete': {
        const closed = await closePaidOrderInTransaction(ctx, tx, order!.id, current);
        if (closed.outcome !== 'completed') {
          await payRepo.settle(tx, current.id, 'refund_required', closed.outcome, now);
          return { result: 'refund_required' as const };
        }
        await payRepo.settle(tx, current.id, 'succeeded', null, now);
        return { result: 'completed' as const, sessionIds: closed.sessionIds };
      }
    }
  });
  if (outcome.result === 'completed' && 'sessionIds' in outcome) afterOrderClosed(ctx, outcome.sessionIds ?? []);
  // Attempts the completion (or anything else) closed: their provider sessions next.
  for (const closed of await payRepo.attemptsToCloseAtProvider(ctx.db, 20, payment.orderId)) await closeAtProvider(ctx, closed);
  return outcome.result;
}
