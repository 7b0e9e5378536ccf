import { pgTable, bigint, boolean, integer, text, primaryKey } from 'drizzle-orm/pg-core';
import { ts, serialId, bigserialId, createdAt, timestamps, status, amount } from './columns.js';

export type OrderType = 'purchase' | 'refund' | 'reservation';
export type OrderStatus = 'pending' | 'completed' | 'cancelled' | 'expired';
export type SeatStatus = 'available' | 'held' | 'sold' | 'blocked';

export const customers = pgTable('customers', {
  id: serialId(),
  name: text('name').notNull(),
  surname: text('surname').notNull(),
  email: text('email').notNull(),
  phone: text('phone'),
  createdAt: createdAt().defaultNow(),
});

export const orders = pgTable('orders', {
  id: bigserialId(),
  orderToken: text('order_token').notNull(),
  reference: text('reference').notNull(),
  channelId: integer('channel_id').notNull(),
  type: text('type').$type<OrderType>().notNull().default('purchase'),
  status: status<OrderStatus>('pending'),
  lang: text('lang').notNull().default('es'),
  currency: text('currency').notNull(),
  baseAmount: amount('base_amount').default(0),
  discountAmount: amount('discount_amount').default(0),
  feeAmount: amount('fee_amount').default(0),
  totalAmount: amount('total_amount').default(0),
  expiresAt: ts('expires_at'),
  customerId: integer('customer_id'),
  paymentMethod: text('payment_method'),
  transactionId: text('transaction_id'),
  refundedOrderId: bigint('refunded_order_id', { mode: 'number' }),
  /** Who the cart's holds count against (D44, src/modules/orders/orders.buyer.ts); null = no per-buyer caps. */
  buyerKey: text('buyer_key'),
  ...timestamps(),
  completedAt: ts('completed_at'),
  /** Completed but not yet in the kept sales figures (migration 0342, sales_figures_apply_pending). */
  figuresPending: boolean('figures_pending').notNull().default(false),
  /** A payment attempt was opened for it (migration 0343): orders_close_payment_attempts fires only then. */
  paymentAttempted: boolean('payment_attempted').notNull().default(false),
});

export const sessionSeats = pgTable('session_seats', {
  id: serialId(),
  sessionId: integer('session_id').notNull(),
  sectorId: integer('sector_id').notNull(),
  seatId: integer('seat_id'),
  status: status<SeatStatus>('available'),
  orderId: bigint('order_id', { mode: 'number' }),
  holdExpiresAt: ts('hold_expires_at'),
});

export const orderItems = pgTable('order_items', {
  id: bigserialId(),
  orderId: bigint('order_id', { mode: 'number' }).notNull(),
  eventId: integer('event_id').notNull(),
  sessionId: integer('session_id').notNull(),
  sectorId: integer('sector_id').notNull(),
  sessionSeatId: integer('session_seat_id').notNull(),
  rateId: integer('rate_id').notNull(),
  baseAmount: amount('base_amount'),
  discountAmount: amount('discount_amount').default(0),
  feeAmount: amount('fee_amount').default(0),
  totalAmount: amount('total_amount'),
  createdAt: createdAt().defaultNow(),
});

export const orderVouchers = pgTable(
  'order_vouchers',
  {
    orderId: bigint('order_id', { mode: 'number' }).notNull(),
    voucherId: integer('voucher_id').notNull(),
    code: text('code').notNull(),
    createdAt: createdAt().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.orderId, t.voucherId] })],
);

export type WaitingListStatus = 'waiting' | 'offered' | 'converted' | 'lapsed' | 'left';

/** D69 (migration 0220): a buyer waiting for seats of a session; at most one offer (a held order) in its life. */
export const waitingListEntries = pgTable('waiting_list_entries', {
  id: bigserialId(),
  tokenHash: text('token_hash').notNull(),
  channelId: integer('channel_id').notNull(),
  sessionId: integer('session_id').notNull(),
  sectorId: integer('sector_id'),
  rateId: integer('rate_id'),
  quantity: integer('quantity').notNull(),
  email: text('email').notNull(),
  name: text('name'),
  lang: text('lang').notNull(),
  status: status<WaitingListStatus>('waiting'),
  createdAt: createdAt(),
  offerOrderId: bigint('offer_order_id', { mode: 'number' }),
  offeredAt: ts('offered_at'),
  offerExpiresAt: ts('offer_expires_at'),
  settledAt: ts('settled_at'),
});
