import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { b2bBuyer, portalBuyer } from '../../src/modules/orders/orders.buyer.js';
import { importCatalogue } from '../../src/modules/catalogue/import.service.js';
import { BUYER_COOKIE } from '../../src/http/buyer-cookie.js';
import { account, apiAs } from '../admin/admin-helpers.js';
import { DashboardClient } from '../admin/dashboard-client.js';
import { bearer, buildTestApp, DEMO, isPostgres, tokenFor, type TestApp } from '../helpers.js';
import { oneShowDocument } from '../catalogue/one-show.js';
import { demoSession, orderUrl, ordersUrl, type DemoSession } from './cart-helpers.js';

// Hold caps (D44): live carts per buyer, items per order, a session's max_tickets_per_buyer, on
// every claim path (fast create/add, full create, bulk, zone) of the B2B interface and the portal.
// Each refusal is 429 hold_limit_reached with nothing held. On PostgreSQL, 50 parallel requests per
// cap: exactly the cap is held.

const MAX_ITEMS = 4;
const MAX_CARTS = 2;

let t: TestApp;
let s0: DemoSession;
let s1: DemoSession;
let s2: DemoSession;
let channelD: number;
let channelA: number;
const next = new Map<DemoSession, number>();
/** A seat of the session nobody has used in this file yet. */
const fresh = (s: DemoSession) => {
  const i = next.get(s) ?? 0;
  next.set(s, i + 1);
  return s.seats[i]!.id;
};

beforeAll(async () => {
  // The real default of MAX_LIVE_ORDERS_PER_BUYER (the test helper lifts it for other files).
  t = await buildTestApp({ env: { MAX_LIVE_ORDERS_PER_BUYER: String(MAX_CARTS), MAX_ITEMS_PER_ORDER: String(MAX_ITEMS) }, poolSize: 60 });
  [s0, s1, s2] = [await demoSession(t, 0), await demoSession(t, 1), await demoSession(t, 2)];
  const channels = await queryRows<{ id: number; slug: string }>(t.ctx.db, sql`SELECT id, slug FROM sales_channels`);
  channelD = channels.find((c) => c.slug === DEMO.d.slug)!.id;
  channelA = channels.find((c) => c.slug === DEMO.a.slug)!.id;
}, 180_000);
afterAll(() => t.close());

type Res = { status: number; body: { code?: string; message?: string; data: { order_token: string } } };
async function b2b(token: string, method: 'POST' | 'DELETE', url: string, payload?: object): Promise<Res> {
  const res = await t.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
  return { status: res.statusCode, body: res.json() };
}
const seatBody = (s: DemoSession, seat = fresh(s)) => ({ session_seat_id: seat, rate_id: s.rates.general });
const zoneBody = (s: DemoSession, quantity = 1) => ({ sector_id: s.zone.sectorId, rate_id: s.rates.general, quantity });
const create = (token: string, s: DemoSession, extra: object = {}) => b2b(token, 'POST', ordersUrl('demo-d'), { ...seatBody(s), ...extra });
const add = (token: string, order: string, s: DemoSession) => b2b(token, 'POST', orderUrl('demo-d', order, '/items'), seatBody(s));
const bulk = (token: string, order: string, s: DemoSession, n = 1) =>
  b2b(token, 'POST', orderUrl('demo-d', order, '/items-bulk'), { items: Array.from({ length: n }, () => seatBody(s)) });
const zone = (token: string, order: string, s: DemoSession, n = 1) => b2b(token, 'POST', orderUrl('demo-d', order, '/items/sector'), zoneBody(s, n));
const clientToken = (clientId: string) => tokenFor(t.app, DEMO.d.slug, DEMO.d.key, clientId);

/** Rows held and live carts of one buyer, as the database has them. */
async function holdings(buyerKey: string) {
  const [row] = await queryRows<{ held: number; carts: number }>(
    t.ctx.db,
    sql`SELECT (SELECT count(*)::int FROM session_seats ss JOIN orders o ON o.id = ss.order_id
                WHERE o.buyer_key = ${buyerKey} AND ss.status = 'held' AND ss.hold_expires_at > ${t.clock.now()}) AS held,
               (SELECT count(*)::int FROM orders
                WHERE buyer_key = ${buyerKey} AND status = 'pending' AND expires_at > ${t.clock.now()}) AS carts`,
  );
  return row!;
}
const widgetBuyer = (clientId: string) => `w:${channelD}:${clientId}`;

