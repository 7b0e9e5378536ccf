import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { sweepExpiredOrders } from '../../src/modules/orders/orders.service.js';
import { installProvider, providerNamed } from '../../src/modules/portal/payments/payments.providers.js';
import { refundDuePayments } from '../../src/modules/portal/payments/payments.refund-job.js';
import { processEmailQueue, type MailSender } from '../../src/modules/tickets/email-queue.service.js';
import { bearer, buildTestApp, DEMO, isPostgres, tokenFor, type TestApp } from '../helpers.js';
import { apiAs } from '../admin/admin-helpers.js';
import { createHeldOrder, orderStatus, paymentStatus, postSandboxNotification, sandboxNotification, startPayment } from './fixtures.js';

// D73: one order, one payment. The cart freezes while a card attempt is open, the attempt ends
// with its cart, a completion decides under the order's lock, and every payment that cannot
// complete its order is refunded by the scheduler once, with an e-mail to the buyer.

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
}, 120_000);
afterAll(() => t.close());

const buyer = { name: 'Ana', surname: 'García', email: 'ana@example.com' };

const signed = (paymentId: string, amount: number, at = t.clock.now()) => sandboxNotification(t, paymentId, 'succeeded', amount, at);

const notify = async (n: { body: string; signature: string }): Promise<string> => {
  const res = await postSandboxNotification(t, n);
  expect(res.statusCode).toBe(200);
  return res.json().data.result;
};

/** The buyer pays on the sandbox card page (it posts the signed notification itself). */
const payOnPage = (paymentId: string) =>
  t.app.inject({ method: 'POST', url: `/sandbox/pay/${paymentId}`, payload: { card_number: '4242 4242 4242 4242', expiry: '12/34', cvc: '123' } });

const sandboxRefunds = async (paymentId: string) => {
  const [row] = await queryRows<{ n: number }>(t.ctx.db, sql`SELECT count(*)::int AS n FROM sandbox_refunds WHERE payment_id = ${paymentId}`);
  return row!.n;
};
const refundEmails = async (paymentId: string) => {
  const [row] = await queryRows<{ n: number }>(t.ctx.db, sql`SELECT count(*)::int AS n FROM email_outbox WHERE payment_id = ${paymentId} AND kind = 'payment_refunded'`);
  return row!.n;
};

/** Refunded through the provider exactly once, with one e-mail, and marked refunded. */
async function expectRefundedOnce(paymentId: string) {
  expect(await paymentStatus(t, paymentId)).toMatchObject({ status: 'refunded' });
  expect(await sandboxRefunds(paymentId)).toBe(1);
  expect(await refundEmails(paymentId)).toBe(1);
}

const itemsOf = (orderId: number) => queryRows<{ id: number }>(t.ctx.db, sql`SELECT id::int AS id FROM order_items WHERE order_id = ${orderId} ORDER BY id`);

describe('the cart freezes while a card attempt is open (D73)', () => {
  it('cart writes answer 409 payment_in_progress (B2B and portal routes); the cancel link reopens the cart', async () => {
    const order = await createHeldOrder(t, DEMO.c.slug, { seats: 2 });
    const paymentId = await startPayment(t, DEMO.c.slug, order);
    const token = await tokenFor(t.app, DEMO.c.slug, DEMO.c.key);
    const [first] = await itemsOf(order.id);
    const base = `/api/sales-channel/v1/${DEMO.c.slug}/es/orders/${order.token}`;
    const [seat] = await queryRows<{ id: number; rate_id: number }>(
      t.ctx.db,
      sql`SELECT ss.id::int AS id, (SELECT r.id FROM rates r WHERE r.session_id = ss.session_id ORDER BY r.id LIMIT 1)::int AS rate_id
            FROM session_seats ss WHERE ss.status = 'available' AND ss.seat_id IS NOT NULL ORDER BY ss.id LIMIT 1`,
    );
    const writes = [
      t.app.inject({ method: 'DELETE', url: `${base}/items/${first!.id}`, headers: bearer(token) }),
      t.app.inject({ method: 'POST', url: `${base}/items`, headers: bearer(token), payload: { session_seat_id: seat!.id, rate_id: seat!.rate_id } }),
      t.app.inject({ method: 'POST', url: `${base}/apply-voucher`, headers: bearer(token), payload: { code: 'NOPE' } }),
    ];
    for (const res of await Promise.all(writes)) {
      expect(res.statusCode, res.body).toBe(409);
      expect(res.json()).toMatchObject({ success: false, code: 'payment_in_progress' });
    }
    const portalA = await createHeldOrder(t, DEMO.a.slug);
    await startPayment(t, DEMO.a.slug, portalA);
    const [item] = await itemsOf(portalA.id);
    const portal = await t.app.inject({ method: 'DELETE', url: `/api/portal/${DEMO.a.slug}/es/orders/${portalA.token}/items/${item!.id}` });
    expect(portal.statusCode, portal.body).toBe(409);
    expect(portal.json().code).toBe('payment_in_progress');

    // The buyer comes back through the provider's cancel link: the attempt ends, the cart opens.
    const back = await t.app.inject({ url: `/${DEMO.c.slug}/es/checkout?order_token=${order.token}&payment=cancelled&payment_id=${paymentId}` });
    expect(back.statusCode).toBe(200);
    expect(await paymentStatus(t, paymentId)).toEqual({ status: 'cancelled', failure_reason: 'abandoned' });
    const removed = await t.app.inject({ method: 'DELETE', url: `${base}/items/${first!.id}`, headers: bearer(token) });
    expect(removed.statusCode).toBe(200);
    // The closed page takes no more cards; a payment that arrives anyway is refunded, once.
    expect((await payOnPage(paymentId)).statusCode).toBe(409);
    expect(await notify(signed(paymentId, order.total))).toBe('refund_required');
    await refundDuePayments(t.ctx);
    await expectRefundedOnce(paymentId);
  });

  it('the checkout extends the cart once to CHECKOUT_HOLD_SECONDS', async () => {
    const order = await createHeldOrder(t, DEMO.a.slug, { ttlSeconds: 60 });
    const start = t.clock.now().getTime();
    await startPayment(t, DEMO.a.slug, order);
    const [row] = await queryRows<{ expires_at: Date | string; held: Date | string }>(
      t.ctx.db,
      sql`SELECT o.expires_at, (SELECT max(hold_expires_at) FROM session_seats WHERE order_id = o.id) AS held FROM orders o WHERE o.id = ${order.id}`,
    );
    expect(new Date(row!.expires_at).getTime()).toBe(start + 1800_000);
    expect(new Date(row!.held).getTime()).toBe(start + 1800_000);
  });
});

