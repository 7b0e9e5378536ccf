import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../../db/client.js';
import type { EmailKind } from '../../db/schema/index.js';
import type { DbTime } from '../../db/instants.js';

export interface OutboxRow {
  id: number;
  kind: EmailKind;
  /** Null on rows not tied to one order ("find my order"). */
  orderId: number | null;
  /** The refunded card payment (kind payment_refunded, D73). */
  paymentId: string | null;
  /** session_changed: the change (session_changes.id). */
  sessionChangeId: number | null;
  /** session_message: the organiser's message (session_messages.id, D67). */
  sessionMessageId: number | null;
  /** account_invitation: the invitation (account_invitations.id, D65). */
  invitationId: number | null;
  recipient: string;
  attempts: number;
  resends: number;
  /** Random: the Message-ID's left part (0175). */
  messageKey: string;
  /** The channel and language of an order_lookup row. */
  channelId: number | null;
  lang: string | null;
}

/**
 * Claims up to `limit` due rows for `owner` until `leaseUntil`. SKIP LOCKED lets several instances
 * claim side by side; the lease keeps everyone else off a claimed row after this commits.
 */
export async function claimDueEmails(db: Db, owner: string, now: Date, leaseUntil: Date, limit: number): Promise<OutboxRow[]> {
  const rows = await queryRows<{ id: string | number; kind: EmailKind; order_id: string | number | null; payment_id: string | null; recipient: string; attempts: number; resends: number; message_key: string; channel_id: number | null; lang: string | null; session_change_id: string | number | null; session_message_id: string | number | null; invitation_id: number | null }>(
    db,
    sql`
      UPDATE email_outbox SET lease_owner = ${owner}, lease_until = ${leaseUntil}, attempts = attempts + 1
      WHERE id IN (
        SELECT id FROM email_outbox
        WHERE status = 'queued' AND next_attempt_at <= ${now} AND (lease_until IS NULL OR lease_until <= ${now})
        ORDER BY next_attempt_at, id
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED)
      RETURNING id, kind, order_id, payment_id, recipient, attempts, resends, message_key, channel_id, lang, session_change_id, session_message_id, invitation_id`,
  );
  return rows.map((r) => ({
    id: Number(r.id),
    kind: r.kind,
    orderId: r.order_id === null ? null : Number(r.order_id),
    paymentId: r.payment_id,
    recipient: r.recipient,
    attempts: r.attempts,
    resends: r.resends,
    messageKey: r.message_key,
    channelId: r.channel_id,
    sessionChangeId: r.session_change_id === null ? null : Number(r.session_change_id),
    sessionMessageId: r.session_message_id === null ? null : Number(r.session_message_id),
    invitationId: r.invitation_id === null ? null : Number(r.invitation_id),
    lang: r.lang,
  }));
}

/** Final state of a claimed row; only the lease holder may write it. */
export async function finishEmail(db: Db, id: number, owner: string, status: 'sent' | 'skipped', at: Date): Promise<void> {
  await db.execute(sql`
    UPDATE email_outbox SET status = ${status}, sent_at = ${at}, lease_until = NULL, last_error = NULL
    WHERE id = ${id} AND lease_owner = ${owner}`);
}

/** A failed attempt: back to the queue at `retryAt`, or `failed` for good. */
export async function failEmail(
  db: Db,
  id: number,
  owner: string,
  error: string,
  retryAt: Date,
  giveUp: boolean,
): Promise<void> {
  await db.execute(sql`
    UPDATE email_outbox
    SET status = ${giveUp ? 'failed' : 'queued'}, next_attempt_at = ${retryAt}, lease_until = NULL, lease_owner = NULL,
        last_error = ${error.slice(0, 500)}
    WHERE id = ${id} AND lease_owner = ${owner}`);
}

/** E-mails waiting to go out (queued, due or backing off) and the age in seconds of the oldest. */
export async function queueStats(db: Db, now: Date): Promise<{ depth: number; oldestAgeSeconds: number }> {
  const [row] = await queryRows<{ depth: number | string; oldest: DbTime | null }>(
    db,
    sql`SELECT count(*) AS depth, min(created_at) AS oldest FROM email_outbox WHERE status = 'queued'`,
  );
  const oldest = row?.oldest ? new Date(row.oldest).getTime() : null;
  return { depth: Number(row?.depth ?? 0), oldestAgeSeconds: oldest === null ? 0 : Math.max(0, (now.getTime() - oldest) / 1000) };
}

/**
 * Queues the order's ticket e-mail once more (the box office's "resend"), creating the row if the
 * order never had one (model D, D24). A row being sent right now loses its lease holder, so that
 * the worker's finish does not mark this new request as done: that send and this one both go out.
 * Returns the row's id and its resend count.
 */
