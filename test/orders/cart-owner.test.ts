import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import type { B2BRoute } from '../../src/http/route-policy.js';
import { operationVerdict, type CredentialScope } from '../../src/lib/integration-policy.js';
import { findChannelBySlug } from '../../src/modules/channels/channels.repo.js';
import { bearer, buildTestApp, DEMO, serverTokenFor, tokenFor, type TestApp } from '../helpers.js';
import { createOrder, demoSession, itemsOf, orderUrl, type DemoSession, type OrderJson } from './cart-helpers.js';

// D57: in models C and D an order created with a widget-scope token can be read, changed and
// deleted only by widget-scope tokens of the same client_id (D38) and by the channel's server-scope
// tokens; any other token gets the 404 of D5, the very answer of an unknown order, and nothing
// changes. The routes come from the app itself (every B2B route that names an order: an
// `:orderToken` in its path or an `order_token` in its body), so that a new order route without a
// row in the table below, or without the rule, fails here.

let t: TestApp;
let sessions: DemoSession[];
let seatCursor = 0;
/** A numbered seat no other request of this file has used (the concert's two sessions, then the play's). */
function freshSeat(): { id: number; rate: number; reduced: number } {
  let n = seatCursor++;
  for (const s of sessions) {
    if (n < s.seats.length) return { id: s.seats[n]!.id, rate: s.rates.general, reduced: s.rates.reduced };
    n -= s.seats.length;
  }
  throw new Error('out of demo seats');
}

beforeAll(async () => {
  t = await buildTestApp();
  sessions = [await demoSession(t, 0), await demoSession(t, 1), await demoSession(t, 2)];
}, 180_000);
afterAll(() => t.close());

const SCOPE_PREFIX = '/api/sales-channel/v1/:salesChannelSlug';

/** The B2B routes of the app that name an order: in their path, or with `order_token` in their body. */
async function orderRoutes(): Promise<B2BRoute[]> {
  const spec = (await t.app.inject({ url: '/api/openapi.json' })).json() as {
    paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: Schema }> } }>>;
    components?: { schemas?: Record<string, Schema> };
  };
  type Schema = { $ref?: string; properties?: Record<string, unknown> };
  const resolve = (s: Schema | undefined): Schema | undefined =>
    s?.$ref ? spec.components?.schemas?.[s.$ref.split('/').pop()!] : s;
  const bodyNamesOrder = (route: B2BRoute) => {
    const path = route.url.replace(/:([A-Za-z]+)/g, '{$1}');
    const op = spec.paths[path]?.[route.method.toLowerCase()];
    return Object.values(op?.requestBody?.content ?? {}).some((c) => 'order_token' in (resolve(c.schema)?.properties ?? {}));
  };
  const routes = t.app.routePolicies.b2b.filter((r) => r.method !== 'HEAD' && (r.url.includes(':orderToken') || bodyNamesOrder(r)));
  return routes;
}

/** What one row of the table needs: the order it acts on (created by its owner), and fresh seats. */
interface Fixture {
  slug: string;
  orderToken: string;
  itemId: number;
  /** Another rate of the item's session. */
  reducedRate: number;
  total: number;
}

interface Row {
  /** Prepares the fixture order before the calls (e.g. a voucher to remove). */
  prepare?: (fx: Fixture, ownerToken: string) => Promise<void>;
  /** The path parameters other than slug, lang and order token, and the body. */
  request: (fx: Fixture) => { params?: Record<string, string | number>; payload?: Record<string, unknown> };
  /** The status of success. */
  ok: number;
  /**
   * The order token is in the body and must name a live cart (D61 best available, unlike D17's
   * create, where an unknown token makes a new cart): another buyer's cart is the 404 of an unknown one (D5, D57).
   */
  bodyTokenMustExist?: boolean;
}

const applyVoucher = async (fx: Fixture, ownerToken: string) => {
  const res = await t.app.inject({ method: 'POST', url: orderUrl(fx.slug, fx.orderToken, '/apply-voucher'), headers: bearer(ownerToken), payload: { code: 'DEMO10' } });
  if (res.statusCode !== 200) throw new Error(`apply-voucher: ${res.statusCode} ${res.body}`);
};
const seatItem = () => {
  const seat = freshSeat();
  return { session_seat_id: seat.id, rate_id: seat.rate };
};
const confirmBody = (fx: Fixture) => ({ amount: fx.total, name: 'Ana', surname: 'García', email: 'ana@example.com' });

