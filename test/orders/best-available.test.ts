import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { bearer, buildTestApp, DEMO, serverTokenFor, tokenFor, type TestApp } from '../helpers.js';
import { demoSession, heldRows, itemsOf, ordersUrl, type DemoSession, type OrderJson } from './cart-helpers.js';

// D61 best available through the API, on both databases: the choice (front row, centre, one
// block), the answer (D35 order + next_to_each_other, 201), every error row (validation, unknown
// session / rate / sector, not_on_sale, no_seats_together, hold caps, foreign order), order_token,
// accessible places, and the portal twin. The rules on generated layouts are
// best-available.property.test.ts; the parallel run is best-available.race.test.ts (PostgreSQL).

const MAX_ITEMS = 25;

let t: TestApp;
let server: string;
/** s0 and s1: the concert; s2: the play. Each test takes seats of its own session or sector. */
let s0: DemoSession;
let s1: DemoSession;
let s2: DemoSession;
let sectors: { platea: number; anfiteatro: number; pista: number };

const BA = (slug = DEMO.d.slug) => `${ordersUrl(slug)}/best-available`;
const PORTAL_BA = `/api/portal/${DEMO.a.slug}/en/orders/best-available`;

beforeAll(async () => {
  t = await buildTestApp({ env: { MAX_ITEMS_PER_ORDER: String(MAX_ITEMS), MAX_LIVE_ORDERS_PER_BUYER: '2' } });
  server = await serverTokenFor(t.app, DEMO.d.slug);
  [s0, s1, s2] = [await demoSession(t, 0), await demoSession(t, 1), await demoSession(t, 2)];
  const rows = await queryRows<{ id: number; name: string }>(t.ctx.db, sql`SELECT id, name FROM sectors ORDER BY id`);
  const id = (name: string) => rows.find((r) => r.name === name)!.id;
  sectors = { platea: id('Platea'), anfiteatro: id('Anfiteatro'), pista: id('Pista') };
}, 180_000);
afterAll(() => t.close());

type Res = { status: number; body: { code?: string; message?: string; errors?: Record<string, string[]>; data: OrderJson & { next_to_each_other: boolean } } };
async function post(payload: unknown, token = server, url = BA(), headers: Record<string, string> = {}): Promise<Res> {
  const res = await t.app.inject({ method: 'POST', url, headers: { ...bearer(token), ...headers }, payload: payload as object });
  return { status: res.statusCode, body: res.json() };
}
async function portal(payload: unknown, headers: Record<string, string> = {}): Promise<Res> {
  const res = await t.app.inject({ method: 'POST', url: PORTAL_BA, headers, payload: payload as object });
  return { status: res.statusCode, body: res.json() };
}
const newBuyer = () => tokenFor(t.app, DEMO.d.slug, DEMO.d.key, `buyer-${crypto.randomUUID()}`);

/** The seats of an order: sector, row and number, in row then number order. */
const seatsOf = (order: OrderJson) =>
  itemsOf(order)
    .map((i) => ({ sector: i.sector_name, row: i.row!, number: Number(i.number) }))
    .sort((a, b) => a.row.localeCompare(b.row) || a.number - b.number);
const numbers = (order: OrderJson) => seatsOf(order).map((s) => s.number);

