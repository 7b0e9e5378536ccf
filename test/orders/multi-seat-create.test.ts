import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { bearer, buildTestApp, DEMO, tokenFor, type TestApp } from '../helpers.js';
import { demoSession, heldRows, itemsOf, orderUrl, ordersUrl, type DemoSession, type OrderJson } from './cart-helpers.js';

// D63: creating an order may carry `items: [{session_seat_id, rate_id}]` (1 to MAX_ITEMS_PER_ORDER,
// all or nothing, D18) instead of SPEC's single session_seat_id + rate_id; exactly one of the two
// forms. One set-based hold (cart_hold_seats), one statement; the hold caps (D44), the cart-write
// rate limit and Idempotency-Key apply as for any create. The parallel race is in
// multi-seat-race.test.ts (PostgreSQL).

const MAX_ITEMS = 4;
const WRITES_PER_MINUTE = 12;

let t: TestApp;
let s0: DemoSession;
let s1: DemoSession;
let next = 0;
const seats = (n: number) => s0.seats.slice(next, (next += n));

beforeAll(async () => {
  t = await buildTestApp({
    env: { MAX_ITEMS_PER_ORDER: String(MAX_ITEMS), MAX_LIVE_ORDERS_PER_BUYER: '2', CART_WRITE_RATE_LIMIT_PER_MINUTE: String(WRITES_PER_MINUTE) },
  });
  [s0, s1] = [await demoSession(t, 0), await demoSession(t, 1)];
}, 180_000);
afterAll(() => t.close());

/** A widget token of a buyer of its own (D38 client_id), so that caps and limits are per test. */
const clientOf = new Map<string, string>();
async function newBuyer() {
  const clientId = `buyer-${crypto.randomUUID()}`;
  const token = await tokenFor(t.app, DEMO.d.slug, DEMO.d.key, clientId);
  clientOf.set(token, clientId);
  return token;
}

