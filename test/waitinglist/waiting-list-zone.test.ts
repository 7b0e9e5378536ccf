import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { findChannelBySlug } from '../../src/modules/channels/channels.service.js';
import { joinWaitingList, offerFreedSeats } from '../../src/modules/waitinglist/waitinglist.service.js';
import { createPendingOrder, type PendingOrder } from '../checkout/fixtures.js';
import { bearer, buildTestApp, DEMO, isPostgres, serverTokenFor, tokenFor, type TestApp } from '../helpers.js';
import { newDemoSession } from '../orders/cart-helpers.js';
import { freedDuringPasses, joinUrl, listEntries, ownListTest, retireList, twoInstances, type TwoInstances } from './fixtures.js';

// D69 for unnumbered zones: a sold-out zone takes entries (sector_id of the zone); its freed places
// (expiry, cancellation) are offered to the head of that zone's list as N places of the zone held
// for the buyer, in list order; an entry without a sector is not served zone places. On
// PostgreSQL, two instances' parallel passes give each freed place to exactly one entry, in order.
// Each test has a session of its own (newDemoSession) and plays the steps before the one it checks
// itself, from the clock's time when it starts; its list leaves the job when it is done (retireList).

const MINUTE = 60_000;

/** The session's unnumbered zone (the demo venue has one) and its free places. */
async function zoneOf(t: TestApp, sessionId: number) {
  const [z] = await queryRows<{ sector_id: number; free: string }>(
    t.ctx.db,
    sql`SELECT sector_id, count(*) FILTER (WHERE status = 'available') AS free FROM session_seats
        WHERE session_id = ${sessionId} AND seat_id IS NULL GROUP BY sector_id ORDER BY sector_id LIMIT 1`,
  );
  return { sectorId: z!.sector_id, free: Number(z!.free) };
}

/** `carts` zone carts of demo-c in the session, then every other free place of the session (seats and zone) blocked. */
async function sellOutZone(t: TestApp, sessionId: number, carts: { places: number; ttlMs: number }[]) {
  const orders: PendingOrder[] = [];
  for (const c of carts) orders.push(await createPendingOrder(t.ctx, { channel: DEMO.c.slug, sessionId, zone: true, seats: c.places, ttlMs: c.ttlMs }));
  await t.ctx.db.execute(sql`UPDATE session_seats SET status = 'blocked' WHERE session_id = ${sessionId} AND status = 'available'`);
  return { sessionId, orders };
}

/** The waiting-list offers of a session that the outbox holds. */
async function offerMails(t: TestApp, sessionId: number): Promise<number> {
  const [mails] = await queryRows<{ n: string }>(
    t.ctx.db,
    sql`SELECT count(*) AS n FROM email_outbox m JOIN waiting_list_entries e ON e.offer_order_id = m.order_id
        WHERE m.kind = 'waitinglist_offer' AND e.session_id = ${sessionId}`,
  );
  return Number(mails!.n);
}

/** Zone places free now in a session's zone. */
async function freeZonePlaces(t: TestApp, sessionId: number, zone: number): Promise<number> {
  const [free] = await queryRows<{ n: string }>(
    t.ctx.db,
    sql`SELECT count(*) AS n FROM session_seats WHERE session_id = ${sessionId} AND sector_id = ${zone} AND seat_is_free(status, hold_expires_at, ${t.clock.now()}::timestamptz)`,
  );
  return Number(free!.n);
}

/** A test's zone list: its session, the zone's sector and the zone carts that sold it out. */
interface ZoneList {
  sessionId: number;
  zone: number;
  carts: PendingOrder[];
}

/** The places an offer order holds now, with their sector and whether they are zone places. */
async function offerPlaces(t: TestApp, orderId: string | null) {
  return queryRows<{ id: number; sector_id: number; zone: boolean; status: string }>(
    t.ctx.db,
    sql`SELECT ss.id, ss.sector_id, ss.seat_id IS NULL AS zone, ss.status FROM order_items i JOIN session_seats ss ON ss.id = i.session_seat_id
        WHERE i.order_id = ${orderId} AND ss.order_id = ${orderId} AND ss.status = 'held' AND ss.hold_expires_at > ${t.clock.now()}::timestamptz`,
  );
}

