import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { announceRevocation } from '../../src/modules/auth/auth.service.js';
import { sweepExpiredOrders } from '../../src/modules/orders/orders.service.js';
import { bearer, buildTestApp, DEMO, tokenFor, type TestApp } from '../helpers.js';
import { createOrder, demoSession, heldRows, itemsOf, orderUrl, ordersUrl, type DemoSession, type OrderJson } from './cart-helpers.js';

let t: TestApp;
let d: string; // demo-d token
let c: string; // demo-c token
let s0: DemoSession;
let s1: DemoSession;
let s2: DemoSession; // the play: 5 % fee
let next = 0;
/** A numbered seat of the first session no other test has used. */
const freshSeat = () => s0.seats[next++]!;

beforeAll(async () => {
  t = await buildTestApp();
  d = await tokenFor(t.app, DEMO.d.slug, DEMO.d.key);
  c = await tokenFor(t.app, DEMO.c.slug, DEMO.c.key);
  [s0, s1, s2] = [await demoSession(t, 0), await demoSession(t, 1), await demoSession(t, 2)];
}, 180_000); // building a PGlite app with the demo catalogue is slow on a loaded machine
afterAll(() => t.close());

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const call = async (method: Method, url: string, token: string | null, payload?: unknown) => {
  const res = await t.app.inject({ method, url, headers: token ? bearer(token) : {}, ...(payload === undefined ? {} : { payload: payload as object }) });
  return { status: res.statusCode, body: res.json() };
};
const newOrder = (token = d, slug = 'demo-d', seat = freshSeat(), rate = s0.rates.general) =>
  createOrder(t.app, token, slug, { session_seat_id: seat.id, rate_id: rate });

/** Every amount of the order is consistent: items total = base + discount + fee, order = sum of items. */
function expectConsistent(order: OrderJson) {
  const cents = (n: number) => Math.round(n * 100);
  const items = itemsOf(order);
  for (const i of items) expect(cents(i.total_amount)).toBe(cents(i.base_amount) + cents(i.discount_amount) + cents(i.fee_amount));
  for (const key of ['base_amount', 'discount_amount', 'fee_amount', 'total_amount'] as const) {
    expect(cents(order[key])).toBe(items.reduce((sum, i) => sum + cents(i[key]), 0));
  }
}

