// One advisory-lock helper with named keyspaces (issue 26): the keys are the ones the SQL functions
// derive for the same lock, a wait is bounded by lock_timeout for the wait only, and a wait that
// runs out answers 503 with Retry-After.
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCK_WAIT_MS, lockForTransaction, lockKey, lockWaitRanOut, tryLockForTransaction } from '../../src/db/advisory-locks.js';
import { queryRows, type Db } from '../../src/db/client.js';
import { FUNCTIONS_DIR } from '../../src/db/migrate.js';
import { databaseUnavailable } from '../../src/http/error-handler.js';
import { createTestDatabase, isPostgres, type TestDatabase } from '../helpers.js';

let t: TestDatabase;
let db: Db;
beforeAll(async () => {
  t = await createTestDatabase({ poolSize: 3 });
  db = t.database.db;
}, 60_000);
afterAll(() => t.drop());

const one = async <T>(query: ReturnType<typeof sql>) => (await queryRows<{ v: T }>(db, query))[0]!.v;

describe('advisory locks', () => {
  it('derive the keys the SQL functions take for the same lock (buyer: cart_hold_seats; waiting list)', async () => {
    expect(await one(sql`SELECT ${lockKey('buyer', 'buyer-key-1')} = hashtextextended('buyer-key-1', 44) AS v`)).toBe(true);
    expect(await one(sql`SELECT ${lockKey('waitingList', 12)} = hashtextextended('waiting-list:' || 12::text, 69) AS v`)).toBe(true);
    expect(await one(sql`SELECT ${lockKey('buyer', 'waiting-list:12')} = ${lockKey('waitingList', 12)} AS v`)).toBe(false);
    const holdSeats = fs.readFileSync(path.join(FUNCTIONS_DIR, '031_cart_hold_seats.sql'), 'utf8');
    expect(holdSeats).toContain(`advisory_xact_lock_within(hashtextextended(v_buyer, 44), false, ${LOCK_WAIT_MS})`);
    expect(holdSeats).not.toMatch(/pg_advisory_xact_lock\(/);
  });

  it('bound the wait only: the transaction keeps its own lock_timeout after the lock', async () => {
    await db.transaction(async (tx) => {
      await lockForTransaction(tx, 'buyer', 'b-timeout');
      expect(await queryRows<{ lock_timeout: string }>(tx, sql`SHOW lock_timeout`)).toEqual([{ lock_timeout: '0' }]);
      await tx.execute(sql`SET LOCAL lock_timeout = '3s'`);
      await lockForTransaction(tx, 'buyer', 'b-timeout-2');
      expect(await queryRows<{ lock_timeout: string }>(tx, sql`SHOW lock_timeout`)).toEqual([{ lock_timeout: '3s' }]);
      // both locks are held by this transaction
      const [held] = await queryRows<{ n: number }>(tx, sql`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted`);
      expect(held!.n).toBe(2);
    });
  });

  it.skipIf(!isPostgres)('a wait that runs out fails with 55P03 after the bound, and a try answers false (PostgreSQL)', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let taken!: () => void;
    const isTaken = new Promise<void>((r) => (taken = r));
    const holder = db.transaction(async (tx) => {
      await lockForTransaction(tx, 'buyer', 'b-held');
      taken();
      await held;
    });
    await isTaken;
    try {
      const started = Date.now();
      const err = await db
        .transaction((tx) => lockForTransaction(tx, 'buyer', 'b-held', 300))
        .then(() => null, (e: unknown) => e);
      const waited = Date.now() - started;
      expect(lockWaitRanOut(err)).toBe(true);
      expect(waited).toBeGreaterThanOrEqual(250);
      expect(waited).toBeLessThan(5_000);
      expect(await db.transaction((tx) => tryLockForTransaction(tx, 'buyer', 'b-held'))).toBe(false);
      expect(await db.transaction((tx) => tryLockForTransaction(tx, 'buyer', 'b-free'))).toBe(true);
    } finally {
      release();
      await holder;
    }
    // free again once the holder's transaction ended
    await db.transaction((tx) => lockForTransaction(tx, 'buyer', 'b-held', 300));
  });

  it('a wait that ran out answers 503 service_unavailable with Retry-After, like an unreachable database', () => {
    const headers: Record<string, string> = {};
    const reply = { header: (k: string, v: string) => (headers[k] = v) } as unknown as FastifyReply;
    const request = { log: { warn: () => {} } } as unknown as FastifyRequest;
    const wrapped = new Error('Failed query', { cause: Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' }) });
    const answer = databaseUnavailable(wrapped, request, reply);
    expect(answer && { status: answer.status, code: answer.code }).toEqual({ status: 503, code: 'service_unavailable' });
    expect(headers['retry-after']).toBe('2');
    expect(databaseUnavailable(Object.assign(new Error('duplicate'), { code: '23505' }), request, reply)).toBeNull();
  });
});
