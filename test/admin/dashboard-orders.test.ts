import { sql } from 'drizzle-orm';
import { XLSX_TYPE } from '../../src/lib/download.js';
import { readXlsx } from '../spreadsheet-helpers.js';
import { insertRefund, type InsertedOrder } from '../reports/report-fixture.js';
import { beforeAll, describe, expect } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { appTest, bearer, DEMO, tokenFor } from '../helpers.js';
import { buyer, confirmUrl, createPendingOrder, seatRows } from '../checkout/fixtures.js';
import { account, adminWithOrganiserB } from './admin-helpers.js';
import { DashboardClient } from './dashboard-client.js';
import { createHeldOrder } from '../portal/fixtures.js';
import { device, makeDevice, makeList } from '../checkin/checkin-helpers.js';

const { it, app } = appTest();
let demoB = 0;
let channelB = 0;
let widgetToken = '';

beforeAll(async () => {
  const t = app();
  const { organiserB } = await adminWithOrganiserB(t.ctx, t.app);
  await account(t.ctx, 'promoter-b@taquilla.test', organiserB);
  await account(t.ctx, 'promoter-a@taquilla.test', 1);
  channelB = (await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM sales_channels WHERE slug = 'channel-b'`))[0]!.id;
  demoB = (await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM sales_channels WHERE slug = ${DEMO.b.slug}`))[0]!.id;
  widgetToken = await tokenFor(t.app, DEMO.b.slug, DEMO.b.key);
}, 180_000);

async function completedOrder() {
  const o = await createPendingOrder(app().ctx, { channel: DEMO.b.slug, seats: 1 });
  const res = await app().app.inject({ method: 'POST', url: confirmUrl(DEMO.b.slug, o.token), headers: bearer(widgetToken), payload: { ...buyer, amount: o.total / 100 } });
  expect(res.statusCode).toBe(200);
  return o;
}

/**
 * The dashboard's 404 page of a record the user may not see: the record's own "not found", as for an
 * unknown id, and not the page of an address that does not exist ("No page at ...").
 */
function expectNotFoundPage(res: { statusCode: number; body: string }, message: string) {
  expect(res.statusCode).toBe(404);
  expect(res.body).toContain(message);
  expect(res.body).not.toContain('No page at');
}

async function signedIn(email: string) {
  const client = new DashboardClient(app().app);
  expect((await client.login(email)).statusCode).toBe(303);
  return client;
}

