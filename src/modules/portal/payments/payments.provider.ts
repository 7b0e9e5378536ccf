import type { Db } from '../../../db/client.js';
import type { PaymentProviderName } from '../../../db/schema/index.js';

/** What a provider needs to take the money for one order. */
export interface PaymentRequest {
  paymentId: string;
  orderToken: string;
  orderReference: string;
  /** Minor units. */
  amount: number;
  currency: string;
  lang: string;
  buyerEmail: string;
  /** Where the provider sends the buyer after paying, and after giving up. */
  successUrl: string;
  cancelUrl: string;
  now: Date;
}

/** Where to send the buyer: the provider's payment page and its parameters. */
export interface PaymentStart {
  /** The provider's own id of the attempt (a Stripe Checkout Session id), if it has one. */
  providerRef: string | null;
  redirectUrl: string;
  params: Record<string, string>;
}

/** A verified provider notification, reduced to what the closing needs. */
export interface PaymentNotice {
  /** Unique per notification at the provider: the idempotency key. */
  notificationId: string;
  kind: string;
  outcome: 'succeeded' | 'declined' | 'ignored';
  paymentId: string | null;
  providerRef: string | null;
  /** Minor units actually paid, as the provider states it. */
  amount: number | null;
  currency: string | null;
  /** The provider's reference of the money movement (charge, payment intent). */
  transactionRef: string | null;
  reason: string | null;
}

export type Headers = Record<string, string | string[] | undefined>;

/** What a provider needs to give back (part of) a captured payment (D58). */
export interface ProviderRefundRequest {
  paymentId: string;
  /** The provider's id of the attempt (a Stripe Checkout Session id); null for the sandbox. */
  providerRef: string | null;
  /** The provider's reference of the money movement (a Stripe payment intent), when known. */
  transactionRef: string | null;
  /** Minor units. */
  amount: number;
  currency: string;
  reason: string;
  /** The same key gives the same refund at the provider: a retry never moves the money twice. */
  idempotencyKey: string;
}

/** The provider's refund reference, or its refusal with the provider's reason. */
export type ProviderRefundResult = { ok: true; refundRef: string } | { ok: false; reason: string };

/**
 * A card payment provider (D27): starts a payment and verifies the signed notification it sends
 * back. Adapters never touch orders; the payments service does, through the closing process.
 */
export interface PaymentProvider {
  readonly name: PaymentProviderName;
  startPayment(request: PaymentRequest): Promise<PaymentStart>;
  /** Throws AppError('invalid_signature') unless the body is signed by the provider. */
  verifyNotification(rawBody: string, headers: Headers, now: Date): PaymentNotice;
  /**
   * Gives back `amount` of a captured payment, once per idempotency key. A refusal by the provider
   * is an answer ({ok: false}); a provider that cannot be reached throws. `within` is the caller's
   * database transaction: only the sandbox, whose books are tables of this service, writes there.
   */
  refund(request: ProviderRefundRequest, within?: Db): Promise<ProviderRefundResult>;
}

export const header = (headers: Headers, name: string): string | undefined => {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
};
