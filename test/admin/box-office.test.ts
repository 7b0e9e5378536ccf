import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { processEmailQueue } from '../../src/modules/tickets/email-queue.service.js';
import { bearer, buildTestApp, DEMO, tokenFor, type TestApp } from '../helpers.js';
import { buyer, confirmUrl, count, createPendingOrder, seatRows } from '../checkout/fixtures.js';
import { freePort, SmtpPeer } from '../smtp-peer.js';
import { account, api, otherOrganiserDocument } from './admin-helpers.js';
import { DashboardClient } from './dashboard-client.js';

// The box office (issue 16 part 6): order search by reference, e-mail and name; the order page
// with buyer, items, payments and history; resend tickets (one more e-mail through the queue to a
// real SMTP peer) and refund on the order page only; the same through the admin API.

let t: TestApp;
let peer: SmtpPeer;
let widgetToken = '';
let rootToken = '';

beforeAll(async () => {
  peer = new SmtpPeer(await freePort());
  await peer.start();
  t = await buildTestApp({ env: { SMTP_URL: `smtp://127.0.0.1:${peer.port}`, MAIL_FROM: 'Box Office <tickets@taquilla.test>' } });
  rootToken = (await account(t.ctx, 'root@taquilla.test')).token;
  expect((await api(t.app, rootToken).post('/catalogue/import', otherOrganiserDocument)).status).toBe(201);
  const [org] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM organisers WHERE name = 'Producciones B'`);
  await account(t.ctx, 'promoter-b@taquilla.test', org!.id);
  widgetToken = await tokenFor(t.app, DEMO.b.slug, DEMO.b.key);
}, 180_000);
afterAll(async () => {
  await t.close();
  await peer.stop();
});

let serial = 0;
async function completedOrder() {
  const who = { ...buyer, name: 'Lucía', surname: `Box${++serial}`, email: `lucia.box${serial}@example.org` };
  const o = await createPendingOrder(t.ctx, { channel: DEMO.b.slug, seats: 1 });
  const res = await t.app.inject({ method: 'POST', url: confirmUrl(DEMO.b.slug, o.token), headers: bearer(widgetToken), payload: { ...who, amount: o.total / 100 } });
  expect(res.statusCode).toBe(200);
  // the confirmation's own e-mail goes out first, so that each test counts only its own
  await processEmailQueue(t.ctx);
  return { ...o, who };
}

async function signedIn(email = 'root@taquilla.test') {
  const client = new DashboardClient(t.app);
  expect((await client.login(email)).statusCode).toBe(303);
  return client;
}

describe('box office in the dashboard', () => {
  it('finds an order by e-mail, name and reference; the list shows buyers and carries no refund form', async () => {
    const o = await completedOrder();
    const other = await completedOrder();
    const client = await signedIn();
    for (const q of [o.who.email.toUpperCase(), `lucía ${o.who.surname.toLowerCase()}`, o.reference, o.reference.toLowerCase()]) {
      const res = await client.get(`/admin/orders?q=${encodeURIComponent(q)}`);
      expect(res.statusCode, q).toBe(200);
      expect(res.body, q).toContain(`href="/admin/orders/${o.reference}"`);
      expect(res.body, q).not.toContain(other.reference);
    }
    // LIKE's wildcards are literal text: "%" finds nothing
    expect((await client.get('/admin/orders?q=%25')).body).not.toContain(o.reference);
    const all = await client.get('/admin/orders');
    expect(all.body).toContain(o.who.email);
    expect(all.body).not.toContain('/refund"');
  });

  it('shows the order page with buyer, items, tickets and history; resend sends one more e-mail per click, audited', async () => {
    const o = await completedOrder();
    const client = await signedIn();
    const page = await client.get(`/admin/orders/${o.reference}`);
    expect(page.statusCode).toBe(200);
    for (const text of [o.who.email, `Lucía ${o.who.surname}`, 'Items and tickets', 'History', 'Payments', `action="/admin/orders/${o.reference}/refund"`]) expect(page.body).toContain(text);
    const before = peer.received.length;
    const res = await client.post(`/admin/orders/${o.reference}/resend-tickets`);
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/admin/orders/${o.reference}?notice=resent`);
    expect((await processEmailQueue(t.ctx)).sent).toBe(1);
    expect(peer.received.length).toBe(before + 1);
    const mail = peer.received.at(-1)!;
    expect(mail.to).toEqual([o.who.email]);
    expect(mail.raw).toContain(o.reference);
    // nothing more goes out without another click
    expect((await processEmailQueue(t.ctx)).sent).toBe(0);
    // without the CSRF token: 403, nothing queued
    expect((await client.post(`/admin/orders/${o.reference}/resend-tickets`, {}, { csrf: null })).statusCode).toBe(403);
    expect((await processEmailQueue(t.ctx)).claimed).toBe(0);
    const after = await client.get(`/admin/orders/${o.reference}?notice=resent`);
    expect(after.body).toContain('order.resend_tickets');
    expect(after.body).toContain('Ticket e-mail queued');
  });

  it('refunds from the order page; afterwards neither refund nor resend is offered and resend is 409', async () => {
    const o = await completedOrder();
    const client = await signedIn();
    await client.get(`/admin/orders/${o.reference}`);
    expect((await client.post(`/admin/orders/${o.reference}/refund`, { reason: ' ' })).statusCode).toBe(422);
    const res = await client.post(`/admin/orders/${o.reference}/refund`, { reason: 'Buyer cannot come' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/admin/orders/${o.reference}?notice=refunded`);
    expect((await seatRows(t.ctx.db, o.sessionSeatIds))[0]!.status).toBe('available');
    const page = await client.get(`/admin/orders/${o.reference}`);
    expect(page.body).toContain(`${o.reference}-R`);
    expect(page.body).toContain('order.refund');
    expect(page.body).not.toContain(`action="/admin/orders/${o.reference}/refund"`);
    expect(page.body).not.toContain('resend-tickets');
    expect((await client.post(`/admin/orders/${o.reference}/resend-tickets`)).statusCode).toBe(409);
  });

  it("is 404 for a promoter on another organiser's order, and search does not reveal it", async () => {
    const o = await completedOrder();
    const promoter = await signedIn('promoter-b@taquilla.test');
    expect((await promoter.get(`/admin/orders/${o.reference}`)).statusCode).toBe(404);
    expect((await promoter.post(`/admin/orders/${o.reference}/resend-tickets`)).statusCode).toBe(404);
    expect((await promoter.get(`/admin/orders?q=${encodeURIComponent(o.who.email)}`)).body).not.toContain(o.reference);
  });
});

describe('box office in the admin API', () => {
  it('searches, reads an order and resends its tickets (one e-mail per resend that is not already queued)', async () => {
    const o = await completedOrder();
    const admin = api(t.app, rootToken);
    const found = await admin.get(`/orders?search=${encodeURIComponent(o.who.email)}`);
    expect(found.status).toBe(200);
    expect(found.body.data.map((r: { reference: string }) => r.reference)).toEqual([o.reference]);
    expect(found.body.data[0].buyer_email).toBe(o.who.email);
    const detail = await admin.get(`/orders/${o.reference}`);
    expect(detail.status).toBe(200);
    expect(detail.body.data.buyer.email).toBe(o.who.email);
    expect(detail.body.data.items).toHaveLength(1);
    expect(detail.body.data.items[0].ticket_status).toBe('valid');
    const queued = () => count(t.ctx.db, sql`SELECT count(*) AS n FROM email_outbox WHERE order_id = ${o.id} AND status = 'queued'`);
    expect(await queued()).toBe(0);
    const resend = await admin.post(`/orders/${o.reference}/resend-tickets`);
    expect(resend.status).toBe(202);
    expect(resend.body.data).toMatchObject({ recipient: o.who.email, resends: 1 });
    expect(await queued()).toBe(1);
    // a second call before the queue ran: still one e-mail to send, counted as the second resend
    expect((await admin.post(`/orders/${o.reference}/resend-tickets`)).body.data.resends).toBe(2);
    expect(await queued()).toBe(1);
    expect((await processEmailQueue(t.ctx)).sent).toBe(1);
    // A resend gets a new random Message-ID (issue 31): a new message for the mail client.
    expect(peer.received.at(-1)!.raw).toMatch(/Message-ID: <[0-9a-f-]{36}@taquilla\.test>/i);
    expect((await admin.get(`/orders/${o.reference}`)).body.data.history.map((h: { action: string }) => h.action)).toContain('order.resend_tickets');
    expect((await admin.get('/orders/NOPE-123')).status).toBe(404);
    expect((await admin.get(`/orders?search=${'x'.repeat(201)}`)).status).toBe(422);
  });
});