function expectCap(res: Res, message: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(429);
  expect(res.body).toMatchObject({ status: 429, success: false, code: 'hold_limit_reached', message });
}
const CARTS_MESSAGE = `A buyer may hold at most ${MAX_CARTS} live carts at once; complete or cancel one first`;
const ITEMS_MESSAGE = `An order holds at most ${MAX_ITEMS} items`;
const sessionMessage = (s: DemoSession, cap: number) => `Session ${s.sessionId} allows at most ${cap} tickets per buyer`;
const setSessionCap = (s: DemoSession, cap: number | null) => t.ctx.db.execute(sql`UPDATE sessions SET max_tickets_per_buyer = ${cap} WHERE id = ${s.sessionId}`);

describe('buyer identity', () => {
  it('a widget-scope token is its channel and client_id; a server-scope token has no per-buyer caps', () => {
    expect(b2bBuyer(7, { scope: 'widget', clientId: 'abc' })).toBe('w:7:abc');
    expect(b2bBuyer(7, { scope: 'widget', clientId: '' })).toBe('w:7:');
    expect(b2bBuyer(7, { scope: 'server', clientId: 'abc' })).toBeNull();
  });

  it('a portal buyer is its cookie, else a keyed hash of its address (never the address itself)', () => {
    expect(portalBuyer(3, { cookieId: 'X'.repeat(24) }, 'secret')).toBe(`p:3:c:${'X'.repeat(24)}`);
    const byAddress = portalBuyer(3, { address: '203.0.113.9' }, 'secret')!;
    expect(byAddress).toMatch(/^p:3:a:[A-Za-z0-9_-]{32}$/);
    expect(byAddress).not.toContain('203.0.113.9');
    expect(portalBuyer(3, { address: '203.0.113.9' }, 'other secret')).not.toBe(byAddress);
  });
});

describe('live carts per buyer (B2B)', () => {
  it('a third live cart is 429 on the fast path; another client_id is another buyer; a cancelled cart frees its place', async () => {
    const a = await clientToken('cap-a');
    const first = await create(a, s0);
    expect(first.status).toBe(201);
    expect((await create(a, s0)).status).toBe(201);
    const seat = fresh(s0);
    expectCap(await create(a, s0, { session_seat_id: seat }), CARTS_MESSAGE);
    expect(await holdings(widgetBuyer('cap-a'))).toEqual({ held: 2, carts: 2 });
    const [row] = await queryRows<{ status: string }>(t.ctx.db, sql`SELECT status FROM session_seats WHERE id = ${seat}`);
    expect(row!.status).toBe('available');

    const b = await clientToken('cap-b');
    expect((await create(b, s0)).status).toBe(201);

    expect((await b2b(a, 'DELETE', orderUrl('demo-d', first.body.data.order_token))).status).toBe(200);
    expect((await create(a, s0)).status).toBe(201);
  });

  it('the full path (a caller-chosen order_token) applies the same cap and writes no order', async () => {
    const c = await clientToken('cap-c');
    await create(c, s0);
    await create(c, s0);
    expectCap(await create(c, s0, { order_token: 'caller-chosen-token-1' }), CARTS_MESSAGE);
    const rows = await queryRows(t.ctx.db, sql`SELECT id FROM orders WHERE order_token = 'caller-chosen-token-1'`);
    expect(rows).toEqual([]);
  });

  it('an emptied cart holds nothing and does not count; refilling it starts a cart again (fast, bulk, zone)', async () => {
    const e = await clientToken('cap-e');
    const first = (await create(e, s0)).body.data.order_token;
    await create(e, s0);
    const view = await t.app.inject({ method: 'GET', url: orderUrl('demo-d', first), headers: bearer(e) });
    const itemId = view.json().data.events[0].sessions[0].items[0].id;
    expect((await b2b(e, 'DELETE', orderUrl('demo-d', first, `/items/${itemId}`))).status).toBe(200);
    expect((await create(e, s0)).status).toBe(201);
    expectCap(await add(e, first, s0), CARTS_MESSAGE);
    expectCap(await bulk(e, first, s0, 2), CARTS_MESSAGE);
    expectCap(await zone(e, first, s0), CARTS_MESSAGE);
    expect(await holdings(widgetBuyer('cap-e'))).toEqual({ held: 2, carts: 2 });
  });

  it('expired carts do not count', async () => {
    const x = await clientToken('cap-x');
    await create(x, s0);
    await create(x, s0);
    expectCap(await create(x, s0), CARTS_MESSAGE);
    t.clock.advance(16 * 60_000);
    expect((await create(x, s0)).status).toBe(201);
  });
});

