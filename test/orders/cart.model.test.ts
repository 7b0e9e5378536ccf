import fc from 'fast-check';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { sweepExpiredOrders } from '../../src/modules/orders/orders.service.js';
import { bearer, buildTestApp, DEMO, isPostgres, tokenFor, type TestApp } from '../helpers.js';
import { demoSession, itemsOf, orderUrl, ordersUrl, type DemoSession, type OrderJson } from './cart-helpers.js';

// Model-based test of the cart (fast-check commands). A simple model predicts every answer
// (status code) from what it knows; after every step the database must satisfy the invariants:
// no seat in two live orders, zone holds never above capacity, totals consistent, and the hold
// caps of D44 (each channel's token is one buyer here: it has no client_id).

const SEATS = 8; // numbered seats in play
const ZONE_FREE = 4; // places of the zone left for sale
const TTL = 900_000;
// Hold caps small enough to bite within a run (D44).
const MAX_ITEMS = 2;
const MAX_LIVE_CARTS = 2;
const SESSION_CAP = 3; // max_tickets_per_buyer of the session in play

let t: TestApp;
let s: DemoSession;
let tokens: Record<'demo-c' | 'demo-d', string>;

interface MOrder {
  token: string;
  slug: 'demo-c' | 'demo-d';
  status: 'pending' | 'cancelled';
  items: { id: number; seat: number | null }[];
  expiresAt: number | null;
  voucher: string | null;
}
interface Model {
  orders: MOrder[];
}
interface Real {
  now: () => number;
}

// The cart lifetime to the millisecond (D13; issue 28: expires_at keeps its milliseconds).
const lifetimeFrom = (now: number) => now + TTL;
const live = (o: MOrder, now: number) => o.status === 'pending' && (o.expiresAt === null || o.expiresAt > now);
const heldBy = (m: Model, seat: number, now: number) => m.orders.find((o) => live(o, now) && o.items.some((i) => i.seat === seat));
const zoneHeld = (m: Model, now: number) => m.orders.filter((o) => live(o, now)).reduce((n, o) => n + o.items.filter((i) => i.seat === null).length, 0);
/** The status code the model expects for a change of order `o`, or null when the change may go ahead. */
function refusal(o: MOrder, now: number): number | null {
  return live(o, now) ? null : 409;
}
/** A live cart that holds something (an emptied cart has no expiry and holds nothing). */
const holding = (o: MOrder, now: number) => o.status === 'pending' && o.expiresAt !== null && o.expiresAt > now;
/** 429 when adding `adding` items to `o` (null: a new cart) would pass a hold cap of its buyer, else null. */
function capRefusal(m: Model, buyer: MOrder['slug'], o: MOrder | null, adding: number, now: number): number | null {
  const items = o?.items.length ?? 0;
  if (items + adding > MAX_ITEMS) return 429;
  const mine = m.orders.filter((x) => x.slug === buyer && holding(x, now));
  if (items === 0 && mine.filter((x) => x !== o).length >= MAX_LIVE_CARTS) return 429;
  const tickets = mine.reduce((n, x) => n + x.items.length, 0);
  return tickets + adding > SESSION_CAP ? 429 : null;
}

async function send(method: 'GET' | 'POST' | 'PUT' | 'DELETE', slug: 'demo-c' | 'demo-d', url: string, payload?: object) {
  const res = await t.app.inject({ method, url, headers: bearer(tokens[slug]), ...(payload ? { payload } : {}) });
  return { status: res.statusCode, body: res.json() as { code?: string; data: OrderJson } };
}

/** Mirrors the answer into the model's copy of the order (item ids come from the service). */
function adopt(o: MOrder, data: OrderJson) {
  o.items = itemsOf(data).map((i) => ({ id: i.id, seat: i.session_seat_id }));
  o.expiresAt = data.expires_at ? Date.parse(data.expires_at) : null;
  o.voucher = data.vouchers[0]?.code ?? null;
}