export async function requeueTicketEmail(db: Db, orderId: number, recipient: string, at: Date): Promise<{ id: number; resends: number }> {
  const rows = await queryRows<{ id: string | number; resends: number }>(
    db,
    sql`INSERT INTO email_outbox (kind, order_id, recipient, next_attempt_at, created_at, resends)
        VALUES ('tickets', ${orderId}, ${recipient}, ${at}, ${at}, 1)
        ON CONFLICT (order_id, kind) WHERE payment_id IS NULL DO UPDATE
        SET recipient = EXCLUDED.recipient, status = 'queued', attempts = 0, next_attempt_at = ${at},
            lease_until = NULL, lease_owner = NULL, last_error = NULL, sent_at = NULL, resends = email_outbox.resends + 1,
            message_key = gen_random_uuid()::text
        RETURNING id, resends`,
  );
  return { id: Number(rows[0]!.id), resends: rows[0]!.resends };
}

/** What the buyer's payment refund e-mail says (D73). */
export interface PaymentRefundFacts {
  orderReference: string;
  buyerName: string;
  amount: number;
  currency: string;
  lang: string;
  /** payments.failure_reason: why the payment could not complete the order. */
  reason: string | null;
  refundRef: string | null;
}

/** What the payment refund e-mail of a card payment says (D73); null unless it is refunded. */
export async function paymentRefundFacts(db: Db, paymentId: string): Promise<PaymentRefundFacts | null> {
  const [p] = await queryRows<{ amount: number; currency: string; lang: string; buyer_name: string; failure_reason: string | null; refund_ref: string | null; reference: string; status: string }>(
    db,
    sql`SELECT p.amount, p.currency, p.lang, p.buyer_name, p.failure_reason, p.refund_ref, p.status, o.reference
          FROM payments p JOIN orders o ON o.id = p.order_id WHERE p.id = ${paymentId}`,
  );
  if (!p || p.status !== 'refunded') return null;
  return {
    orderReference: p.reference,
    buyerName: p.buyer_name,
    amount: Number(p.amount),
    currency: p.currency,
    lang: p.lang,
    reason: p.failure_reason,
    refundRef: p.refund_ref,
  };
}

/** What the buyer's refund e-mail says (D58): the refund row, the order it refunds, the card refund. */
export interface RefundMail {
  refundReference: string;
  orderId: number;
  orderReference: string;
  lang: string;
  currency: string;
  /** Negative minor units, like the refund row. */
  totalAmount: number;
  feeAmount: number;
  feesRefunded: boolean;
  providerRefundRef: string | null;
  buyerName: string | null;
  /** The refunded tickets' ids, and each one's refunded amount (negative). */
  tickets: { id: number; totalAmount: number }[];
}

export async function refundMail(db: Db, refundOrderId: number): Promise<RefundMail | null> {
  const [row] = await queryRows<{
    reference: string;
    order_id: string | number;
    order_reference: string;
    lang: string;
    currency: string;
    total_amount: number;
    fee_amount: number;
    fees_refunded: boolean;
    provider_refund_ref: string | null;
    buyer_name: string | null;
    tickets: { id: number; total_amount: number }[] | string | null;
  }>(
    db,
    sql`SELECT r.reference, o.id AS order_id, o.reference AS order_reference, o.lang, r.currency, r.total_amount, r.fee_amount,
               rr.fees_refunded, rr.provider_refund_ref, c.name AS buyer_name,
               (SELECT json_agg(json_build_object('id', ri.ticket_id, 'total_amount', ri.total_amount) ORDER BY ri.order_item_id)
                  FROM refund_items ri WHERE ri.refund_order_id = r.id AND ri.ticket_id IS NOT NULL) AS tickets
          FROM orders r
          JOIN order_refunds rr ON rr.refund_order_id = r.id
          JOIN orders o ON o.id = rr.refunded_order_id
          LEFT JOIN customers c ON c.id = o.customer_id
         WHERE r.id = ${refundOrderId}`,
  );
  if (!row) return null;
  const tickets = (typeof row.tickets === 'string' ? JSON.parse(row.tickets) : (row.tickets ?? [])) as { id: number; total_amount: number }[];
  return {
    refundReference: row.reference,
    orderId: Number(row.order_id),
    orderReference: row.order_reference,
    lang: row.lang,
    currency: row.currency,
    totalAmount: row.total_amount,
    feeAmount: row.fee_amount,
    feesRefunded: row.fees_refunded,
    providerRefundRef: row.provider_refund_ref,
    buyerName: row.buyer_name,
    tickets: tickets.map((t) => ({ id: Number(t.id), totalAmount: t.total_amount })),
  };
}

/** Queues a "find my order" e-mail (D72): one row per accepted request, sent by the same worker. */
export async function queueOrderLookup(db: Db, channelId: number, lang: string, recipient: string, at: Date): Promise<void> {
  await db.execute(sql`
    INSERT INTO email_outbox (kind, order_id, channel_id, lang, recipient, next_attempt_at, created_at)
    VALUES ('order_lookup', NULL, ${channelId}, ${lang}, ${recipient}, ${at}, ${at})`);
}
