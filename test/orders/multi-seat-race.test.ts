import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { bearer, DEMO, isPostgres, tokenFor } from '../helpers.js';
import { ordersUrl, raceOnPostgres } from './cart-helpers.js';

// D63 under load, PostgreSQL only (PGlite has one connection and serialises every request): 100
// multi-seat creates in parallel over a small pool of seats, so that most requests overlap. Each
// answer is 201 or a 409 naming a seat of its own request that another live order holds; no seat
// is in two live orders; every held seat belongs to an answered order (all or nothing, D14, D18).

const REQUESTS = 100;
const POOL = 40;
const PER_ORDER = 3;

/** A widget token of demo-d. */
const race = raceOnPostgres((t) => tokenFor(t.app, DEMO.d.slug, DEMO.d.key));

/** A small deterministic generator, so that a failure replays. */
function picks(seed: number, n: number, of: number): number[] {
  let state = seed;
  const out = new Set<number>();
  while (out.size < n) {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    out.add(state % of);
  }
  return [...out];
}

describe.skipIf(!isPostgres)('100 parallel multi-seat creates with overlapping seats (PostgreSQL)', () => {
  it('no seat in two live orders; every refusal is a 409 naming a seat of its request; nothing half-held', async () => {
    const { t, token: d, s0 } = race();
    const pool = s0.seats.slice(0, POOL);
    const requests = Array.from({ length: REQUESTS }, (_, i) => picks(i + 1, PER_ORDER, POOL).map((k) => pool[k]!));
    const answers = await Promise.all(
      requests.map((seats) =>
        t.app.inject({
          method: 'POST',
          url: ordersUrl('demo-d'),
          headers: bearer(d),
          payload: { items: seats.map((s) => ({ session_seat_id: s.id, rate_id: s0.rates.general })) },
        }),
      ),
    );
    const won = new Map<string, number[]>();
    for (const [i, res] of answers.entries()) {
      const seats = requests[i]!;
      if (res.statusCode === 201) {
        won.set(res.json().data.order_token, seats.map((s) => s.id));
        continue;
      }
      expect(res.statusCode, res.body).toBe(409);
      const body = res.json();
      expect(body.code).toBe('seat_unavailable');
      const named = Number(body.errors.session_seat_id[0]);
      const seat = seats.find((s) => s.id === named);
      expect(seat, `the refusal names a seat of its own request: ${res.body}`).toBeDefined();
      expect(body.message).toBe(`Seat ${seat!.sectorName}, row ${seat!.row}, number ${seat!.number} is not available`);
    }
    expect(won.size).toBeGreaterThan(0);
    expect(won.size).toBeLessThan(REQUESTS);

    const twice = await queryRows<{ session_seat_id: number }>(
      t.ctx.db,
      sql`SELECT oi.session_seat_id FROM order_items oi JOIN orders o ON o.id = oi.order_id
          WHERE o.status = 'pending' AND o.expires_at > ${t.clock.now()}
          GROUP BY oi.session_seat_id HAVING count(*) > 1`,
    );
    expect(twice).toEqual([]);
    // Every held seat of the pool is held by an order that answered 201, with exactly its seats.
    const held = await queryRows<{ id: number; order_token: string }>(
      t.ctx.db,
      sql`SELECT ss.id, o.order_token FROM session_seats ss JOIN orders o ON o.id = ss.order_id
          WHERE ss.status = 'held' AND ss.id = ANY(${`{${pool.map((s) => s.id).join(',')}}`}::bigint[])`,
    );
    const heldBy = new Map<string, number[]>();
    for (const h of held) heldBy.set(h.order_token, [...(heldBy.get(h.order_token) ?? []), Number(h.id)]);
    expect(new Set(heldBy.keys())).toEqual(new Set(won.keys()));
    for (const [token, ids] of won) expect([...heldBy.get(token)!].sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
    // Refused requests left no order behind.
    const [orders] = await queryRows<{ n: number }>(t.ctx.db, sql`SELECT count(*)::int AS n FROM orders WHERE channel_id = (SELECT id FROM sales_channels WHERE slug = 'demo-d')`);
    expect(Number(orders!.n)).toBe(won.size);
  }, 120_000);
});
