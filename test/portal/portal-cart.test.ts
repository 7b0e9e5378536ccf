import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { buildTestApp, DEMO, type TestApp } from '../helpers.js';

let t: TestApp;
let seats: number[];
let zone: number;
let rate: number;
beforeAll(async () => {
  t = await buildTestApp();
  const [session] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM sessions ORDER BY id LIMIT 1`);
  seats = (
    await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM session_seats WHERE session_id = ${session!.id} AND seat_id IS NOT NULL ORDER BY id LIMIT 10`)
  ).map((r) => r.id);
  const [z] = await queryRows<{ sector_id: number }>(
    t.ctx.db,
    sql`SELECT DISTINCT sector_id FROM session_seats WHERE session_id = ${session!.id} AND seat_id IS NULL`,
  );
  zone = z!.sector_id;
  const [r] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM rates WHERE session_id = ${session!.id} ORDER BY sort_order, id LIMIT 1`);
  rate = r!.id;
}, 120_000);
afterAll(() => t.close());

const url = (slug: string, path: string, lang = 'es') => `/api/portal/${slug}/${lang}${path}`;

describe('public storefront cart (/api/portal/{slug}/{lang}/orders...)', () => {
  it('model A builds a cart without a token: seat, zone places, voucher, removal', async () => {
    const created = await t.app.inject({ method: 'POST', url: url(DEMO.a.slug, '/orders'), payload: { session_seat_id: seats[0], rate_id: rate } });
    expect(created.statusCode).toBe(201);
    const order = created.json().data;
    expect(order).toMatchObject({ status: 'pending', events: [{ sessions: [{ items: [{ session_seat_id: seats[0] }] }] }] });
    const token = order.order_token as string;

    const zoneRes = await t.app.inject({ method: 'POST', url: url(DEMO.a.slug, `/orders/${token}/items/sector`), payload: { sector_id: zone, rate_id: rate, quantity: 2 } });
    expect(zoneRes.statusCode).toBe(200);
    const voucher = await t.app.inject({ method: 'POST', url: url(DEMO.a.slug, `/orders/${token}/apply-voucher`), payload: { code: 'demo10' } });
    expect(voucher.statusCode).toBe(200);
    expect(voucher.json().data.discount_amount).toBeLessThan(0);
    const itemId = voucher.json().data.events[0].sessions[0].items[0].id;
    const removed = await t.app.inject({ method: 'DELETE', url: url(DEMO.a.slug, `/orders/${token}/items/${itemId}`) });
    expect(removed.statusCode).toBe(200);
    const read = await t.app.inject({ url: url(DEMO.a.slug, `/orders/${token}`) });
    expect(read.json().data.events[0].sessions[0].items).toHaveLength(2);
  });

  it('model B starts a cart with places of an unnumbered zone', async () => {
    const res = await t.app.inject({ method: 'POST', url: url(DEMO.b.slug, '/orders', 'en'), payload: { sector_id: zone, rate_id: rate, quantity: 3 } });
    expect(res.statusCode).toBe(201);
    const items = res.json().data.events[0].sessions[0].items;
    expect(items).toHaveLength(3);
    expect(items.every((i: { sector_id: number; row: string | null }) => i.sector_id === zone && i.row === null)).toBe(true);
  });

  it('models C and D are refused (their carts are built by the widget): 403', async () => {
    for (const slug of [DEMO.c.slug, DEMO.d.slug]) {
      const res = await t.app.inject({ method: 'POST', url: url(slug, '/orders'), payload: { session_seat_id: seats[5], rate_id: rate } });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ status: 403, success: false, code: 'forbidden_for_integration_mode' });
    }
  });

  it("an unknown channel is 404; another channel's cart is 404 through this channel's path, word for word as an unknown one (D5)", async () => {
    const unknown = await t.app.inject({ method: 'POST', url: url('nobody', '/orders'), payload: { session_seat_id: seats[6], rate_id: rate } });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ status: 404, success: false, code: 'not_found' });
    const created = await t.app.inject({ method: 'POST', url: url(DEMO.b.slug, '/orders'), payload: { session_seat_id: seats[7], rate_id: rate } });
    const token = created.json().data.order_token;
    const nobodys = crypto.randomUUID();
    const requests = (orderToken: string) => [
      { method: 'GET' as const, url: url(DEMO.a.slug, `/orders/${orderToken}`) },
      { method: 'POST' as const, url: url(DEMO.a.slug, `/orders/${orderToken}/items`), payload: { session_seat_id: seats[8], rate_id: rate } },
      { method: 'DELETE' as const, url: url(DEMO.a.slug, `/orders/${orderToken}`) },
    ];
    const unknownOrders = requests(nobodys);
    for (const [i, req] of requests(token).entries()) {
      const foreign = await t.app.inject(req);
      const missing = await t.app.inject(unknownOrders[i]!);
      expect(foreign.statusCode).toBe(404);
      expect(foreign.json()).toMatchObject({ status: 404, success: false, code: 'not_found' });
      // Nothing in the answer tells that the order exists at another channel.
      expect(foreign.json()).toEqual(missing.json());
    }
    // And the order was left alone: still pending, its seat still held by demo-b's cart.
    const own = await t.app.inject({ url: url(DEMO.b.slug, `/orders/${token}`) });
    expect(own.json().data).toMatchObject({ status: 'pending' });
    expect(own.json().data.events[0].sessions[0].items).toHaveLength(1);
  });

  it('a seat already held is 409 naming the seat', async () => {
    const first = await t.app.inject({ method: 'POST', url: url(DEMO.a.slug, '/orders'), payload: { session_seat_id: seats[1], rate_id: rate } });
    expect(first.statusCode).toBe(201);
    const res = await t.app.inject({ method: 'POST', url: url(DEMO.b.slug, '/orders'), payload: { session_seat_id: seats[1], rate_id: rate } });
    expect(res.statusCode).toBe(409);
    // D18: the message names the seat.
    expect(res.json()).toMatchObject({ status: 409, success: false, code: 'seat_unavailable', message: expect.stringMatching(/^El asiento .+, fila .+, número .+ ya no está disponible/) });
  });

  it('the portal chooses the order token: a caller-supplied one is refused, not dropped silently (D56)', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: url(DEMO.a.slug, '/orders'),
      payload: { session_seat_id: seats[9], rate_id: rate, order_token: 'mine-12345678' },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toHaveProperty('order_token');
    const made = await t.app.inject({ method: 'POST', url: url(DEMO.a.slug, '/orders'), payload: { session_seat_id: seats[9], rate_id: rate } });
    expect(made.statusCode).toBe(201);
    expect(made.json().data.order_token).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a seat and a zone together, or neither, is 422', async () => {
    for (const payload of [{ rate_id: rate }, { session_seat_id: seats[4], sector_id: zone, quantity: 1, rate_id: rate }]) {
      const res = await t.app.inject({ method: 'POST', url: url(DEMO.a.slug, '/orders'), payload });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toMatchObject({ status: 422, success: false, code: 'validation_failed', message: 'Revisa los datos marcados.' });
      expect(res.json().errors).toHaveProperty('session_seat_id');
    }
  });
});

describe('portal pages', () => {
  it('serve the storefront of A and B in Spanish and English, not of C or D, and not in other languages', async () => {
    const es = await t.app.inject({ url: '/demo-a/es/events' });
    expect(es.statusCode).toBe(200);
    expect(es.headers['content-type']).toContain('text/html');
    expect(es.body).toContain('<html lang="es">');
    expect(es.body).toContain('Concierto de Año Nuevo');
    const en = await t.app.inject({ url: '/demo-b/en/events' });
    expect(en.body).toContain(">New Year's Concert</a>");
    for (const path of ['/demo-c/es/events', '/demo-d/en/events', '/demo-a/fr/events', '/nobody/es/events']) {
      expect((await t.app.inject({ url: path })).statusCode).toBe(404);
    }
  });

  it('the checkout page serves A, B and C but not D, and only for an order of the channel', async () => {
    const created = await t.app.inject({ method: 'POST', url: url(DEMO.a.slug, '/orders'), payload: { session_seat_id: seats[3], rate_id: rate } });
    const token = created.json().data.order_token;
    expect((await t.app.inject({ url: `/demo-a/es/checkout?order_token=${token}` })).statusCode).toBe(200);
    expect((await t.app.inject({ url: `/demo-b/es/checkout?order_token=${token}` })).statusCode).toBe(404);
    expect((await t.app.inject({ url: `/demo-d/es/checkout?order_token=${token}` })).statusCode).toBe(404);
    // Once the hold has expired the page says so instead of offering to pay.
    t.clock.advance(16 * 60_000);
    const expired = await t.app.inject({ url: `/demo-a/en/checkout?order_token=${token}` });
    expect(expired.statusCode).toBe(200);
    expect(expired.body).toContain('Your hold has expired');
    expect(expired.body).not.toContain('id="checkout-form"');
  });
});
