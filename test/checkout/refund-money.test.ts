import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { processEmailQueue, type MailSender } from '../../src/modules/tickets/email-queue.service.js';
import type { TicketEmail } from '../../src/modules/tickets/tickets.email.js';
import { bearer, buildTestApp, DEMO, isPostgres, serverTokenFor, tokenFor, type TestApp } from '../helpers.js';
import { api, apiAs } from '../admin/admin-helpers.js';
import { buyer, confirmUrl, createPendingOrder } from './fixtures.js';
import { paidByCard as paidByCardOn } from '../portal/fixtures.js';

// Refunds that return the money (D58, D30): whole and partial, fees, the card through the sandbox,
// the buyer's e-mail, order.refunded, strict bodies, used tickets, parallel refunds.

let t: TestApp;
let admin: ReturnType<typeof api>;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  t = await buildTestApp({ poolSize: 20 });
  admin = await apiAs(t, 'root@taquilla.test');
  tokens.b = await tokenFor(t.app, DEMO.b.slug, DEMO.b.key);
  tokens.d = await serverTokenFor(t.app, DEMO.d.slug, DEMO.d.serverKey);
  // Every channel's order.refunded goes to the outbox.
  for (const slug of [DEMO.a.slug, DEMO.b.slug, DEMO.d.slug]) {
    const [ch] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM sales_channels WHERE slug = ${slug}`);
    expect((await admin.post(`/channels/${ch!.id}/webhooks`, { url: 'https://example.com/hook', event_types: ['order.refunded'] })).status).toBe(201);
  }
}, 180_000);
afterAll(() => t.close());

/** A completed order confirmed by a channel that collects the payment (models B and D). */
async function confirmed(slug: string, seats: number, opts: { fee?: number; lang?: string } = {}) {
  const o = await createPendingOrder(t.ctx, { channel: slug, seats, fee: opts.fee, basePrice: 2000, lang: opts.lang });
  const token = slug === DEMO.d.slug ? tokens.d! : tokens.b!;
  const res = await t.app.inject({ method: 'POST', url: confirmUrl(slug, o.token, 'confirm', opts.lang ?? 'es'), headers: bearer(token), payload: { ...buyer, amount: o.total / 100 } });
  expect(res.statusCode).toBe(200);
  return { ...o, tickets: await ticketsOf(o.id) };
}

/** A model A order paid with the sandbox's test card. */
async function paidByCard(seats: number) {
  const order = await paidByCardOn(t, seats);
  expect(order.status).toBe('completed');
  return { ...order, tickets: order.tickets.map((x) => x.id) };
}

const ticketsOf = async (orderId: number) =>
  (await queryRows<{ id: string | number }>(t.ctx.db, sql`SELECT id FROM tickets WHERE order_id = ${orderId} ORDER BY order_item_id`)).map((r) => Number(r.id));
const ticketStatus = async (ids: number[]) =>
  (await queryRows<{ status: string }>(t.ctx.db, sql`SELECT status FROM tickets WHERE id IN (${sql.join(ids.map((i) => sql`${i}`), sql`, `)}) ORDER BY id`)).map((r) => r.status);
const refundRows = (orderId: number) =>
  queryRows<{ reference: string; base_amount: number; fee_amount: number; total_amount: number; provider_refund_ref: string | null }>(
    t.ctx.db,
    sql`SELECT r.reference, r.base_amount, r.fee_amount, r.total_amount, rr.provider_refund_ref
          FROM orders r JOIN order_refunds rr ON rr.refund_order_id = r.id WHERE r.refunded_order_id = ${orderId} ORDER BY r.id`,
  );
const refundEvents = async (orderReference: string) =>
  (
    await queryRows<{ extra: unknown }>(
      t.ctx.db,
      sql`SELECT e.extra FROM webhook_events e WHERE e.type = 'order.refunded' AND e.order_rows->>'reference' = ${orderReference} ORDER BY e.id`,
    )
  ).map((r) => (typeof r.extra === 'string' ? JSON.parse(r.extra) : r.extra) as { refund: { reference: string; total_amount: number; tickets: { ticket_id: number }[] } });
const refundEmails = (orderId: number) =>
  queryRows<{ recipient: string; status: string }>(
    t.ctx.db,
    sql`SELECT m.recipient, m.status FROM email_outbox m JOIN orders r ON r.id = m.order_id WHERE m.kind = 'refund' AND r.refunded_order_id = ${orderId}`,
  );
const setRefundFees = (value: boolean) => t.ctx.db.execute(sql`UPDATE organisers SET refund_fees = ${value} WHERE id = 1`);

describe('partial and whole refunds (admin API)', () => {
  it('D58 asks only for the tickets: a refund without a reason is made, and records the default one', async () => {
    const o = await confirmed(DEMO.b.slug, 2, { fee: 150 });
    const whole = await admin.post(`/orders/${o.reference}/refund`, {});
    expect(whole.status, JSON.stringify(whole.body)).toBe(201);
    expect(whole.body.data).toMatchObject({ ticket_ids: o.tickets, voided_tickets: 2 });
    const [row] = await queryRows<{ reason: string }>(t.ctx.db, sql`SELECT reason FROM order_refunds WHERE refunded_order_id = ${o.id}`);
    expect(row!.reason).toBe('Refunded through the admin API');
    // A reason that is given must say something.
    const other = await confirmed(DEMO.b.slug, 1, { fee: 150 });
    expect((await admin.post(`/orders/${other.reference}/refund`, { reason: ' ', ticket_ids: other.tickets })).status).toBe(422);
  });

  it('refunds chosen tickets only: {"ticket_ids": [one]} is honoured, D30 amounts, a later refund of others, 409 again', async () => {
    const o = await confirmed(DEMO.b.slug, 3, { fee: 150 });
    const [first, second, third] = o.tickets as [number, number, number];
    const one = await admin.post(`/orders/${o.reference}/refund`, { reason: 'one seat', ticket_ids: [first] });
    expect(one.status).toBe(201);
    expect(one.body.data).toMatchObject({
      refund_reference: `${o.reference}-R`,
      total_amount: -21.5,
      fee_amount: -1.5,
      fees_refunded: true,
      ticket_ids: [first],
      voided_tickets: 1,
      released_seats: 1,
      card_refund: null,
      email_queued: true,
    });
    expect(await ticketStatus([first, second, third])).toEqual(['void', 'valid', 'valid']);
    // A later refund of another ticket; the same ticket again is 409 and changes nothing.
    const two = await admin.post(`/orders/${o.reference}/refund`, { reason: 'another', ticket_ids: [second] });
    expect(two.status).toBe(201);
    expect(two.body.data.refund_reference).toBe(`${o.reference}-R2`);
    const again = await admin.post(`/orders/${o.reference}/refund`, { reason: 'again', ticket_ids: [first, third] });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('ticket_already_refunded');
    expect(await ticketStatus([third])).toEqual(['valid']);
    // The rest of the order; then nothing is left.
    const rest = await admin.post(`/orders/${o.reference}/refund`, { reason: 'rest' });
    expect(rest.body.data).toMatchObject({ ticket_ids: [third], total_amount: -21.5 });
    expect((await admin.post(`/orders/${o.reference}/refund`, { reason: 'x' })).body.code).toBe('order_already_refunded');
    expect(await refundRows(o.id)).toEqual([
      { reference: `${o.reference}-R`, base_amount: -2000, fee_amount: -150, total_amount: -2150, provider_refund_ref: null },
      { reference: `${o.reference}-R2`, base_amount: -2000, fee_amount: -150, total_amount: -2150, provider_refund_ref: null },
      { reference: `${o.reference}-R3`, base_amount: -2000, fee_amount: -150, total_amount: -2150, provider_refund_ref: null },
    ]);
    // order.refunded per refund, each with its tickets; one refund e-mail per refund (model B).
    const events = await refundEvents(o.reference);
    expect(events.map((e) => e.refund.tickets.map((x) => x.ticket_id))).toEqual([[first], [second], [third]]);
    expect(events[0]!.refund).toMatchObject({ reference: `${o.reference}-R`, total_amount: -2150 });
    expect(await refundEmails(o.id)).toHaveLength(3);
  });

  it('refuses unknown fields and a ticket of another order; nothing is refunded', async () => {
    const o = await confirmed(DEMO.b.slug, 2);
    const unknown = await admin.post(`/orders/${o.reference}/refund`, { reason: 'x', ticket_id: [o.tickets[0]] });
    expect(unknown.status).toBe(422);
    expect(unknown.body).toMatchObject({ code: 'validation_failed', errors: { ticket_id: expect.any(Array) } });
    const fees = await admin.post(`/orders/${o.reference}/refund`, { reason: 'x', refund_fees: false });
    expect(fees.status).toBe(422);
    const other = await confirmed(DEMO.b.slug, 1);
    const stranger = await admin.post(`/orders/${o.reference}/refund`, { reason: 'x', ticket_ids: [other.tickets[0]] });
    expect(stranger.status).toBe(422);
    expect(stranger.body.errors.ticket_ids).toBeDefined();
    expect(await ticketStatus(o.tickets)).toEqual(['valid', 'valid']);
    expect(await refundRows(o.id)).toEqual([]);
  });

  it('keeps the fees when the organiser says so (refund_fees false)', async () => {
    await setRefundFees(false);
    try {
      const o = await confirmed(DEMO.b.slug, 2, { fee: 150 });
      const res = await admin.post(`/orders/${o.reference}/refund`, { reason: 'no fees' });
      expect(res.body.data).toMatchObject({ total_amount: -40, fee_amount: 0, fees_refunded: false });
      expect(await refundRows(o.id)).toEqual([{ reference: `${o.reference}-R`, base_amount: -4000, fee_amount: 0, total_amount: -4000, provider_refund_ref: null }]);
    } finally {
      await setRefundFees(true);
    }
  });

  it('model D: order.refunded to the channel, no e-mail to the buyer', async () => {
    const o = await confirmed(DEMO.d.slug, 1);
    const res = await admin.post(`/orders/${o.reference}/refund`, { reason: 'd' });
    expect(res.body.data.email_queued).toBe(false);
    expect(await refundEmails(o.id)).toEqual([]);
    expect((await refundEvents(o.reference)).map((e) => e.refund.tickets.map((x) => x.ticket_id))).toEqual([o.tickets]);
  });
});

describe('the card goes back (model A, sandbox)', () => {
  it('refunds through the sandbox in the same operation and records its reference', async () => {
    const o = await paidByCard(2);
    const res = await admin.post(`/orders/${o.reference}/refund`, { reason: 'card', ticket_ids: [o.tickets[1]] });
    expect(res.status).toBe(201);
    const card = res.body.data.card_refund;
    expect(card).toMatchObject({ provider: 'sandbox', payment_id: o.paymentId, reference: expect.stringMatching(/^re_sbx_/), amount: o.total / 2 / 100 });
    const books = await queryRows<{ id: string; amount: number }>(t.ctx.db, sql`SELECT id, amount FROM sandbox_refunds WHERE payment_id = ${o.paymentId}`);
    expect(books).toEqual([{ id: card.reference, amount: o.total / 2 }]);
    expect((await refundRows(o.id))[0]!.provider_refund_ref).toBe(card.reference);
    // The admin API's order shows the refund with the provider's reference.
    const order = await admin.get(`/orders/${o.reference}`);
    expect(JSON.stringify(order.body.data)).toContain(card.reference);
  });

  it('the e-mail goes out once, in the buyer language, with the card reference', async () => {
    const o = await confirmed(DEMO.b.slug, 1, { lang: 'en' });
    const oEs = await confirmed(DEMO.b.slug, 1, { lang: 'es' });
    await admin.post(`/orders/${o.reference}/refund`, { reason: 'en' });
    await admin.post(`/orders/${oEs.reference}/refund`, { reason: 'es' });
    const sent: TicketEmail[] = [];
    const sender: MailSender = { describe: 'memory', send: async (m) => void sent.push(m) };
    for (let i = 0; i < 5; i++) await processEmailQueue(t.ctx, { sender, limit: 100 });
    const mine = (ref: string) => sent.filter((m) => m.subject.includes(ref) && /^(Refund of your order|Devolución de tu pedido)/.test(m.subject));
    expect(mine(o.reference)).toHaveLength(1);
    expect(mine(o.reference)[0]!.subject).toBe(`Refund of your order ${o.reference}`);
    expect(mine(o.reference)[0]!.text).toContain('We have refunded');
    expect(mine(oEs.reference)).toHaveLength(1);
    expect(mine(oEs.reference)[0]!.subject).toBe(`Devolución de tu pedido ${oEs.reference}`);
    expect(mine(oEs.reference)[0]!.to).toBe(buyer.email);
  });
});

describe('used tickets (allow_used)', () => {
  it('a checked-in ticket needs allow_used: 409 ticket_used, then 201', async () => {
    const o = await confirmed(DEMO.b.slug, 1);
    await markCheckedIn(o.tickets[0]!);
    const res = await admin.post(`/orders/${o.reference}/refund`, { reason: 'used' });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('ticket_used');
    expect(await ticketStatus(o.tickets)).toEqual(['valid']);
    const forced = await admin.post(`/orders/${o.reference}/refund`, { reason: 'used', allow_used: true });
    expect(forced.status).toBe(201);
    expect(await ticketStatus(o.tickets)).toEqual(['void']);
  });
});

describe.skipIf(!isPostgres)('parallel refunds (PostgreSQL)', () => {
  it('many parallel refunds of one ticket refund it once', async () => {
    const o = await paidByCard(2);
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => admin.post(`/orders/${o.reference}/refund`, { reason: 'race', ticket_ids: [o.tickets[0]] })),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409).every((a) => a.body.code === 'ticket_already_refunded')).toBe(true);
    expect(await refundRows(o.id)).toHaveLength(1);
    const books = await queryRows(t.ctx.db, sql`SELECT 1 FROM sandbox_refunds WHERE payment_id = ${o.paymentId}`);
    expect(books).toHaveLength(1);
  });
});

/** A check-in entry for a ticket, as a scan records it (list, device, scan). */
async function markCheckedIn(ticketId: number) {
  const [list] = await queryRows<{ id: number }>(
    t.ctx.db,
    sql`INSERT INTO checkin_lists (organiser_id, name, created_at) VALUES (1, ${'L' + ticketId}, now()) RETURNING id`,
  );
  const [dev] = await queryRows<{ id: number }>(
    t.ctx.db,
    sql`INSERT INTO checkin_devices (organiser_id, name, token_hash, token_last4, created_at) VALUES (1, 'd', ${'h' + ticketId}, 'abcd', now()) RETURNING id`,
  );
  await t.ctx.db.transaction(async (tx) => {
    const [scan] = await queryRows<{ id: number }>(
      tx,
      sql`INSERT INTO checkin_scans (list_id, device_id, ticket_id, direction, result, offline, scanned_at, received_at)
          VALUES (${list!.id}, ${dev!.id}, ${ticketId}, 'entry', 'valid', false, now(), now()) RETURNING id`,
    );
    await tx.execute(sql`INSERT INTO checkin_entries (list_id, ticket_id, first_scan_id, first_scanned_at, first_device_id, change_xid)
                         VALUES (${list!.id}, ${ticketId}, ${scan!.id}, now(), ${dev!.id}, 0)`);
  });
}