describe('items per order', () => {
  it(`an order holds at most ${MAX_ITEMS} items on the fast add, the bulk add and the zone add`, async () => {
    const i = await clientToken('cap-items');
    const order = (await create(i, s0)).body.data.order_token;
    expect((await bulk(i, order, s0, 2)).status).toBe(200);
    expect((await add(i, order, s0)).status).toBe(200);
    expectCap(await add(i, order, s0), ITEMS_MESSAGE);
    expectCap(await bulk(i, order, s0, 1), ITEMS_MESSAGE);
    expectCap(await zone(i, order, s0, 1), ITEMS_MESSAGE);
    expect(await holdings(widgetBuyer('cap-items'))).toEqual({ held: MAX_ITEMS, carts: 1 });
  });
});

describe('session max_tickets_per_buyer', () => {
  it('counts seats and zone places of the session across the buyer\'s live carts, on every path', async () => {
    await setSessionCap(s1, 3);
    const f = await clientToken('cap-f');
    const one = (await create(f, s1)).body.data.order_token;
    expect((await zone(f, one, s1, 1)).status).toBe(200);
    expect((await create(f, s1)).status).toBe(201);
    expectCap(await add(f, one, s1), sessionMessage(s1, 3));
    expectCap(await bulk(f, one, s1, 1), sessionMessage(s1, 3));
    expectCap(await zone(f, one, s1, 1), sessionMessage(s1, 3));
    // Other sessions are not capped by it; another buyer has its own count.
    expect((await add(f, one, s0)).status).toBe(200);
    const g = await clientToken('cap-g');
    const other = (await create(g, s1)).body.data.order_token;
    expect((await zone(g, other, s1, 2)).status).toBe(200);
    expectCap(await zone(g, other, s1, 1), sessionMessage(s1, 3));
    expect(await holdings(widgetBuyer('cap-f'))).toEqual({ held: 4, carts: 2 });
    await setSessionCap(s1, null);
  });
});

describe('portal (buyer cookie, else address)', () => {
  const portalOrders = `/api/portal/${DEMO.a.slug}/en/orders`;
  async function buyerCookie(): Promise<string> {
    const page = await t.app.inject({ method: 'GET', url: `/${DEMO.a.slug}/en/events` });
    const cookie = page.cookies.find((c) => c.name === BUYER_COOKIE)!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    // A browser that has one keeps it.
    const again = await t.app.inject({ method: 'GET', url: `/${DEMO.a.slug}/en/events`, cookies: { [BUYER_COOKIE]: cookie.value } });
    expect(again.cookies.find((c) => c.name === BUYER_COOKIE)).toBeUndefined();
    return cookie.value;
  }
  const cookieBuyer = (cookie: string) => `p:${channelA}:c:${cookie.split('.')[0]}`;
  async function portal(url: string, payload: object, who: { cookie?: string; address?: string }): Promise<Res> {
    const res = await t.app.inject({
      method: 'POST',
      url,
      payload,
      remoteAddress: who.address ?? '198.51.100.1',
      ...(who.cookie ? { cookies: { [BUYER_COOKIE]: who.cookie } } : {}),
    });
    return { status: res.statusCode, body: res.json() };
  }

  it('a browser with its cookie holds at most the cap of carts; another browser on the same address is another buyer', async () => {
    const mine = await buyerCookie();
    expect((await portal(portalOrders, seatBody(s0), { cookie: mine })).status).toBe(201);
    expect((await portal(portalOrders, zoneBody(s0), { cookie: mine })).status).toBe(201);
    expectCap(await portal(portalOrders, seatBody(s0), { cookie: mine }), CARTS_MESSAGE);
    expectCap(await portal(portalOrders, zoneBody(s0), { cookie: mine }), CARTS_MESSAGE);
    expect(await holdings(cookieBuyer(mine))).toEqual({ held: 2, carts: 2 });
    // The refused zone cart left no order behind.
    const [left] = await queryRows<{ n: number }>(t.ctx.db, sql`SELECT count(*)::int AS n FROM orders WHERE buyer_key = ${cookieBuyer(mine)} AND status = 'pending'`);
    expect(left!.n).toBe(2);
    const theirs = await buyerCookie();
    expect((await portal(portalOrders, seatBody(s0), { cookie: theirs })).status).toBe(201);
  });

  it('without a valid cookie (none, or forged) the buyer is the address', async () => {
    const address = '203.0.113.77';
    expect((await portal(portalOrders, seatBody(s0), { address })).status).toBe(201);
    expect((await portal(portalOrders, seatBody(s0), { address, cookie: 'forged-id.not-a-signature' })).status).toBe(201);
    expectCap(await portal(portalOrders, seatBody(s0), { address }), CARTS_MESSAGE);
    expect(await holdings(portalBuyer(channelA, { address }, t.config.signingSecret)!)).toEqual({ held: 2, carts: 2 });
    expect((await portal(portalOrders, seatBody(s0), { address: '203.0.113.78' })).status).toBe(201);
  });

  it('items per order and the session cap apply to portal carts', async () => {
    await setSessionCap(s2, 3);
    const cookie = await buyerCookie();
    const order = (await portal(portalOrders, seatBody(s2), { cookie })).body.data.order_token;
    expect((await portal(`${portalOrders}/${order}/items/sector`, zoneBody(s2, 2), { cookie })).status).toBe(200);
    expectCap(await portal(`${portalOrders}/${order}/items`, seatBody(s2), { cookie }), sessionMessage(s2, 3));
    expect((await portal(`${portalOrders}/${order}/items`, seatBody(s0), { cookie })).status).toBe(200);
    expectCap(await portal(`${portalOrders}/${order}/items`, seatBody(s0), { cookie }), ITEMS_MESSAGE);
    expect(await holdings(cookieBuyer(cookie))).toEqual({ held: MAX_ITEMS, carts: 1 });
    await setSessionCap(s2, null);
  });
});