describe('an attempt ends with its cart; what is paid anyway is refunded (D73)', () => {
  it('a second checkout closes the first attempt: one completes, the other is refunded once', async () => {
    const order = await createHeldOrder(t, DEMO.a.slug);
    const first = await startPayment(t, DEMO.a.slug, order);
    const second = await startPayment(t, DEMO.a.slug, order);
    expect(await paymentStatus(t, first)).toEqual({ status: 'cancelled', failure_reason: 'superseded' });
    const page = await t.app.inject({ url: `/sandbox/pay/${first}` });
    expect(page.body).not.toContain('<form');
    expect((await payOnPage(first)).statusCode).toBe(409);
    const results = await Promise.all([notify(signed(first, order.total)), notify(signed(second, order.total))]);
    expect(results.sort()).toEqual(['completed', 'refund_required']);
    expect(await orderStatus(t, order.id)).toBe('completed');
    expect(await paymentStatus(t, first)).toEqual({ status: 'refund_required', failure_reason: 'attempt_superseded' });
    await refundDuePayments(t.ctx);
    await refundDuePayments(t.ctx);
    await expectRefundedOnce(first);
    expect(await paymentStatus(t, second)).toMatchObject({ status: 'succeeded' });
  });

  it('a cancelled cart (DELETE) closes the attempt; a late payment is refunded', async () => {
    const order = await createHeldOrder(t, DEMO.c.slug);
    const paymentId = await startPayment(t, DEMO.c.slug, order);
    const token = await tokenFor(t.app, DEMO.c.slug, DEMO.c.key);
    const del = await t.app.inject({ method: 'DELETE', url: `/api/sales-channel/v1/${DEMO.c.slug}/es/orders/${order.token}`, headers: bearer(token) });
    expect(del.statusCode).toBe(200);
    expect(await paymentStatus(t, paymentId)).toEqual({ status: 'cancelled', failure_reason: 'order_cancelled' });
    expect((await t.app.inject({ url: `/sandbox/pay/${paymentId}` })).body).not.toContain('<form');
    expect(await notify(signed(paymentId, order.total))).toBe('refund_required');
    await refundDuePayments(t.ctx);
    await expectRefundedOnce(paymentId);
  });

  it('an expired cart (the sweep) closes the attempt; a payment after it is refunded once, also when the provider fails first', async () => {
    const order = await createHeldOrder(t, DEMO.a.slug);
    const paymentId = await startPayment(t, DEMO.a.slug, order);
    t.clock.advance(1801_000);
    await sweepExpiredOrders(t.ctx);
    expect(await orderStatus(t, order.id)).toBe('expired');
    expect(await paymentStatus(t, paymentId)).toEqual({ status: 'cancelled', failure_reason: 'order_expired' });
    expect((await payOnPage(paymentId)).statusCode).toBe(409);
    expect(await notify(signed(paymentId, order.total))).toBe('refund_required');
    expect(await orderStatus(t, order.id)).toBe('expired');

    // The provider is down for the first refund: retried with backoff, refunded once after.
    const sandbox = providerNamed(t.ctx, 'sandbox');
    let calls = 0;
    installProvider(t.ctx, {
      ...sandbox,
      async refund(request, within) {
        calls++;
        if (calls === 1) throw new Error('provider unreachable');
        return sandbox.refund(request, within);
      },
    });
    try {
      expect(await refundDuePayments(t.ctx)).toEqual({ refunded: 0, retrying: 1 });
      expect(await paymentStatus(t, paymentId)).toMatchObject({ status: 'refund_required' });
      expect(await refundDuePayments(t.ctx)).toEqual({ refunded: 0, retrying: 0 }); // not due yet
      t.clock.advance(61_000);
      expect(await refundDuePayments(t.ctx)).toEqual({ refunded: 1, retrying: 0 });
      expect(await refundDuePayments(t.ctx)).toEqual({ refunded: 0, retrying: 0 });
    } finally {
      installProvider(t.ctx, sandbox);
    }
    expect(calls).toBe(2);
    await expectRefundedOnce(paymentId);

    // The buyer's e-mail, in their language, through the durable queue.
    const sent: { to: string; subject: string; text: string }[] = [];
    const sender: MailSender = { describe: 'test', send: async (m) => void sent.push(m) };
    await processEmailQueue(t.ctx, { sender });
    const mail = sent.find((m) => m.subject.startsWith('Devolución de tu pago') && m.text.includes('caducado'));
    expect(mail).toBeDefined();
    expect(mail!.to).toBe(buyer.email);
    expect(mail!.text).toContain('Hemos devuelto tu pago de');
  });

  it('a payment of the wrong amount is refunded and completes nothing', async () => {
    const order = await createHeldOrder(t, DEMO.a.slug);
    const paymentId = await startPayment(t, DEMO.a.slug, order);
    expect(await notify(signed(paymentId, order.total + 3150))).toBe('refund_required');
    expect(await orderStatus(t, order.id)).toBe('pending');
    await refundDuePayments(t.ctx);
    await expectRefundedOnce(paymentId);
  });

  it('the admin API lists payments by status (refund_required until refunded)', async () => {
    const admin = await apiAs(t, 'payments-admin@taquilla.test');
    const order = await createHeldOrder(t, DEMO.a.slug);
    const paymentId = await startPayment(t, DEMO.a.slug, order);
    await notify(signed(paymentId, order.total - 100));
    const due = await admin.get('/payments?status=refund_required');
    expect(due.status).toBe(200);
    const row = due.body.data.find((p: { id: string }) => p.id === paymentId);
    expect(row).toMatchObject({ status: 'refund_required', failure_reason: 'amount_mismatch', amount: order.total / 100, currency: 'EUR', buyer_email: buyer.email });
    expect(due.body.data.every((p: { status: string }) => p.status === 'refund_required')).toBe(true);
    await refundDuePayments(t.ctx);
    expect((await admin.get('/payments?status=refund_required')).body.data.some((p: { id: string }) => p.id === paymentId)).toBe(false);
    const refunded = await admin.get('/payments?status=refunded');
    expect(refunded.body.data.find((p: { id: string }) => p.id === paymentId)).toMatchObject({ status: 'refunded', refund_ref: expect.any(String) });
    expect((await admin.get('/payments?status=paid')).status).toBe(422);
  });
});