async function checkInvariants(now: Date) {
  const twice = await queryRows<{ id: number }>(
    t.ctx.db,
    sql`SELECT oi.session_seat_id AS id FROM order_items oi JOIN orders o ON o.id = oi.order_id
        WHERE o.status = 'pending' AND o.expires_at > ${now}
        GROUP BY oi.session_seat_id HAVING count(*) > 1`,
  );
  expect(twice, 'a seat in two live orders').toEqual([]);
  const strayHolds = await queryRows<{ id: number }>(
    t.ctx.db,
    sql`SELECT ss.id FROM session_seats ss LEFT JOIN orders o ON o.id = ss.order_id
        WHERE ss.status = 'held' AND ss.hold_expires_at > ${now}
          AND (o.status IS DISTINCT FROM 'pending' OR o.expires_at <> ss.hold_expires_at
               OR NOT EXISTS (SELECT 1 FROM order_items oi WHERE oi.order_id = o.id AND oi.session_seat_id = ss.id))`,
  );
  expect(strayHolds, 'a live hold without its live order item').toEqual([]);
  const [zone] = await queryRows<{ n: number }>(
    t.ctx.db,
    sql`SELECT count(*)::int AS n FROM session_seats
        WHERE session_id = ${s.sessionId} AND sector_id = ${s.zone.sectorId} AND status = 'held' AND hold_expires_at > ${now}`,
  );
  expect(zone!.n, 'zone holds above capacity').toBeLessThanOrEqual(ZONE_FREE);
  const badTotals = await queryRows<{ id: number }>(
    t.ctx.db,
    sql`SELECT o.id FROM orders o LEFT JOIN order_items oi ON oi.order_id = o.id
        WHERE o.status = 'pending'
        GROUP BY o.id
        HAVING o.total_amount <> o.base_amount + o.discount_amount + o.fee_amount
            OR o.base_amount <> COALESCE(sum(oi.base_amount), 0) OR o.discount_amount <> COALESCE(sum(oi.discount_amount), 0)
            OR o.fee_amount <> COALESCE(sum(oi.fee_amount), 0) OR o.total_amount <> COALESCE(sum(oi.total_amount), 0)`,
  );
  expect(badTotals, 'inconsistent totals').toEqual([]);
  const pastCaps = await queryRows<{ buyer_key: string; carts: number; tickets: number; fullest: number }>(
    t.ctx.db,
    sql`SELECT o.buyer_key, count(DISTINCT o.id)::int AS carts, count(oi.id)::int AS tickets,
               max((SELECT count(*) FROM order_items x WHERE x.order_id = o.id))::int AS fullest
        FROM orders o LEFT JOIN order_items oi ON oi.order_id = o.id AND oi.session_id = ${s.sessionId}
        WHERE o.status = 'pending' AND o.expires_at > ${now}
        GROUP BY o.buyer_key
        HAVING count(DISTINCT o.id) > ${MAX_LIVE_CARTS} OR count(oi.id) > ${SESSION_CAP}
            OR max((SELECT count(*) FROM order_items x WHERE x.order_id = o.id)) > ${MAX_ITEMS}`,
  );
  expect(pastCaps, 'a buyer past a hold cap').toEqual([]);
}

type Cmd = fc.AsyncCommand<Model, Real>;
const seatId = (i: number) => s.seats[i]!.id;
const pick = <T>(list: T[], i: number) => list[i % list.length];

class Create implements Cmd {
  constructor(readonly seat: number, readonly slug: 'demo-c' | 'demo-d') {}
  check = () => true;
  async run(m: Model, r: Real) {
    const res = await send('POST', this.slug, ordersUrl(this.slug), { session_seat_id: seatId(this.seat), rate_id: s.rates.general });
    const expected = capRefusal(m, this.slug, null, 1, r.now()) ?? (heldBy(m, seatId(this.seat), r.now()) ? 409 : 201);
    if (res.status === 429) expect(res.body.code).toBe('hold_limit_reached');
    expect(res.status).toBe(expected);
    if (res.status === 201) {
      const o: MOrder = { token: res.body.data.order_token, slug: this.slug, status: 'pending', items: [], expiresAt: null, voucher: null };
      adopt(o, res.body.data);
      expect(o.expiresAt).toBe(lifetimeFrom(r.now()));
      m.orders.push(o);
    }
  }
  toString = () => `create(${this.slug}, seat ${this.seat})`;
}

class Add implements Cmd {
  constructor(readonly order: number, readonly seats: number[]) {}
  check = (m: Readonly<Model>) => m.orders.length > 0;
  async run(m: Model, r: Real) {
    const o = pick(m.orders, this.order)!;
    const now = r.now();
    const ids = [...new Set(this.seats)].map(seatId);
    const bulk = ids.length > 1;
    const res = bulk
      ? await send('POST', o.slug, orderUrl(o.slug, o.token, '/items-bulk'), { items: ids.map((id) => ({ session_seat_id: id, rate_id: s.rates.general })) })
      : await send('POST', o.slug, orderUrl(o.slug, o.token, '/items'), { session_seat_id: ids[0], rate_id: s.rates.general });
    const expected = refusal(o, now) ?? capRefusal(m, o.slug, o, ids.length, now) ?? (ids.some((id) => heldBy(m, id, now)) ? 409 : 200);
    expect(res.status).toBe(expected);
    if (res.status === 200) {
      const wasEmpty = o.items.length === 0;
      adopt(o, res.body.data);
      if (wasEmpty) expect(o.expiresAt).toBe(lifetimeFrom(now));
    }
  }
  toString = () => `add(order ${this.order}, seats ${this.seats})`;
}

