import { and, eq, sql } from 'drizzle-orm';
import { queryRows, type Db } from '../db/client.js';
import { idempotencyKeys } from '../db/schema/index.js';

/** A key's row as a repeat sees it (migration 0080_idempotency_keys.sql). */
export interface StoredKey {
  fingerprint: string;
  state: 'running' | 'done';
  responseStatus: number | null;
  responseType: string | null;
  responseBody: string | null;
}

/**
 * Claims (credential, key) for one request: inserts the row, or takes over a row that no longer
 * counts (`replaceableBefore` says which: created before the cutoff given for its state). One
 * statement, so that the database arbitrates between concurrent requests of a fleet; true when
 * this request holds the claim.
 */
export async function claimKey(
  db: Db,
  row: { credential: string; key: string; fingerprint: string; claim: string; now: Date },
  replaceableBefore: { done: Date; running: Date },
): Promise<boolean> {
  const claimed = await queryRows<{ claim: string }>(
    db,
    sql`INSERT INTO idempotency_keys (credential, key, fingerprint, claim, state, created_at)
        VALUES (${row.credential}, ${row.key}, ${row.fingerprint}, ${row.claim}, 'running', ${row.now.toISOString()})
        ON CONFLICT (credential, key) DO UPDATE
          SET fingerprint = EXCLUDED.fingerprint, claim = EXCLUDED.claim, state = 'running',
              response_status = NULL, response_type = NULL, response_body = NULL, created_at = EXCLUDED.created_at
          WHERE idempotency_keys.created_at <= ${replaceableBefore.done.toISOString()}
             OR (idempotency_keys.state = 'running' AND idempotency_keys.created_at <= ${replaceableBefore.running.toISOString()})
        RETURNING claim`,
  );
  return claimed[0]?.claim === row.claim;
}

const claimOf = (where: { credential: string; key: string; claim: string }) =>
  and(eq(idempotencyKeys.credential, where.credential), eq(idempotencyKeys.key, where.key), eq(idempotencyKeys.claim, where.claim));

/** The row of (credential, key), or null when it is gone (released or swept since). */
export async function findKey(db: Db, credential: string, key: string): Promise<StoredKey | null> {
  const rows = await db
    .select({
      fingerprint: idempotencyKeys.fingerprint,
      state: idempotencyKeys.state,
      responseStatus: idempotencyKeys.responseStatus,
      responseType: idempotencyKeys.responseType,
      responseBody: idempotencyKeys.responseBody,
    })
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.credential, credential), eq(idempotencyKeys.key, key)));
  return rows[0] ?? null;
}

/** Stores the response of the request that holds `claim`; a claim taken over since stores nothing. */
export async function storeResponse(
  db: Db,
  where: { credential: string; key: string; claim: string },
  response: { status: number; type: string | null; body: string },
): Promise<void> {
  await db
    .update(idempotencyKeys)
    .set({ state: 'done', responseStatus: response.status, responseType: response.type, responseBody: response.body })
    .where(claimOf(where));
}

/** Deletes the claim of a request whose answer is not kept (5xx, 429), so that a retry runs. */
export async function releaseKey(db: Db, where: { credential: string; key: string; claim: string }): Promise<void> {
  await db.delete(idempotencyKeys).where(claimOf(where));
}

/** Deletes up to `limit` rows created before `before`; returns how many it deleted. */
export async function deleteKeysCreatedBefore(db: Db, before: Date, limit: number): Promise<number> {
  const rows = await queryRows<{ n: number }>(
    db,
    sql`WITH gone AS (
          DELETE FROM idempotency_keys WHERE ctid IN (
            SELECT ctid FROM idempotency_keys WHERE created_at <= ${before.toISOString()} LIMIT ${limit})
          RETURNING 1)
        SELECT count(*)::int AS n FROM gone`,
  );
  return rows[0]?.n ?? 0;
}
