import { pgTable, bigserial, bigint, integer, smallint, text, timestamp } from 'drizzle-orm/pg-core';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export type TicketStatus = 'valid' | 'void';
export type EmailStatus = 'queued' | 'sent' | 'failed' | 'skipped';

export const tickets = pgTable('tickets', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  code: text('code').notNull(),
  orderId: bigint('order_id', { mode: 'number' }).notNull(),
  orderItemId: bigint('order_item_id', { mode: 'number' }).notNull(),
  status: text('status').$type<TicketStatus>().notNull().default('valid'),
  issuedAt: ts('issued_at').notNull(),
  voidedAt: ts('voided_at'),
  /** D53 (migration 0100): bumped by a reissue; 1 = plain code in the QR, 2 = signed secret; signing key. */
  issueVersion: integer('issue_version').notNull().default(1),
  secretFormat: smallint('secret_format').$type<1 | 2>().notNull().default(2),
  signingKid: text('signing_kid'),
  /** The transaction that last changed the row (trigger tickets_mark_change): the check-in list cursor. */
  changeXid: bigint('change_xid', { mode: 'number' }).notNull().default(0),
});

export const orderRefunds = pgTable('order_refunds', {
  refundOrderId: bigint('refund_order_id', { mode: 'number' }).primaryKey(),
  refundedOrderId: bigint('refunded_order_id', { mode: 'number' }).notNull(),
  reason: text('reason').notNull(),
  actor: text('actor').notNull(),
  createdAt: ts('created_at').notNull(),
});

export const emailOutbox = pgTable('email_outbox', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  kind: text('kind').$type<'tickets'>().notNull(),
  orderId: bigint('order_id', { mode: 'number' }).notNull(),
  recipient: text('recipient').notNull(),
  status: text('status').$type<EmailStatus>().notNull().default('queued'),
  attempts: integer('attempts').notNull().default(0),
  nextAttemptAt: ts('next_attempt_at').notNull(),
  leaseUntil: ts('lease_until'),
  leaseOwner: text('lease_owner'),
  lastError: text('last_error'),
  createdAt: ts('created_at').notNull(),
  sentAt: ts('sent_at'),
  /** How often the box office queued it again (0125); part of the Message-ID. */
  resends: integer('resends').notNull().default(0),
  /** Random, the Message-ID's left part; replaced at each resend (0175). */
  messageKey: text('message_key').notNull(),
  /** "find my order" rows (kind order_lookup, 0175): the channel and language of the request; order_id is null. */
  channelId: integer('channel_id'),
  lang: text('lang'),
});
