import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { processEmailQueue, type MailSender } from '../../src/modules/tickets/email-queue.service.js';
import type { TicketEmail } from '../../src/modules/tickets/tickets.email.js';
import { api, apiAs } from '../admin/admin-helpers.js';
import { bearer, buildTestApp, DEMO, isPostgres, serverTokenFor, tokenFor, type TestApp } from '../helpers.js';
import { postSandboxNotification, sandboxNotification } from '../portal/fixtures.js';
import { demoSession, itemsOf, orderUrl, ordersUrl, type DemoSession, type OrderJson } from './cart-helpers.js';

// The on-sale state (issue 28, D59 and D74): sales windows on every cart route of both interfaces
// (injected clock), 409 not_on_sale on cart writes, confirm and card completion once a session is
// closed, unpublished, started or cancelled; cancelling a session (live carts ended, channels told,
// refund: true refunds each order once); moving it (each holder e-mailed once); a channel's mode
// change revokes its tokens (401); expires_at keeps its milliseconds.

let t: TestApp;
let s0: DemoSession;
let s1: DemoSession;
let s2: DemoSession;
let admin: ReturnType<typeof api>;
let server: string;
const used = new Set<number>();
/** A free numbered seat of the session nobody in this file has used yet. */
const fresh = (s: DemoSession) => {
  const seat = s.seats.find((x) => !used.has(x.id))!;
  used.add(seat.id);
  return seat.id;
};

beforeAll(async () => {
  t = await buildTestApp({ poolSize: 30 });
  [s0, s1, s2] = [await demoSession(t, 0), await demoSession(t, 1), await demoSession(t, 2)];
  admin = await apiAs(t, 'onsale@taquilla.test');
  server = await serverTokenFor(t.app, DEMO.d.slug);
}, 180_000);
afterAll(() => t.close());