/**
 * One row per order route, keyed `METHOD path` below /sales-channel/v1/:salesChannelSlug. A new
 * route that names an order must get a row here (the first test says which), and so a test of D57.
 */
const TABLE: Record<string, Row> = {
  'POST /:lang/orders': { request: (fx) => ({ payload: { ...seatItem(), order_token: fx.orderToken } }), ok: 200 },
  // D61: the order is in the body (order_token), as for create.
  // Seats of the play (sessions[2]): freshSeat hands out the concert's first.
  'POST /:lang/orders/best-available': {
    request: (fx) => ({ payload: { session_id: sessions[2]!.sessionId, quantity: 1, order_token: fx.orderToken } }),
    ok: 201,
    bodyTokenMustExist: true,
  },
  'GET /:lang/orders/:orderToken': { request: () => ({}), ok: 200 },
  'DELETE /:lang/orders/:orderToken': { request: () => ({}), ok: 200 },
  'POST /:lang/orders/:orderToken/items': { request: () => ({ payload: seatItem() }), ok: 200 },
  'POST /:lang/orders/:orderToken/items-bulk': { request: () => ({ payload: { items: [seatItem(), seatItem()] } }), ok: 200 },
  'POST /:lang/orders/:orderToken/items/sector': {
    request: () => ({ payload: { sector_id: sessions[0]!.zone.sectorId, rate_id: sessions[0]!.rates.general, quantity: 1 } }),
    ok: 200,
  },
  'DELETE /:lang/orders/:orderToken/items/bulk': { request: (fx) => ({ payload: { item_ids: [fx.itemId] } }), ok: 200 },
  'DELETE /:lang/orders/:orderToken/items/:itemId': { request: (fx) => ({ params: { itemId: fx.itemId } }), ok: 200 },
  'PUT /:lang/orders/:orderToken/items/change-rate': {
    request: (fx) => ({ payload: { item_ids: [fx.itemId], rate_id: fx.reducedRate } }),
    ok: 200,
  },
  'POST /:lang/orders/:orderToken/apply-voucher': { request: () => ({ payload: { code: 'DEMO10' } }), ok: 200 },
  'DELETE /:lang/orders/:orderToken/vouchers/:voucherCode': { prepare: applyVoucher, request: () => ({ params: { voucherCode: 'DEMO10' } }), ok: 200 },
  'POST /:lang/orders/:orderToken/confirm': { request: (fx) => ({ payload: confirmBody(fx) }), ok: 200 },
  'POST /:lang/orders/:orderToken/confirm-payment': { request: (fx) => ({ payload: confirmBody(fx) }), ok: 200 },
};

const keyOf = (route: B2BRoute) => `${route.method} ${route.url.slice(SCOPE_PREFIX.length)}`;

/** Fills in a route's path: slug, lang, the order token and the row's own parameters. */
function pathOf(route: B2BRoute, slug: string, orderToken: string, params: Record<string, string | number> = {}) {
  const values: Record<string, string | number> = { salesChannelSlug: slug, lang: 'en', orderToken, ...params };
  return route.url.replace(/:([A-Za-z]+)/g, (_m, name: string) => {
    if (values[name] === undefined) throw new Error(`${keyOf(route)}: no value for :${name} in its table row`);
    return encodeURIComponent(String(values[name]));
  });
}

interface Callers {
  slug: string;
  mode: Parameters<typeof operationVerdict>[0];
  /** Buyer X's widget token (client_id buyer-x), the order's owner. */
  x: string;
  /** Buyer Y's widget token (client_id buyer-y). */
  y: string;
  /** A widget token without client_id (D38's single group). */
  none: string;
  /** A server-scope token of the channel. */
  server: string;
}

async function callersOf(channel: (typeof DEMO)['c' | 'd']): Promise<Callers> {
  const record = (await findChannelBySlug(t.ctx.db, channel.slug))!;
  return {
    slug: channel.slug,
    mode: record.integrationMode,
    x: await tokenFor(t.app, channel.slug, channel.key, 'buyer-x'),
    y: await tokenFor(t.app, channel.slug, channel.key, 'buyer-y'),
    none: await tokenFor(t.app, channel.slug, channel.key),
    server: await serverTokenFor(t.app, channel.slug, channel.serverKey, 'server-1'),
  };
}

