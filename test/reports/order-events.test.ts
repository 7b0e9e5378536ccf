import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.js';
import { closeOrder } from '../../src/modules/checkout/closing.service.js';
import { refundOrder } from '../../src/modules/checkout/refund.service.js';
import { createReservation } from '../../src/modules/checkout/reservation.service.js';
import { sweepExpiredOrders } from '../../src/modules/orders/orders.service.js';
import { buyer, confirmUrl } from '../checkout/fixtures.js';
import { bearer, buildTestApp, DEMO, serverTokenFor, type TestApp } from '../helpers.js';
import { createOrder, demoSession, orderUrl, type DemoSession } from '../orders/cart-helpers.js';

/*
 * order_events (migration 0041) is what the report's event filter reads. Its rows are written by
 * triggers on orders when an order becomes a transaction. Here every path that makes one goes
 * through the real services (cart API, confirm, cancel, reservation, refund, expiry sweep, late
 * payment), and the table is checked against its definition: the events of each completed or
 * cancelled order's items, a refund taking those of the order it refunds.
 */

let t: TestApp;
let token: string;
let channelId: number;
let concert: DemoSession;
let play: DemoSession;
let nextSeat = 0;

/** A free numbered seat of the session at its general rate (each test takes its own). */
const seat = (s: DemoSession) => ({ session_seat_id: s.seats[nextSeat++]!.id, rate_id: s.rates.general });