type Res = { status: number; body: { code?: string; data?: Record<string, unknown> & Partial<OrderJson> } };
const res = (r: { statusCode: number; json: () => unknown }): Res => ({ status: r.statusCode, body: r.json() as Res['body'] });
const b2b = async (method: 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
  res(await t.app.inject({ method, url, headers: bearer(server), ...(payload ? { payload } : {}) }));
const portalUrl = (suffix: string) => `/api/portal/${DEMO.a.slug}/en${suffix}`;
const portal = async (method: 'POST' | 'PUT' | 'DELETE', suffix: string, payload?: object) =>
  res(await t.app.inject({ method, url: portalUrl(suffix), ...(payload ? { payload } : {}) }));

const seat = (s: DemoSession) => ({ session_seat_id: fresh(s), rate_id: s.rates.general });
const buyer = (email = 'ana@example.com') => ({ name: 'Ana', surname: 'García', email });

/** A live cart with one seat of `s` on each interface. */
async function b2bCart(s: DemoSession) {
  const r = await b2b('POST', ordersUrl(DEMO.d.slug), seat(s));
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data as unknown as OrderJson;
}
async function portalCart(s: DemoSession) {
  const r = await portal('POST', '/orders', seat(s));
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data as unknown as OrderJson;
}
async function confirm(order: OrderJson, email = 'ana@example.com') {
  return b2b('POST', orderUrl(DEMO.d.slug, order.order_token, '/confirm'), { ...buyer(email), amount: order.total_amount });
}

/** Every cart write of both interfaces on session `s`, given a live cart of each holding a seat of `s`. */
function cartWrites(s: DemoSession, carts: { b2b: OrderJson; portal: OrderJson }) {
  const bItem = itemsOf(carts.b2b)[0]!.id;
  const pItem = itemsOf(carts.portal)[0]!.id;
  const b = (suffix: string) => orderUrl(DEMO.d.slug, carts.b2b.order_token, suffix);
  const p = (suffix: string) => `/orders/${carts.portal.order_token}${suffix}`;
  return [
    ['b2b create', () => b2b('POST', ordersUrl(DEMO.d.slug), seat(s))],
    ['b2b best-available', () => b2b('POST', `${ordersUrl(DEMO.d.slug)}/best-available`, { session_id: s.sessionId, quantity: 1 })],
    ['b2b best-available into the cart', () => b2b('POST', `${ordersUrl(DEMO.d.slug)}/best-available`, { session_id: s.sessionId, quantity: 1, order_token: carts.b2b.order_token })],
    ['b2b add', () => b2b('POST', b('/items'), seat(s))],
    ['b2b items-bulk', () => b2b('POST', b('/items-bulk'), { items: [seat(s)] })],
    ['b2b sector', () => b2b('POST', b('/items/sector'), { sector_id: s.zone.sectorId, rate_id: s.rates.general, quantity: 1 })],
    ['b2b change-rate', () => b2b('PUT', b('/items/change-rate'), { item_ids: [bItem], rate_id: s.rates.reduced })],
    ['b2b remove', () => b2b('DELETE', b(`/items/${bItem}`))],
    ['b2b voucher', () => b2b('POST', b('/apply-voucher'), { code: 'DEMO10' })],
    ['portal create', () => portal('POST', '/orders', seat(s))],
    ['portal best-available', () => portal('POST', '/orders/best-available', { session_id: s.sessionId, quantity: 1 })],
    ['portal add', () => portal('POST', p('/items'), seat(s))],
    ['portal sector', () => portal('POST', p('/items/sector'), { sector_id: s.zone.sectorId, rate_id: s.rates.general, quantity: 1 })],
    ['portal change-rate', () => portal('PUT', p('/items/change-rate'), { item_ids: [pItem], rate_id: s.rates.reduced })],
    ['portal remove', () => portal('DELETE', p(`/items/${pItem}`))],
    ['portal voucher', () => portal('POST', p('/apply-voucher'), { code: 'DEMO10' })],
    ['confirm', () => confirm(carts.b2b)],
  ] as const;
}

async function expectAllNotOnSale(writes: readonly (readonly [string, () => Promise<Res>])[], window?: { sales_start_at: string | null; sales_end_at: string | null }) {
  for (const [name, call] of writes) {
    const r = await call();
    expect({ name, status: r.status, code: r.body.code }).toEqual({ name, status: 409, code: 'not_on_sale' });
    if (window) expect(r.body.data).toMatchObject(window);
  }
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+00:00');

describe('sales windows (D59)', () => {
  it('every cart route of both interfaces: 409 not_on_sale with the window before and after it, sold inside; catalogue sale_state follows', async () => {
    const start = Math.ceil(t.clock.now().getTime() / 1000) * 1000 + 10 * 60_000;
    const window = { sales_start_at: iso(start), sales_end_at: iso(start + 10 * 60_000) };
    const patched = await admin.patch(`/sessions/${s0.sessionId}`, window);
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.data).toMatchObject(window);
    const catalogue = async () => {
      const token = await tokenFor(t.app, DEMO.d.slug);
      const r = await t.app.inject({ url: `/api/sales-channel/v1/${DEMO.d.slug}/en/events/${s0.eventId}/sessions/${s0.sessionId}`, headers: bearer(token) });
      const list = await t.app.inject({ url: `/api/sales-channel/v1/${DEMO.d.slug}/en/events`, headers: bearer(token) });
      const listed = (list.json().data as { sessions: { id: number; sale_state: string }[] }[]).flatMap((e) => e.sessions).find((x) => x.id === s0.sessionId);
      return { detail: r.json().data.session, listed };
    };
    try {
      // Before: no cart of the session can be made; a cart of another session cannot take its seats.
      expect((await catalogue()).detail).toMatchObject({ ...window, sale_state: 'scheduled' });
      expect((await catalogue()).listed).toMatchObject({ ...window, sale_state: 'scheduled' });
      const other = { b2b: await b2bCart(s1), portal: await portalCart(s1) };
      const before = cartWrites(s0, other).filter(([name]) => /create|add|bulk|sector/.test(name));
      await expectAllNotOnSale(before, window);

      // Inside (from sales_start_at inclusive): every write works.
      t.clock.set(new Date(start));
      expect((await catalogue()).detail).toMatchObject({ sale_state: 'on_sale' });
      const carts = { b2b: await b2bCart(s0), portal: await portalCart(s0) };
      const extra = await b2b('POST', orderUrl(DEMO.d.slug, carts.b2b.order_token, '/items'), seat(s0));
      expect(extra.status).toBe(200);
      const sector = await portal('POST', `/orders/${carts.portal.order_token}/items/sector`, { sector_id: s0.zone.sectorId, rate_id: s0.rates.general, quantity: 1 });
      expect(sector.status).toBe(200);

      // After (sales_end_at exclusive): every write of both interfaces, and confirm, is refused.
      t.clock.set(new Date(start + 10 * 60_000));
      expect((await catalogue()).detail).toMatchObject({ sale_state: 'ended' });
      await expectAllNotOnSale(cartWrites(s0, carts), window);
      // Deleting the cart stays possible.
      expect((await b2b('DELETE', orderUrl(DEMO.d.slug, carts.b2b.order_token))).status).toBe(200);
    } finally {
      t.clock.set(new Date(start - 10 * 60_000));
      await admin.patch(`/sessions/${s0.sessionId}`, { sales_start_at: null, sales_end_at: null });
    }
  });

  it('admin API: the end must be after the start (422)', async () => {
    const r = await admin.patch(`/sessions/${s0.sessionId}`, { sales_start_at: '2030-01-02T10:00:00Z', sales_end_at: '2030-01-01T10:00:00Z' });
    expect(r.status).toBe(422);
    expect((r.body as { errors?: object }).errors).toHaveProperty('sales_end_at');
  });
});

describe('only on sale is sold (D74)', () => {
  const states: [string, () => Promise<void>, () => Promise<void>][] = [
    ['closed', async () => void (await admin.patch(`/sessions/${s0.sessionId}`, { status: 'closed' })), async () => void (await admin.patch(`/sessions/${s0.sessionId}`, { status: 'on_sale' }))],
    ['unpublished', async () => void (await admin.patch(`/events/${s0.eventId}`, { status: 'draft' })), async () => void (await admin.patch(`/events/${s0.eventId}`, { status: 'published' }))],
  ];
  for (const [state, change, restore] of states) {
    it(`a ${state} session: every cart write and confirm answer 409 not_on_sale`, async () => {
      const carts = { b2b: await b2bCart(s0), portal: await portalCart(s0) };
      await change();
      try {
        await expectAllNotOnSale(cartWrites(s0, carts));
      } finally {
        await restore();
      }
      // On sale again: the same cart confirms.
      expect((await confirm(carts.b2b)).status).toBe(200);
    });
  }

  it('a started session (start time past): cart writes and confirm answer 409 not_on_sale', async () => {
    const carts = { b2b: await b2bCart(s0), portal: await portalCart(s0) };
    const before = (await admin.get(`/sessions/${s0.sessionId}`)).body.data.start_datetime as string;
    const soon = new Date(t.clock.now().getTime() + 60_000).toISOString();
    expect((await admin.patch(`/sessions/${s0.sessionId}`, { start_datetime: soon })).status).toBe(200);
    t.clock.advance(61_000);
    try {
      await expectAllNotOnSale(cartWrites(s0, carts));
    } finally {
      t.clock.advance(-61_000);
      await admin.patch(`/sessions/${s0.sessionId}`, { start_datetime: before });
    }
  });

  it('a card payment completing on a closed session issues no ticket', async () => {
    const cart = await portalCart(s0);
    const checkout = await t.app.inject({ method: 'POST', url: portalUrl('/checkout'), payload: { order_token: cart.order_token, ...buyer() } });
    expect(checkout.statusCode, checkout.body).toBe(200);
    const paymentId = checkout.json().data.payment_id as string;
    await admin.patch(`/sessions/${s0.sessionId}`, { status: 'closed' });
    try {
      await postSandboxNotification(t, sandboxNotification(t, paymentId, 'succeeded', Math.round(cart.total_amount * 100)));
      const [row] = await queryRows<{ status: string; tickets: number }>(
        t.ctx.db,
        sql`SELECT o.status, (SELECT count(*)::int FROM tickets WHERE order_id = o.id) AS tickets FROM orders o WHERE o.order_token = ${cart.order_token}`,
      );
      expect(row).toEqual({ status: 'pending', tickets: 0 });
    } finally {
      await admin.patch(`/sessions/${s0.sessionId}`, { status: 'on_sale' });
    }
  });
});

const sent: TicketEmail[] = [];
const sender: MailSender = { describe: 'test', send: async (m) => void sent.push(m) };

describe('moving and cancelling a session (D74)', () => {
  it('a move e-mails each ticket holder once (in their language) and tells the channels; the same start again sends nothing', async () => {
    const [channel] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM sales_channels WHERE slug = ${DEMO.d.slug}`);
    const hook = await admin.post(`/channels/${channel!.id}/webhooks`, { url: 'http://127.0.0.1:9/hook', event_types: ['session.changed', 'session.cancelled', 'order.cancelled'] });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    for (const email of ['holder1@example.com', 'holder1@example.com', 'holder2@example.com']) {
      expect((await confirm(await b2bCart(s2), email)).status).toBe(200);
    }
    await processEmailQueue(t.ctx, { sender });
    sent.length = 0;
    const before = (await admin.get(`/sessions/${s2.sessionId}`)).body.data.start_datetime as string;
    const later = new Date(new Date(before).getTime() + 2 * 3600_000).toISOString();
    expect((await admin.patch(`/sessions/${s2.sessionId}`, { start_datetime: later })).status).toBe(200);
    expect((await admin.patch(`/sessions/${s2.sessionId}`, { start_datetime: later })).status).toBe(200);
    await processEmailQueue(t.ctx, { sender });
    await processEmailQueue(t.ctx, { sender });
    expect(sent.map((m) => m.to).sort()).toEqual(['holder1@example.com', 'holder2@example.com']);
    expect(sent[0]!.text).toContain('Now:');
    // Built like every buyer e-mail (email-layout envelopeOf): the outbox row's Message-ID, the
    // sender, and a whole HTML document in the holder's language.
    const keys = await queryRows<{ recipient: string; message_key: string }>(t.ctx.db, sql`SELECT recipient, message_key FROM email_outbox WHERE kind = 'session_changed'`);
    const domain = /@([^>]+)>?$/.exec(t.config.mailFrom)![1];
    for (const m of sent) {
      expect(m.messageId).toBe(`<${keys.find((k) => k.recipient === m.to)!.message_key}@${domain}>`);
      expect(m.from).toBe(t.config.mailFrom);
      expect(m.html).toMatch(/^<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"\/>/);
      expect(m.html).toContain('<strong>Now: ');
    }
    const events = await queryRows<{ type: string; data: { session: { id: number; start_datetime: string; previous_start_datetime: string } } | string }>(
      t.ctx.db,
      sql`SELECT type, data FROM webhook_events WHERE type = 'session.changed'`,
    );
    expect(events).toHaveLength(1);
    const data = typeof events[0]!.data === 'string' ? JSON.parse(events[0]!.data) : events[0]!.data;
    expect(data.session).toMatchObject({ id: s2.sessionId, previous_start_datetime: before });
  });

  it('cancelling with refund: live carts end at once (order.cancelled), every completed order is refunded once, channels get session.cancelled; cart writes and confirm then answer 409', async () => {
    const paid = [await b2bCart(s1), await b2bCart(s1)];
    for (const [i, order] of paid.entries()) expect((await confirm(order, `buyer${i}@example.com`)).status).toBe(200);
    // A model B order: the service sends its tickets, so its buyer gets the refund e-mail (D58).
    const serverB = await serverTokenFor(t.app, DEMO.b.slug);
    // Model B builds its cart on the portal and confirms from the channel's server.
    const cartB = await t.app.inject({ method: 'POST', url: `/api/portal/${DEMO.b.slug}/en/orders`, payload: seat(s1) });
    expect(cartB.statusCode, cartB.body).toBe(201);
    const orderB = cartB.json().data as OrderJson;
    const confirmB = await t.app.inject({
      method: 'POST',
      url: orderUrl(DEMO.b.slug, orderB.order_token, '/confirm'),
      headers: bearer(serverB),
      payload: { ...buyer('model-b@example.com'), amount: orderB.total_amount },
    });
    expect(confirmB.statusCode, confirmB.body).toBe(200);
    const refundMails = async () =>
      (await queryRows<{ recipient: string }>(t.ctx.db, sql`SELECT recipient FROM email_outbox WHERE kind = 'refund' ORDER BY id`)).map((r) => r.recipient);
    expect(await refundMails()).toEqual([]);
    const carts = { b2b: await b2bCart(s1), portal: await portalCart(s1) };
    const liveCarts = async (channel?: string) => {
      const [row] = await queryRows<{ n: number }>(
        t.ctx.db,
        sql`SELECT count(*)::int AS n FROM orders o JOIN sales_channels c ON c.id = o.channel_id
            WHERE o.status = 'pending' AND o.expires_at > ${t.clock.now()} AND (${channel ?? null}::text IS NULL OR c.slug = ${channel ?? null})
              AND EXISTS (SELECT 1 FROM order_items i WHERE i.order_id = o.id AND i.session_id = ${s1.sessionId})`,
      );
      return row!.n;
    };
    const [live, liveOfD] = [await liveCarts(), await liveCarts(DEMO.d.slug)];
    expect(live).toBeGreaterThanOrEqual(2);
    const cancelled = await admin.post(`/sessions/${s1.sessionId}/cancel`, { refund: true });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(cancelled.body.data).toMatchObject({ status: 'cancelled', newly_cancelled: true, cancelled_carts: live, refunded_orders: 3 });
    expect(await liveCarts()).toBe(0);
    const again = await admin.post(`/sessions/${s1.sessionId}/cancel`, { refund: true });
    expect(again.body.data).toMatchObject({ newly_cancelled: false, cancelled_carts: 0, refunded_orders: 0 });
    // Each buyer whose tickets the service sent is e-mailed once (model D buyers are the channel's to tell).
    expect(await refundMails()).toEqual(['model-b@example.com']);

    const statuses = await queryRows<{ order_token: string; status: string; refunds: number }>(
      t.ctx.db,
      sql`SELECT o.order_token, o.status, (SELECT count(*)::int FROM orders r WHERE r.refunded_order_id = o.id) AS refunds
          FROM orders o WHERE o.order_token IN (${sql.join([...paid, carts.b2b, carts.portal].map((o) => sql`${o.order_token}`), sql`, `)})`,
    );
    const byToken = new Map(statuses.map((r) => [r.order_token, r]));
    for (const o of paid) expect(byToken.get(o.order_token)).toMatchObject({ status: 'completed', refunds: 1 });
    expect(byToken.get(carts.b2b.order_token)!.status).toBe('cancelled');
    expect(byToken.get(carts.portal.order_token)!.status).toBe('cancelled');
    const held = await queryRows<{ n: number }>(t.ctx.db, sql`SELECT count(*)::int AS n FROM session_seats WHERE session_id = ${s1.sessionId} AND status = 'held'`);
    expect(held[0]!.n).toBe(0);
    const events = await queryRows<{ type: string; n: number }>(
      t.ctx.db,
      sql`SELECT type, count(*)::int AS n FROM webhook_events WHERE type IN ('session.cancelled', 'order.cancelled') GROUP BY type ORDER BY type`,
    );
    expect(events).toEqual([
      { type: 'order.cancelled', n: liveOfD },
      { type: 'session.cancelled', n: 1 },
    ]);
    // Nothing of a cancelled session is sold any more (a new cart, confirm of a cart made before).
    expect((await b2b('POST', ordersUrl(DEMO.d.slug), seat(s1))).body.code).toBe('not_on_sale');
    expect((await portal('POST', '/orders', seat(s1))).body.code).toBe('not_on_sale');
  });
});

describe('tokens and time', () => {
  it("a channel's mode change revokes its tokens: the old token answers 401, not 403 (D42)", async () => {
    const [channel] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM sales_channels WHERE slug = ${DEMO.c.slug}`);
    const token = await tokenFor(t.app, DEMO.c.slug);
    const config = () => t.app.inject({ url: `/api/sales-channel/v1/${DEMO.c.slug}/config`, headers: bearer(token) });
    expect((await config()).statusCode).toBe(200);
    expect((await admin.patch(`/channels/${channel!.id}`, { integration_mode: 'widget_external_payment' })).status).toBe(200);
    try {
      const after = await config();
      expect(after.statusCode).toBe(401);
      expect(after.json().code).toBe('invalid_token');
    } finally {
      await admin.patch(`/channels/${channel!.id}`, { integration_mode: 'widget_platform_payment' });
    }
  });

  it('expires_at keeps its milliseconds (a cart of N seconds lasts N seconds, not up to one less)', async () => {
    t.clock.advance(240 - (t.clock.now().getTime() % 1000) + 1000);
    const now = t.clock.now().getTime();
    const order = await b2bCart(s0);
    expect(order.expires_at).toMatch(/\.\d{3}\+00:00$/);
    expect(Date.parse(order.expires_at!)).toBe(now + t.config.cartTtlSeconds * 1000);
    const portalOrder = await portalCart(s0);
    expect(Date.parse(portalOrder.expires_at!) % 1000).toBe(240);
  });
});