describe.skipIf(!isPostgres)('two tabs paying one order at once, 20 times (PostgreSQL)', () => {
  it('signed notifications: exactly one completes the order, every other captured payment is refunded once', async () => {
    for (let round = 0; round < 20; round++) {
      const order = await createHeldOrder(t, DEMO.a.slug);
      const [a, b] = await Promise.all([startPayment(t, DEMO.a.slug, order), startPayment(t, DEMO.a.slug, order)]);
      const results = await Promise.all([notify(signed(a!, order.total)), notify(signed(b!, order.total))]);
      expect(results.filter((r) => r === 'completed')).toHaveLength(1);
      expect(results.filter((r) => r === 'refund_required')).toHaveLength(1);
      await Promise.all([refundDuePayments(t.ctx), refundDuePayments(t.ctx)]);
      const loser = results[0] === 'completed' ? b! : a!;
      await expectRefundedOnce(loser);
      const [tickets] = await queryRows<{ n: number }>(t.ctx.db, sql`SELECT count(*)::int AS n FROM tickets WHERE order_id = ${order.id}`);
      expect(tickets!.n).toBe(1);
    }
  }, 120_000);

  it('the sandbox page: exactly one tab completes the order; a captured second payment is refunded once', async () => {
    for (let round = 0; round < 20; round++) {
      const order = await createHeldOrder(t, DEMO.a.slug);
      const [a, b] = await Promise.all([startPayment(t, DEMO.a.slug, order), startPayment(t, DEMO.a.slug, order)]);
      const pages = await Promise.all([payOnPage(a!), payOnPage(b!)]);
      expect(pages.filter((p) => p.statusCode === 303)).toHaveLength(1); // the superseded page takes no card
      expect(await orderStatus(t, order.id)).toBe('completed');
      await refundDuePayments(t.ctx);
      const statuses = [await paymentStatus(t, a!), await paymentStatus(t, b!)].map((p) => p.status).sort();
      expect(statuses).toEqual(['cancelled', 'succeeded']);
    }
  }, 120_000);
});
