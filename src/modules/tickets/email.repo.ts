import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../../db/client.js';

export interface OutboxRow {
  id: number;
  kind: 'tickets' | 'session_changed';
  /** The order of a ticket e-mail; 0 for a session_changed e-mail (not tied to one order). */
  orderId: number;
  /** session_changed: the change (session_changes.id) and the recipient's language. */
  sessionChangeId: number | null;
  lang: string | null;
  recipient: string;
  attempts: number;
  resends: number;
}

/**
 * Claims up to `limit` due rows for `owner` until `leaseUntil`. SKIP LOCKED lets several instances
 * claim side by side; the lease keeps everyone else off a claimed row after this commits.
 */
export async function claimDueEmails(db: Db, owner: string, now: Date, leaseUntil: Date, limit: number): Promise<OutboxRow[]> {
  const rows = await queryRows<{ id: string | number; kind: OutboxRow['kind']; order_id: string | number | null; recipient: string; attempts: number; resends: number; session_change_id: string | number | null; lang: string | null }>(
    db,
    sql`
      UPDATE email_outbox SET lease_owner = ${owner}, lease_until = ${leaseUntil}, attempts = attempts + 1
      WHERE id IN (
        SELECT id FROM email_outbox
        WHERE status = 'queued' AND next_attempt_at <= ${now} AND (lease_until IS NULL OR lease_until <= ${now})
        ORDER BY next_attempt_at, id
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED)
      RETURNING id, kind, order_id, recipient, attempts, resends, session_change_id, lang`,
  );
  return rows.map((r) => ({
    id: Number(r.id),
    kind: r.kind,
    orderId: Number(r.order_id ?? 0),
    recipient: r.recipient,
    attempts: r.attempts,
    resends: r.resends,
    sessionChangeId: r.session_change_id === null ? null : Number(r.session_change_id),
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
  const [row] = await queryRows<{ depth: number | string; oldest: Date | string | null }>(
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
        ON CONFLICT (order_id, kind) DO UPDATE
        SET recipient = EXCLUDED.recipient, status = 'queued', attempts = 0, next_attempt_at = ${at},
            lease_until = NULL, lease_owner = NULL, last_error = NULL, sent_at = NULL, resends = email_outbox.resends + 1
        RETURNING id, resends`,
  );
  return { id: Number(rows[0]!.id), resends: rows[0]!.resends };
}
