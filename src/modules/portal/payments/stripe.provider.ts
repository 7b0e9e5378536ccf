import Stripe from 'stripe';
import { AppError } from '../../../http/errors.js';
import { spokenLanguage } from '../../../platform/i18n.js';
import { header, type Headers, type PaymentNotice, type PaymentProvider } from './payments.provider.js';
import type { PaymentRequest, PaymentStart, ProviderRefundRequest, ProviderRefundResult } from './payments.provider.js';

export interface StripeSettings {
  secretKey: string;
  webhookSecret: string;
  /** Only for tests: talk to a local stand-in of the Stripe API instead of api.stripe.com. */
  api?: { host: string; port: number; protocol: 'http' | 'https' };
}

/** Stripe Checkout Sessions live at least 30 minutes (Stripe's minimum for expires_at). */
const SESSION_LIFETIME_SECONDS = 30 * 60;

type CheckoutSession = Stripe.Checkout.Session;

function noticeOf(event: Stripe.Event): PaymentNotice {
  const base = {
    notificationId: event.id,
    kind: event.type,
    paymentId: null as string | null,
    providerRef: null as string | null,
    amount: null as number | null,
    currency: null as string | null,
    transactionRef: null as string | null,
    reason: null as string | null,
    capturedAt: Number.isFinite(event.created) ? new Date(event.created * 1000) : null,
  };
  if (!event.type.startsWith('checkout.session.')) return { ...base, outcome: 'ignored' };
  const session = event.data.object as CheckoutSession;
  const fromSession = {
    ...base,
    paymentId: session.client_reference_id ?? session.metadata?.payment_id ?? null,
    providerRef: session.id,
    amount: session.amount_total ?? null,
    currency: session.currency ? session.currency.toUpperCase() : null,
    transactionRef: typeof session.payment_intent === 'string' ? session.payment_intent : (session.payment_intent?.id ?? session.id),
  };
  switch (event.type) {
    case 'checkout.session.completed':
      // A delayed payment method completes the session unpaid; its outcome comes in a later event.
      return { ...fromSession, outcome: session.payment_status === 'paid' ? 'succeeded' : 'ignored' };
    case 'checkout.session.async_payment_succeeded':
      return { ...fromSession, outcome: 'succeeded' };
    case 'checkout.session.async_payment_failed':
      return { ...fromSession, outcome: 'declined', reason: 'payment_failed' };
    case 'checkout.session.expired':
      return { ...fromSession, outcome: 'declined', reason: 'session_expired' };
    default:
      return { ...fromSession, outcome: 'ignored' };
  }
}

/**
 * Stripe adapter: a Checkout Session per payment attempt; the webhook's signature is verified with
 * the endpoint secret (stripe.webhooks.constructEvent, which also refuses stale timestamps).
 */
export function createStripeProvider(settings: StripeSettings): PaymentProvider {
  const stripe = new Stripe(settings.secretKey, {
    maxNetworkRetries: 1,
    timeout: 15_000,
    ...(settings.api ? { host: settings.api.host, port: settings.api.port, protocol: settings.api.protocol } : {}),
  });
  return {
    name: 'stripe',
    async startPayment(request: PaymentRequest): Promise<PaymentStart> {
      const session = await stripe.checkout.sessions.create(
        {
          mode: 'payment',
          client_reference_id: request.paymentId,
          customer_email: request.buyerEmail,
          locale: spokenLanguage(request.lang),
          line_items: [
            {
              quantity: 1,
              price_data: {
                currency: request.currency.toLowerCase(),
                unit_amount: request.amount,
                product_data: { name: `Order ${request.orderReference}` },
              },
            },
          ],
          metadata: { payment_id: request.paymentId, order_token: request.orderToken },
          success_url: request.successUrl,
          cancel_url: request.cancelUrl,
          expires_at: Math.floor(request.now.getTime() / 1000) + SESSION_LIFETIME_SECONDS,
        },
        // A retried start of the same attempt must not open a second session.
        { idempotencyKey: `taquilla-${request.paymentId}` },
      );
      if (!session.url) throw new AppError('service_unavailable', 'The card payment provider did not return a payment page');
      return { providerRef: session.id, redirectUrl: session.url, params: { session_id: session.id } };
    },
    async closeAttempt(payment: { paymentId: string; providerRef: string | null }): Promise<void> {
      if (!payment.providerRef) return;
      try {
        await stripe.checkout.sessions.expire(payment.providerRef, {}, { idempotencyKey: `taquilla-expire-${payment.paymentId}` });
      } catch (err) {
        // Only an open session can be expired: one already complete or expired is closed anyway
        // (a payment it took arrives as its notification and is settled there).
        if (err instanceof Stripe.errors.StripeInvalidRequestError) {
          const session = await stripe.checkout.sessions.retrieve(payment.providerRef);
          if (session.status !== 'open') return;
        }
        throw err;
      }
    },
    verifyNotification(rawBody: string, headers: Headers): PaymentNotice {
      const signature = header(headers, 'stripe-signature');
      if (!signature) throw new AppError('invalid_signature', 'The notification signature is not valid');
      let event: Stripe.Event;
      try {
        event = stripe.webhooks.constructEvent(rawBody, signature, settings.webhookSecret);
      } catch {
        throw new AppError('invalid_signature', 'The notification signature is not valid');
      }
      return noticeOf(event);
    },
    async refund(request: ProviderRefundRequest): Promise<ProviderRefundResult> {
      try {
        const paymentIntent = await paymentIntentOf(stripe, request);
        if (!paymentIntent) return { ok: false, reason: 'Stripe has no captured payment for this checkout session' };
        const refund = await stripe.refunds.create(
          {
            payment_intent: paymentIntent,
            amount: request.amount,
            metadata: { payment_id: request.paymentId, reason: request.reason.slice(0, 500) },
          },
          // A retried refund (a lost answer, a second click) gets Stripe's first refund back.
          { idempotencyKey: `taquilla-refund-${request.idempotencyKey}` },
        );
        if (refund.status === 'failed' || refund.status === 'canceled') {
          return { ok: false, reason: refund.failure_reason ?? `The refund ${refund.status === 'failed' ? 'failed' : 'was canceled'}` };
        }
        return { ok: true, refundRef: refund.id };
      } catch (err) {
        // Stripe answered and said no (4xx: already refunded, amount too large, ...): its reason.
        if (err instanceof Stripe.errors.StripeError && err.statusCode !== undefined && err.statusCode < 500) {
          return { ok: false, reason: err.message };
        }
        throw new AppError('service_unavailable', 'The card payment provider could not be reached; nothing was refunded');
      }
    },
  };
}

/** The payment intent to refund: the one the notification named, else the checkout session's. */
async function paymentIntentOf(stripe: Stripe, request: ProviderRefundRequest): Promise<string | null> {
  if (request.transactionRef?.startsWith('pi_')) return request.transactionRef;
  if (!request.providerRef) return null;
  const session = await stripe.checkout.sessions.retrieve(request.providerRef);
  const intent = session.payment_intent;
  return typeof intent === 'string' ? intent : (intent?.id ?? null);
}
