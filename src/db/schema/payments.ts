import { pgTable, bigint, boolean, integer, text, timestamp, primaryKey } from 'drizzle-orm/pg-core';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

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
  amount: integer('amount').notNull(),
  currency: text('currency').notNull(),
  lang: text('lang').notNull(),
  status: text('status').$type<PaymentStatus>().notNull().default('pending'),
  buyerName: text('buyer_name').notNull(),
  buyerSurname: text('buyer_surname').notNull(),
  buyerEmail: text('buyer_email').notNull(),
  buyerPhone: text('buyer_phone'),
  failureReason: text('failure_reason'),
  closedAt: ts('closed_at'),
  providerClosedAt: ts('provider_closed_at'),
  capturedWhileOpen: boolean('captured_while_open').notNull().default(false),
  refundAttempts: integer('refund_attempts').notNull().default(0),
  refundNextAt: ts('refund_next_at'),
  refundError: text('refund_error'),
  refundedAt: ts('refunded_at'),
  refundRef: text('refund_ref'),
  createdAt: ts('created_at').notNull(),
  updatedAt: ts('updated_at').notNull(),
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