describe('where max_tickets_per_buyer is set', () => {
  const capOf = async (sessionId: number) =>
    (await queryRows<{ cap: number | null }>(t.ctx.db, sql`SELECT max_tickets_per_buyer AS cap FROM sessions WHERE id = ${sessionId}`))[0]!.cap;

  it('admin API: session create and update take it (null removes it; 0 or a fraction is 422)', async () => {
    const admin = await apiAs(t, 'caps-admin@taquilla.test');
    const created = await admin.post(`/events/${s0.eventId}/sessions`, { start_datetime: '2031-05-01T18:00:00Z', max_tickets_per_buyer: 4 });
    expect(created.status).toBe(201);
    expect(created.body.data.max_tickets_per_buyer).toBe(4);
    const id = created.body.data.id as number;
    expect((await admin.patch(`/sessions/${id}`, { max_tickets_per_buyer: 6 })).body.data.max_tickets_per_buyer).toBe(6);
    expect(await capOf(id)).toBe(6);
    for (const bad of [0, 2.5, 'six']) {
      const res = await admin.patch(`/sessions/${id}`, { max_tickets_per_buyer: bad });
      expect(res.status).toBe(422);
      expect(res.body.errors).toHaveProperty('max_tickets_per_buyer');
    }
    expect((await admin.patch(`/sessions/${id}`, { max_tickets_per_buyer: null })).body.data.max_tickets_per_buyer).toBeNull();
    expect((await admin.get(`/sessions/${id}`)).body.data.max_tickets_per_buyer).toBeNull();
  });

  it('dashboard: the session form edits it (empty clears it)', async () => {
    await account(t.ctx, 'caps-dash@taquilla.test');
    const client = new DashboardClient(t.app, '192.0.2.44');
    expect((await client.login('caps-dash@taquilla.test')).statusCode).toBe(303);
    const page = await client.get(`/admin/sessions/${s2.sessionId}`);
    expect(page.body).toContain('name="max_tickets_per_buyer"');
    const form = { start_datetime: '2031-06-01T20:00', status: 'on_sale' };
    expect((await client.post(`/admin/sessions/${s2.sessionId}`, { ...form, max_tickets_per_buyer: '8' })).statusCode).toBe(303);
    expect(await capOf(s2.sessionId)).toBe(8);
    expect((await client.post(`/admin/sessions/${s2.sessionId}`, { ...form, max_tickets_per_buyer: '' })).statusCode).toBe(303);
    expect(await capOf(s2.sessionId)).toBeNull();
  });

  it('catalogue import: a session may carry it', async () => {
    await importCatalogue(t.ctx, oneShowDocument({ organiser: 'capo', organiserName: 'Caps', names: { en: 'Capped show' }, capacity: 10, session: { max_tickets_per_buyer: 2 } }));
    const [row] = await queryRows<{ cap: number | null }>(
      t.ctx.db,
      sql`SELECT se.max_tickets_per_buyer AS cap FROM sessions se JOIN event_translations et ON et.event_id = se.event_id WHERE et.name = 'Capped show'`,
    );
    expect(row!.cap).toBe(2);
  });
});