async function post(token: string, payload: unknown, headers: Record<string, string> = {}, url = ordersUrl('demo-d')) {
  const res = await t.app.inject({ method: 'POST', url, headers: { ...bearer(token), ...headers }, payload: payload as object });
  return { status: res.statusCode, body: res.json(), headers: res.headers };
}
const general = (seat: { id: number }) => ({ session_seat_id: seat.id, rate_id: s0.rates.general });
/** Orders written for the buyer of a token (orders.buyer_key, D44). */
const buyerOrders = async (token: string) => {
  const [row] = await queryRows<{ n: number }>(
    t.ctx.db,
    sql`SELECT count(*)::int AS n FROM orders o WHERE o.buyer_key = 'w:' || o.channel_id || ':' || ${clientOf.get(token)!}::text`,
  );
  return Number(row?.n ?? 0);
};
const freeSeats = async (ids: number[]) =>
  queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM session_seats WHERE id = ANY(${`{${ids.join(',')}}`}::bigint[]) AND status = 'available' ORDER BY id`);

describe('POST /orders with items (D63)', () => {
  it('holds every seat in one request: 201, one order, every item at its rate, one lifetime', async () => {
    const token = await newBuyer();
    const [a, b] = seats(2);
    const other = s1.seats[0]!;
    const res = await post(token, { items: [general(a!), general(b!), { session_seat_id: other.id, rate_id: s1.rates.reduced }] });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ status: 201, success: true, message: 'Order created' });
    const order = res.body.data as OrderJson;
    expect(itemsOf(order).map((i) => [i.session_seat_id, i.rate_id])).toEqual([
      [a!.id, s0.rates.general],
      [b!.id, s0.rates.general],
      [other.id, s1.rates.reduced],
    ]);
    expect(Date.parse(order.expires_at!)).toBe(t.clock.now().getTime() + 900_000);
    expect((await heldRows(t, order.order_token)).map((r) => r.id)).toEqual([a!.id, b!.id, other.id].sort((x, y) => x - y));
    const cents = (n: number) => Math.round(n * 100);
    expect(cents(order.total_amount)).toBe(itemsOf(order).reduce((sum, i) => sum + cents(i.total_amount), 0));
  });

  it('exactly one form: both or neither is 422; SPEC\'s single seat keeps working', async () => {
    const token = await newBuyer();
    const [a, b] = seats(2);
    const both = await post(token, { session_seat_id: a!.id, rate_id: s0.rates.general, items: [general(b!)] });
    expect(both.status).toBe(422);
    expect(both.body).toMatchObject({ code: 'validation_failed', message: 'The given data was invalid', errors: { items: [expect.any(String)] } });
    const neither = await post(token, {});
    expect(neither.status).toBe(422);
    expect(neither.body.errors).toHaveProperty('session_seat_id');
    const half = await post(token, { session_seat_id: a!.id });
    expect(half.status).toBe(422);
    expect(half.body.errors).toHaveProperty('rate_id');
    const empty = await post(token, { items: [] });
    expect(empty.status).toBe(422);
    expect(empty.body.errors).toHaveProperty('items');
    expect(await freeSeats([a!.id, b!.id])).toHaveLength(2);
    const single = await post(token, general(a!));
    expect(single.status).toBe(201);
    expect(itemsOf(single.body.data)).toHaveLength(1);
  });

  it('all or nothing: a seat another order holds is 409 naming it, nothing is held and no order is left', async () => {
    const token = await newBuyer();
    const [a, b, c] = seats(3);
    expect((await post(await newBuyer(), { items: [general(b!)] })).status).toBe(201);
    const res = await post(token, { items: [general(a!), general(b!), general(c!)] });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({
      code: 'seat_unavailable',
      message: `Seat ${b!.sectorName}, row ${b!.row}, number ${b!.number} is not available`,
      errors: { session_seat_id: [String(b!.id)] },
    });
    expect(await freeSeats([a!.id, c!.id])).toHaveLength(2);
    expect(await buyerOrders(token)).toBe(0);
  });

  it('field errors name the item: a repeated seat, a rate that does not fit, a zone place; an unknown seat is 404', async () => {
    const token = await newBuyer();
    const [a, b] = seats(2);
    const twice = await post(token, { items: [general(a!), general(b!), general(a!)] });
    expect(twice.status).toBe(422);
    expect(twice.body.errors).toEqual({ 'items.2.session_seat_id': ['appears more than once'] });
    const wrongRate = await post(token, { items: [general(a!), { session_seat_id: b!.id, rate_id: s1.rates.general }] });
    expect(wrongRate.status).toBe(422);
    expect(Object.keys(wrongRate.body.errors)).toEqual(['items.1.rate_id']);
    const [zonePlace] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM session_seats WHERE session_id = ${s0.sessionId} AND seat_id IS NULL ORDER BY id LIMIT 1`);
    const zone = await post(token, { items: [general(a!), { session_seat_id: zonePlace!.id, rate_id: s0.rates.general }] });
    expect(zone.status).toBe(422);
    expect(Object.keys(zone.body.errors)).toEqual(['items.1.session_seat_id']);
    const unknown = await post(token, { items: [general(a!), { session_seat_id: 99_999_999, rate_id: s0.rates.general }] });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 'not_found', message: 'Seat 99999999 not found' });
    expect(await freeSeats([a!.id, b!.id])).toHaveLength(2);
    expect(await buyerOrders(token)).toBe(0);
  });

  it('hold caps (D44): more than MAX_ITEMS_PER_ORDER seats, a third live cart, a session cap: 429, nothing held', async () => {
    const token = await newBuyer();
    const five = seats(MAX_ITEMS + 1);
    const tooMany = await post(token, { items: five.map(general) });
    expect(tooMany.status).toBe(429);
    expect(tooMany.body).toMatchObject({ code: 'hold_limit_reached', message: `An order holds at most ${MAX_ITEMS} items` });
    expect(await freeSeats(five.map((s) => s.id))).toHaveLength(MAX_ITEMS + 1);
    expect((await post(token, { items: five.slice(0, 2).map(general) })).status).toBe(201);
    expect((await post(token, { items: five.slice(2, 3).map(general) })).status).toBe(201);
    const third = await post(token, { items: five.slice(3, 5).map(general) });
    expect(third.status).toBe(429);
    expect(third.body).toMatchObject({ code: 'hold_limit_reached', message: 'A buyer may hold at most 2 live carts at once; complete or cancel one first' });
    expect(await freeSeats(five.slice(3).map((s) => s.id))).toHaveLength(2);

    await t.ctx.db.execute(sql`UPDATE sessions SET max_tickets_per_buyer = 2 WHERE id = ${s1.sessionId}`);
    try {
      const other = await newBuyer();
      const capped = await post(other, { items: s1.seats.slice(1, 4).map((s) => ({ session_seat_id: s.id, rate_id: s1.rates.general })) });
      expect(capped.status).toBe(429);
      expect(capped.body).toMatchObject({ code: 'hold_limit_reached', message: `Session ${s1.sessionId} allows at most 2 tickets per buyer` });
      expect(await freeSeats(s1.seats.slice(1, 4).map((s) => s.id))).toHaveLength(3);
    } finally {
      await t.ctx.db.execute(sql`UPDATE sessions SET max_tickets_per_buyer = NULL WHERE id = ${s1.sessionId}`);
    }
  });

  it('a caller-chosen order_token that names a live order adds every seat to it (D17), all or nothing', async () => {
    const token = await newBuyer();
    const [a, b, c, x] = seats(4);
    const chosen = crypto.randomUUID();
    const first = await post(token, { items: [general(a!)], order_token: chosen });
    expect(first.status).toBe(201);
    expect(first.body.data.order_token).toBe(chosen);
    expect((await post(await newBuyer(), { items: [general(x!)] })).status).toBe(201);
    const refused = await post(token, { items: [general(b!), general(x!)], order_token: chosen });
    expect(refused).toMatchObject({ status: 409, body: { code: 'seat_unavailable' } });
    const again = await post(token, { items: [general(b!), general(c!)], order_token: chosen });
    expect(again.status).toBe(200);
    expect(again.body.message).toBe('Item added to the existing order');
    expect(itemsOf(again.body.data).map((i) => i.session_seat_id)).toEqual([a!.id, b!.id, c!.id]);
  });

  it('Idempotency-Key: a repeat answers the first answer and holds nothing more; another body with the key is 422', async () => {
    const token = await newBuyer();
    const [a, b] = seats(2);
    const key = crypto.randomUUID();
    const body = { items: [general(a!), general(b!)] };
    const first = await post(token, body, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    const repeat = await post(token, body, { 'idempotency-key': key });
    expect(repeat.status).toBe(201);
    expect(repeat.headers['idempotent-replayed']).toBe('true');
    expect(repeat.body.data.order_token).toBe(first.body.data.order_token);
    expect(await buyerOrders(token)).toBe(1);
    const other = await post(token, { items: [general(a!)] }, { 'idempotency-key': key });
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('idempotency_key_reused');
  });

  it('the cart-write rate limit counts a multi-seat create as one write, like any create', async () => {
    const token = await newBuyer();
    const taken = seats(1)[0]!;
    expect((await post(await newBuyer(), { items: [general(taken)] })).status).toBe(201);
    for (let i = 0; i < WRITES_PER_MINUTE; i++) {
      // Refused creates (the seat is taken) are writes all the same.
      expect(await post(token, { items: [general(taken), general(s0.seats[next + i]!)] })).toMatchObject({ status: 409, body: { code: 'seat_unavailable' } });
    }
    const limited = await post(token, { items: [general(s0.seats[next]!)] });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('rate_limited');
    expect(limited.headers['retry-after']).toBeDefined();
  });

  it('the portal cart API (models A and B) takes items too, all or nothing', async () => {
    const url = `/api/portal/${DEMO.a.slug}/en/orders`;
    const [a, b] = seats(2);
    const res = await t.app.inject({ method: 'POST', url, payload: { items: [general(a!), general(b!)] } });
    expect(res.statusCode, res.body).toBe(201);
    expect(itemsOf(res.json().data).map((i) => i.session_seat_id)).toEqual([a!.id, b!.id]);
    const [c] = seats(1);
    const refused = await t.app.inject({ method: 'POST', url, payload: { items: [general(c!), general(a!)] } });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'seat_unavailable', errors: { session_seat_id: [String(a!.id)] } });
    expect(await freeSeats([c!.id])).toHaveLength(1);
    const mixed = await t.app.inject({ method: 'POST', url, payload: { items: [general(c!)], sector_id: s0.zone.sectorId, rate_id: s0.rates.general } });
    expect(mixed.statusCode).toBe(422);
  });

  it('the added seats of a create can be read back and removed one by one', async () => {
    const token = await newBuyer();
    const [a, b] = seats(2);
    const order = (await post(token, { items: [general(a!), general(b!)] })).body.data as OrderJson;
    const item = itemsOf(order)[0]!;
    const res = await t.app.inject({ method: 'DELETE', url: orderUrl('demo-d', order.order_token, `/items/${item.id}`), headers: bearer(token) });
    expect(res.statusCode).toBe(200);
    expect(itemsOf(res.json().data).map((i) => i.session_seat_id)).toEqual([b!.id]);
  });
});