/** A cart through the cart API: created with its first seat, the others added (as the widget does). */
async function cart(first: DemoSession, ...more: DemoSession[]) {
  const order = await createOrder(t.app, token, DEMO.d.slug, seat(first));
  if (more.length === 0) return order;
  const res = await t.app.inject({
    method: 'POST',
    url: orderUrl(DEMO.d.slug, order.order_token, '/items-bulk'),
    headers: bearer(token),
    payload: { items: more.map(seat) },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as typeof order;
}

async function orderId(reference: string): Promise<number> {
  const [row] = await queryRows<{ id: string | number }>(t.ctx.db, sql`SELECT id FROM orders WHERE reference = ${reference}`);
  return Number(row!.id);
}

async function confirm(order: { order_token: string; total_amount: number }) {
  const res = await t.app.inject({
    method: 'POST',
    url: confirmUrl(DEMO.d.slug, order.order_token),
    headers: bearer(token),
    payload: { ...buyer, amount: order.total_amount, payment_method: 'card' },
  });
  expect(res.statusCode, res.body).toBe(200);
}

/** The order's rows in order_events as [event_id, same channel and date as the order]. */
async function eventsOf(id: number) {
  const rows = await queryRows<{ event_id: number; same: boolean }>(
    t.ctx.db,
    sql`SELECT oe.event_id, (oe.channel_id = o.channel_id AND oe.created_at = o.created_at) AS same
        FROM order_events oe JOIN orders o ON o.id = oe.order_id WHERE oe.order_id = ${id} ORDER BY oe.event_id`,
  );
  return rows.map((r) => [r.event_id, r.same]);
}

/** References of the event-filtered report (no dates: every day), newest first. */
async function reportRefs(eventIds: number[]) {
  const query = eventIds.map((id) => `event_ids[]=${id}`).join('&');
  const res = await t.app.inject({ url: `/api/sales-channel/v1/${DEMO.d.slug}/es/reports/sales?${query}`, headers: bearer(token) });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json().data.data as Array<{ order_reference: string; type: string; status: string }>).map(
    (r) => `${r.order_reference} ${r.type} ${r.status}`,
  );
}

/** What order_events must hold: its definition over orders and items, minus what it holds (and back). */
async function differenceFromDefinition() {
  const [row] = await queryRows<{ missing: number; extra: number }>(
    t.ctx.db,
    sql`WITH def AS (
          SELECT DISTINCT o.channel_id, i.event_id, o.created_at, o.id AS order_id
          FROM orders o JOIN order_items i ON i.order_id = COALESCE(o.refunded_order_id, o.id)
          WHERE o.status IN ('completed', 'cancelled'))
        SELECT (SELECT count(*) FROM (SELECT * FROM def EXCEPT SELECT * FROM order_events) m)::int AS missing,
               (SELECT count(*) FROM (SELECT * FROM order_events EXCEPT SELECT * FROM def) x)::int AS extra`,
  );
  return row;
}

beforeAll(async () => {
  t = await buildTestApp();
  token = await serverTokenFor(t.app, DEMO.d.slug, DEMO.d.serverKey); // confirms and reads the report (D40)
  concert = await demoSession(t, 0);
  play = await demoSession(t, 2);
  const [c] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM sales_channels WHERE slug = ${DEMO.d.slug}`);
  channelId = c!.id;
}, 120_000);
afterAll(() => t?.close());

describe('order_events: written when an order becomes a transaction', () => {
  it('a cart writes nothing; closing the sale (confirm) writes one row per event of its items', async () => {
    const order = await cart(concert, play, concert);
    const id = await orderId(order.reference);
    expect(await eventsOf(id)).toEqual([]);
    expect(await reportRefs([concert.eventId])).not.toContain(`${order.reference} purchase completed`);

    await confirm(order);
    expect(await eventsOf(id)).toEqual([
      [concert.eventId, true],
      [play.eventId, true],
    ]);
    expect(await reportRefs([concert.eventId])).toContain(`${order.reference} purchase completed`);
    expect(await reportRefs([play.eventId])).toContain(`${order.reference} purchase completed`);
    // an order of both events is listed once when both are asked for
    expect((await reportRefs([concert.eventId, play.eventId])).filter((r) => r.startsWith(`${order.reference} `))).toHaveLength(1);
  });

  it('cancelling a cart (DELETE) lists it as cancelled under its events', async () => {
    const order = await cart(play);
    const res = await t.app.inject({ method: 'DELETE', url: orderUrl(DEMO.d.slug, order.order_token), headers: bearer(token) });
    expect(res.statusCode, res.body).toBe(200);
    expect(await eventsOf(await orderId(order.reference))).toEqual([[play.eventId, true]]);
    expect(await reportRefs([play.eventId])).toContain(`${order.reference} purchase cancelled`);
    expect(await reportRefs([concert.eventId])).not.toContain(`${order.reference} purchase cancelled`);
  });

  it('a reservation is listed under its events', async () => {
    const r = await createReservation(t.ctx, { channelSlug: DEMO.d.slug, items: [seat(concert)], buyer });
    expect(await eventsOf(r.order_id)).toEqual([[concert.eventId, true]]);
    expect(await reportRefs([concert.eventId])).toContain(`${r.reference} reservation completed`);
  });

  it("a refund is its own row, under the events of the order it refunds", async () => {
    const order = await cart(play);
    await confirm(order);
    const refund = await refundOrder(t.ctx, { reference: order.reference, reason: 'Customer request', actor: 'admin@demo' });
    expect(await eventsOf(refund.refund_order_id)).toEqual([[play.eventId, true]]);
    const refs = await reportRefs([play.eventId]);
    expect(refs).toContain(`${refund.refund_reference} refund completed`);
    expect(refs).toContain(`${order.reference} purchase completed`);
    expect(await reportRefs([concert.eventId])).not.toContain(`${refund.refund_reference} refund completed`);
  });

  it('the expiry sweep writes nothing; a late payment that completes the expired cart does', async () => {
    const order = await cart(concert);
    const id = await orderId(order.reference);
    t.clock.advance(24 * 3600_000);
    await sweepExpiredOrders(t.ctx);
    token = await serverTokenFor(t.app, DEMO.d.slug, DEMO.d.serverKey); // confirms and reads the report (D40) // the old one expired with the day
    const [swept] = await queryRows<{ status: string }>(t.ctx.db, sql`SELECT status FROM orders WHERE id = ${id}`);
    expect(swept!.status).toBe('expired');
    expect(await eventsOf(id)).toEqual([]);
    expect(await reportRefs([concert.eventId])).not.toContain(`${order.reference} purchase completed`);

    await closeOrder(t.ctx, { orderId: id, buyer, allowExpired: true });
    expect(await eventsOf(id)).toEqual([[concert.eventId, true]]);
    expect(await reportRefs([concert.eventId])).toContain(`${order.reference} purchase completed`);
  });

  it('after all of that, the table is exactly its definition over orders and items', async () => {
    expect(await differenceFromDefinition()).toEqual({ missing: 0, extra: 0 });
    const [n] = await queryRows<{ n: number }>(t.ctx.db, sql`SELECT count(*)::int AS n FROM order_events WHERE channel_id = ${channelId}`);
    expect(n!.n).toBeGreaterThanOrEqual(6);
  });
});

describe('order_events_backfill() (the migration\'s backfill, also for bulk loads that bypass the triggers)', () => {
  it('adds exactly the missing rows, and nothing when none is missing', async () => {
    const [before] = await queryRows<{ n: number }>(t.ctx.db, sql`SELECT count(*)::int AS n FROM order_events`);
    await t.ctx.db.execute(sql`DELETE FROM order_events WHERE event_id = ${concert.eventId}`);
    expect((await differenceFromDefinition())!.missing).toBeGreaterThan(0);
    const [added] = await queryRows<{ n: string | number }>(t.ctx.db, sql`SELECT order_events_backfill() AS n`);
    const [after] = await queryRows<{ n: number }>(t.ctx.db, sql`SELECT count(*)::int AS n FROM order_events`);
    expect(after!.n).toBe(before!.n);
    expect(Number(added!.n)).toBeGreaterThan(0);
    expect(await differenceFromDefinition()).toEqual({ missing: 0, extra: 0 });
    const [again] = await queryRows<{ n: string | number }>(t.ctx.db, sql`SELECT order_events_backfill() AS n`);
    expect(Number(again!.n)).toBe(0);
  });
});

describe('the event filter selects what an EXISTS over each order\'s items selects', () => {
  it('for every combination of the demo events, rows and order as the reference query', async () => {
    const events = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM events ORDER BY id`);
    const ids = events.map((e) => e.id);
    const combos = [...ids.map((id) => [id]), ids, ids.slice(0, 2)];
    for (const combo of combos) {
      const expected = await queryRows<{ reference: string; type: string; status: string }>(
        t.ctx.db,
        sql`SELECT o.reference, o.type, o.status FROM orders o
            WHERE o.channel_id = ${channelId} AND o.status IN ('completed', 'cancelled')
              AND EXISTS (SELECT 1 FROM order_items i WHERE i.order_id = COALESCE(o.refunded_order_id, o.id)
                          AND i.event_id = ANY(${`{${combo.join(',')}}`}::int[]))
            ORDER BY o.created_at DESC, o.id DESC LIMIT 500`,
      );
      expect(await reportRefs(combo), `events ${combo}`).toEqual(expected.map((r) => `${r.reference} ${r.type} ${r.status}`));
    }
  });
});
