import { pgTable, bigint, boolean, integer, primaryKey, smallint, text } from 'drizzle-orm/pg-core';
import { ts, bigserialId, createdAt, status, amount } from './columns.js';

export type TicketStatus = 'valid' | 'void';
/**
 * What an outbox row sends: the tickets of an order, the buyer's refund notice (D58), the notice
 * that a card payment which completed no order went back to the card (D73), the links of a buyer's
 * orders ("find my order", D72), the notice that a session moved (D74), the seats held for the
 * head of a waiting list (D69).
 */
export type EmailKind = 'tickets' | 'refund' | 'payment_refunded' | 'order_lookup' | 'session_changed' | 'session_message' | 'waitinglist_offer' | 'account_invitation';
export type EmailStatus = 'queued' | 'sent' | 'failed' | 'skipped';

export const tickets = pgTable('tickets', {
  id: bigserialId(),
  code: text('code').notNull(),
  orderId: bigint('order_id', { mode: 'number' }).notNull(),
  orderItemId: bigint('order_item_id', { mode: 'number' }).notNull(),
  status: status<TicketStatus>('valid'),
  issuedAt: ts('issued_at').notNull(),
  voidedAt: ts('voided_at'),
  /** D53 (migration 0100): bumped by a reissue; 1 = plain code in the QR, 2 = signed secret; signing key. */
  issueVersion: integer('issue_version').notNull().default(1),
  secretFormat: smallint('secret_format').$type<1 | 2>().notNull().default(2),
  signingKid: text('signing_kid'),
  /** The transaction that last changed the row (trigger tickets_mark_change): the check-in list cursor. */
  changeXid: bigint('change_xid', { mode: 'number' }).notNull().default(0),
  /** Last change its wallet pass shows (trigger tickets_mark_pass_update, 0240); null = since issued_at. */
  passUpdatedAt: ts('pass_updated_at'),
});

/** A device that saved a ticket's Apple Wallet pass and asked for its updates (D70, migration 0240). */
export const walletRegistrations = pgTable(
  'wallet_registrations',
  {
    deviceLibraryId: text('device_library_id').notNull(),
    passTypeId: text('pass_type_id').notNull(),
    serialNumber: text('serial_number').notNull(),
    ticketId: bigint('ticket_id', { mode: 'number' }).notNull(),
    pushToken: text('push_token').notNull(),
    createdAt: createdAt(),
    pushedUntil: ts('pushed_until').notNull(),
  },
  (t) => [primaryKey({ columns: [t.deviceLibraryId, t.passTypeId, t.serialNumber] })],
);

export const orderRefunds = pgTable('order_refunds', {
  refundOrderId: bigint('refund_order_id', { mode: 'number' }).primaryKey(),
  refundedOrderId: bigint('refunded_order_id', { mode: 'number' }).notNull(),
  reason: text('reason').notNull(),
  actor: text('actor').notNull(),
  createdAt: createdAt(),
  /** The card refund (D58, migration 0141): payment, provider and the provider's reference. */
  paymentId: text('payment_id'),
  provider: text('provider'),
  providerRefundRef: text('provider_refund_ref'),
  feesRefunded: boolean('fees_refunded').notNull().default(true),
});

/** What one refund covered, item by item (D30, migration 0141): an item is refunded once. */
export const refundItems = pgTable('refund_items', {
  refundOrderId: bigint('refund_order_id', { mode: 'number' }).notNull(),
  orderItemId: bigint('order_item_id', { mode: 'number' }).notNull(),
  ticketId: bigint('ticket_id', { mode: 'number' }),
  baseAmount: amount('base_amount'),
  discountAmount: amount('discount_amount'),
  feeAmount: amount('fee_amount'),
  totalAmount: amount('total_amount'),
});

export const emailOutbox = pgTable('email_outbox', {
  id: bigserialId(),
  kind: text('kind').$type<EmailKind>().notNull(),
  /** The refunded card payment of a payment_refunded e-mail (D73, 0145). */
  paymentId: text('payment_id'),
  /** Null on rows not tied to one order: "find my order" (0175), "your session moved" (0170). */
  orderId: bigint('order_id', { mode: 'number' }),
  recipient: text('recipient').notNull(),
  status: status<EmailStatus>('queued'),
  attempts: integer('attempts').notNull().default(0),
  nextAttemptAt: ts('next_attempt_at').notNull(),
  leaseUntil: ts('lease_until'),
  leaseOwner: text('lease_owner'),
  lastError: text('last_error'),
  createdAt: createdAt(),
  sentAt: ts('sent_at'),
  /** How often the box office queued it again (0125); part of the Message-ID. */
  resends: integer('resends').notNull().default(0),
  /** Random, the Message-ID's left part; replaced at each resend (0175). */
  messageKey: text('message_key').notNull(),
  /** "find my order" rows (kind order_lookup, 0175): the channel and language of the request; order_id is null. */
  channelId: integer('channel_id'),
  lang: text('lang'),
  /** The session change a session_changed e-mail tells of (D74, 0170). */
  sessionChangeId: bigint('session_change_id', { mode: 'number' }),
  /** The organiser's message a session_message e-mail carries (D67, 0190). */
  sessionMessageId: bigint('session_message_id', { mode: 'number' }),
  /** account_invitation rows (D65, 0230): the invitation whose link the e-mail carries; unique. */
  invitationId: integer('invitation_id'),
});

/** A Google Wallet object whose save link was handed out, kept in step with its ticket (D70, migration 0241). */
export const googleWalletObjects = pgTable('google_wallet_objects', {
  ticketId: bigint('ticket_id', { mode: 'number' }).primaryKey(),
  objectId: text('object_id').notNull(),
  createdAt: createdAt(),
  syncedUntil: ts('synced_until').notNull(),
  attempts: integer('attempts').notNull().default(0),
  nextAttemptAt: ts('next_attempt_at'),
  lastError: text('last_error'),
  /** The session's time its class showed when saved or last synced (migration 0280); null: unknown. */
  classStart: ts('class_start'),
  classEnd: ts('class_end'),
});

/** The development wallet signers, made at the first start outside production (D70, migration 0340). */
export const walletDevelopmentSigners = pgTable('wallet_development_signers', {
  provider: text('provider').$type<'apple' | 'google'>().primaryKey(),
  certificate: text('certificate'),
  /** The PEM private key sealed under SIGNING_SECRET (lib/secrets.ts sealSecret). */
  privateKeySealed: text('private_key_sealed').notNull(),
  createdAt: createdAt(),
});
