import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../../db/client.js';
import type { DbTime } from '../../db/instants.js';

// The SQL of a message to a session's ticket holders (D67, migration 0190).

export interface SessionMessageRow {
  id: number;
  session_id: number;
  subject: string;
  body: string;
  actor: string;
  recipients: number;
  created_at: Date;
  /** Its e-mails by state in the queue: queued (incl. retrying), sent, failed, skipped. */
  sent: number;
  queued: number;
  failed: number;
}

/**
 * Records the message and queues one e-mail per ticket holder: each distinct address (case
 * insensitive) of the completed orders that hold a valid ticket of the session, in the language of
 * its latest such order. Runs in the caller's transaction; the number of recipients.
 */
export async function insertMessage(tx: Db, m: { sessionId: number; subject: string; body: string; actor: string; at: Date }): Promise<{ id: number; recipients: number }> {
  const [row] = await queryRows<{ id: string | number }>(
    tx,
    sql`INSERT INTO session_messages (session_id, subject, body, actor, recipients, created_at)
        VALUES (${m.sessionId}, ${m.subject}, ${m.body}, ${m.actor}, 0, ${m.at}) RETURNING id`,
  );
  const id = Number(row!.id);
  const queued = await queryRows(
    tx,
    sql`INSERT INTO email_outbox (kind, order_id, recipient, next_attempt_at, created_at, session_message_id, lang)
        SELECT DISTINCT ON (lower(c.email)) 'session_message', NULL, c.email, ${m.at}::timestamptz, ${m.at}::timestamptz, ${id}::bigint, o.lang
        FROM orders o
        JOIN customers c ON c.id = o.customer_id
        WHERE o.status = 'completed' AND o.type IN ('purchase', 'reservation') AND c.email <> '' AND c.email NOT LIKE '%@erased.invalid'
          AND EXISTS (SELECT 1 FROM order_items i JOIN tickets t ON t.order_item_id = i.id
                      WHERE i.order_id = o.id AND i.session_id = ${m.sessionId} AND t.status = 'valid')
        ORDER BY lower(c.email), o.id DESC
        ON CONFLICT DO NOTHING
        RETURNING 1`,
  );
  await tx.execute(sql`UPDATE session_messages SET recipients = ${queued.length} WHERE id = ${id}`);
  return { id, recipients: queued.length };
}

/** The messages of a session, newest first, with how their e-mails stand. */
export async function messagesOfSession(db: Db, sessionId: number): Promise<SessionMessageRow[]> {
  const rows = await queryRows<Omit<SessionMessageRow, 'id' | 'created_at'> & { id: string | number; created_at: DbTime }>(
    db,
    sql`SELECT m.id, m.session_id, m.subject, m.body, m.actor, m.recipients, m.created_at,
               count(*) FILTER (WHERE e.status = 'sent')::int AS sent,
               count(*) FILTER (WHERE e.status = 'queued')::int AS queued,
               count(*) FILTER (WHERE e.status = 'failed')::int AS failed
          FROM session_messages m LEFT JOIN email_outbox e ON e.session_message_id = m.id
         WHERE m.session_id = ${sessionId}
         GROUP BY m.id
         ORDER BY m.id DESC`,
  );
  return rows.map((r) => ({ ...r, id: Number(r.id), created_at: new Date(r.created_at) }));
}