describe('dashboard sales report page', () => {
  it("shows a channel's report with a known order, its summary and filters, and a CSV download", async () => {
    const o = await completedOrder();
    const client = await signedIn('root@taquilla.test');
    const res = await client.get(`/admin/channels/${demoB}/report`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(o.reference);
    expect(res.body).toContain('Summary');
    expect(res.body).toMatch(/name="date_from"/);
    expect(res.body).toMatch(/name="event_id"/);
    expect(res.body).toContain(`/admin/channels/${demoB}/report.csv`);
    // a date window with no sales hides it
    const filtered = await client.get(`/admin/channels/${demoB}/report?date_from=2001-01-01&date_to=2001-01-31`);
    expect(filtered.statusCode).toBe(200);
    expect(filtered.body).not.toContain(o.reference);
    // malformed filters are the report's 422, shown as an error page naming the field
    const malformed = await client.get(`/admin/channels/${demoB}/report?date_from=2026-02-30`);
    expect(malformed.statusCode).toBe(422);
    expect(malformed.body).toContain('<strong>date_from</strong>');
    const csv = await client.get(`/admin/channels/${demoB}/report.csv`);
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.body).toContain(o.reference);
    expect(csv.body.startsWith('\uFEFFid,order_reference,')).toBe(true);
    expect(csv.headers['content-disposition']).toBe('attachment; filename="sales-report_demo-b_latest.csv"');
    // The XLSX link keeps the page's filters; the file is named after the period read.
    const page = await client.get(`/admin/channels/${demoB}/report?date_from=2001-01-01&date_to=2001-01-31`);
    expect(page.body).toContain(`/admin/channels/${demoB}/report.xlsx?date_from=2001-01-01&amp;date_to=2001-01-31`);
    const xlsx = await client.get(`/admin/channels/${demoB}/report.xlsx`);
    expect(xlsx.statusCode).toBe(200);
    expect(xlsx.headers['content-type']).toBe(XLSX_TYPE);
    const { rows } = await readXlsx(xlsx.rawPayload);
    expect(rows.map((r) => r.order_reference!.value)).toContain(o.reference);
    const period = await client.get(`/admin/channels/${demoB}/report.xlsx?date_from=2001-01-01&date_to=2001-01-31`);
    expect(period.headers['content-disposition']).toBe('attachment; filename="sales-report_demo-b_2001-01-01_2001-01-31.xlsx"');
    expect((await client.get(`/admin/channels/${demoB}/report.xlsx?date_from=2026-02-30`)).statusCode).toBe(422);
  });

  it('the summary counts refunded tickets apart from the tickets that remain, as a list that fits a phone', async ({ t }) => {
    const kept = await completedOrder();
    const refunded = await completedOrder();
    await insertRefund(t.ctx.db, { id: refunded.id } as InsertedOrder, new Date());
    const client = await signedIn('root@taquilla.test');
    const res = await client.get(`/admin/channels/${demoB}/report`);
    expect(res.body).toContain(kept.reference);
    const m = /<dt>Tickets<\/dt><dd>(\d+) \((\d+) issued, (\d+) refunded\)<\/dd>/.exec(res.body);
    expect(m, 'tickets line').not.toBeNull();
    const [remaining, issued, gone] = [Number(m![1]), Number(m![2]), Number(m![3])];
    expect(gone).toBeGreaterThanOrEqual(1);
    expect(remaining).toBe(issued - gone);
    expect(res.body).toMatch(/<dt>Net<\/dt><dd>-?€[\d,]+\.\d\d<\/dd>/); // the UI kit's money, in English
  });

  it("is 404 for a promoter on another organiser's channel, and shown to the channel's own promoter", async () => {
    const promoterB = await signedIn('promoter-b@taquilla.test');
    for (const page of ['report', 'report.csv', 'report.xlsx']) expectNotFoundPage(await promoterB.get(`/admin/channels/${demoB}/${page}`), 'Sales channel not found');
    expect((await promoterB.get(`/admin/channels/${channelB}/report`)).statusCode).toBe(200);
    const promoterA = await signedIn('promoter-a@taquilla.test');
    expect((await promoterA.get(`/admin/channels/${demoB}/report`)).statusCode).toBe(200);
    expectNotFoundPage(await promoterA.get(`/admin/channels/${channelB}/report`), 'Sales channel not found');
  });
});

