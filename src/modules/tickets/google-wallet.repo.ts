import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../../db/client.js';

// Google Wallet objects kept in step with their tickets (D70, migration 0241).

const PASS_VERSION = sql`COALESCE(t.pass_updated_at, t.issued_at)`;

const SESSION_OF_TICKET = sql`JOIN order_items oi ON oi.id = t.order_item_id JOIN sessions se ON se.id = oi.session_id`;

/** Remembers that a ticket's object may exist (its save link was handed out); in step as of now. */
export async function rememberObject(db: Db, ticketId: number, objectId: string, at: Date): Promise<void> {
  await db.execute(sql`
    INSERT INTO google_wallet_objects (ticket_id, object_id, created_at, synced_until, class_start, class_end)
    SELECT t.id, ${objectId}, ${at}, ${PASS_VERSION}, se.start_datetime, se.end_datetime FROM tickets t ${SESSION_OF_TICKET} WHERE t.id = ${ticketId}
    ON CONFLICT (ticket_id) DO NOTHING`);
}

export interface PendingObject {
  ticketId: number;
  objectId: string;
  attempts: number;
  /** The ticket change the update carries. */
  until: Date;
  sessionId: number;
  /** The session's time now, and whether the object's class shows another (the session moved). */
  start: Date;
  end: Date | null;
  classMoved: boolean;
}

/** Objects whose ticket changed since they were last updated, due now (at most `limit`). */
export async function pendingObjects(db: Db, now: Date, limit: number): Promise<PendingObject[]> {
  const rows = await queryRows<{
    ticket_id: string | number;
    object_id: string;
    attempts: number;
    until: string | Date;
    session_id: number;
    start: string | Date;
    end: string | Date | null;
    class_moved: boolean;
  }>(
    db,
    sql`SELECT g.ticket_id, g.object_id, g.attempts, ${PASS_VERSION} AS until, se.id AS session_id, se.start_datetime AS start, se.end_datetime AS "end",
               (g.class_start IS DISTINCT FROM se.start_datetime OR g.class_end IS DISTINCT FROM se.end_datetime) AS class_moved
        FROM google_wallet_objects g JOIN tickets t ON t.id = g.ticket_id ${SESSION_OF_TICKET}
        WHERE ${PASS_VERSION} > g.synced_until AND (g.next_attempt_at IS NULL OR g.next_attempt_at <= ${now})
        ORDER BY g.ticket_id LIMIT ${limit}`,
  );
  return rows.map((r) => ({
    ticketId: Number(r.ticket_id),
    objectId: r.object_id,
    attempts: r.attempts,
    until: new Date(r.until),
    sessionId: Number(r.session_id),
    start: new Date(r.start),
    end: r.end === null ? null : new Date(r.end),
    classMoved: r.class_moved,
  }));
}

/** The object carries the ticket as of `until`, and its class the session's time `start`..`end`. */
export async function markSynced(db: Db, o: Pick<PendingObject, 'ticketId' | 'until' | 'start' | 'end'>): Promise<void> {
  await db.execute(sql`
    UPDATE google_wallet_objects SET synced_until = GREATEST(synced_until, ${o.until}), attempts = 0, next_attempt_at = NULL, last_error = NULL,
      class_start = ${o.start}, class_end = ${o.end}
    WHERE ticket_id = ${o.ticketId}`);
}

/** A failed update: tried again at `retryAt`. */
export async function markFailed(db: Db, ticketId: number, error: string, retryAt: Date): Promise<void> {
  await db.execute(sql`
    UPDATE google_wallet_objects SET attempts = attempts + 1, next_attempt_at = ${retryAt}, last_error = ${error.slice(0, 500)}
    WHERE ticket_id = ${ticketId}`);
}
