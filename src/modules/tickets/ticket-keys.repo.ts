import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../../db/client.js';
import type { DbTime } from '../../db/instants.js';

export interface SigningKeyRow {
  kid: string;
  public_key: string;
  private_key_enc: string;
  created_at: DbTime;
  retired_at: DbTime | null;
  withdrawn_at: DbTime | null;
}

export async function activeKey(db: Db): Promise<SigningKeyRow | null> {
  const rows = await queryRows<SigningKeyRow>(db, sql`SELECT * FROM ticket_signing_keys WHERE retired_at IS NULL`);
  return rows[0] ?? null;
}

export async function keyByKid(db: Db, kid: string): Promise<SigningKeyRow | null> {
  const rows = await queryRows<SigningKeyRow>(db, sql`SELECT * FROM ticket_signing_keys WHERE kid = ${kid}`);
  return rows[0] ?? null;
}

export const allKeys = (db: Db) => queryRows<SigningKeyRow>(db, sql`SELECT * FROM ticket_signing_keys ORDER BY created_at, kid`);

/** Inserts the first active key unless another instance did first (the partial unique index decides). */
export async function insertActiveKeyIfNone(db: Db, k: { kid: string; publicKey: string; sealed: string; at: Date }): Promise<void> {
  await db.execute(sql`
    INSERT INTO ticket_signing_keys (kid, public_key, private_key_enc, created_at)
    VALUES (${k.kid}, ${k.publicKey}, ${k.sealed}, ${k.at})
    ON CONFLICT ((true)) WHERE retired_at IS NULL DO NOTHING`);
}

/** Retires the active key and inserts the new one (inside the caller's transaction). */
export async function rotate(db: Db, k: { kid: string; publicKey: string; sealed: string; at: Date }): Promise<void> {
  await db.execute(sql`UPDATE ticket_signing_keys SET retired_at = ${k.at} WHERE retired_at IS NULL`);
  await db.execute(sql`
    INSERT INTO ticket_signing_keys (kid, public_key, private_key_enc, created_at) VALUES (${k.kid}, ${k.publicKey}, ${k.sealed}, ${k.at})`);
}

/** Withdraws a retired key: neither published nor accepted any more. False when not a retired key. */
export async function withdraw(db: Db, kid: string, at: Date): Promise<boolean> {
  const rows = await queryRows<{ kid: string }>(
    db,
    sql`UPDATE ticket_signing_keys SET withdrawn_at = ${at} WHERE kid = ${kid} AND retired_at IS NOT NULL AND withdrawn_at IS NULL RETURNING kid`,
  );
  return rows.length === 1;
}

/**
 * Keys devices need: the active one, and each retired one that still signs a valid ticket of a
 * session that has not ended (a session without an end counts as ending a day after its start).
 */
export function publishedKeys(db: Db, now: Date) {
  return queryRows<{ kid: string; public_key: string }>(
    db,
    sql`
      SELECT k.kid, k.public_key FROM ticket_signing_keys k
      WHERE k.withdrawn_at IS NULL AND (k.retired_at IS NULL OR EXISTS (
        SELECT 1 FROM tickets t
        JOIN order_items i ON i.id = t.order_item_id
        JOIN sessions s ON s.id = i.session_id
        WHERE t.signing_kid = k.kid AND t.status = 'valid'
          AND COALESCE(s.end_datetime, s.start_datetime + interval '1 day') > ${now}))
      ORDER BY k.created_at, k.kid`,
  );
}

/** Gives a ticket issued before any key existed the active key (first render wins); its kid. */
export async function assignKid(db: Db, ticketId: number, kid: string): Promise<string> {
  const rows = await queryRows<{ signing_kid: string }>(
    db,
    sql`UPDATE tickets SET signing_kid = COALESCE(signing_kid, ${kid}) WHERE id = ${ticketId} RETURNING signing_kid`,
  );
  return rows[0]?.signing_kid ?? kid;
}

/**
 * A reissue (D53): the ticket's version goes up and the active key signs it from now on, so every
 * earlier secret of it stops scanning; the code printed under the QR (also accepted at the door) is
 * replaced, so that the old paper stops scanning by its code too. Only a valid ticket, of the organiser when one is given.
 */
export async function reissue(db: Db, ticketId: number, organiserId: number | null, newCode: string) {
  const rows = await queryRows<{ id: string | number; issue_version: number; organiser_id: number }>(
    db,
    sql`UPDATE tickets t SET issue_version = t.issue_version + 1, secret_format = 2, code = ${newCode},
          signing_kid = (SELECT kid FROM ticket_signing_keys WHERE retired_at IS NULL)
        FROM order_items i JOIN events e ON e.id = i.event_id
        WHERE t.id = ${ticketId} AND i.id = t.order_item_id AND t.status = 'valid'
          AND (${organiserId}::int IS NULL OR e.organiser_id = ${organiserId})
        RETURNING t.id, t.issue_version, e.organiser_id`,
  );
  return rows[0] ?? null;
}
