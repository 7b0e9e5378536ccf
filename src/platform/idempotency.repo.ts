import { and, eq, sql } from 'drizzle-orm';
import { hotStatement, queryRows, type Db } from '../db/client.js';
import { idempotencyKeys } from '../db/schema/index.js';

/** A key's row as a repeat sees it (migration 0080_idempotency_keys.sql). */
export interface StoredKey {
  fingerprint: string;
  state: 'running' | 'done';
  /** Who claimed it (a running claim: the process running it). */
  owner: string | null;
  responseStatus: number | null;
  responseType: string | null;
  responseBody: string | null;
}

/** Who holds a claim, for how long: the running process and its lease (D55, migration 0150). */
export interface Lease {
  /** The claiming process (`<host>/<pid>/<boot id>`). */
  owner: string;
  /** How long a claim counts without being renewed. */
  ms: number;
}

const leaseFrom = (ms: number) => sql`clock_timestamp() + ${Math.trunc(ms)}::int * interval '1 millisecond'`;

/**
 * The claim, sent as a hot statement (src/db/client.ts: named, without the query builder): a write
 * with an Idempotency-Key runs it before its handler (issue 27). `$7` is the lease in milliseconds,
 * measured from the database's clock; `$8` the creation instant at or before which a kept answer
 * is free again. A running claim no longer counts once its lease ran out (a row of before 0150 has
 * none: 5 minutes from its start).
 */
const claimStatement = hotStatement<{ claim: string }>(
  'idempotency_claim',
  `INSERT INTO idempotency_keys (credential, key, fingerprint, claim, state, created_at, owner, lease_until)
   VALUES ($1::text, $2::text, $3::text, $4::text, 'running', $5::timestamptz, $6::text, clock_timestamp() + $7::int * interval '1 millisecond')
   ON CONFLICT (credential, key) DO UPDATE
     SET fingerprint = EXCLUDED.fingerprint, claim = EXCLUDED.claim, state = 'running',
         response_status = NULL, response_type = NULL, response_body = NULL, created_at = EXCLUDED.created_at,
         owner = EXCLUDED.owner, lease_until = EXCLUDED.lease_until
     WHERE idempotency_keys.created_at <= $8::timestamptz
        OR (idempotency_keys.state = 'running'
            AND COALESCE(idempotency_keys.lease_until, idempotency_keys.created_at + interval '5 minutes') <= clock_timestamp())
   RETURNING claim`,
);

/**
 * Claims (credential, key) for one request: inserts the row, or takes over a row that no longer
 * counts: a kept answer created at or before `doneBefore` (24 hours), or a running claim whose
 * lease has run out (its request died, or lost the database, without releasing it). One
 * statement, so that the database arbitrates between concurrent requests of a fleet; leases are
 * measured by the database's clock, the one clock every instance shares. True when this request
 * holds the claim.
 */
export async function claimKey(
  db: Db,
  row: { credential: string; key: string; fingerprint: string; claim: string; now: Date },
  lease: Lease,
  doneBefore: Date,
): Promise<boolean> {
  const claimed = await claimStatement(db, [row.credential, row.key, row.fingerprint, row.claim, row.now, lease.owner, Math.trunc(lease.ms), doneBefore]);
  return claimed[0]?.claim === row.claim;
}

export interface ClaimRef {
  credential: string;
  key: string;
  claim: string;
}

/**
 * Renews the leases of the running claims this process holds, in one statement (by primary key);
 * a claim taken over since is left alone. Returns how many were renewed.
 */
export async function renewLeases(db: Db, claims: readonly ClaimRef[], ms: number): Promise<number> {
  if (claims.length === 0) return 0;
  const rows = await queryRows<{ n: number }>(
    db,
    sql`WITH renewed AS (
          UPDATE idempotency_keys k SET lease_until = ${leaseFrom(ms)}
          FROM json_to_recordset(${JSON.stringify(claims)}::json) AS r(credential text, key text, claim text)
          WHERE k.credential = r.credential AND k.key = r.key AND k.claim = r.claim AND k.state = 'running'
          RETURNING 1)
        SELECT count(*)::int AS n FROM renewed`,
  );
  return rows[0]?.n ?? 0;
}

const claimOf = (where: ClaimRef) =>
  and(eq(idempotencyKeys.credential, where.credential), eq(idempotencyKeys.key, where.key), eq(idempotencyKeys.claim, where.claim));

/** The row of (credential, key), or null when it is gone (released or swept since). */
export async function findKey(db: Db, credential: string, key: string): Promise<StoredKey | null> {
  const rows = await db
    .select({
      fingerprint: idempotencyKeys.fingerprint,
      state: idempotencyKeys.state,
      owner: idempotencyKeys.owner,
      responseStatus: idempotencyKeys.responseStatus,
      responseType: idempotencyKeys.responseType,
      responseBody: idempotencyKeys.responseBody,
    })
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.credential, credential), eq(idempotencyKeys.key, key)));
  return rows[0] ?? null;
}

/** The answer kept, a hot statement like the claim (every write with a key runs it as it answers). */
const storeStatement = hotStatement<never>(
  'idempotency_store',
  `UPDATE idempotency_keys SET state = 'done', lease_until = NULL, response_status = $4::int, response_type = $5::text, response_body = $6::text
   WHERE credential = $1::text AND key = $2::text AND claim = $3::text`,
);

/** Stores the response of the request that holds `claim`; a claim taken over since stores nothing. */
export async function storeResponse(
  db: Db,
  where: ClaimRef,
  response: { status: number; type: string | null; body: string },
): Promise<void> {
  await storeStatement(db, [where.credential, where.key, where.claim, response.status, response.type, response.body]);
}

/** Deletes the claim of a request whose answer is not kept (5xx, 429), so that a retry runs. */
export async function releaseKey(db: Db, where: ClaimRef): Promise<void> {
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