// PGlite runs one statement at a time; on PostgreSQL these requests really race.
describe.skipIf(!isPostgres)('50 parallel requests per cap (PostgreSQL)', () => {
  const N = 50;
  const statuses = (results: Res[]) => {
    const count = (code: number) => results.filter((r) => r.status === code).length;
    for (const r of results.filter((x) => x.status === 429)) expect(r.body.code).toBe('hold_limit_reached');
    return { ok: count(200) + count(201), capped: count(429), other: results.length - count(200) - count(201) - count(429) };
  };

  it('live carts: one buyer gets exactly the cap; two buyers are independent', async () => {
    const one = await clientToken('race-one');
    const results = await Promise.all(Array.from({ length: N }, () => create(one, s2)));
    expect(statuses(results)).toEqual({ ok: MAX_CARTS, capped: N - MAX_CARTS, other: 0 });
    expect(await holdings(widgetBuyer('race-one'))).toEqual({ held: MAX_CARTS, carts: MAX_CARTS });

    const [p, q] = [await clientToken('race-p'), await clientToken('race-q')];
    const both = await Promise.all(Array.from({ length: N }, (_, i) => create(i % 2 ? p : q, s2)));
    expect(statuses(both)).toEqual({ ok: 2 * MAX_CARTS, capped: N - 2 * MAX_CARTS, other: 0 });
    expect(await holdings(widgetBuyer('race-p'))).toEqual({ held: MAX_CARTS, carts: MAX_CARTS });
    expect(await holdings(widgetBuyer('race-q'))).toEqual({ held: MAX_CARTS, carts: MAX_CARTS });
  });

  it('items per order: parallel fast adds, bulk adds and zone adds fill one order exactly', async () => {
    const k = await clientToken('race-items');
    const order = (await create(k, s2)).body.data.order_token;
    const kinds = [add, (tk: string, o: string, s: DemoSession) => bulk(tk, o, s, 1), (tk: string, o: string, s: DemoSession) => zone(tk, o, s, 1)];
    const results = await Promise.all(Array.from({ length: N }, (_, i) => kinds[i % 3]!(k, order, s2)));
    expect(statuses(results)).toEqual({ ok: MAX_ITEMS - 1, capped: N - (MAX_ITEMS - 1), other: 0 });
    expect(await holdings(widgetBuyer('race-items'))).toEqual({ held: MAX_ITEMS, carts: 1 });
  });

  it('session cap: parallel claims into two carts of one buyer, on every path, hold exactly the cap', async () => {
    const CAP = 6;
    await setSessionCap(s1, CAP);
    const m = await clientToken('race-session');
    const orders = [(await create(m, s1)).body.data.order_token, (await create(m, s1)).body.data.order_token];
    const kinds = [add, (tk: string, o: string, s: DemoSession) => bulk(tk, o, s, 1), (tk: string, o: string, s: DemoSession) => zone(tk, o, s, 1)];
    const results = await Promise.all(Array.from({ length: N }, (_, i) => kinds[i % 3]!(m, orders[i % 2]!, s1)));
    expect(statuses(results)).toEqual({ ok: CAP - 2, capped: N - (CAP - 2), other: 0 });
    expect(await holdings(widgetBuyer('race-session'))).toEqual({ held: CAP, carts: 2 });
    await setSessionCap(s1, null);
  });

  it('portal: parallel seat and zone carts of one browser stop at the cap, and refused zone carts leave no order', async () => {
    const page = await t.app.inject({ method: 'GET', url: `/${DEMO.a.slug}/en/events` });
    const cookie = page.cookies.find((c) => c.name === BUYER_COOKIE)!.value;
    const results = await Promise.all(
      Array.from({ length: N }, async (_, i) => {
        const res = await t.app.inject({
          method: 'POST',
          url: `/api/portal/${DEMO.a.slug}/en/orders`,
          payload: i % 2 ? seatBody(s2) : zoneBody(s2),
          cookies: { [BUYER_COOKIE]: cookie },
        });
        return { status: res.statusCode, body: res.json() } as Res;
      }),
    );
    // The portal's own rate limit (per address) may answer some with 429 rate_limited: count only ours.
    const ours = results.filter((r) => r.status !== 429 || r.body.code === 'hold_limit_reached');
    expect(statuses(ours).ok).toBe(MAX_CARTS);
    expect(statuses(ours).other).toBe(0);
    const key = `p:${channelA}:c:${cookie.split('.')[0]}`;
    expect(await holdings(key)).toEqual({ held: MAX_CARTS, carts: MAX_CARTS });
    const [pending] = await queryRows<{ n: number }>(t.ctx.db, sql`SELECT count(*)::int AS n FROM orders WHERE buyer_key = ${key} AND status = 'pending'`);
    expect(pending!.n).toBe(MAX_CARTS);
  });
});