describe('POST /orders/best-available (D61)', () => {
  // First: a session's layout is kept in memory once read, and this one changes the seats' rows.
  it('the layout\'s row priority (D64 row_priority, higher first) comes before the front rows', async () => {
    await t.ctx.db.execute(sql`UPDATE seats SET row_priority = 5 WHERE sector_id = ${sectors.anfiteatro} AND row = 'D'`);
    try {
      const r = await post({ session_id: s0.sessionId, quantity: 2, sector_id: sectors.anfiteatro });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      expect(seatsOf(r.body.data)).toEqual([10, 11].map((number) => ({ sector: 'Anfiteatro', row: 'D', number })));
    } finally {
      await t.ctx.db.execute(sql`UPDATE seats SET row_priority = 0 WHERE sector_id = ${sectors.anfiteatro}`);
    }
  });

  it('201 with the order (D35) and next_to_each_other: one block in the front row, around its centre, at the first rate', async () => {
    const r = await post({ session_id: s2.sessionId, quantity: 4 });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body).toMatchObject({ status: 201, success: true, message: 'Seats held' });
    const order = r.body.data;
    expect(order.next_to_each_other).toBe(true);
    expect(order).toMatchObject({ status: 'pending', currency: expect.any(String), order_token: expect.any(String) });
    // Platea row A has seats 1-20 at x 0-19: the centre is between 10 and 11.
    expect(seatsOf(order)).toEqual([9, 10, 11, 12].map((number) => ({ sector: 'Platea', row: 'A', number })));
    expect(itemsOf(order).every((i) => i.rate_id === s2.rates.general)).toBe(true);
    expect((await heldRows(t, order.order_token)).map((x) => x.status)).toEqual(['held', 'held', 'held', 'held']);
    // The next party gets the next best block of the same row, leaving no single seat stranded.
    const next = await post({ session_id: s2.sessionId, quantity: 4 });
    expect(next.status).toBe(201);
    expect(seatsOf(next.body.data).map((s) => s.row)).toEqual(['A', 'A', 'A', 'A']);
    expect(numbers(next.body.data)).toEqual([5, 6, 7, 8]);
    // Three seats: any three of 1-4 strand one; of 13-20, 13-15 is nearest the centre and strands none.
    const three = await post({ session_id: s2.sessionId, quantity: 3 });
    expect(numbers(three.body.data)).toEqual([13, 14, 15]);
  });

  it('no single free seat stranded: with 5 free in a row, 4 are taken from an end only when no other block avoids the orphan', async () => {
    // Row A of the anfiteatro of s2: free seats 1-5 only (the rest sold); row B entirely free.
    await t.ctx.db.execute(sql`UPDATE session_seats ss SET status = 'sold' FROM seats st
      WHERE st.id = ss.seat_id AND ss.session_id = ${s2.sessionId} AND st.sector_id = ${sectors.anfiteatro} AND st.row = 'A' AND st.number::int > 5`);
    const r = await post({ session_id: s2.sessionId, quantity: 4, sector_id: sectors.anfiteatro });
    expect(r.status).toBe(201);
    // Any 4 of the 5 strands one seat; row B has blocks that strand nothing: row B it is.
    expect(seatsOf(r.body.data).map((s) => s.row)).toEqual(['B', 'B', 'B', 'B']);
    const five = await post({ session_id: s2.sessionId, quantity: 5, sector_id: sectors.anfiteatro });
    expect(seatsOf(five.body.data)).toEqual([1, 2, 3, 4, 5].map((number) => ({ sector: 'Anfiteatro', row: 'A', number })));
  });

  it('together (default true): 409 no_seats_together without a block; together:false splits the seats, next_to_each_other false', async () => {
    const r = await post({ session_id: s1.sessionId, quantity: 21 });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ code: 'no_seats_together', message: 'No 21 free seats next to each other' });
    const split = await post({ session_id: s1.sessionId, quantity: 21, together: false, sector_id: sectors.platea });
    expect(split.status, JSON.stringify(split.body)).toBe(201);
    expect(split.body.data.next_to_each_other).toBe(false);
    expect(itemsOf(split.body.data)).toHaveLength(21);
    const rows = seatsOf(split.body.data).map((s) => s.row);
    expect(rows.filter((x) => x === 'A')).toHaveLength(20);
  });

  it('accessible: n wheelchair places with their companion seats beside them; ordinary requests never get them', async () => {
    const r = await post({ session_id: s1.sessionId, quantity: 2, accessible: 1, sector_id: sectors.anfiteatro });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const flags = await queryRows<{ number: string; wheelchair: boolean; companion: boolean }>(
      t.ctx.db,
      sql`SELECT st.number, st.wheelchair, st.companion FROM order_items oi JOIN session_seats ss ON ss.id = oi.session_seat_id
          JOIN seats st ON st.id = ss.seat_id JOIN orders o ON o.id = oi.order_id WHERE o.order_token = ${r.body.data.order_token} ORDER BY st.x`,
    );
    expect(flags.filter((f) => f.wheelchair)).toHaveLength(1);
    expect(flags.filter((f) => f.companion)).toHaveLength(1);
    expect(seatsOf(r.body.data).map((s) => s.row)).toEqual(['H', 'H']);
    expect(r.body.data.next_to_each_other).toBe(true);
    // Two wheelchair places in one block do not exist in the demo (1 and 20 are at both ends): 409.
    const two = await post({ session_id: s1.sessionId, quantity: 3, accessible: 2, sector_id: sectors.anfiteatro });
    expect(two).toMatchObject({ status: 409, body: { code: 'no_seats_together' } });
    const flagged = await queryRows<{ n: number }>(
      t.ctx.db,
      sql`SELECT count(*)::int AS n FROM session_seats ss JOIN seats st ON st.id = ss.seat_id
          WHERE ss.session_id = ${s1.sessionId} AND ss.status = 'held' AND (st.wheelchair OR st.companion)`,
    );
    expect(Number(flagged[0]!.n)).toBe(2);
  });

  it('order_token adds the seats to that live cart of the caller; another buyer\'s cart is 404 (D57), as is an unknown token', async () => {
    const buyer = await newBuyer();
    const first = await post({ session_id: s0.sessionId, quantity: 2 }, buyer);
    expect(first.status).toBe(201);
    const token = first.body.data.order_token;
    const more = await post({ session_id: s0.sessionId, quantity: 2, order_token: token }, buyer);
    expect(more.status, JSON.stringify(more.body)).toBe(201);
    expect(more.body.data.order_token).toBe(token);
    expect(itemsOf(more.body.data)).toHaveLength(4);
    const stranger = await newBuyer();
    const foreign = await post({ session_id: s0.sessionId, quantity: 1, order_token: token }, stranger);
    expect(foreign).toMatchObject({ status: 404, body: { code: 'not_found' } });
    const unknown = await post({ session_id: s0.sessionId, quantity: 1, order_token: crypto.randomUUID() }, buyer);
    expect(unknown).toMatchObject({ status: 404, body: { code: 'not_found' } });
    expect(itemsOf((await post({ session_id: s0.sessionId, quantity: 1, order_token: token }, server)).body.data)).toHaveLength(5);
  });

  it('422: strict bodies (D56), quantity bounds, accessible above quantity', async () => {
    const cases: [unknown, string][] = [
      [{ quantity: 2 }, 'session_id'],
      [{ session_id: s0.sessionId }, 'quantity'],
      [{ session_id: s0.sessionId, quantity: 0 }, 'quantity'],
      [{ session_id: s0.sessionId, quantity: '2' }, 'quantity'],
      [{ session_id: String(s0.sessionId), quantity: 2 }, 'session_id'],
      [{ session_id: s0.sessionId, quantity: 2, together: 'yes' }, 'together'],
      [{ session_id: s0.sessionId, quantity: 2, accessible: -1 }, 'accessible'],
      [{ session_id: s0.sessionId, quantity: 2, accessible: 3 }, 'accessible'],
      [{ session_id: s0.sessionId, quantity: 2, seats: 2 }, 'seats'],
    ];
    for (const [payload, field] of cases) {
      const r = await post(payload);
      expect({ payload, status: r.status, code: r.body.code }).toEqual({ payload, status: 422, code: 'validation_failed' });
      expect(Object.keys(r.body.errors ?? {}), JSON.stringify(payload)).toContain(field);
    }
  });

  it('unknown session 404, unknown sector 404, unnumbered sector 422, unknown or foreign rate 422, a rate of another sector 422', async () => {
    expect(await post({ session_id: 999_999, quantity: 1 })).toMatchObject({ status: 404, body: { code: 'not_found', message: 'Session 999999 not found' } });
    expect(await post({ session_id: s0.sessionId, quantity: 1, sector_id: 999_999 })).toMatchObject({ status: 404, body: { code: 'not_found' } });
    const zone = await post({ session_id: s0.sessionId, quantity: 1, sector_id: sectors.pista });
    expect(zone).toMatchObject({ status: 422, body: { errors: { sector_id: expect.any(Array) } } });
    expect(await post({ session_id: s0.sessionId, quantity: 1, rate_id: 999_999 })).toMatchObject({ status: 422, body: { errors: { rate_id: expect.any(Array) } } });
    expect(await post({ session_id: s0.sessionId, quantity: 1, rate_id: s1.rates.general })).toMatchObject({ status: 422, body: { errors: { rate_id: expect.any(Array) } } });
    const [rate] = await queryRows<{ id: number }>(
      t.ctx.db,
      sql`INSERT INTO rates (session_id, sector_id, name, price) VALUES (${s0.sessionId}, ${sectors.anfiteatro}, 'Anfiteatro', 1000) RETURNING id`,
    );
    const other = await post({ session_id: s0.sessionId, quantity: 1, rate_id: rate!.id, sector_id: sectors.platea });
    expect(other).toMatchObject({ status: 422, body: { errors: { rate_id: expect.any(Array) } } });
    // That rate without a sector: the seats come from the sector it fits.
    const fits = await post({ session_id: s0.sessionId, quantity: 1, rate_id: rate!.id });
    expect(fits.status).toBe(201);
    expect(itemsOf(fits.body.data)[0]).toMatchObject({ sector_id: sectors.anfiteatro, rate_id: rate!.id });
    await t.ctx.db.execute(sql`DELETE FROM order_items WHERE rate_id = ${rate!.id}`);
    await t.ctx.db.execute(sql`UPDATE session_seats SET status = 'available', order_id = NULL WHERE id = ${itemsOf(fits.body.data)[0]!.session_seat_id}`);
    await t.ctx.db.execute(sql`DELETE FROM rates WHERE id = ${rate!.id}`);
  });

  it('409 not_on_sale outside the sales window (D59), with the window in data', async () => {
    const start = new Date(t.clock.now().getTime() + 3_600_000);
    await t.ctx.db.execute(sql`UPDATE sessions SET sales_start_at = ${start} WHERE id = ${s2.sessionId}`);
    try {
      const r = await post({ session_id: s2.sessionId, quantity: 1 });
      expect(r).toMatchObject({ status: 409, body: { code: 'not_on_sale', data: { sales_start_at: expect.any(String) } } });
      const p = await portal({ session_id: s2.sessionId, quantity: 1 });
      expect(p).toMatchObject({ status: 409, body: { code: 'not_on_sale' } });
    } finally {
      await t.ctx.db.execute(sql`UPDATE sessions SET sales_start_at = NULL WHERE id = ${s2.sessionId}`);
    }
  });

  it('hold caps (D44): quantity above MAX_ITEMS_PER_ORDER, a third live cart, a session\'s max_tickets_per_buyer: 429, nothing held', async () => {
    const buyer = await newBuyer();
    expect(await post({ session_id: s0.sessionId, quantity: MAX_ITEMS + 1 }, buyer)).toMatchObject({ status: 429, body: { code: 'hold_limit_reached' } });
    expect((await post({ session_id: s0.sessionId, quantity: 1 }, buyer)).status).toBe(201);
    expect((await post({ session_id: s0.sessionId, quantity: 1 }, buyer)).status).toBe(201);
    expect(await post({ session_id: s0.sessionId, quantity: 1 }, buyer)).toMatchObject({ status: 429, body: { code: 'hold_limit_reached' } });
    await t.ctx.db.execute(sql`UPDATE sessions SET max_tickets_per_buyer = 3 WHERE id = ${s1.sessionId}`);
    try {
      const other = await newBuyer();
      const cart = await post({ session_id: s1.sessionId, quantity: 2 }, other);
      expect(cart.status).toBe(201);
      const over = await post({ session_id: s1.sessionId, quantity: 2, order_token: cart.body.data.order_token }, other);
      expect(over).toMatchObject({ status: 429, body: { code: 'hold_limit_reached', message: `Session ${s1.sessionId} allows at most 3 tickets per buyer` } });
      expect(await heldRows(t, cart.body.data.order_token)).toHaveLength(2);
    } finally {
      await t.ctx.db.execute(sql`UPDATE sessions SET max_tickets_per_buyer = NULL WHERE id = ${s1.sessionId}`);
    }
  });

  it('Idempotency-Key: a repeated request answers the first answer and holds nothing more', async () => {
    const key = crypto.randomUUID();
    const a = await post({ session_id: s0.sessionId, quantity: 2 }, server, BA(), { 'idempotency-key': key });
    const b = await post({ session_id: s0.sessionId, quantity: 2 }, server, BA(), { 'idempotency-key': key });
    expect(a.status).toBe(201);
    expect(b.body.data.order_token).toBe(a.body.data.order_token);
    expect(numbers(b.body.data)).toEqual(numbers(a.body.data));
  });

  it('portal twin: 201 in a new cart, then added to it with order_token; 404 for an unknown cart', async () => {
    const r = await portal({ session_id: s0.sessionId, quantity: 2, sector_id: sectors.anfiteatro });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.data.next_to_each_other).toBe(true);
    const more = await portal({ session_id: s0.sessionId, quantity: 1, order_token: r.body.data.order_token });
    expect(more.status).toBe(201);
    expect(itemsOf(more.body.data)).toHaveLength(3);
    expect(await portal({ session_id: s0.sessionId, quantity: 1, order_token: crypto.randomUUID() })).toMatchObject({ status: 404 });
    expect(await portal({ session_id: s0.sessionId, quantity: 0 })).toMatchObject({ status: 422 });
  });
});