class AddZone implements Cmd {
  constructor(readonly order: number, readonly quantity: number) {}
  check = (m: Readonly<Model>) => m.orders.length > 0;
  async run(m: Model, r: Real) {
    const o = pick(m.orders, this.order)!;
    const now = r.now();
    const res = await send('POST', o.slug, orderUrl(o.slug, o.token, '/items/sector'), { sector_id: s.zone.sectorId, rate_id: s.rates.reduced, quantity: this.quantity });
    const expected = refusal(o, now) ?? capRefusal(m, o.slug, o, this.quantity, now) ?? (zoneHeld(m, now) + this.quantity > ZONE_FREE ? 409 : 200);
    expect(res.status).toBe(expected);
    if (res.status === 200) adopt(o, res.body.data);
  }
  toString = () => `zone(order ${this.order}, ${this.quantity})`;
}

class Remove implements Cmd {
  constructor(readonly order: number, readonly item: number, readonly bulk: boolean) {}
  check = (m: Readonly<Model>) => m.orders.length > 0;
  async run(m: Model, r: Real) {
    const o = pick(m.orders, this.order)!;
    const now = r.now();
    const item = o.items.length ? pick(o.items, this.item)! : { id: 999_999_999 };
    const res = this.bulk
      ? await send('DELETE', o.slug, orderUrl(o.slug, o.token, '/items/bulk'), { item_ids: [item.id] })
      : await send('DELETE', o.slug, orderUrl(o.slug, o.token, `/items/${item.id}`));
    expect(res.status).toBe(refusal(o, now) ?? (o.items.length ? 200 : 404));
    if (res.status === 200) {
      adopt(o, res.body.data);
      if (o.items.length === 0) expect([o.expiresAt, o.voucher]).toEqual([null, null]);
    }
  }
  toString = () => `remove(order ${this.order}, item ${this.item}${this.bulk ? ', bulk' : ''})`;
}

class ChangeRate implements Cmd {
  constructor(readonly order: number, readonly reduced: boolean) {}
  check = (m: Readonly<Model>) => m.orders.length > 0;
  async run(m: Model, r: Real) {
    const o = pick(m.orders, this.order)!;
    const ids = o.items.map((i) => i.id);
    const res = await send('PUT', o.slug, orderUrl(o.slug, o.token, '/items/change-rate'), {
      item_ids: ids.length ? ids : [999_999_999],
      rate_id: this.reduced ? s.rates.reduced : s.rates.general,
    });
    expect(res.status).toBe(refusal(o, r.now()) ?? (ids.length ? 200 : 404));
    if (res.status === 200) adopt(o, res.body.data);
  }
  toString = () => `changeRate(order ${this.order}, ${this.reduced ? 'reduced' : 'general'})`;
}

class Voucher implements Cmd {
  constructor(readonly order: number, readonly code: 'DEMO10' | 'DEMO5', readonly remove: boolean) {}
  check = (m: Readonly<Model>) => m.orders.length > 0;
  async run(m: Model, r: Real) {
    const o = pick(m.orders, this.order)!;
    const res = this.remove
      ? await send('DELETE', o.slug, orderUrl(o.slug, o.token, `/vouchers/${this.code}`))
      : await send('POST', o.slug, orderUrl(o.slug, o.token, '/apply-voucher'), { code: this.code });
    const expected = refusal(o, r.now()) ?? (this.remove ? (o.voucher === this.code ? 200 : 404) : o.items.length ? 200 : 422);
    expect(res.status).toBe(expected);
    if (res.status === 200) adopt(o, res.body.data);
  }
  toString = () => `${this.remove ? 'removeVoucher' : 'applyVoucher'}(order ${this.order}, ${this.code})`;
}

class Delete implements Cmd {
  constructor(readonly order: number) {}
  check = (m: Readonly<Model>) => m.orders.length > 0;
  async run(m: Model, r: Real) {
    const o = pick(m.orders, this.order)!;
    const res = await send('DELETE', o.slug, orderUrl(o.slug, o.token));
    expect(res.status).toBe(200);
    if (live(o, r.now())) {
      o.status = 'cancelled';
      expect(res.body.data.status).toBe('cancelled');
    }
  }
  toString = () => `delete(order ${this.order})`;
}