describe('waiting list of an unnumbered zone (D69)', () => {
  let t: TestApp;
  let widget: string;
  let server: string;

  beforeAll(async () => {
    t = await buildTestApp();
    widget = await tokenFor(t.app, DEMO.c.slug, DEMO.c.key, 'buyer-z');
    server = await serverTokenFor(t.app, DEMO.c.slug);
  }, 180_000);
  afterAll(async () => {
    await t?.close();
  });

  const join = (sessionId: number, payload: object) => t.app.inject({ method: 'POST', url: joinUrl(DEMO.c.slug, sessionId), headers: bearer(widget), payload });

  const TWO_ZONE_CARTS = [{ places: 2, ttlMs: 5 * MINUTE }, { places: 2, ttlMs: 60 * MINUTE }];

  /**
   * A session of the test's own with two zone carts (2 places that run out in 5 minutes, 2 places
   * cancelled later), the rest blocked; at the head of its list an entry without a sector (numbered
   * seats), then three zone entries: three@ (3 places), two@ (2), one@ (1).
   */
  const it = ownListTest(
    () => t,
    async (app, sessionId): Promise<Omit<ZoneList, 'sessionId'>> => {
      const { orders: carts } = await sellOutZone(app, sessionId, TWO_ZONE_CARTS);
      const zone = (await zoneOf(app, sessionId)).sectorId;
      const entries = [
        { email: 'seats@example.com', quantity: 1 },
        { email: 'three@example.com', quantity: 3, sector_id: zone },
        { email: 'two@example.com', quantity: 2, sector_id: zone },
        { email: 'one@example.com', quantity: 1, sector_id: zone },
      ];
      for (const entry of entries) {
        const res = await join(sessionId, entry);
        expect(res.statusCode, res.body).toBe(201);
        expect(res.json().data).toMatchObject({ status: 'waiting', quantity: entry.quantity, sector_id: entry.sector_id ?? null, offer: null });
      }
      return { zone, carts };
    },
  );

  /** The first zone cart runs out: a pass offers its 2 places to two@ (three@ waits: they are too few). */
  async function expiredCartOffered(): Promise<void> {
    t.clock.advance(6 * MINUTE);
    await offerFreedSeats(t.ctx);
  }

  /** expiredCartOffered, then the second zone cart is cancelled: a pass offers 1 of its 2 places to one@. */
  async function cancelledCartOffered(list: ZoneList): Promise<void> {
    await expiredCartOffered();
    const res = await t.app.inject({ method: 'DELETE', url: `/api/sales-channel/v1/${DEMO.c.slug}/es/orders/${list.carts[1]!.token}`, headers: bearer(server) });
    expect(res.statusCode).toBe(200);
    await offerFreedSeats(t.ctx);
  }

  it('a zone with room answers 409 seats_available; once sold out it takes entries with its sector_id', async () => {
    const { sessionId } = await newDemoSession(t);
    const zone = (await zoneOf(t, sessionId)).sectorId;
    const early = await join(sessionId, { email: 'early@example.com', quantity: 1, sector_id: zone });
    expect(early.statusCode).toBe(409);
    expect(early.json()).toMatchObject({ code: 'seats_available' });
    // Two zone carts: 2 places that run out in 5 minutes, 2 places cancelled later; the rest blocked.
    await sellOutZone(t, sessionId, TWO_ZONE_CARTS);
    // Head of the list: an entry without a sector (numbered seats); then three zone entries.
    expect((await join(sessionId, { email: 'seats@example.com', quantity: 1 })).statusCode).toBe(201);
    const first = await join(sessionId, { email: 'three@example.com', quantity: 3, sector_id: zone });
    expect(first.statusCode).toBe(201);
    expect(first.json().data).toMatchObject({ status: 'waiting', position: 2, sector_id: zone, quantity: 3, offer: null });
    expect((await join(sessionId, { email: 'two@example.com', quantity: 2, sector_id: zone })).json().data.position).toBe(3);
    expect((await join(sessionId, { email: 'one@example.com', quantity: 1, sector_id: zone })).json().data.position).toBe(4);
    await retireList(t.ctx, sessionId);
  });

  it('an expired zone cart: its 2 places go to the first zone entry they fit (3 waits), held as zone places for 30 minutes', async ({ list }) => {
    const { sessionId, zone } = list;
    expect(await offerFreedSeats(t.ctx)).toBe(0);
    t.clock.advance(6 * MINUTE);
    expect(await offerFreedSeats(t.ctx)).toBe(1);
    expect(await offerFreedSeats(t.ctx)).toBe(0);
    const rows = await listEntries(t.ctx, sessionId);
    expect(rows.map((r) => [r.email, r.status])).toEqual([
      ['seats@example.com', 'waiting'],
      ['three@example.com', 'waiting'],
      ['two@example.com', 'offered'],
      ['one@example.com', 'waiting'],
    ]);
    const places = await offerPlaces(t, rows[2]!.offer_order_id);
    expect(places).toHaveLength(2);
    expect(places.every((p) => p.zone && p.sector_id === zone)).toBe(true);
    const [order] = await queryRows<{ status: string; expires_at: Date; total_amount: number; n: string }>(
      t.ctx.db,
      sql`SELECT o.status, o.expires_at, o.total_amount, (SELECT count(*) FROM order_items WHERE order_id = o.id) AS n FROM orders o WHERE o.id = ${rows[2]!.offer_order_id}`,
    );
    expect(order).toMatchObject({ status: 'pending' });
    expect(Number(order!.n)).toBe(2);
    expect(order!.total_amount).toBeGreaterThan(0);
    expect(new Date(order!.expires_at).getTime()).toBe(t.clock.now().getTime() + 30 * MINUTE);
    expect(await offerMails(t, sessionId)).toBe(1);
  });

  it('a cancelled zone cart: the next fitting entry gets 1 place; the spare one is not offered to an entry without a sector', async ({ list }) => {
    const { sessionId, zone } = list;
    await expiredCartOffered();
    const res = await t.app.inject({ method: 'DELETE', url: `/api/sales-channel/v1/${DEMO.c.slug}/es/orders/${list.carts[1]!.token}`, headers: bearer(server) });
    expect(res.statusCode).toBe(200);
    expect(await offerFreedSeats(t.ctx)).toBe(1);
    const rows = await listEntries(t.ctx, sessionId);
    expect(rows.map((r) => r.status)).toEqual(['waiting', 'waiting', 'offered', 'offered']);
    expect(await offerPlaces(t, rows[3]!.offer_order_id)).toHaveLength(1);
    // One place is left free: too few for the 3 of the zone's head, and not offered to a seats entry.
    expect(await freeZonePlaces(t, sessionId, zone)).toBe(1);
  });

  it('an offer not taken lapses: its 2 places and the free one make 3 for the zone head', async ({ list }) => {
    await cancelledCartOffered(list);
    t.clock.advance(31 * MINUTE);
    expect(await offerFreedSeats(t.ctx)).toBe(1);
    const rows = await listEntries(t.ctx, list.sessionId);
    expect(rows.map((r) => r.status)).toEqual(['waiting', 'offered', 'lapsed', 'lapsed']);
    expect(await offerPlaces(t, rows[1]!.offer_order_id)).toHaveLength(3);
    // The entry without a sector still waits: zone places are not numbered seats.
    expect(rows[0]!.status).toBe('waiting');
  });
});

