import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Db } from './client.js';

// Every advisory lock the service takes, by keyspace (issue 26). PostgreSQL keeps one space of
// bigint keys (pg_advisory_*(bigint)) and a separate one of int pairs (pg_advisory_*(int, int)).
// A one-key lock here is hashtextextended(prefix || key, seed): the seed (and the prefix) name the
// keyspace, so two keyspaces never share a key by construction of their text, only by a 2^-64 hash
// chance. A new keyspace takes a seed no line below uses.
//
// Taken from TypeScript, through this module:
// - buyer (seed 44, no prefix, the buyer key): the hold caps of one buyer (D44), hold-caps.repo.ts
//   lockBuyer and best-available; the SQL function cart_hold_seats takes the same lock
//   (src/db/functions/031_cart_hold_seats.sql), both with the bounded wait below.
// - waitingList (seed 69, 'waiting-list:' || session id): one waiting-list pass per session
//   (waitinglist.repo.ts), tried, never waited for.
// - migrations: the plain key MIGRATION_LOCK_KEY (migrate.ts), taken before any function exists.
// Taken inside SQL functions, which keep their own derivation (src/db/functions):
// - sessionSale (seed 74, 'session-sale:' || session id, session_sale_key): lock_session_sale
//   (016_lock_session_sale.sql), shared by close_order (which takes an order of one session's
//   straight), exclusive by a change of the session (D74). Waits without a bound: a closing runs
//   after the payment was taken and must not give up behind a cancellation.
// - access-token group, int-pair form: (channel id, hashtext(scope || ':' || client_id)) while a
//   token is issued, and (-channel id, hashtext(scope)) tried for the cap sweep
//   (120_issue_access_token.sql).

/** The keyspaces of the one-key locks taken from TypeScript (see above for the SQL-only ones). */
const KEYSPACES = {
  buyer: { prefix: '', seed: 44 },
  waitingList: { prefix: 'waiting-list:', seed: 69 },
} as const;
export type Keyspace = keyof typeof KEYSPACES;

/**
 * How long a transaction waits for an advisory lock before it fails with SQLSTATE 55P03
 * (lock_not_available, answered 503 with Retry-After: src/http/error-handler.ts). The holders are
 * short transactions; a longer wait means one of them is stuck, and the caller should not wait forever.
 */
export const LOCK_WAIT_MS = 10_000;

/** The migrations' lock: any constant works, it only has to be the same for every instance. */
export const MIGRATION_LOCK_KEY = 7_260_421;
/** How long a starting instance waits for another one's migrations (a lock_timeout value). */
export const MIGRATION_LOCK_WAIT = '10min';

/** The bigint key of `key` in `space`, as SQL. */
export function lockKey(space: Keyspace, key: string | number): SQL {
  const { prefix, seed } = KEYSPACES[space];
  return sql`hashtextextended(${prefix + String(key)}::text, ${sql.raw(String(seed))})`;
}

/**
 * Takes the lock until the transaction ends, waiting at most `waitMs` (the SQL function
 * advisory_xact_lock_within sets lock_timeout around the wait only, so the transaction's other
 * waits are as they were).
 */
export async function lockForTransaction(tx: Db, space: Keyspace, key: string | number, waitMs = LOCK_WAIT_MS): Promise<void> {
  await tx.execute(sql`SELECT advisory_xact_lock_within(${lockKey(space, key)}, false, ${waitMs}::integer)`);
}

/** Takes the lock until the transaction ends if it is free; false when another transaction holds it. */
export async function tryLockForTransaction(tx: Db, space: Keyspace, key: string | number): Promise<boolean> {
  const [row] = await queryRows<{ ok: boolean }>(tx, sql`SELECT pg_try_advisory_xact_lock(${lockKey(space, key)}) AS ok`);
  return row?.ok === true;
}

/**
 * True when `err`, or an error it wraps (Drizzle wraps driver errors in `cause`), is a lock wait that
 * ran out of its lock_timeout (SQLSTATE 55P03): the request did nothing wrong and can be retried.
 */
export function lockWaitRanOut(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if ((e as { code?: unknown }).code === '55P03') return true;
  }
  return false;
}
