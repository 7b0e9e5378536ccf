import { pgTable, bigint, integer, text, primaryKey } from 'drizzle-orm/pg-core';
import { ts, bigserialId, createdAt, status, amount, updatedAt } from './columns.js';

export type PaymentProviderName = 'sandbox' | 'stripe';
/**
 * pending: the attempt is open (the cart is frozen, D73); succeeded: it completed the order;
 * declined; cancelled: closed without payment (abandoned, superseded, or ended with its cart);
 * refund_required: money taken that cannot complete the order, until the scheduler refunds it;
 * refunded.
 */
export type PaymentStatus = 'pending' | 'succeeded' | 'declined' | 'cancelled' | 'refund_required' | 'refunded';
export const PAYMENT_STATUSES: readonly PaymentStatus[] = ['pending', 'succeeded', 'declined', 'cancelled', 'refund_required', 'refunded'];

/** One card payment attempt of the portal (models A and C). */
export const payments = pgTable('payments', {
  id: text('id').primaryKey(),
  orderId: bigint('order_id', { mode: 'number' }).notNull(),
  channelId: integer('channel_id').notNull(),
  provider: text('provider').$type<PaymentProviderName>().notNull(),
  providerRef: text('provider_ref'),
  amount: amount('amount'),
  currency: text('currency').notNull(),
  lang: text('lang').notNull(),
  status: status<PaymentStatus>('pending'),
  buyerName: text('buyer_name').notNull(),
  buyerSurname: text('buyer_surname').notNull(),
  buyerEmail: text('buyer_email').notNull(),
  buyerPhone: text('buyer_phone'),
  failureReason: text('failure_reason'),
  closedAt: ts('closed_at'),
  providerClosedAt: ts('provider_closed_at'),
  refundAttempts: integer('refund_attempts').notNull().default(0),
  refundNextAt: ts('refund_next_at'),
  refundError: text('refund_error'),
  refundedAt: ts('refunded_at'),
  refundRef: text('refund_ref'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
  /** The provider's reference of the captured money (a Stripe payment intent), migration 0140. */
  transactionRef: text('transaction_ref'),
});

/** What the card provider gave back (D58, migration 0140): at most one refund per key. */
export const paymentRefunds = pgTable('payment_refunds', {
  id: bigserialId(),
  paymentId: text('payment_id').notNull(),
  provider: text('provider').$type<PaymentProviderName>().notNull(),
  amount: amount('amount'),
  currency: text('currency').notNull(),
  providerRefundRef: text('provider_refund_ref').notNull(),
  reason: text('reason').notNull(),
  key: text('key').notNull(),
  createdAt: createdAt(),
});

/** The sandbox provider's own ledger of refunds (its test page shows them), migration 0140. */
export const sandboxRefunds = pgTable('sandbox_refunds', {
  id: text('id').primaryKey(),
  paymentId: text('payment_id').notNull(),
  amount: amount('amount'),
  currency: text('currency').notNull(),
  reason: text('reason').notNull(),
  idempotencyKey: text('idempotency_key').notNull(),
  createdAt: createdAt(),
});

/** Provider notifications already processed: the primary key makes each one count once. */
export const paymentNotifications = pgTable(
  'payment_notifications',
  {
    provider: text('provider').$type<PaymentProviderName>().notNull(),
    notificationId: text('notification_id').notNull(),
    paymentId: text('payment_id'),
    kind: text('kind').notNull(),
    result: text('result'),
    receivedAt: ts('received_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.provider, t.notificationId] })],
);
