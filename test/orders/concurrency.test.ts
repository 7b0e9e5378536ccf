import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { bearer, buildTestApp, DEMO, isPostgres, tokenFor, type TestApp } from '../helpers.js';
import { createOrder, demoSession, orderUrl, ordersUrl, type DemoSession } from './cart-helpers.js';

// Many parallel buyers through app.inject against a pool of 30 connections. On PostgreSQL the
// requests really race; on PGlite (one connection) they serialise, and the outcome must be the same.

// PGlite serialises every request, so there the same races run at a smaller scale.
const BUYERS = isPostgres ? 100 : 20;

let t: TestApp;
let d: string;
let s0: DemoSession;
let s1: DemoSession;
let s2: DemoSession;

beforeAll(async () => {
  t = await buildTestApp({ poolSize: 30 });
  d = await tokenFor(t.app, DEMO.d.slug, DEMO.d.key);
  [s0, s1, s2] = [await demoSession(t, 0), await demoSession(t, 1), await demoSession(t, 2)];
}, 180_000); // building a PGlite app with the demo catalogue is slow on a loaded machine
afterAll(() => t.close());

const post = (url: string, payload: object) => t.app.inject({ method: 'POST', url, headers: bearer(d), payload });

/** Every seat is held by at most one live order, and every live hold has an item in its order. */
async function expectNoDoubleHolds() {
  const twice = await queryRows<{ session_seat_id: number }>(
    t.ctx.db,
    sql`SELECT oi.session_seat_id FROM order_items oi JOIN orders o ON o.id = oi.order_id
        WHERE o.status IN ('pending', 'completed') AND (o.status = 'completed' OR o.expires_at > ${t.clock.now()})
        GROUP BY oi.session_seat_id HAVING count(*) > 1`,
  );
  expect(twice).toEqual([]);
  const orphans = await queryRows<{ id: number }>(
    t.ctx.db,
    sql`SELECT ss.id FROM session_seats ss WHERE ss.status = 'held'
        AND NOT EXISTS (SELECT 1 FROM order_items oi WHERE oi.order_id = ss.order_id AND oi.session_seat_id = ss.id)`,
  );
  expect(orphans).toEqual([]);
}

/** `n` orders, each holding one seat of the play (session 2), created in parallel. */
async function ordersWithOneSeat(n: number, from: number) {
  return Promise.all(
    Array.from({ length: n }, (_, i) => createOrder(t.app, d, 'demo-d', { session_seat_id: s2.seats[from + i]!.id, rate_id: s2.rates.general })),
  );
}

