import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { bearer, buildTestApp, DEMO, expectRefused, tokenFor, type TestApp } from '../helpers.js';
import { buyer, confirmUrl, count, createPendingOrder, seatRows } from '../checkout/fixtures.js';
import { adminWithOrganiserB, api, apiAs } from './admin-helpers.js';

let t: TestApp;
let admin: ReturnType<typeof api>;
let promoterB: ReturnType<typeof api>;
let channelB = 0;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  t = await buildTestApp();
  let organiserB: number;
  ({ admin, organiserB } = await adminWithOrganiserB(t.ctx, t.app));
  promoterB = await apiAs(t, 'promoter-b@taquilla.test', organiserB);
  channelB = (await promoterB.get('/channels')).body.data[0].id;
  tokens.b = await tokenFor(t.app, DEMO.b.slug, DEMO.b.key);
}, 180_000);
afterAll(() => t.close());

/** A completed purchase on the demo channel demo-b (demo organiser). */
async function completedOrder(seats = 2) {
  const o = await createPendingOrder(t.ctx, { channel: DEMO.b.slug, seats });
  const res = await t.app.inject({ method: 'POST', url: confirmUrl(DEMO.b.slug, o.token), headers: bearer(tokens.b!), payload: { ...buyer, amount: o.total / 100 } });
  expect(res.statusCode).toBe(200);
  return o;
}