describe.runIf(isPostgres)('zone places under parallel passes on PostgreSQL (D69)', () => {
  let instances: TwoInstances;
  beforeAll(async () => {
    instances = await twoInstances();
  }, 300_000);
  afterAll(() => instances?.close());

  /** A session of the test's own with 20 one-place zone carts (10 run out in 5 minutes, 10 are cancelled) and 30 zone entries of one place. */
  const it = ownListTest(
    () => instances.t,
    async (t, sessionId): Promise<Omit<ZoneList, 'sessionId'>> => {
      const { orders: carts } = await sellOutZone(
        t,
        sessionId,
        Array.from({ length: 20 }, (_, i) => ({ places: 1, ttlMs: (i < 10 ? 5 : 60) * MINUTE })),
      );
      const zone = (await zoneOf(t, sessionId)).sectorId;
      const channel = (await findChannelBySlug(t.ctx, DEMO.c.slug))!;
      for (let i = 0; i < 30; i++) {
        await joinWaitingList(t.ctx, channel, 'es', sessionId, { email: `z${String(i).padStart(2, '0')}@example.com`, quantity: 1, sector_id: zone });
      }
      return { zone, carts };
    },
  );

  it('20 places freed by expiry and cancellation during parallel passes go to the first 20 entries, one place each, never twice', async ({ list }) => {
    const { t } = instances;
    await freedDuringPasses(instances, list.carts, 10);
    const rows = await listEntries(t.ctx, list.sessionId);
    expect(rows.slice(0, 20).map((r) => r.status)).toEqual(Array(20).fill('offered'));
    expect(rows.slice(20).map((r) => r.status)).toEqual(Array(10).fill('waiting'));
    const held = (await Promise.all(rows.slice(0, 20).map((r) => offerPlaces(t, r.offer_order_id)))).map((p) => p.map((x) => x.id));
    expect(held.every((ids) => ids.length === 1)).toBe(true);
    expect(new Set(held.flat()).size).toBe(20);
    expect(await offerMails(t, list.sessionId)).toBe(20);
  });

  it('lapsed offers pass to the next 10 in order; 10 places stay free', async ({ list }) => {
    const { t } = instances;
    await freedDuringPasses(instances, list.carts, 10);
    t.clock.advance(31 * MINUTE);
    await instances.passes(8);
    const rows = await listEntries(t.ctx, list.sessionId);
    expect(rows.slice(0, 20).map((r) => r.status)).toEqual(Array(20).fill('lapsed'));
    expect(rows.slice(20).map((r) => r.status)).toEqual(Array(10).fill('offered'));
    const held = (await Promise.all(rows.slice(20).map((r) => offerPlaces(t, r.offer_order_id)))).flat();
    expect(new Set(held.map((p) => p.id)).size).toBe(10);
    expect(await freeZonePlaces(t, list.sessionId, list.zone)).toBe(10);
  });
});