async function fixture(slug: string, ownerToken: string): Promise<Fixture> {
  const seat = freshSeat();
  const order = await createOrder(t.app, ownerToken, slug, { session_seat_id: seat.id, rate_id: seat.rate });
  return { slug, orderToken: order.order_token, itemId: itemsOf(order)[0]!.id, reducedRate: seat.reduced, total: order.total_amount };
}

/** Calls a route on the fixture's order (or, with `orderToken`, on another order) with the row's request. */
async function send(route: B2BRoute, token: string, row: Row, fx: Fixture, orderToken = fx.orderToken) {
  const req = row.request({ ...fx, orderToken });
  const res = await t.app.inject({
    method: route.method as 'GET',
    url: pathOf(route, fx.slug, orderToken, req.params),
    headers: bearer(token),
    ...(req.payload ? { payload: req.payload } : {}),
  });
  return { status: res.statusCode, body: res.body };
}

/** Everything a refused request could have changed: the order as its server sees it, and every hold, order and voucher use. */
async function snapshot(c: Callers, orderToken: string) {
  const read = await t.app.inject({ url: orderUrl(c.slug, orderToken), headers: bearer(c.server) });
  const [counts] = await queryRows<{ held: number; orders: number; vouchers: number; items: number }>(
    t.ctx.db,
    sql`SELECT (SELECT count(*)::int FROM session_seats WHERE status = 'held') AS held,
               (SELECT count(*)::int FROM orders) AS orders,
               (SELECT count(*)::int FROM order_vouchers) AS vouchers,
               (SELECT count(*)::int FROM order_items) AS items`,
  );
  return { order: read.json(), counts };
}

/** The answer a caller gets from the route guard alone (D40), or null when the operation is open to its scope. */
const guardStatus = (c: Callers, route: B2BRoute, scope: CredentialScope) => (operationVerdict(c.mode, route.operation, scope) === 'allowed' ? null : 403);

describe('carts bound to their buyer (D57), every order route of the app', () => {
  it('the app has order routes, and each has a row in the table', async () => {
    const routes = await orderRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(Object.keys(TABLE).length);
    for (const route of routes) expect(TABLE[keyOf(route)], `${keyOf(route)}: add a row to TABLE (and follow D57)`).toBeDefined();
  });

  for (const channel of [DEMO.c, DEMO.d]) {
    it(`${channel.slug}: buyer Y and a token without client_id get the 404 of an unknown order and change nothing; buyer X and the server succeed`, async () => {
      const c = await callersOf(channel);
      const otherChannel = channel === DEMO.c ? DEMO.d : DEMO.c;
      const foreign = await createOrder(t.app, await serverTokenFor(t.app, otherChannel.slug, otherChannel.serverKey, 'server-1'), otherChannel.slug, seatItem());
      const checked: string[] = [];
      for (const route of await orderRoutes()) {
        const key = keyOf(route);
        const row = TABLE[key]!;
        const fx = await fixture(c.slug, c.x);
        await row.prepare?.(fx, c.x);
        const before = await snapshot(c, fx.orderToken);

        for (const [who, token] of [['buyer Y', c.y], ['no client_id', c.none]] as const) {
          const refused = await send(route, token, row, fx);
          const guard = guardStatus(c, route, 'widget');
          if (guard !== null) {
            expect(refused.status, `${key} by ${who}`).toBe(guard);
          } else if (route.url.includes(':orderToken') || row.bodyTokenMustExist) {
            // The 404 of D5, byte for byte the answer for an order that does not exist.
            const unknown = await send(route, token, row, fx, crypto.randomUUID());
            expect(unknown.status, `${key} unknown order`).toBe(404);
            expect(refused, `${key} by ${who}`).toEqual(unknown);
          } else {
            // D17's create with an existing order_token: another buyer's cart is the 404 of D5 (D57);
            // another channel's order stays D17's 409.
            expect(refused.status, `${key} by ${who}: ${refused.body}`).toBe(404);
            expect(JSON.parse(refused.body)).toMatchObject({ code: 'not_found', message: 'Order not found' });
            const taken = await send(route, token, row, fx, foreign.order_token);
            expect(taken.status, `${key} with another channel's order_token`).toBe(409);
            expect(JSON.parse(taken.body)).toMatchObject({ code: 'order_token_taken' });
          }
          expect(await snapshot(c, fx.orderToken), `${key} by ${who} changed something`).toEqual(before);
        }

        const own = await send(route, c.x, row, fx);
        expect(own.status, `${key} by buyer X: ${own.body}`).toBe(guardStatus(c, route, 'widget') ?? row.ok);

        const fx2 = await fixture(c.slug, c.x);
        await row.prepare?.(fx2, c.x);
        const server = await send(route, c.server, row, fx2);
        expect(server.status, `${key} by the server: ${server.body}`).toBe(guardStatus(c, route, 'server') ?? row.ok);
        checked.push(key);
      }
      expect(checked).toEqual(expect.arrayContaining(Object.keys(TABLE)));
    }, 120_000);
  }
});