const channelId = async (slug: string) => (await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM sales_channels WHERE slug = ${slug}`))[0]!.id;
const auditFor = (action: string, target: string) =>
  queryRows<{ user_email: string; organiser_id: number | null; details: Record<string, unknown> }>(
    t.ctx.db,
    sql`SELECT user_email, organiser_id, details FROM audit_log WHERE action = ${action} AND target_id = ${target}`,
  );

describe('POST /api/admin/v1/orders/{reference}/refund', () => {
  it('releases the seats, voids the tickets, records a negative refund row and an audit entry', async () => {
    const o = await completedOrder(2);
    const res = await admin.post(`/orders/${o.reference}/refund`, { reason: 'Customer request' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ success: true, status: 201 });
    expect(res.body.data).toMatchObject({ refund_reference: `${o.reference}-R`, refunded_order_reference: o.reference, total_amount: -o.total / 100, released_seats: 2, voided_tickets: 2 });
    expect((await seatRows(t.ctx.db, o.sessionSeatIds)).map((s) => s.status)).toEqual(['available', 'available']);
    expect(await count(t.ctx.db, sql`SELECT count(*) AS n FROM tickets WHERE order_id = ${o.id} AND status = 'void'`)).toBe(2);
    const [refund] = await queryRows<{ type: string; total_amount: number; base_amount: number; reason: string; actor: string }>(
      t.ctx.db,
      sql`SELECT r.type, r.total_amount, r.base_amount, rr.reason, rr.actor FROM orders r JOIN order_refunds rr ON rr.refund_order_id = r.id
          WHERE r.refunded_order_id = ${o.id}`,
    );
    expect(refund).toMatchObject({ type: 'refund', total_amount: -o.total, reason: 'Customer request', actor: 'root@taquilla.test' });
    expect(refund!.base_amount).toBeLessThan(0);
    const audit = await auditFor('order.refund', o.reference);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ user_email: 'root@taquilla.test', organiser_id: 1, details: { reason: 'Customer request', refund_reference: `${o.reference}-R` } });
    // the promoter of the demo organiser reads it in its audit log
    const promoterA = await apiAs(t, 'promoter-a@taquilla.test', 1);
    expect((await promoterA.get('/audit-log')).body.data.some((e: { action: string; target_id: string }) => e.action === 'order.refund' && e.target_id === o.reference)).toBe(true);
  });

  it('a second refund is 409 and writes no second audit entry', async () => {
    const o = await completedOrder(1);
    expect((await admin.post(`/orders/${o.reference}/refund`, { reason: 'x' })).status).toBe(201);
    const again = await admin.post(`/orders/${o.reference}/refund`, { reason: 'x' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ success: false, code: 'order_already_refunded' });
    expect(await auditFor('order.refund', o.reference)).toHaveLength(1);
  });

  it("another organiser's order is 404 for a promoter, and nothing changes", async () => {
    const o = await completedOrder(1);
    expectRefused(await promoterB.post(`/orders/${o.reference}/refund`, { reason: 'x' }), 404, 'not_found');
    expect((await seatRows(t.ctx.db, o.sessionSeatIds))[0]!.status).toBe('sold');
    expect(await auditFor('order.refund', o.reference)).toHaveLength(0);
    expectRefused(await admin.post('/orders/TQ-NOPE/refund', { reason: 'x' }), 404, 'not_found');
  });

  it('422 with a blank reason (an absent one is allowed, D58: refund-money.test.ts); 401 without a token', async () => {
    const o = await completedOrder(1);
    for (const body of [{ reason: '' }, { reason: '   ' }]) {
      const res = await admin.post(`/orders/${o.reference}/refund`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.code).toBe('validation_failed');
    }
    expectRefused(await t.app.inject({ method: 'POST', url: `/api/admin/v1/orders/${o.reference}/refund`, payload: { reason: 'x' } }), 401, 'unauthenticated');
    expect((await seatRows(t.ctx.db, o.sessionSeatIds))[0]!.status).toBe('sold');
  });
});

describe('POST /api/admin/v1/channels/{channelId}/reservations', () => {
  async function freeSeats(n: number) {
    return queryRows<{ id: number; rate_id: number }>(
      t.ctx.db,
      sql`SELECT ss.id, (SELECT id FROM rates r WHERE r.session_id = ss.session_id ORDER BY sort_order, id LIMIT 1) AS rate_id
          FROM session_seats ss WHERE ss.status = 'available' AND ss.seat_id IS NOT NULL
            AND ss.session_id = (SELECT id FROM sessions ORDER BY start_datetime, id LIMIT 1)
          ORDER BY ss.id DESC LIMIT ${n}`,
    );
  }

  it('issues a completed order of type reservation with its seats sold and an audit entry', async () => {
    const seats = await freeSeats(2);
    const channel = await channelId(DEMO.b.slug);
    const res = await admin.post(`/channels/${channel}/reservations`, {
      items: seats.map((s) => ({ session_seat_id: s.id, rate_id: s.rate_id })),
      buyer: { name: 'Luis', surname: 'Pérez', email: 'luis@example.com' },
      lang: 'en',
    });
    expect(res.status).toBe(201);
    const data = res.body.data;
    expect(data.ticket_pdf_urls).toHaveLength(2);
    const [order] = await queryRows<{ type: string; status: string; channel_id: number; lang: string }>(
      t.ctx.db,
      sql`SELECT type, status, channel_id, lang FROM orders WHERE id = ${data.order_id}`,
    );
    expect(order).toEqual({ type: 'reservation', status: 'completed', channel_id: channel, lang: 'en' });
    expect((await seatRows(t.ctx.db, seats.map((s) => s.id))).every((s) => s.status === 'sold' && Number(s.order_id) === data.order_id)).toBe(true);
    const audit = await auditFor('order.reservation', data.reference);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ user_email: 'root@taquilla.test', organiser_id: 1, details: { channel_id: channel } });
    // and the admin API can refund it
    expect((await admin.post(`/orders/${data.reference}/refund`, { reason: 'cancelled' })).status).toBe(201);
  });

  it("a promoter cannot reserve on another organiser's channel (404); a taken seat is 409 with no audit entry", async () => {
    const [seat] = await freeSeats(1);
    const items = [{ session_seat_id: seat!.id, rate_id: seat!.rate_id }];
    const demoB = await channelId(DEMO.b.slug);
    expectRefused(await promoterB.post(`/channels/${demoB}/reservations`, { items, buyer }), 404, 'not_found');
    const held = await createPendingOrder(t.ctx, { channel: DEMO.b.slug });
    const taken = await admin.post(`/channels/${demoB}/reservations`, { items: [{ session_seat_id: held.sessionSeatIds[0], rate_id: seat!.rate_id }], buyer });
    expectRefused(taken, 409, 'seat_unavailable');
    expect((await seatRows(t.ctx.db, [seat!.id]))[0]!.status).toBe('available');
    // the demo seat is not on organiser B's channel
    expectRefused(await promoterB.post(`/channels/${channelB}/reservations`, { items, buyer }), 404, 'not_found');
  });

  it('422 for invalid bodies', async () => {
    const [seat] = await freeSeats(1);
    const demoB = await channelId(DEMO.b.slug);
    const item = { session_seat_id: seat!.id, rate_id: seat!.rate_id };
    const bodies = [
      {},
      { items: [], buyer },
      { items: [item], buyer: { name: 'A', surname: 'B' } },
      { items: [item], buyer: { ...buyer, email: 'not-an-email' } },
      { items: [{ session_seat_id: 'x', rate_id: 1 }], buyer },
      { items: [item], buyer, lang: 'english' },
      { items: [item, item], buyer },
    ];
    for (const body of bodies) {
      const res = await admin.post(`/channels/${demoB}/reservations`, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.code).toBe('validation_failed');
    }
    expect((await seatRows(t.ctx.db, [seat!.id]))[0]!.status).toBe('available');
  });

  it('both calls are in the OpenAPI document', async () => {
    const doc = (await t.app.inject({ url: '/api/openapi.json' })).json();
    expect(doc.paths['/api/admin/v1/orders/{reference}/refund'].post.tags).toEqual(['Admin: orders']);
    expect(doc.paths['/api/admin/v1/channels/{channelId}/reservations'].post.tags).toEqual(['Admin: orders']);
  });
});