describe('POST /orders (create)', () => {
  it('creates an order with its first item: 201, D35 shape, generated UUID, hold in the database', async () => {
    const seat = freshSeat();
    const res = await call('POST', ordersUrl('demo-d'), d, { session_seat_id: seat.id, rate_id: s0.rates.general });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 201, success: true, message: 'Order created' });
    const order = res.body.data as OrderJson;
    expect(order.order_token).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(order.reference).toMatch(/^TQ-[A-Z0-9]{8}$/);
    expect(order).toMatchObject({ status: 'pending', type: 'purchase', currency: 'EUR', base_amount: 30, fee_amount: 1.5, discount_amount: 0, total_amount: 31.5 });
    expect(order.expires_at).toBe(new Date(t.clock.now().getTime() + 900_000).toISOString().replace(/Z$/, '+00:00'));
    expect(order.events).toHaveLength(1);
    expect(order.events[0]).toMatchObject({ id: s0.eventId, name: "New Year's Concert" });
    expect(order.events[0]!.sessions[0]!.id).toBe(s0.sessionId);
    expect(order.events[0]!.sessions[0]!.start_datetime).toMatch(/\+00:00$/);
    expect(itemsOf(order)).toEqual([
      {
        id: expect.any(Number),
        session_seat_id: seat.id,
        sector_id: expect.any(Number),
        sector_name: seat.sectorName,
        row: seat.row,
        number: seat.number,
        rate_id: s0.rates.general,
        rate_name: 'General admission',
        base_amount: 30,
        discount_amount: 0,
        fee_amount: 1.5,
        total_amount: 31.5,
      },
    ]);
    expect(order.vouchers).toEqual([]);
    expect(await heldRows(t, order.order_token)).toEqual([{ id: seat.id, status: 'held' }]);
  });

  it('names in the language of the path', async () => {
    const seat = freshSeat();
    const res = await call('POST', ordersUrl('demo-d', 'es'), d, { session_seat_id: seat.id, rate_id: s0.rates.reduced });
    expect(res.body.data.events[0].name).toBe('Concierto de Año Nuevo');
    expect(res.body.data.events[0].sessions[0].items[0].rate_name).toBe('Reducida');
  });

  it('a caller-chosen order_token names the order; reusing it adds to the same order (D17)', async () => {
    const token = 'my-cart-token-0001';
    const first = await call('POST', ordersUrl('demo-d'), d, { session_seat_id: freshSeat().id, rate_id: s0.rates.general, order_token: token });
    expect(first.status).toBe(201);
    expect(first.body.data.order_token).toBe(token);
    const again = await call('POST', ordersUrl('demo-d'), d, { session_seat_id: freshSeat().id, rate_id: s0.rates.general, order_token: token });
    expect(again.status).toBe(200);
    expect(itemsOf(again.body.data)).toHaveLength(2);
    expect(again.body.data.reference).toBe(first.body.data.reference);
    const otherChannel = await call('POST', ordersUrl('demo-c'), c, { session_seat_id: freshSeat().id, rate_id: s0.rates.general, order_token: token });
    expect(otherChannel.status).toBe(409);
    expect(otherChannel.body.code).toBe('order_token_taken');
  });

  it('rejects malformed bodies and tokens with 422', async () => {
    for (const payload of [{}, { session_seat_id: 1 }, { session_seat_id: 'x', rate_id: 1 }, { session_seat_id: 1, rate_id: 1, order_token: 'short' }]) {
      const res = await call('POST', ordersUrl('demo-d'), d, payload);
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ success: false, code: 'validation_failed', message: 'The given data was invalid' });
    }
  });

  it('404 for an unknown seat; 422 for a rate of another session or a zone place', async () => {
    expect((await call('POST', ordersUrl('demo-d'), d, { session_seat_id: 99_999_999, rate_id: s0.rates.general })).status).toBe(404);
    const wrongRate = await call('POST', ordersUrl('demo-d'), d, { session_seat_id: freshSeat().id, rate_id: s1.rates.general });
    expect(wrongRate.status).toBe(422);
    expect(wrongRate.body.errors).toHaveProperty('rate_id');
    const [place] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM session_seats WHERE session_id = ${s0.sessionId} AND seat_id IS NULL LIMIT 1`);
    const zone = await call('POST', ordersUrl('demo-d'), d, { session_seat_id: place!.id, rate_id: s0.rates.general });
    expect(zone.status).toBe(422);
    expect(zone.body.errors).toHaveProperty('session_seat_id');
  });

  it('409 naming the seat when it is held by another order', async () => {
    const seat = freshSeat();
    await newOrder(d, 'demo-d', seat);
    const countOrders = async () => (await queryRows<{ n: number }>(t.ctx.db, sql`SELECT count(*)::int AS n FROM orders`))[0]!.n;
    const ordersBefore = await countOrders();
    const res = await call('POST', ordersUrl('demo-c'), c, { session_seat_id: seat.id, rate_id: s0.rates.general });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'seat_unavailable', message: `Seat ${seat.sectorName}, row ${seat.row}, number ${seat.number} is not available` });
    // All or nothing: the losing request leaves no empty order behind.
    expect(await countOrders()).toBe(ordersBefore);
  });

  it('models A and B get 403 on every B2B cart route', async () => {
    for (const ch of [DEMO.a, DEMO.b]) {
      const token = await tokenFor(t.app, ch.slug, ch.key);
      const create = await call('POST', ordersUrl(ch.slug), token, { session_seat_id: freshSeat().id, rate_id: s0.rates.general });
      expect(create.status).toBe(403);
      expect(create.body.code).toBe('forbidden_for_integration_mode');
      const read = await call('GET', orderUrl(ch.slug, 'any-order-token'), token);
      expect(read.status).toBe(403);
      const voucher = await call('POST', orderUrl(ch.slug, 'any-order-token', '/apply-voucher'), token, { code: 'DEMO10' });
      expect(voucher.status).toBe(403);
    }
  });
});

describe('items', () => {
  it('adds a seat of another event to the same order; adding does not extend the lifetime (D13)', async () => {
    const order = await newOrder();
    t.clock.advance(60_000);
    const seat = s2.seats[0]!;
    const res = await call('POST', orderUrl('demo-d', order.order_token, '/items'), d, { session_seat_id: seat.id, rate_id: s2.rates.reduced });
    expect(res.status).toBe(200);
    const after = res.body.data as OrderJson;
    expect(after.expires_at).toBe(order.expires_at);
    expect(after.events.map((e) => e.id)).toEqual([s0.eventId, s2.eventId]);
    // The play has a 5 % fee: 22.50 -> 1.125, rounded half away from zero to 1.13.
    expect(after.events[1]!.sessions[0]!.items[0]).toMatchObject({ base_amount: 22.5, fee_amount: 1.13, total_amount: 23.63 });
    expect(after.total_amount).toBe(55.13);
    expectConsistent(after);
  });

  it('bulk add is all or nothing (D18)', async () => {
    const order = await newOrder();
    const taken = freshSeat();
    await newOrder(c, 'demo-c', taken);
    const free = [freshSeat(), freshSeat()];
    const url = orderUrl('demo-d', order.order_token, '/items-bulk');
    const items = [...free, taken].map((s) => ({ session_seat_id: s.id, rate_id: s0.rates.general }));
    const fail = await call('POST', url, d, { items });
    expect(fail.status).toBe(409);
    expect(fail.body.code).toBe('seat_unavailable');
    expect(fail.body.message).toContain(`row ${taken.row}, number ${taken.number}`);
    expect((await heldRows(t, order.order_token)).map((r) => r.id)).toEqual([itemsOf(order)[0]!.session_seat_id]);
    const ok = await call('POST', url, d, { items: items.slice(0, 2) });
    expect(ok.status).toBe(200);
    expect(itemsOf(ok.body.data)).toHaveLength(3);
    expect(await heldRows(t, order.order_token)).toHaveLength(3);
    const dup = await call('POST', url, d, { items: [{ session_seat_id: freshSeat().id, rate_id: s0.rates.general }, { session_seat_id: s0.seats[next - 1]!.id, rate_id: s0.rates.general }] });
    expect(dup.status).toBe(422);
    expect(await call('POST', url, d, { items: [] })).toMatchObject({ status: 422 });
  });

  it('429 hold_limit_reached beyond the per-order limit (default 20, D44)', async () => {
    const order = await newOrder();
    const items = Array.from({ length: 20 }, () => ({ session_seat_id: freshSeat().id, rate_id: s0.rates.general }));
    const res = await call('POST', orderUrl('demo-d', order.order_token, '/items-bulk'), d, { items });
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({ code: 'hold_limit_reached', message: 'An order holds at most 20 items' });
    const ok = await call('POST', orderUrl('demo-d', order.order_token, '/items-bulk'), d, { items: items.slice(0, 19) });
    expect(ok.status).toBe(200);
    expect(itemsOf(ok.body.data)).toHaveLength(20);
    const more = await call('POST', orderUrl('demo-d', order.order_token, '/items/sector'), d, { sector_id: s0.zone.sectorId, rate_id: s0.rates.general, quantity: 1 });
    expect(more.body.code).toBe('hold_limit_reached');
  });

  it('removing an item frees its seat at once; an emptied cart has no expiry; a new item starts a new lifetime', async () => {
    const seat = freshSeat();
    const order = await newOrder(d, 'demo-d', seat);
    const item = itemsOf(order)[0]!;
    expect((await call('DELETE', orderUrl('demo-d', order.order_token, '/items/999999999'), d)).status).toBe(404);
    const res = await call('DELETE', orderUrl('demo-d', order.order_token, `/items/${item.id}`), d);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'pending', expires_at: null, total_amount: 0, events: [] });
    await newOrder(c, 'demo-c', seat); // free for another buyer at once
    t.clock.advance(120_000);
    const again = await call('POST', orderUrl('demo-d', order.order_token, '/items'), d, { session_seat_id: freshSeat().id, rate_id: s0.rates.general });
    expect(again.body.data.expires_at).toBe(new Date(t.clock.now().getTime() + 900_000).toISOString().replace(/Z$/, '+00:00'));
  });

  it('bulk remove is all or nothing', async () => {
    const order = await newOrder();
    const url = orderUrl('demo-d', order.order_token, '/items-bulk');
    const added = (await call('POST', url, d, { items: [freshSeat(), freshSeat()].map((s) => ({ session_seat_id: s.id, rate_id: s0.rates.general })) })).body.data;
    const ids = itemsOf(added).map((i) => i.id);
    const bulk = orderUrl('demo-d', order.order_token, '/items/bulk');
    const fail = await call('DELETE', bulk, d, { item_ids: [ids[0], 999_999_999] });
    expect(fail).toMatchObject({ status: 404, body: { code: 'not_found' } });
    expect(await heldRows(t, order.order_token)).toHaveLength(3);
    const ok = await call('DELETE', bulk, d, { item_ids: ids.slice(0, 2) });
    expect(ok.status).toBe(200);
    expect(itemsOf(ok.body.data).map((i) => i.id)).toEqual([ids[2]]);
    expect(await heldRows(t, order.order_token)).toHaveLength(1);
    expectConsistent(ok.body.data);
  });

  it('adds places of an unnumbered zone against its capacity', async () => {
    const order = await newOrder();
    const url = orderUrl('demo-d', order.order_token, '/items/sector');
    const res = await call('POST', url, d, { sector_id: s0.zone.sectorId, rate_id: s0.rates.general, quantity: 3 });
    expect(res.status).toBe(200);
    const places = itemsOf(res.body.data).filter((i) => i.session_seat_id === null);
    expect(places).toHaveLength(3);
    expect(places[0]).toMatchObject({ sector_id: s0.zone.sectorId, sector_name: 'Pista', row: null, number: null, total_amount: 31.5 });
    const numbered = await call('POST', url, d, { sector_id: itemsOf(order)[0]!.sector_id, rate_id: s0.rates.general, quantity: 1 });
    expect(numbered.status).toBe(422);
    expect(await call('POST', url, d, { sector_id: 999_999, rate_id: s0.rates.general, quantity: 1 })).toMatchObject({ status: 404, body: { code: 'not_found' } });
    expect((await call('POST', url, d, { sector_id: s0.zone.sectorId, rate_id: s0.rates.general, quantity: 0 })).status).toBe(422);
  });

  it('409 zone_capacity_exceeded when the zone has fewer free places than asked', async () => {
    // Fill session 1's zone but 2 places, in orders of 20.
    let left = s1.zone.capacity - 2;
    while (left > 0) {
      const q = Math.min(19, left);
      const o = await createOrder(t.app, c, 'demo-c', { session_seat_id: s1.seats[300 + left]!.id, rate_id: s1.rates.general });
      const r = await call('POST', orderUrl('demo-c', o.order_token, '/items/sector'), c, { sector_id: s1.zone.sectorId, rate_id: s1.rates.general, quantity: q });
      expect(r.status).toBe(200);
      left -= q;
    }
    const o = await createOrder(t.app, d, 'demo-d', { session_seat_id: s1.seats[0]!.id, rate_id: s1.rates.general });
    const url = orderUrl('demo-d', o.order_token, '/items/sector');
    const res = await call('POST', url, d, { sector_id: s1.zone.sectorId, rate_id: s1.rates.general, quantity: 3 });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'zone_capacity_exceeded', message: 'Not enough free places in Pista for 3 tickets' });
    expect(await heldRows(t, o.order_token)).toHaveLength(1);
    expect((await call('POST', url, d, { sector_id: s1.zone.sectorId, rate_id: s1.rates.general, quantity: 2 })).status).toBe(200);
  });

  it('changes the rate of items and reprices', async () => {
    const order = await newOrder();
    const item = itemsOf(order)[0]!;
    const url = orderUrl('demo-d', order.order_token, '/items/change-rate');
    const res = await call('PUT', url, d, { item_ids: [item.id], rate_id: s0.rates.reduced });
    expect(res.status).toBe(200);
    expect(itemsOf(res.body.data)[0]).toMatchObject({ rate_id: s0.rates.reduced, base_amount: 22.5, fee_amount: 1.5, total_amount: 24 });
    expect(res.body.data.total_amount).toBe(24);
    expect((await call('PUT', url, d, { item_ids: [item.id], rate_id: s1.rates.general })).status).toBe(422);
    expect(await call('PUT', url, d, { item_ids: [999_999_999], rate_id: s0.rates.general })).toMatchObject({ status: 404, body: { code: 'not_found' } });
    expect((await call('PUT', url, d, { item_ids: [], rate_id: s0.rates.general })).status).toBe(422);
  });
});

describe('vouchers', () => {
  const apply = (token: string, code: string, ch = d, slug = 'demo-d') => call('POST', orderUrl(slug, token, '/apply-voucher'), ch, { code });
  let organiserId: number;
  let otherOrganiser: number;
  beforeAll(async () => {
    [{ organiserId }] = await queryRows<{ organiserId: number }>(t.ctx.db, sql`SELECT organiser_id AS "organiserId" FROM sales_channels WHERE slug = 'demo-d'`) as [{ organiserId: number }];
    const [o] = await queryRows<{ id: number }>(t.ctx.db, sql`INSERT INTO organisers (name) VALUES ('Other') RETURNING id`);
    otherOrganiser = o!.id;
    const now = t.clock.now().getTime();
    await t.ctx.db.execute(sql`
      INSERT INTO vouchers (organiser_id, code, kind, value, valid_from, valid_until, max_uses, event_id) VALUES
        (${organiserId}, 'LATER', 'percent', 1000, ${new Date(now + 86_400_000)}, NULL, NULL, NULL),
        (${organiserId}, 'PAST', 'percent', 1000, NULL, ${new Date(now - 1000)}, NULL, NULL),
        (${organiserId}, 'PLAYONLY', 'percent', 2000, NULL, NULL, NULL, ${s2.eventId}),
        (${organiserId}, 'ONCE', 'fixed', 1000, NULL, NULL, 1, NULL),
        (${otherOrganiser}, 'FOREIGN', 'percent', 5000, NULL, NULL, NULL, NULL)`);
  });

  it('a percent voucher discounts each item; codes are case-insensitive', async () => {
    const order = await newOrder();
    await call('POST', orderUrl('demo-d', order.order_token, '/items'), d, { session_seat_id: freshSeat().id, rate_id: s0.rates.reduced });
    const res = await apply(order.order_token, 'demo10');
    expect(res.status).toBe(200);
    const o = res.body.data as OrderJson;
    expect(itemsOf(o).map((i) => i.discount_amount)).toEqual([-3, -2.25]);
    expect(o).toMatchObject({ base_amount: 52.5, discount_amount: -5.25, fee_amount: 3, total_amount: 50.25 });
    expect(o.vouchers).toEqual([{ code: 'DEMO10', kind: 'percent', value: 10, discount_amount: -5.25 }]);
    expectConsistent(o);
    expect((await apply(order.order_token, 'DEMO10')).status).toBe(200); // idempotent
  });

  it('a fixed voucher comes off the order once, split by largest remainder; another code replaces it', async () => {
    const order = await newOrder();
    await call('POST', orderUrl('demo-d', order.order_token, '/items'), d, { session_seat_id: freshSeat().id, rate_id: s0.rates.reduced });
    const res = await apply(order.order_token, 'DEMO5');
    const o = res.body.data as OrderJson;
    // 5.00 over 30.00 and 22.50: 2.857... and 2.142... -> 2.86 and 2.14.
    expect(itemsOf(o).map((i) => i.discount_amount)).toEqual([-2.86, -2.14]);
    expect(o).toMatchObject({ discount_amount: -5, total_amount: 52.5 + 3 - 5 });
    expectConsistent(o);
    const replaced = (await apply(order.order_token, 'DEMO10')).body.data as OrderJson;
    expect(replaced.vouchers.map((v) => v.code)).toEqual(['DEMO10']);
    expect(replaced.discount_amount).toBe(-5.25);
    const removed = await call('DELETE', orderUrl('demo-d', order.order_token, '/vouchers/demo10'), d);
    expect(removed.status).toBe(200);
    expect(removed.body.data).toMatchObject({ discount_amount: 0, total_amount: 55.5, vouchers: [] });
    expect(await call('DELETE', orderUrl('demo-d', order.order_token, '/vouchers/DEMO10'), d)).toMatchObject({ status: 404, body: { code: 'not_found' } });
  });

  it('a fixed voucher larger than the order stops at the base price', async () => {
    await t.ctx.db.execute(sql`INSERT INTO vouchers (organiser_id, code, kind, value) VALUES (${organiserId}, 'BIG', 'fixed', 100000)`);
    const order = await newOrder();
    const o = (await apply(order.order_token, 'BIG')).body.data as OrderJson;
    expect(o).toMatchObject({ base_amount: 30, discount_amount: -30, fee_amount: 1.5, total_amount: 1.5 });
  });

  it('clear 4xx for unknown, foreign, not yet valid, expired and out-of-scope codes', async () => {
    const order = await newOrder();
    const cases: [string, number, string][] = [
      ['NOPE', 422, 'voucher_invalid'],
      ['FOREIGN', 422, 'voucher_invalid'],
      ['LATER', 422, 'voucher_not_yet_valid'],
      ['PAST', 422, 'voucher_expired'],
      ['PLAYONLY', 422, 'voucher_not_applicable'],
    ];
    for (const [code, status, errorCode] of cases) {
      const res = await apply(order.order_token, code);
      expect([code, res.status, res.body.code]).toEqual([code, status, errorCode]);
    }
    expect((await apply(order.order_token, 'bad code!')).status).toBe(422);
  });

  it('a scoped voucher discounts only the items in its scope', async () => {
    const order = await newOrder();
    await call('POST', orderUrl('demo-d', order.order_token, '/items'), d, { session_seat_id: s2.seats[5]!.id, rate_id: s2.rates.general });
    const o = (await apply(order.order_token, 'PLAYONLY')).body.data as OrderJson;
    expect(itemsOf(o).map((i) => i.discount_amount)).toEqual([0, -6]);
    expectConsistent(o);
  });

  it('max uses count live and completed orders; cancelled and expired ones give the use back', async () => {
    const a = await newOrder();
    const b = await newOrder();
    expect((await apply(a.order_token, 'ONCE')).status).toBe(200);
    const exhausted = await apply(b.order_token, 'ONCE');
    expect(exhausted.status).toBe(409);
    expect(exhausted.body.code).toBe('voucher_exhausted');
    await call('DELETE', orderUrl('demo-d', a.order_token), d);
    expect((await apply(b.order_token, 'ONCE')).status).toBe(200);
    await t.ctx.db.execute(sql`UPDATE orders SET status = 'completed', expires_at = NULL WHERE order_token = ${b.order_token}`);
    const e = await newOrder();
    expect(await apply(e.order_token, 'ONCE')).toMatchObject({ status: 409, body: { code: 'voucher_exhausted' } });
  });

  it('an emptied cart gives its voucher back', async () => {
    await t.ctx.db.execute(sql`INSERT INTO vouchers (organiser_id, code, kind, value, max_uses) VALUES (${organiserId}, 'SOLO', 'percent', 1000, 1)`);
    const a = await newOrder();
    await apply(a.order_token, 'SOLO');
    const emptied = await call('DELETE', orderUrl('demo-d', a.order_token, `/items/${itemsOf(a)[0]!.id}`), d);
    expect(emptied.body.data.vouchers).toEqual([]);
    const b = await newOrder();
    expect((await apply(b.order_token, 'SOLO')).status).toBe(200);
  });
});

describe('expiry', () => {
  it('an expired cart is 409 for changes, shows as expired, and its seats are free before any sweep (D15)', async () => {
    const seat = freshSeat();
    const order = await newOrder(d, 'demo-d', seat);
    t.clock.advance(900_000);
    const read = await call('GET', orderUrl('demo-d', order.order_token), d);
    expect(read.body.data.status).toBe('expired');
    const add = await call('POST', orderUrl('demo-d', order.order_token, '/items'), d, { session_seat_id: freshSeat().id, rate_id: s0.rates.general });
    expect(add.status).toBe(409);
    expect(add.body.code).toBe('order_expired');
    expect(await apply(order.order_token)).toMatchObject({ status: 409, body: { code: 'order_expired' } });
    const taker = await newOrder(c, 'demo-c', seat);
    expect(itemsOf(taker)[0]!.session_seat_id).toBe(seat.id);
    expect(await sweepExpiredOrders(t.ctx)).toBeGreaterThan(0);
    const [row] = await queryRows<{ status: string }>(t.ctx.db, sql`SELECT status FROM orders WHERE order_token = ${order.order_token}`);
    expect(row!.status).toBe('expired');
    // The sweep frees only what the expired cart still holds: the seat stays with its new cart.
    expect(await heldRows(t, taker.order_token)).toEqual([{ id: seat.id, status: 'held' }]);
    const del = await call('DELETE', orderUrl('demo-d', order.order_token), d);
    expect(del.status).toBe(200);
    expect(del.body.data.status).toBe('expired');
    function apply(token: string) {
      return call('POST', orderUrl('demo-d', token, '/apply-voucher'), d, { code: 'DEMO10' });
    }
  });

  it('the sweep frees the holds of expired carts', async () => {
    const order = await newOrder();
    expect(await heldRows(t, order.order_token)).toHaveLength(1);
    t.clock.advance(900_001);
    try {
      await sweepExpiredOrders(t.ctx);
    } finally {
      t.clock.advance(-900_001);
    }
    expect(await heldRows(t, order.order_token)).toEqual([]);
    expect((await call('GET', orderUrl('demo-d', order.order_token), d)).body.data.status).toBe('expired');
  });

  it('a channel may override the cart lifetime', async () => {
    const [ch] = await queryRows<{ id: number }>(t.ctx.db, sql`UPDATE sales_channels SET cart_ttl_seconds = 60 WHERE slug = 'demo-c' RETURNING id`);
    await announceRevocation(t.ctx, t.ctx.db, { channelIds: [ch!.id] });
    try {
      const order = await newOrder(c, 'demo-c');
      expect(Date.parse(order.expires_at!) - t.clock.now().getTime()).toBeLessThanOrEqual(60_000);
      expect(Date.parse(order.expires_at!) - t.clock.now().getTime()).toBeGreaterThan(59_000);
    } finally {
      await t.ctx.db.execute(sql`UPDATE sales_channels SET cart_ttl_seconds = NULL WHERE id = ${ch!.id}`);
      await announceRevocation(t.ctx, t.ctx.db, { channelIds: [ch!.id] });
    }
  });
});

describe('DELETE /orders/{token} (cancel, D16)', () => {
  it('cancels, frees the seats at once, is 200 again, and a cancelled order cannot change', async () => {
    const seat = freshSeat();
    const order = await newOrder(d, 'demo-d', seat);
    const res = await call('DELETE', orderUrl('demo-d', order.order_token), d);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'cancelled', expires_at: null });
    expect(await heldRows(t, order.order_token)).toEqual([]);
    await newOrder(c, 'demo-c', seat);
    expect((await call('DELETE', orderUrl('demo-d', order.order_token), d)).status).toBe(200);
    const add = await call('POST', orderUrl('demo-d', order.order_token, '/items'), d, { session_seat_id: freshSeat().id, rate_id: s0.rates.general });
    expect(add.status).toBe(409);
    expect(add.body.code).toBe('order_not_modifiable');
  });

  it('a completed order cannot be deleted: 409 order_completed', async () => {
    const order = await newOrder();
    await t.ctx.db.execute(sql`UPDATE orders SET status = 'completed' WHERE order_token = ${order.order_token}`);
    const res = await call('DELETE', orderUrl('demo-d', order.order_token), d);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('order_completed');
    const add = await call('POST', orderUrl('demo-d', order.order_token, '/items'), d, { session_seat_id: freshSeat().id, rate_id: s0.rates.general });
    expect(add.body.code).toBe('order_completed');
  });
});

describe('a channel sees only its own orders (BOLA)', () => {
  it('another channel\'s order is 404 on every order route; another channel\'s slug is 403', async () => {
    const order = await newOrder();
    const item = itemsOf(order)[0]!;
    const tk = order.order_token;
    const routes: [Method, string, unknown?][] = [
      ['GET', ''],
      ['DELETE', ''],
      ['POST', '/items', { session_seat_id: freshSeat().id, rate_id: s0.rates.general }],
      ['DELETE', `/items/${item.id}`],
      ['POST', '/items-bulk', { items: [{ session_seat_id: freshSeat().id, rate_id: s0.rates.general }] }],
      ['DELETE', '/items/bulk', { item_ids: [item.id] }],
      ['POST', '/items/sector', { sector_id: s0.zone.sectorId, rate_id: s0.rates.general, quantity: 1 }],
      ['PUT', '/items/change-rate', { item_ids: [item.id], rate_id: s0.rates.reduced }],
      ['POST', '/apply-voucher', { code: 'DEMO10' }],
      ['DELETE', '/vouchers/DEMO10'],
    ];
    for (const [method, suffix, payload] of routes) {
      const res = await call(method, orderUrl('demo-c', tk, suffix), c, payload);
      expect([method, suffix, res.status, res.body.code]).toEqual([method, suffix, 404, 'not_found']);
      const slug = await call(method, orderUrl('demo-c', tk, suffix), d, payload);
      expect([method, suffix, slug.status]).toEqual([method, suffix, 403]);
    }
    const unchanged = await call('GET', orderUrl('demo-d', tk), d);
    expect(unchanged.body.data).toEqual(order);
  });
});

describe('GET /portal/{slug}/{lang}/orders/{token} (public)', () => {
  const portalUrl = (slug: string, token: string, lang = 'en') => `/api/portal/${slug}/${lang}/orders/${token}`;

  it('reads the order without a token; another channel, an unknown slug and an unknown token are 404', async () => {
    const order = await newOrder();
    const res = await call('GET', portalUrl('demo-d', order.order_token), null);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 200, success: true });
    expect(res.body.data).toEqual(order);
    expect(await call('GET', portalUrl('demo-c', order.order_token), null)).toMatchObject({ status: 404, body: { code: 'not_found' } });
    expect(await call('GET', portalUrl('no-such-channel', order.order_token), null)).toMatchObject({ status: 404, body: { code: 'not_found' } });
    const unknown = await call('GET', portalUrl('demo-d', 'unknown-token-123'), null);
    expect(unknown.body).toMatchObject({ status: 404, success: false, code: 'not_found' });
    // The portal is bound to the channel in its path: the model B channel's page does not read an
    // order of demo-d, and answers exactly as for an order that does not exist (D5).
    const foreign = await call('GET', portalUrl('demo-b', order.order_token), null);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual((await call('GET', portalUrl('demo-b', 'unknown-token-123'), null)).body);
  });

  it('is rate limited per client with the error envelope', async () => {
    // The limit the server applies (src/http/rate-limits.ts reads it from this config): every
    // request up to it is answered, the next one is refused.
    const limit = t.config.rateLimits.portalPerMinute;
    for (let i = 0; i < limit; i++) {
      const status = (await t.app.inject({ url: portalUrl('demo-d', 'unknown-token-123'), remoteAddress: '10.9.9.9' })).statusCode;
      expect(status).toBe(404);
    }
    const res = await t.app.inject({ url: portalUrl('demo-d', 'unknown-token-123'), remoteAddress: '10.9.9.9' });
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toMatch(/^[1-9][0-9]*$/);
    expect(res.json()).toMatchObject({ status: 429, success: false, code: 'rate_limited' });
    // Another client is not affected.
    expect((await t.app.inject({ url: portalUrl('demo-d', 'unknown-token-123'), remoteAddress: '10.9.9.8' })).statusCode).toBe(404);
  });
});