describe('PATCH /sessions/{id} with status cancelled (D74)', () => {
  it('a cancelled or closed session reads as ended (D59 sale_state) in the session detail and both live maps, whatever its window', async () => {
    const at = t.clock.now().getTime();
    const made = await admin.post(`/events/${s0.eventId}/sessions`, { start_datetime: new Date(at + 41 * 86_400_000).toISOString(), status: 'on_sale' });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const id = made.body.data.id as number;
    const token = await tokenFor(t.app, DEMO.d.slug);
    const states = async () => {
      const read = async (url: string, headers: Record<string, string> = {}) => {
        const r = await t.app.inject({ url, headers });
        expect(r.statusCode, r.body).toBe(200);
        return r.json().data;
      };
      const b2bBase = `/api/sales-channel/v1/${DEMO.d.slug}/en/events/${s0.eventId}/sessions/${id}`;
      return [
        (await read(b2bBase, bearer(token))).session.sale_state,
        (await read(`${b2bBase}/availability`, bearer(token))).sale_state,
        (await read(portalUrl(`/events/${s0.eventId}/sessions/${id}/availability`))).sale_state,
      ];
    };
    expect(await states()).toEqual(['on_sale', 'on_sale', 'on_sale']);
    // Closed without a window (it would read on_sale), then with a window still to come (scheduled).
    expect((await admin.patch(`/sessions/${id}`, { status: 'closed' })).status).toBe(200);
    expect(await states()).toEqual(['ended', 'ended', 'ended']);
    const window = { sales_start_at: iso(at + 86_400_000), sales_end_at: iso(at + 2 * 86_400_000) };
    expect((await admin.patch(`/sessions/${id}`, { status: 'on_sale', ...window })).status).toBe(200);
    expect(await states()).toEqual(['scheduled', 'scheduled', 'scheduled']);
    const cancelled = await admin.post(`/sessions/${id}/cancel`, { refund: false });
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(await states()).toEqual(['ended', 'ended', 'ended']);
  });

  it('cancels as POST .../cancel does without refunds: live carts end, sold tickets kept, channels told, the other fields saved', async () => {
    const made = await admin.post(`/events/${s0.eventId}/sessions`, { start_datetime: new Date(t.clock.now().getTime() + 40 * 86_400_000).toISOString(), status: 'on_sale' });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const id = made.body.data.id as number;
    const rate = await admin.post(`/sessions/${id}/rates`, { name: 'General', price: 20 });
    expect(rate.status, JSON.stringify(rate.body)).toBe(201);
    const seats = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM session_seats WHERE session_id = ${id} AND seat_id IS NOT NULL ORDER BY id LIMIT 2`);
    const sold = await b2b('POST', ordersUrl(DEMO.d.slug), { session_seat_id: seats[0]!.id, rate_id: rate.body.data.id });
    expect(sold.status, JSON.stringify(sold.body)).toBe(201);
    await confirm(sold.body.data as OrderJson);
    const cart = await b2b('POST', ordersUrl(DEMO.d.slug), { session_seat_id: seats[1]!.id, rate_id: rate.body.data.id });
    expect(cart.status, JSON.stringify(cart.body)).toBe(201);

    const patched = await admin.patch(`/sessions/${id}`, { status: 'cancelled', max_tickets_per_buyer: 4 });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.data).toMatchObject({ status: 'cancelled', max_tickets_per_buyer: 4 });
    const orders = await queryRows<{ order_token: string; status: string }>(
      t.ctx.db,
      sql`SELECT order_token, status FROM orders WHERE order_token IN (${(sold.body.data as OrderJson).order_token}, ${(cart.body.data as OrderJson).order_token})`,
    );
    expect(Object.fromEntries(orders.map((o) => [o.order_token, o.status]))).toEqual({
      [(sold.body.data as OrderJson).order_token]: 'completed',
      [(cart.body.data as OrderJson).order_token]: 'cancelled',
    });
    // The cancellation's record, from which buyers and channels are told (session.cancelled).
    const changes = async () => queryRows<{ kind: string; refund: boolean }>(t.ctx.db, sql`SELECT kind, refund FROM session_changes WHERE session_id = ${id}`);
    expect(await changes()).toEqual([{ kind: 'cancelled', refund: false }]);
    // Again: nothing more happens.
    expect((await admin.patch(`/sessions/${id}`, { status: 'cancelled' })).status).toBe(200);
    expect(await changes()).toHaveLength(1);
  });
});

describe.skipIf(!isPostgres)('a cancellation racing confirms (PostgreSQL)', () => {
  it('no ticket is issued after the cancellation commits: each confirm either completed before it or answers 409', async () => {
    const carts = await Promise.all(Array.from({ length: 12 }, () => b2bCart(s0)));
    const cancel = admin.post(`/sessions/${s0.sessionId}/cancel`, { refund: false });
    const confirms = carts.map((c) => confirm(c));
    const [cancelled, ...results] = await Promise.all([cancel, ...confirms]);
    expect(cancelled.status).toBe(200);
    for (const r of results) expect([200, 409]).toContain(r.status);
    const completed = results.filter((r) => r.status === 200).length;
    const [row] = await queryRows<{ completed: number; tickets: number; live: number; cancelled_at: Date | string }>(
      t.ctx.db,
      sql`SELECT (SELECT count(*)::int FROM orders WHERE order_token IN (${sql.join(carts.map((c) => sql`${c.order_token}`), sql`, `)}) AND status = 'completed') AS completed,
                 (SELECT count(*)::int FROM tickets tk JOIN orders o ON o.id = tk.order_id
                   WHERE o.order_token IN (${sql.join(carts.map((c) => sql`${c.order_token}`), sql`, `)})) AS tickets,
                 (SELECT count(*)::int FROM orders WHERE order_token IN (${sql.join(carts.map((c) => sql`${c.order_token}`), sql`, `)}) AND status = 'pending') AS live,
                 (SELECT cancelled_at FROM sessions WHERE id = ${s0.sessionId}) AS cancelled_at`,
    );
    expect(row!.completed).toBe(completed);
    expect(row!.tickets).toBe(completed);
    expect(row!.live).toBe(0);
    // Every ticket was issued no later than the cancellation (its clock), and none comes after.
    const late = await confirm(carts[0]!);
    expect([200, 409]).toContain(late.status);
    const [tickets] = await queryRows<{ n: number }>(t.ctx.db, sql`SELECT count(*)::int AS n FROM tickets tk JOIN order_items i ON i.id = tk.order_item_id WHERE i.session_id = ${s0.sessionId}`);
    expect(tickets!.n).toBeGreaterThanOrEqual(completed);
  });
});
