import crypto from 'node:crypto';
import type { Config } from '../../../config.js';
import type { Db } from '../../../db/client.js';
import type { Clock } from '../../../lib/clock.js';
import { AppError } from '../../../http/errors.js';
import { hmac, safeEqual } from '../../../lib/secrets.js';
import { header, type Headers, type PaymentNotice, type PaymentProvider } from './payments.provider.js';
import type { PaymentRequest, PaymentStart, ProviderRefundRequest, ProviderRefundResult } from './payments.provider.js';
import { insertSandboxRefund, sandboxCapture, sandboxRefundByKey } from './sandbox.repo.js';

/** Test cards of the sandbox (the same numbers Stripe's test mode uses). */
export const SANDBOX_CARDS = {
  success: '4242424242424242',
  decline: '4000000000000002',
} as const;

export const SANDBOX_SIGNATURE_HEADER = 'taquilla-sandbox-signature';
/** A signed notification older (or newer) than this is refused: a captured one cannot be replayed later. */
const SANDBOX_TOLERANCE_SECONDS = 300;

export interface SandboxNotification {
  id: string;
  type: 'payment.succeeded' | 'payment.declined';
  payment_id: string;
  amount: number;
  currency: string;
  card_last4: string;
  created: number;
}

/** The sandbox's own key, derived from SIGNING_SECRET so that it signs nothing else. */
const sandboxKey = (config: Config) => hmac(config.signingSecret, 'sandbox-payment-notifications');

/** Signs a notification body like the sandbox does: `t=<unix seconds>,v1=<HMAC-SHA256 of "t.body">`. */
export function signSandboxNotification(config: Config, body: string, now: Date): string {
  const t = Math.floor(now.getTime() / 1000);
  return `t=${t},v1=${hmac(sandboxKey(config), `${t}.${body}`)}`;
}

export function newSandboxNotification(
  paymentId: string,
  outcome: 'succeeded' | 'declined',
  amount: number,
  currency: string,
  cardNumber: string,
  now: Date,
): SandboxNotification {
  return {
    id: `evt_sbx_${crypto.randomBytes(12).toString('hex')}`,
    type: outcome === 'succeeded' ? 'payment.succeeded' : 'payment.declined',
    payment_id: paymentId,
    amount,
    currency,
    card_last4: cardNumber.slice(-4),
    created: Math.floor(now.getTime() / 1000),
  };
}

const forged = () => new AppError('invalid_signature', 'The notification signature is not valid');

/**
 * The built-in test provider (D27): its card page is served by this service under /sandbox/pay.
 * Its refunds (D58) go to its own books (sandbox_refunds), which the card page shows.
 */
export function createSandboxProvider(config: Config, db: Db, clock: Clock): PaymentProvider {
  return {
    name: 'sandbox',
    async startPayment(request: PaymentRequest): Promise<PaymentStart> {
      return {
        providerRef: null,
        redirectUrl: `${config.publicBaseUrl}/sandbox/pay/${encodeURIComponent(request.paymentId)}`,
        params: { payment_id: request.paymentId },
      };
    },
    async closeAttempt(): Promise<void> {
      // The sandbox card page reads the attempt's state from the database (payments.status) and
      // stops taking cards as soon as it is closed there: nothing to call.
    },
    verifyNotification(rawBody: string, headers: Headers, now: Date): PaymentNotice {
      const signature = header(headers, SANDBOX_SIGNATURE_HEADER) ?? '';
      const match = /^t=(\d{1,12}),v1=([A-Za-z0-9_-]{20,100})$/.exec(signature);
      if (!match) throw forged();
      const [, t, v1] = match;
      if (!safeEqual(v1!, hmac(sandboxKey(config), `${t}.${rawBody}`))) throw forged();
      if (Math.abs(now.getTime() / 1000 - Number(t)) > SANDBOX_TOLERANCE_SECONDS) {
        throw new AppError('invalid_signature', 'The notification signature has expired');
      }
      let body: SandboxNotification;
      try {
        body = JSON.parse(rawBody) as SandboxNotification;
      } catch {
        throw new AppError('bad_request', 'The notification body is not valid JSON');
      }
      if (typeof body.id !== 'string' || typeof body.payment_id !== 'string') {
        throw new AppError('bad_request', 'The notification has no id or payment_id');
      }
      return {
        notificationId: body.id,
        kind: body.type,
        outcome: body.type === 'payment.succeeded' ? 'succeeded' : body.type === 'payment.declined' ? 'declined' : 'ignored',
        paymentId: body.payment_id,
        providerRef: null,
        amount: Number.isInteger(body.amount) ? body.amount : null,
        currency: typeof body.currency === 'string' ? body.currency : null,
        transactionRef: body.id,
        capturedAt: Number.isInteger(body.created) ? new Date(body.created * 1000) : null,
        reason: body.type === 'payment.declined' ? 'card_declined' : null,
      };
    },
    async refund(request: ProviderRefundRequest, within?: Db): Promise<ProviderRefundResult> {
      const books = within ?? db;
      // Like a provider's idempotency key: the same key answers the same refund.
      const earlier = await sandboxRefundByKey(books, request.idempotencyKey);
      if (earlier) return { ok: true, refundRef: earlier.id };
      const capture = await sandboxCapture(books, request.paymentId);
      if (!capture || (capture.status !== 'succeeded' && capture.status !== 'refund_required')) {
        return { ok: false, reason: 'The sandbox has no captured payment to refund' };
      }
      if (capture.currency !== request.currency) return { ok: false, reason: `The payment was captured in ${capture.currency}` };
      const recorded = await insertSandboxRefund(books, {
        id: `re_sbx_${crypto.randomBytes(12).toString('hex')}`,
        paymentId: request.paymentId,
        amount: request.amount,
        currency: request.currency,
        reason: request.reason,
        key: request.idempotencyKey,
        now: clock.now(),
      });
      return recorded ? { ok: true, refundRef: recorded.id } : { ok: false, reason: 'The refund exceeds what is left of the payment' };
    },
  };
}