describe('who else may use a cart (D57)', () => {
  it('widget tokens without client_id are one buyer: a newer one of the group uses the cart, buyer X does not', async () => {
    const c = await callersOf(DEMO.d);
    const fx = await fixture(c.slug, c.none);
    const next = await tokenFor(t.app, c.slug, DEMO.d.key); // revokes c.none (D38: one live token per group)
    expect((await t.app.inject({ url: orderUrl(c.slug, fx.orderToken), headers: bearer(next) })).statusCode).toBe(200);
    expect((await t.app.inject({ url: orderUrl(c.slug, fx.orderToken), headers: bearer(c.x) })).json()).toMatchObject({ status: 404, code: 'not_found' });
    expect((await t.app.inject({ url: orderUrl(c.slug, fx.orderToken), headers: bearer(c.server) })).statusCode).toBe(200);
  });

  it("buyer X's new token (same client_id) keeps X's cart", async () => {
    const c = await callersOf(DEMO.c);
    const fx = await fixture(c.slug, c.x);
    const renewed = await tokenFor(t.app, c.slug, DEMO.c.key, 'buyer-x');
    const res = await t.app.inject({ method: 'POST', url: orderUrl(c.slug, fx.orderToken, '/items'), headers: bearer(renewed), payload: seatItem() });
    expect(res.statusCode).toBe(200);
    expect(itemsOf(res.json().data as OrderJson)).toHaveLength(2);
  });

  it("a cart the channel's server created is open to the channel's widget tokens (D57 binds widget-made carts only)", async () => {
    const c = await callersOf(DEMO.d);
    const fx = await fixture(c.slug, c.server);
    for (const token of [c.x, c.y, c.none]) {
      expect((await t.app.inject({ url: orderUrl(c.slug, fx.orderToken), headers: bearer(token) })).statusCode).toBe(200);
    }
  });

  it("the public portal order read is unchanged: the buyer's cart of model C opens there by its token", async () => {
    const c = await callersOf(DEMO.c);
    const fx = await fixture(c.slug, c.x);
    const res = await t.app.inject({ url: `/api/portal/${c.slug}/en/orders/${fx.orderToken}` });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ order_token: fx.orderToken });
  });

  it("buyer Y cannot add to X's cart through the one-statement hold either: the seat stays free", async () => {
    const c = await callersOf(DEMO.d);
    const fx = await fixture(c.slug, c.x);
    const item = seatItem();
    const res = await t.app.inject({ method: 'POST', url: orderUrl(c.slug, fx.orderToken, '/items'), headers: bearer(c.y), payload: item });
    expect(res.statusCode).toBe(404);
    const [seat] = await queryRows<{ status: string; order_id: number | null }>(t.ctx.db, sql`SELECT status, order_id FROM session_seats WHERE id = ${item.session_seat_id}`);
    expect(seat).toEqual({ status: 'available', order_id: null });
    // The seat is still X's to take.
    const own = await t.app.inject({ method: 'POST', url: orderUrl(c.slug, fx.orderToken, '/items'), headers: bearer(c.x), payload: item });
    expect(own.statusCode).toBe(200);
  });
});
