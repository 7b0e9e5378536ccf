import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { bearer, DEMO, isPostgres, serverTokenFor } from '../helpers.js';
import { itemsOf, ordersUrl, raceOnPostgres, type OrderJson, type Race } from './cart-helpers.js';

// D61 under load, PostgreSQL only (PGlite has one connection and serialises every request): 500
// best-available requests at once on one session, asking for more seats than it has. Choice and
// claim are one transaction: no seat is held twice, every 201 is a block side by side, and a 409
// no_seats_together is only answered when no block of that size is left (seats are only taken
// during the run, so a block free at the end was free when the 409 was answered).

const REQUESTS = 500;

// A server token of demo-d. 500 requests wait for 30 connections: on a loaded test machine longer
// than the service's 5 s (D46), which is about a database that does not answer, not the subject here.
const race = raceOnPostgres((t) => serverTokenFor(t.app, DEMO.d.slug), { connectTimeoutMs: 120_000 });

/** The longest run of free ordinary seats side by side (unit spacing) in any row of the session. */
async function longestFreeBlock({ t, s0 }: Race): Promise<number> {
  const seats = await queryRows<{ sector_id: number; row: string; x: number; free: boolean }>(
    t.ctx.db,
    sql`SELECT ss.sector_id, st.row, st.x, (ss.status = 'available' AND NOT st.wheelchair AND NOT st.companion) AS free
        FROM session_seats ss JOIN seats st ON st.id = ss.seat_id WHERE ss.session_id = ${s0.sessionId}
        ORDER BY ss.sector_id, st.row, st.x`,
  );
  let longest = 0;
  let run = 0;
  for (let i = 0; i < seats.length; i++) {
    const s = seats[i]!;
    const prev = seats[i - 1];
    const next = prev && prev.sector_id === s.sector_id && prev.row === s.row && Number(s.x) - Number(prev.x) === 1;
    run = s.free ? (next ? run + 1 : 1) : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}

describe.skipIf(!isPostgres)('500 parallel best-available requests (PostgreSQL)', () => {
  it('no seat twice, each 201 one block, no 409 while a block of that size remains', async () => {
    const { t, token: server, s0 } = race();
    const quantities = Array.from({ length: REQUESTS }, (_, i) => 1 + ((i * 7) % 3));
    const started = Date.now();
    const answers = await Promise.all(
      quantities.map((quantity) =>
        t.app.inject({ method: 'POST', url: `${ordersUrl(DEMO.d.slug)}/best-available`, headers: bearer(server), payload: { session_id: s0.sessionId, quantity } }),
      ),
    );
    const elapsed = Date.now() - started;
    const seen = new Set<number>();
    const refused: number[] = [];
    let held = 0;
    for (const [i, res] of answers.entries()) {
      if (res.statusCode === 201) {
        const order = res.json().data as OrderJson & { next_to_each_other: boolean };
        const items = itemsOf(order);
        expect(items).toHaveLength(quantities[i]!);
        expect(order.next_to_each_other).toBe(true);
        expect(new Set(items.map((x) => x.row)).size).toBe(1);
        for (const item of items) {
          expect(seen.has(item.session_seat_id!), `seat ${item.session_seat_id} in two orders`).toBe(false);
          seen.add(item.session_seat_id!);
        }
        held += items.length;
        continue;
      }
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json().code).toBe('no_seats_together');
      refused.push(quantities[i]!);
    }
    const longest = await longestFreeBlock(race());
    for (const q of refused) expect(q, `a 409 for ${q} seats while a block of ${longest} is free`).toBeGreaterThan(longest);
    const [db] = await queryRows<{ n: number }>(
      t.ctx.db,
      sql`SELECT count(*)::int AS n FROM session_seats WHERE session_id = ${s0.sessionId} AND status = 'held'`,
    );
    expect(Number(db!.n)).toBe(held);
    expect(refused.length).toBeGreaterThan(0);
    console.log(`best-available race: ${REQUESTS} requests in ${elapsed} ms, ${REQUESTS - refused.length} held (${held} seats), ${refused.length} × 409, longest free block at the end ${longest}`);
  }, 300_000);
});
