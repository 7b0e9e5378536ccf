import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPostgres, buildTestApp, type TestApp } from '../helpers.js';
import { demoSession, type DemoSession } from './cart-helpers.js';

// Issue 27, "a plan fault" in the hold: with statistics taken before an on-sale (no seat taken), a
// check of the requested seats written as a filter on their status was planned over the partial
// index of taken seats and walked every seat sold so far, so that a hold cost more the more the
// session had sold (bench:flash: PostgreSQL per purchase rose through the run). cart_hold_seats
// (src/db/functions/031_cart_hold_seats.sql) now reaches session_seats by primary key only,
// whatever the statistics, and keeps its generic plans. PostgreSQL only: the per-transaction
// scan counters and the plan cache are the server's.

let t: TestApp;
let s0: DemoSession;
let client: pg.Client;
let channelId: number;

const one = async <T>(text: string, values: unknown[] = []) => (await client.query(text, values)).rows[0] as T;

/** cart_hold_seats as holdSeats calls it (orders.repo.ts): a new order of `seats`, in the caller's transaction. */
const HOLD = `SELECT cart_hold_seats($1, $2, true, $3, 'en', 'EUR', now() + interval '15 minutes', $4::bigint[], $5::bigint[], 10, now(), $6, 100, true) AS r`;

/**
 * Index scans on session_seats not yet reported to the statistics, by index name
 * (pg_stat_get_xact_numscans: the pending counts, which may include earlier transactions').
 */
async function seatIndexScans(): Promise<Record<string, number>> {
  const { rows } = await client.query<{ name: string; scans: string }>(
    `SELECT i.indexrelid::regclass::text AS name, pg_stat_get_xact_numscans(i.indexrelid) AS scans
     FROM pg_index i WHERE i.indrelid = 'session_seats'::regclass`,
  );
  return Object.fromEntries(rows.map((r) => [r.name, Number(r.scans)]));
}

/**
 * A hold may reach session_seats by primary key (the requested seats) and by its own order (the
 * order_id foreign key's action when a refused new order is deleted); any other index of the table
 * lists seats of a session or a status, which is a walk.
 */
const walks = (scans: Record<string, number>) =>
  Object.entries(scans).filter(([name, n]) => n > 0 && name !== 'session_seats_pkey' && name !== 'session_seats_order_idx');

/** Holds `seats` in a transaction that is rolled back; returns the outcome and the index scans it made. */
async function holdAndCount(seats: number[], tag: string) {
  await client.query('BEGIN');
  try {
    const before = await seatIndexScans();
    const { r } = await one<{ r: { outcome: string } }>(HOLD, [
      channelId,
      `plan-${tag}`,
      `TQ-PLAN-${tag}`,
      seats,
      seats.map(() => s0.rates.general),
      `plan-buyer-${tag}`,
    ]);
    const after = await seatIndexScans();
    const scans = Object.fromEntries(Object.entries(after).map(([name, n]) => [name, n - (before[name] ?? 0)]));
    return { outcome: r.outcome, scans };
  } finally {
    await client.query('ROLLBACK');
  }
}

describe.runIf(isPostgres)('cart_hold_seats reaches the seats by primary key whatever the statistics (issue 27)', () => {
  beforeAll(async () => {
    t = await buildTestApp({ poolSize: 2 });
    s0 = await demoSession(t, 0);
    client = new pg.Client({ connectionString: t.db.url! });
    await client.connect();
    channelId = (await one<{ id: number }>(`SELECT id FROM sales_channels WHERE slug = 'demo-d'`)).id;
  }, 120_000);
  afterAll(async () => {
    await client?.end();
    await t?.close();
  });

  it('statistics taken with nothing sold, then most of the session sold: a hold reaches the seats by primary key, never by a list of seats', async () => {
    await client.query(`UPDATE session_seats SET status = 'available', order_id = NULL, hold_expires_at = NULL WHERE session_id = $1`, [s0.sessionId]);
    await client.query('ANALYZE session_seats');
    const free = s0.seats.slice(-4).map((s) => s.id);
    // The on-sale: every other seat sold, with no ANALYZE since.
    await client.query(`UPDATE session_seats SET status = 'sold' WHERE session_id = $1 AND NOT (id = ANY($2::bigint[]))`, [s0.sessionId, free]);

    // Enough holds in one connection for PL/pgSQL to settle on its plans (five custom plans first).
    for (let i = 0; i < 8; i++) {
      const { outcome, scans } = await holdAndCount(free.slice(0, 2), `free-${i}`);
      expect(outcome).toBe('ok');
      expect(walks(scans), `hold ${i}: ${JSON.stringify(scans)}`).toEqual([]);
      expect(scans.session_seats_pkey).toBeGreaterThan(0);
    }
    // A refused hold (a sold seat asked for) reads by primary key too, and names the seat.
    const sold = s0.seats[0]!.id;
    const { outcome, scans } = await holdAndCount([free[2]!, sold], 'taken');
    expect(outcome).toBe('seat_unavailable');
    expect(walks(scans), JSON.stringify(scans)).toEqual([]);

    // Best available's claim step checks its seats the same way (lock_free_seats).
    for (const [seats, missing] of [[free.slice(0, 2), []], [[free[3]!, sold], [sold]]] as const) {
      await client.query('BEGIN');
      try {
        const before = await seatIndexScans();
        const { r } = await one<{ r: string[] }>(`SELECT lock_free_seats($1::bigint[], now()) AS r`, [seats]);
        const after = await seatIndexScans();
        expect(r.map(Number)).toEqual(missing);
        expect(walks(Object.fromEntries(Object.entries(after).map(([name, n]) => [name, n - (before[name] ?? 0)])))).toEqual([]);
      } finally {
        await client.query('ROLLBACK');
      }
    }
  }, 60_000);

  it('statistics that say every session has a seat or two (a catalogue just imported): a hold still reaches its seats by primary key', async () => {
    // n_distinct overrides what ANALYZE counts: every seat a session of its own, as the statistics
    // of a table analysed while its sessions had few seats. A plain join of the requested seats to
    // the channel's sessions was then planned (generic plan) as a walk of every seat of those
    // sessions through session_seats_session_idx.
    const free = s0.seats.slice(-4).map((s) => s.id);
    await client.query('ALTER TABLE session_seats ALTER COLUMN session_id SET (n_distinct = -1)');
    await client.query('ANALYZE session_seats');
    try {
      for (let i = 0; i < 8; i++) {
        const { outcome, scans } = await holdAndCount(free.slice(0, 2), `small-${i}`);
        expect(outcome).toBe('ok');
        expect(walks(scans), `hold ${i}: ${JSON.stringify(scans)}`).toEqual([]);
      }
    } finally {
      await client.query('ALTER TABLE session_seats ALTER COLUMN session_id RESET (n_distinct)');
      await client.query('ANALYZE session_seats');
    }
  }, 60_000);

  it('the function keeps generic plans (its array parameters made PostgreSQL plan every statement on every call)', async () => {
    const { config } = await one<{ config: string[] | null }>(`SELECT proconfig AS config FROM pg_proc WHERE proname = 'cart_hold_seats'`);
    expect(config).toContain('plan_cache_mode=force_generic_plan');
  });
});
