import crypto from 'node:crypto';
import type { AppContext } from '../../../app-context.js';
import type { PaymentProviderName } from '../../../db/schema/index.js';
import { AppError, invalidData, notFound, type FieldErrors } from '../../../http/errors.js';
import { emailProblem } from '../../../lib/email-address.js';
import { policyOf } from '../../../lib/integration-policy.js';
import { countPaymentNotification } from '../../../platform/metrics.js';
import type { ChannelRecord } from '../../../db/channel-record.js';
import * as repo from '../portal.repo.js';
import { closePaidOrder } from './payments.closing.js';
import type { Headers, PaymentNotice } from './payments.provider.js';
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
  const payment = await repo.insertPayment(ctx.db, {
    id: `pay_${crypto.randomBytes(16).toString('hex')}`,
    orderId: order.id,
    channelId: channel.id,
    provider: provider.name,
    amount: order.totalAmount,
    currency: order.currency,
    lang,
    buyerName: buyer.name!.trim(),
    buyerSurname: buyer.surname!.trim(),
    buyerEmail: buyer.email!.trim(),
    buyerPhone: buyer.phone?.trim() || null,
    createdAt: now,
    updatedAt: now,
  });
  const start = await provider.startPayment({
    paymentId: payment.id,
    orderToken: order.orderToken,
    orderReference: order.reference,
    amount: order.totalAmount,
    currency: order.currency,
    lang,
    buyerEmail: payment.buyerEmail,
    successUrl: portalPageUrl(ctx, channel.slug, lang, `/orders/${encodeURIComponent(order.orderToken)}?payment_id=${payment.id}`),
    cancelUrl: portalPageUrl(ctx, channel.slug, lang, `/checkout?order_token=${encodeURIComponent(order.orderToken)}&payment=cancelled`),
    now,
  });
  if (start.providerRef) await repo.setProviderRef(ctx.db, payment.id, start.providerRef, now);
  return {
    kind: 'card',
    provider: provider.name,
    paymentId: payment.id,
    redirectUrl: start.redirectUrl,
    params: start.params,
    amount: order.totalAmount,
    currency: order.currency,
  };
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

async function flagForRefund(ctx: AppContext, payment: repo.PaymentRow, reason: string): Promise<NotificationResult> {
  await repo.settlePayment(ctx.db, payment.id, 'refund_required', reason, ctx.clock.now());
  return 'refund_required';
}

async function applyNotice(ctx: AppContext, payment: repo.PaymentRow, notice: PaymentNotice): Promise<NotificationResult> {
  const now = ctx.clock.now();
  if (payment.status === 'succeeded' || payment.status === 'refund_required') return 'duplicate';
  if (notice.outcome === 'declined') {
    // The cart stays as it is and expires on its own; the buyer may try another card meanwhile.
    await repo.settlePayment(ctx.db, payment.id, 'declined', notice.reason ?? 'declined', now);
    return 'declined';
  }
  if (notice.amount !== payment.amount || (notice.currency && notice.currency.toUpperCase() !== payment.currency)) {
    return flagForRefund(ctx, payment, 'amount_mismatch');
  }
  const order = await repo.findOrderById(ctx.db, payment.orderId);
  if (!order) return flagForRefund(ctx, payment, 'order_missing');
  if (order.status === 'completed') {
    // Completed by this very payment (a retry after a crash) or by another one (paid twice).
    if (order.transactionId === payment.id) {
      await repo.settlePayment(ctx.db, payment.id, 'succeeded', null, now);
      return 'completed';
    }
    return flagForRefund(ctx, payment, 'order_already_paid');
  }
  if (order.status === 'cancelled') return flagForRefund(ctx, payment, 'order_cancelled');
  // The buyer changed the cart after starting the payment: what was paid is not what is ordered.
  if (order.totalAmount !== payment.amount) return flagForRefund(ctx, payment, 'amount_mismatch');
  const outcome = await closePaidOrder(ctx, order.id, payment);
  if (outcome !== 'completed') return flagForRefund(ctx, payment, outcome);
  await repo.settlePayment(ctx.db, payment.id, 'succeeded', null, now);
  return 'completed';
}