describe('dashboard refund button', () => {
  it('refunds a completed purchase with a reason, audited; the button then disappears', async ({ t }) => {
    const o = await completedOrder();
    const client = await signedIn('root@taquilla.test');
    const list = await client.get(`/admin/orders/${o.reference}`);
    expect(list.body).toContain(`action="/admin/orders/${o.reference}/refund"`);
    // no reason: 422, nothing refunded
    expect((await client.post(`/admin/orders/${o.reference}/refund`, { reason: ' ' })).statusCode).toBe(422);
    expect((await seatRows(t.ctx.db, o.sessionSeatIds))[0]!.status).toBe('sold');
    // without the CSRF token: 403
    expect((await client.post(`/admin/orders/${o.reference}/refund`, { reason: 'x' }, { csrf: null })).statusCode).toBe(403);
    const res = await client.post(`/admin/orders/${o.reference}/refund`, { reason: 'Event moved' });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/admin/orders/${o.reference}?notice=refunded`);
    expect((await seatRows(t.ctx.db, o.sessionSeatIds))[0]!.status).toBe('available');
    expect((await client.get(`/admin/orders?channel_id=${demoB}`)).body).toContain(`${o.reference}-R`);
    const after = await client.get(`/admin/orders/${o.reference}`);
    expect(after.body).not.toContain(`action="/admin/orders/${o.reference}/refund"`);
    expect((await client.get('/admin/audit')).body).toContain('order.refund');
    // a second refund is 409
    expect((await client.post(`/admin/orders/${o.reference}/refund`, { reason: 'again' })).statusCode).toBe(409);
  });

  it('shows a confirmation step (tickets, amounts, card) before a refund of chosen tickets; the refunds table follows', async ({ t }) => {
    const o = await completedOrder();
    const client = await signedIn('root@taquilla.test');
    const [ticket] = await queryRows<{ id: string | number; code: string }>(t.ctx.db, sql`SELECT id, code FROM tickets WHERE order_id = ${o.id} ORDER BY id LIMIT 1`);
    const review = await client.get(`/admin/orders/${o.reference}/refund?ticket_ids=${ticket!.id}&reason=Seat+broken`);
    expect(review.statusCode).toBe(200);
    expect(review.body).toContain(`Confirm the refund of ${o.reference}`);
    expect(review.body).toContain(ticket!.code);
    expect(review.body).toContain('Refund 1 ticket(s) now');
    // reviewing changes nothing
    expect((await seatRows(t.ctx.db, o.sessionSeatIds))[0]!.status).toBe('sold');
    const res = await client.post(`/admin/orders/${o.reference}/refund`, { reason: 'Seat broken', ticket_ids: String(ticket!.id) });
    expect(res.statusCode).toBe(303);
    const after = await client.get(`/admin/orders/${o.reference}`);
    expect(after.body).toContain(`${o.reference}-R`);
    expect(after.body).toContain('Seat broken');
  });

  it("a promoter cannot refund another organiser's order (404)", async ({ t }) => {
    const o = await completedOrder();
    const promoterB = await signedIn('promoter-b@taquilla.test');
    expectNotFoundPage(await promoterB.post(`/admin/orders/${o.reference}/refund`, { reason: 'x' }), 'Order not found');
    expect((await seatRows(t.ctx.db, o.sessionSeatIds))[0]!.status).toBe('sold');
  });

  // Issue 25's "done when": a card order refunded in the dashboard shows the provider's refund, the
  // buyer's refund e-mail sits in the outbox, and the tickets scan `refunded`.
  it('a card order refunded in the dashboard (review, then confirm): the provider refund shown, the e-mail queued, the tickets scan refunded', async ({ t }) => {
    const held = await createHeldOrder(t, DEMO.a.slug, { seats: 2 });
    const start = await t.app.inject({
      method: 'POST',
      url: `/api/portal/${DEMO.a.slug}/es/checkout`,
      payload: { order_token: held.token, name: 'Bo', surname: 'Lee', email: 'bo-card@example.com' },
    });
    const paymentId = start.json().data.payment_id as string;
    expect((await t.app.inject({ method: 'POST', url: `/sandbox/pay/${paymentId}`, payload: { card_number: '4242424242424242', expiry: '12/34', cvc: '123' } })).statusCode).toBe(303);
    const [order] = await queryRows<{ reference: string; status: string }>(t.ctx.db, sql`SELECT reference, status FROM orders WHERE id = ${held.id}`);
    expect(order!.status).toBe('completed');
    const reference = order!.reference;
    const tickets = await queryRows<{ id: string | number; code: string; session_id: number }>(
      t.ctx.db,
      sql`SELECT tk.id, tk.code, i.session_id FROM tickets tk JOIN order_items i ON i.id = tk.order_item_id WHERE tk.order_id = ${held.id} ORDER BY tk.id`,
    );
    const client = await signedIn('root@taquilla.test');
    const ids = tickets.map((x) => String(x.id));
    const query = new URLSearchParams([...ids.map((id) => ['ticket_ids', id]), ['reason', 'Show cancelled']]);
    const review = await client.get(`/admin/orders/${reference}/refund?${query}`);
    expect(review.statusCode).toBe(200);
    expect(review.body).toContain(`Confirm the refund of ${reference}`);
    const res = await client.post(`/admin/orders/${reference}/refund`, { reason: 'Show cancelled', ticket_ids: ids });
    expect(res.statusCode).toBe(303);
    // The provider's refund: recorded by the sandbox, its reference on the dashboard's order page.
    const [sandbox] = await queryRows<{ id: string; amount: number }>(t.ctx.db, sql`SELECT id, amount FROM sandbox_refunds WHERE payment_id = ${paymentId}`);
    expect(sandbox).toMatchObject({ id: expect.stringMatching(/^re_sbx_/), amount: held.total });
    const page = await client.get(`/admin/orders/${reference}`);
    expect(page.body).toContain(sandbox!.id);
    expect(page.body).toContain(`${reference}-R`);
    // The buyer's refund e-mail waits in the durable outbox.
    const mails = await queryRows<{ recipient: string; status: string }>(
      t.ctx.db,
      sql`SELECT m.recipient, m.status FROM email_outbox m JOIN orders r ON r.id = m.order_id WHERE m.kind = 'refund' AND r.refunded_order_id = ${held.id}`,
    );
    expect(mails).toEqual([{ recipient: 'bo-card@example.com', status: 'queued' }]);
    // Every ticket scans `refunded` at the gate.
    const list = await makeList(t, { name: 'Door (refunds)', session_ids: [tickets[0]!.session_id] });
    const gate = device(t, (await makeDevice(t, 'Door 1', [list.id])).token);
    for (const ticket of tickets) {
      const scan = await gate.scan(list.id, { secret: ticket.code });
      expect(scan.statusCode).toBe(200);
      expect(scan.json().result).toBe('refunded');
    }
  });
});