describe('concurrency', () => {
  it(`${BUYERS} parallel buyers for 10 seats: exactly 10 held, every loser 409 (${isPostgres ? 'PostgreSQL' : 'PGlite'})`, async () => {
    const seats = s0.seats.slice(0, 10);
    const results = await Promise.all(
      Array.from({ length: BUYERS }, (_, i) => post(ordersUrl('demo-d'), { session_seat_id: seats[i % 10]!.id, rate_id: s0.rates.general })),
    );
    const codes = results.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 201)).toHaveLength(10);
    expect(codes.filter((c) => c === 409)).toHaveLength(BUYERS - 10);
    for (const r of results.filter((x) => x.statusCode === 409)) expect(r.json().code).toBe('seat_unavailable');
    const held = await queryRows<{ id: number; order_id: string }>(
      t.ctx.db,
      sql`SELECT id, order_id FROM session_seats WHERE id = ANY(${`{${seats.map((s) => s.id).join(',')}}`}::int[]) AND status = 'held'`,
    );
    expect(held).toHaveLength(10);
    expect(new Set(held.map((h) => String(h.order_id))).size).toBe(10);
    await expectNoDoubleHolds();
  });

  it('overlapping bulk adds in any order never deadlock and stay all-or-nothing', async () => {
    const orders = await ordersWithOneSeat(isPostgres ? 40 : 12, 0);
    const pool = s0.seats.slice(20, 32);
    const results = await Promise.all(
      orders.map((o, i) => {
        // Each buyer wants 3 of 12 seats, listed in a buyer-specific (often descending) order.
        const picks = [pool[i % 12]!, pool[(i * 5 + 3) % 12]!, pool[(i * 7 + 11) % 12]!];
        const unique = [...new Map(picks.map((p) => [p.id, p])).values()];
        return post(orderUrl('demo-d', o.order_token, '/items-bulk'), { items: unique.map((p) => ({ session_seat_id: p.id, rate_id: s0.rates.general })) });
      }),
    );
    expect(results.every((r) => r.statusCode === 200 || (r.statusCode === 409 && r.json().code === 'seat_unavailable'))).toBe(true);
    // All or nothing: every order holds its first seat plus all or none of what it asked for.
    for (const [i, r] of results.entries()) {
      const [row] = await queryRows<{ n: number }>(
        t.ctx.db,
        sql`SELECT count(*)::int AS n FROM session_seats ss JOIN orders o ON o.id = ss.order_id WHERE o.order_token = ${orders[i]!.order_token}`,
      );
      if (r.statusCode === 409) expect(row!.n).toBe(1);
      else expect(row!.n).toBeGreaterThan(1);
    }
    await expectNoDoubleHolds();
  });

  it(`${BUYERS} parallel buyers for the last 10 places of a zone: exactly 10 places held`, async () => {
    // Block all but 10 places of session 1's zone, then race for them one place each.
    await t.ctx.db.execute(sql`
      UPDATE session_seats SET status = 'blocked'
      WHERE session_id = ${s1.sessionId} AND sector_id = ${s1.zone.sectorId}
        AND id NOT IN (SELECT id FROM session_seats WHERE session_id = ${s1.sessionId} AND sector_id = ${s1.zone.sectorId} ORDER BY id DESC LIMIT 10)`);
    const orders = await ordersWithOneSeat(BUYERS, 100);
    const results = await Promise.all(
      orders.map((o) => post(orderUrl('demo-d', o.order_token, '/items/sector'), { sector_id: s1.zone.sectorId, rate_id: s1.rates.general, quantity: 1 })),
    );
    const codes = results.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 200)).toHaveLength(10);
    expect(results.filter((r) => r.statusCode === 409).every((r) => r.json().code === 'zone_capacity_exceeded')).toBe(true);
    expect(codes.filter((c) => c === 409)).toHaveLength(BUYERS - 10);
    const [held] = await queryRows<{ n: number }>(
      t.ctx.db,
      sql`SELECT count(*)::int AS n FROM session_seats WHERE session_id = ${s1.sessionId} AND sector_id = ${s1.zone.sectorId} AND status = 'held'`,
    );
    expect(held!.n).toBe(10);
    await expectNoDoubleHolds();
  });

  it('parallel multi-place requests never exceed the zone capacity', async () => {
    // Session 0's zone (200 places): 60 buyers ask for 4 places each, or 12 for 19 (240, 228 wanted).
    const quantity = isPostgres ? 4 : 19;
    const orders = await ordersWithOneSeat(isPostgres ? 60 : 12, 200);
    const results = await Promise.all(
      orders.map((o) => post(orderUrl('demo-d', o.order_token, '/items/sector'), { sector_id: s0.zone.sectorId, rate_id: s0.rates.general, quantity })),
    );
    const ok = results.filter((r) => r.statusCode === 200).length;
    expect(results.every((r) => r.statusCode === 200 || r.json().code === 'zone_capacity_exceeded')).toBe(true);
    const [held] = await queryRows<{ n: number }>(
      t.ctx.db,
      sql`SELECT count(*)::int AS n FROM session_seats WHERE session_id = ${s0.sessionId} AND sector_id = ${s0.zone.sectorId} AND status = 'held'`,
    );
    expect(held!.n).toBe(ok * quantity);
    expect(held!.n).toBeLessThanOrEqual(s0.zone.capacity);
    expect(ok).toBeGreaterThan(0);
    await expectNoDoubleHolds();
  });

  it(`${BUYERS} parallel carts applying a voucher limited to 5 uses: exactly 5 succeed`, async () => {
    await t.ctx.db.execute(sql`
      INSERT INTO vouchers (organiser_id, code, kind, value, max_uses)
      SELECT organiser_id, 'FIVE', 'percent', 1500, 5 FROM sales_channels WHERE slug = 'demo-d'`);
    const orders = await ordersWithOneSeat(BUYERS, 300);
    const results = await Promise.all(orders.map((o) => post(orderUrl('demo-d', o.order_token, '/apply-voucher'), { code: 'FIVE' })));
    const codes = results.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 200)).toHaveLength(5);
    expect(codes.filter((c) => c === 409)).toHaveLength(BUYERS - 5);
    expect(results.filter((r) => r.statusCode === 409).every((r) => r.json().code === 'voucher_exhausted')).toBe(true);
    const [uses] = await queryRows<{ n: number }>(
      t.ctx.db,
      sql`SELECT count(*)::int AS n FROM order_vouchers ov JOIN vouchers v ON v.id = ov.voucher_id WHERE v.code = 'FIVE'`,
    );
    expect(uses!.n).toBe(5);
  });
});