class Expire implements Cmd {
  constructor(readonly minutes: number, readonly sweep: boolean) {}
  check = () => true;
  async run() {
    t.clock.advance(this.minutes * 60_000);
    if (this.sweep) await sweepExpiredOrders(t.ctx);
  }
  toString = () => `advance(${this.minutes} min${this.sweep ? ', sweep' : ''})`;
}

/** Runs a command, then checks the invariants against the database. */
const checked = (cmd: Cmd): Cmd => ({
  check: (m) => cmd.check(m),
  async run(m, r) {
    await cmd.run(m, r);
    await checkInvariants(t.clock.now());
  },
  toString: () => cmd.toString(),
});

const create = fc.tuple(fc.nat(SEATS - 1), fc.constantFrom<'demo-c' | 'demo-d'>('demo-c', 'demo-d')).map(([seat, slug]) => new Create(seat, slug));
const commands = [
  // Listed twice: creates often enough that a buyer reaches its live-cart cap within a run.
  create,
  create,
  create,
  fc.tuple(fc.nat(5), fc.uniqueArray(fc.nat(SEATS - 1), { minLength: 1, maxLength: 3 })).map(([o, seats]) => new Add(o, seats)),
  fc.tuple(fc.nat(5), fc.integer({ min: 1, max: 3 })).map(([o, q]) => new AddZone(o, q)),
  fc.tuple(fc.nat(5), fc.nat(5), fc.boolean()).map(([o, i, bulk]) => new Remove(o, i, bulk)),
  fc.tuple(fc.nat(5), fc.boolean()).map(([o, reduced]) => new ChangeRate(o, reduced)),
  fc.tuple(fc.nat(5), fc.constantFrom<'DEMO10' | 'DEMO5'>('DEMO10', 'DEMO5'), fc.boolean()).map(([o, code, rm]) => new Voucher(o, code, rm)),
  fc.nat(5).map((o) => new Delete(o)),
  fc.tuple(fc.integer({ min: 1, max: 16 }), fc.boolean()).map(([min, sweep]) => new Expire(min, sweep)),
].map((arb) => arb.map(checked));

beforeAll(async () => {
  t = await buildTestApp({ env: { MAX_ITEMS_PER_ORDER: String(MAX_ITEMS), MAX_LIVE_ORDERS_PER_BUYER: String(MAX_LIVE_CARTS) } });
  s = await demoSession(t, 0);
  await t.ctx.db.execute(sql`UPDATE sessions SET max_tickets_per_buyer = ${SESSION_CAP} WHERE id = ${s.sessionId}`);
}, 180_000); // building a PGlite app with the demo catalogue is slow on a loaded machine
afterAll(() => t.close());

it(`cart model: no double holds, zone within capacity, consistent totals, hold caps (${isPostgres ? 'PostgreSQL' : 'PGlite'})`, async () => {
  await fc.assert(
    fc.asyncProperty(fc.commands(commands, { maxCommands: 24 }), async (cmds) => {
      // A fresh world for each run: every earlier cart cancelled, the inventory in play free,
      // all but ZONE_FREE places of the zone blocked; fresh tokens (the clock keeps moving).
      await t.ctx.db.execute(sql`UPDATE orders SET status = 'cancelled' WHERE status = 'pending'`);
      await t.ctx.db.execute(sql`UPDATE session_seats SET status = 'available', order_id = NULL, hold_expires_at = NULL WHERE session_id = ${s.sessionId}`);
      await t.ctx.db.execute(sql`
        UPDATE session_seats SET status = 'blocked' WHERE session_id = ${s.sessionId} AND sector_id = ${s.zone.sectorId}
          AND id NOT IN (SELECT id FROM session_seats WHERE session_id = ${s.sessionId} AND sector_id = ${s.zone.sectorId} ORDER BY id LIMIT ${ZONE_FREE})`);
      tokens = { 'demo-c': await tokenFor(t.app, DEMO.c.slug, DEMO.c.key), 'demo-d': await tokenFor(t.app, DEMO.d.slug, DEMO.d.key) };
      const model: Model = { orders: [] };
      const real: Real = { now: () => t.clock.now().getTime() };
      await fc.asyncModelRun(() => ({ model, real }), cmds);
    }),
    { numRuns: isPostgres ? 40 : 30 },
  );
}, 120_000);
