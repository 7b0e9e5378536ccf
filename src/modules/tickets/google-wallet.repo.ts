import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../../db/client.js';

// Google Wallet objects kept in step with their tickets (D70, migration 0241).

const PASS_VERSION = sql`COALESCE(t.pass_updated_at, t.issued_at)`;

/** Remembers that a ticket's object may exist (its save link was handed out); in step as of now. */
export async function rememberObject(db: Db, ticketId: number, objectId: string, at: Date): Promise<void> {
  await db.execute(sql`
    INSERT INTO google_wallet_objects (ticket_id, object_id, created_at, synced_until)
    SELECT t.id, ${objectId}, ${at}, ${PASS_VERSION} FROM tickets t WHERE t.id = ${ticketId}
    ON CONFLICT (ticket_id) DO NOTHING`);
}

export interface PendingObject {
  ticketId: number;
  objectId: string;
  attempts: number;
  /** The ticket change the update carries. */
  until: Date;
}

/** Objects whose ticket changed since they were last updated, due now (at most `limit`). */
export async function pendingObjects(db: Db, now: Date, limit: number): Promise<PendingObject[]> {
  const rows = await queryRows<{ ticket_id: string | number; object_id: string; attempts: number; until: string | Date }>(
    db,
    sql`SELECT g.ticket_id, g.object_id, g.attempts, ${PASS_VERSION} AS until
        FROM google_wallet_objects g JOIN tickets t ON t.id = g.ticket_id
        WHERE ${PASS_VERSION} > g.synced_until AND (g.next_attempt_at IS NULL OR g.next_attempt_at <= ${now})
        ORDER BY g.ticket_id LIMIT ${limit}`,
  );
  return rows.map((r) => ({ ticketId: Number(r.ticket_id), objectId: r.object_id, attempts: r.attempts, until: new Date(r.until) }));
}

/** The object carries the ticket as of `until`. */
export async function markSynced(db: Db, ticketId: number, until: Date): Promise<void> {
  await db.execute(sql`
    UPDATE google_wallet_objects SET synced_until = GREATEST(synced_until, ${until}), attempts = 0, next_attempt_at = NULL, last_error = NULL
    WHERE ticket_id = ${ticketId}`);
}

/** A failed update: tried again at `retryAt`. */
export async function markFailed(db: Db, ticketId: number, error: string, retryAt: Date): Promise<void> {
  await db.execute(sql`
    UPDATE google_wallet_objects SET attempts = attempts + 1, next_attempt_at = ${retryAt}, last_error = ${error.slice(0, 500)}
    WHERE ticket_id = ${ticketId}`);
}
