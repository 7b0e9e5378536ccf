import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installProvider } from '../../src/modules/portal/payments/payments.providers.js';
import { createStripeProvider } from '../../src/modules/portal/payments/stripe.provider.js';
import { refundPayment } from '../../src/modules/portal/payments/payments.refunds.js';
import { AppError } from '../../src/http/errors.js';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.js';
import { buildTestApp, DEMO, type TestApp } from '../helpers.js';
import { account, apiAs } from '../admin/admin-helpers.js';
import { DashboardClient } from '../admin/dashboard-client.js';
import { createHeldOrder, orderStatus, paymentStatus } from './fixtures.js';

const WEBHOOK_SECRET = 'whsec_test_portal_secret';
const WEBHOOK_URL = '/api/portal/payments/stripe/webhook';
const stripe = new Stripe('sk_test_portal');

let t: TestApp;
let fakeStripe: http.Server;
/** Form bodies the stand-in of the Stripe API received. */
const received: URLSearchParams[] = [];

/** Checkout Sessions the stand-in was asked to expire (D73: an attempt closed with its cart). */
const expired: string[] = [];
/** Refund requests the stand-in received: the form and the Idempotency-Key header. */
const refundCalls: { form: URLSearchParams; key: string | undefined }[] = [];
/** The stand-in's answers per idempotency key, as Stripe replays them. */
const refundAnswers = new Map<string, { status: number; body: unknown }>();
/** A payment intent the stand-in refuses to refund (as Stripe does for one refunded already). */
const REFUSED_INTENT = 'pi_test_refused';

beforeAll(async () => {
  // A local stand-in for api.stripe.com: Checkout Session creation and retrieval, and refunds.
  fakeStripe = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const form = new URLSearchParams(body);
      res.setHeader('content-type', 'application/json');
      if (req.method === 'POST' && req.url === '/v1/refunds') {
        const key = req.headers['idempotency-key'] as string | undefined;
        refundCalls.push({ form, key });
        let answer = key ? refundAnswers.get(key) : undefined;
        if (!answer) {
          answer =
            form.get('payment_intent') === REFUSED_INTENT
              ? {
                  status: 400,
                  body: { error: { type: 'invalid_request_error', code: 'charge_already_refunded', message: 'Charge ch_test_1 has already been refunded.' } },
                }
              : { status: 200, body: { id: `re_test_${refundCalls.length}`, object: 'refund', status: 'succeeded', amount: Number(form.get('amount')) } };
          if (key) refundAnswers.set(key, answer);
        }
        res.statusCode = answer.status;
        res.end(JSON.stringify(answer.body));
        return;
      }
      const expiring = /^\/v1\/checkout\/sessions\/([^/?]+)\/expire$/.exec(req.url ?? '');
      if (req.method === 'POST' && expiring) {
        expired.push(expiring[1]!);
        res.end(JSON.stringify({ id: expiring[1], object: 'checkout.session', status: 'expired' }));
        return;
      }
      const retrieved = /^\/v1\/checkout\/sessions\/([^/?]+)/.exec(req.url ?? '');
      if (req.method === 'GET' && retrieved) {
        res.end(JSON.stringify({ id: retrieved[1], object: 'checkout.session', payment_intent: `pi_of_${retrieved[1]}` }));
        return;
      }
      received.push(form);
      const id = `cs_test_${received.length}`;
      res.end(JSON.stringify({ id, object: 'checkout.session', url: `https://checkout.stripe.com/c/pay/${id}` }));
    });
  });
  await new Promise<void>((resolve) => fakeStripe.listen(0, '127.0.0.1', resolve));
  t = await buildTestApp({
    env: { PAYMENT_PROVIDER: 'stripe', STRIPE_SECRET_KEY: 'sk_test_portal', STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET },
  });
  installProvider(
    t.ctx,
    createStripeProvider({
      secretKey: 'sk_test_portal',
      webhookSecret: WEBHOOK_SECRET,
      api: { host: '127.0.0.1', port: (fakeStripe.address() as AddressInfo).port, protocol: 'http' },
    }),
  );
}, 120_000);
afterAll(async () => {
  await t.close();
  fakeStripe.close();
});

let eventSeq = 0;
function sessionEvent(type: string, session: Record<string, unknown>, secret = WEBHOOK_SECRET) {
  const payload = JSON.stringify({ id: `evt_test_${++eventSeq}`, object: 'event', type, data: { object: { object: 'checkout.session', ...session } } });
  return { payload, signature: stripe.webhooks.generateTestHeaderString({ payload, secret }) };
}

const postWebhook = (e: { payload: string; signature: string }) =>
  t.app.inject({ method: 'POST', url: WEBHOOK_URL, headers: { 'content-type': 'application/json', 'stripe-signature': e.signature }, payload: e.payload });

async function checkout(slug: string) {
  const order = await createHeldOrder(t, slug);
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/portal/${slug}/en/checkout`,
    payload: { order_token: order.token, name: 'Bo', surname: 'Lee', email: 'bo@example.com' },
  });
  expect(res.statusCode).toBe(200);
  return { order, data: res.json().data };
}

describe('Stripe adapter', () => {
  it('checkout creates a Checkout Session for the order total and returns its page', async () => {
    const { order, data } = await checkout(DEMO.a.slug);
    expect(data).toMatchObject({ provider: 'stripe', redirect_url: expect.stringMatching(/^https:\/\/checkout\.stripe\.com\/c\/pay\/cs_test_\d+$/) });
    const form = received.at(-1)!;
    expect(form.get('mode')).toBe('payment');
    expect(form.get('client_reference_id')).toBe(data.payment_id);
    expect(form.get('line_items[0][price_data][unit_amount]')).toBe(String(order.total));
    expect(form.get('line_items[0][price_data][currency]')).toBe('eur');
    expect(form.get('success_url')).toContain(`/demo-a/en/orders/${order.token}`);
  });

  it('a signed checkout.session.completed completes the order; a replay is a duplicate', async () => {
    const { order, data } = await checkout(DEMO.c.slug);
    const event = sessionEvent('checkout.session.completed', {
      id: data.params.session_id,
      client_reference_id: data.payment_id,
      amount_total: order.total,
      currency: 'eur',
      payment_status: 'paid',
      payment_intent: 'pi_test_1',
    });
    const res = await postWebhook(event);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.result).toBe('completed');
    expect(await orderStatus(t, order.id)).toBe('completed');
    const replay = await postWebhook(event);
    expect(replay.json().data.result).toBe('duplicate');
  });

  it('a signature made with another secret, or none, is 403', async () => {
    const { order, data } = await checkout(DEMO.a.slug);
    const forged = sessionEvent(
      'checkout.session.completed',
      { id: data.params.session_id, client_reference_id: data.payment_id, amount_total: order.total, currency: 'eur', payment_status: 'paid' },
      'whsec_someone_else',
    );
    const res = await postWebhook(forged);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ status: 403, success: false, code: 'invalid_signature', message: expect.any(String) });
    const unsigned = await t.app.inject({ method: 'POST', url: WEBHOOK_URL, headers: { 'content-type': 'application/json' }, payload: forged.payload });
    expect(unsigned.statusCode).toBe(403);
    // Signed wrongly or not at all: one answer, which tells a forger nothing more.
    expect(unsigned.json()).toEqual(res.json());
    expect(await paymentStatus(t, data.payment_id)).toEqual({ status: 'pending', failure_reason: null });
    expect(await orderStatus(t, order.id)).toBe('pending');
  });

  it('an expired session declines the payment and leaves the cart alone; other events are ignored', async () => {
    const { order, data } = await checkout(DEMO.a.slug);
    const expired = await postWebhook(sessionEvent('checkout.session.expired', { id: data.params.session_id, client_reference_id: data.payment_id }));
    expect(expired.json().data.result).toBe('declined');
    expect(await paymentStatus(t, data.payment_id)).toEqual({ status: 'declined', failure_reason: 'session_expired' });
    expect(await orderStatus(t, order.id)).toBe('pending');
    const other = await postWebhook(sessionEvent('customer.created', { id: 'cus_1' }));
    expect(other.json().data.result).toBe('ignored');
  });

  it('an attempt that ends (superseded, abandoned, its cart cancelled) expires its Checkout Session (D73)', async () => {
    const { order, data: first } = await checkout(DEMO.a.slug);
    const second = await t.app.inject({
      method: 'POST',
      url: `/api/portal/${DEMO.a.slug}/en/checkout`,
      payload: { order_token: order.token, name: 'Bo', surname: 'Lee', email: 'bo@example.com' },
    });
    expect(second.statusCode).toBe(200);
    expect(expired).toContain(first.params.session_id);
    expect(await paymentStatus(t, first.payment_id)).toEqual({ status: 'cancelled', failure_reason: 'superseded' });
    const secondSession = second.json().data.params.session_id;
    const back = await t.app.inject({ url: `/${DEMO.a.slug}/en/checkout?order_token=${order.token}&payment=cancelled&payment_id=${second.json().data.payment_id}` });
    expect(back.statusCode).toBe(200);
    expect(expired).toContain(secondSession);
    // The cart cancelled while a third attempt is open: the scheduler's job expires its session.
    const { data: third } = await (async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: `/api/portal/${DEMO.a.slug}/en/checkout`,
        payload: { order_token: order.token, name: 'Bo', surname: 'Lee', email: 'bo@example.com' },
      });
      return { data: res.json().data };
    })();
    const cancel = await t.app.inject({ method: 'DELETE', url: `/api/portal/${DEMO.a.slug}/en/orders/${order.token}` });
    expect(cancel.statusCode).toBe(200);
    expect(expired).not.toContain(third.params.session_id);
    await t.app.scheduler.runOnce('payment-attempts');
    expect(expired).toContain(third.params.session_id);
    expect(await paymentStatus(t, third.payment_id)).toEqual({ status: 'cancelled', failure_reason: 'order_cancelled' });
  });

  it('the sandbox notification endpoint is closed when Stripe is the provider', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/portal/payments/sandbox/notifications', headers: { 'content-type': 'application/json' }, payload: '{}' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ status: 404, success: false, code: 'not_found' });
  });
});

describe('Stripe refunds (D58)', () => {
  async function paidOrder(paymentIntent: string | null) {
    const { order, data } = await checkout(DEMO.a.slug);
    const res = await postWebhook(
      sessionEvent('checkout.session.completed', {
        id: data.params.session_id,
        client_reference_id: data.payment_id,
        amount_total: order.total,
        currency: 'eur',
        payment_status: 'paid',
        payment_intent: paymentIntent,
      }),
    );
    expect(res.json().data.result).toBe('completed');
    return { order, paymentId: data.payment_id as string, sessionId: data.params.session_id as string };
  }
  const recorded = (paymentId: string) =>
    queryRows<{ amount: number; provider_refund_ref: string; key: string; provider: string }>(
      t.ctx.db,
      sql`SELECT amount, provider_refund_ref, key, provider FROM payment_refunds WHERE payment_id = ${paymentId}`,
    );

  it('refunds the payment intent with an idempotency key, records the reference, and refunds once per key', async () => {
    const { order, paymentId } = await paidOrder('pi_test_refund_1');
    const calls = refundCalls.length;
    const done = await refundPayment(t.ctx, { paymentId, amount: order.total - 100, reason: 'customer request', key: `k-${paymentId}` });
    expect(done).toEqual({ refundRef: expect.stringMatching(/^re_test_\d+$/), alreadyDone: false });
    const call = refundCalls.at(-1)!;
    expect(call.form.get('payment_intent')).toBe('pi_test_refund_1');
    expect(call.form.get('amount')).toBe(String(order.total - 100));
    expect(call.key).toBe(`taquilla-refund-k-${paymentId}`);
    expect(await recorded(paymentId)).toEqual([{ amount: order.total - 100, provider_refund_ref: done.refundRef, key: `k-${paymentId}`, provider: 'stripe' }]);
    // The same key again: the record answers, Stripe is not asked again.
    const again = await refundPayment(t.ctx, { paymentId, amount: order.total - 100, reason: 'customer request', key: `k-${paymentId}` });
    expect(again).toEqual({ refundRef: done.refundRef, alreadyDone: true });
    expect(refundCalls.length).toBe(calls + 1);
    // More than what is left is refused before Stripe is asked.
    await expect(refundPayment(t.ctx, { paymentId, amount: 101, reason: 'x', key: `k2-${paymentId}` })).rejects.toMatchObject({ code: 'conflict' });
    expect(refundCalls.length).toBe(calls + 1);
  });

  it("without a payment intent in the notification, refunds the checkout session's", async () => {
    const { order, paymentId, sessionId } = await paidOrder(null);
    await refundPayment(t.ctx, { paymentId, amount: order.total, reason: 'r', key: `k-${paymentId}` });
    expect(refundCalls.at(-1)!.form.get('payment_intent')).toBe(`pi_of_${sessionId}`);
  });

  it("a refusal by Stripe throws payment_provider_refused (502) with Stripe's reason and records nothing", async () => {
    const { order, paymentId } = await paidOrder(REFUSED_INTENT);
    const err = await refundPayment(t.ctx, { paymentId, amount: order.total, reason: 'r', key: `k-${paymentId}` }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ code: 'payment_provider_refused', status: 502, message: expect.stringContaining('Charge ch_test_1 has already been refunded.') });
    expect(await recorded(paymentId)).toEqual([]);
  });

  // Through the admin API (D58): the order refund asks Stripe in its own transaction.
  const orderState = async (orderId: number) => {
    const [row] = await queryRows<{ reference: string; tickets: string[]; seats: string[]; refunds: number; emails: number; events: number }>(
      t.ctx.db,
      sql`SELECT o.reference,
                 ARRAY(SELECT status FROM tickets WHERE order_id = o.id ORDER BY id) AS tickets,
                 ARRAY(SELECT status FROM session_seats WHERE order_id = o.id ORDER BY id) AS seats,
                 (SELECT count(*)::int FROM orders r WHERE r.refunded_order_id = o.id) AS refunds,
                 (SELECT count(*)::int FROM email_outbox m JOIN orders r ON r.id = m.order_id WHERE m.kind = 'refund' AND r.refunded_order_id = o.id) AS emails,
                 (SELECT count(*)::int FROM webhook_events e WHERE e.type = 'order.refunded' AND e.order_rows->>'reference' = o.reference) AS events
            FROM orders o WHERE o.id = ${orderId}`,
    );
    return row!;
  };

  it('a whole-order refund in the admin API goes back to the card: Stripe refunds the total, the reference is stored and shown', async () => {
    const admin = await apiAs(t, 'stripe-whole@taquilla.test');
    const { order, paymentId } = await paidOrder('pi_test_whole_order');
    const before = await orderState(order.id);
    expect(before.tickets.length).toBeGreaterThan(0);
    const res = await admin.post(`/orders/${before.reference}/refund`, { reason: 'show moved' });
    expect(res.status).toBe(201);
    const call = refundCalls.at(-1)!;
    expect(call.form.get('payment_intent')).toBe('pi_test_whole_order');
    expect(call.form.get('amount')).toBe(String(order.total));
    expect(res.body.data).toMatchObject({
      total_amount: -order.total / 100,
      voided_tickets: before.tickets.length,
      card_refund: { provider: 'stripe', payment_id: paymentId, reference: expect.stringMatching(/^re_test_\d+$/), amount: order.total / 100 },
      email_queued: true,
    });
    const ref = res.body.data.card_refund.reference as string;
    expect(await recorded(paymentId)).toEqual([{ amount: order.total, provider_refund_ref: ref, key: expect.any(String), provider: 'stripe' }]);
    const after = await orderState(order.id);
    expect(after).toMatchObject({ refunds: 1, emails: 1 });
    expect(after.tickets.every((s) => s === 'void')).toBe(true);
    expect(after.seats).toEqual([]);
    expect(JSON.stringify((await admin.get(`/orders/${before.reference}`)).body.data)).toContain(ref);
    // Nothing is left to refund: Stripe is not asked again.
    const calls = refundCalls.length;
    expect((await admin.post(`/orders/${before.reference}/refund`, { reason: 'again' })).body.code).toBe('order_already_refunded');
    expect(refundCalls.length).toBe(calls);
  });

  it('a refusal by Stripe answers 502 payment_provider_refused with its reason and changes nothing', async () => {
    const admin = await apiAs(t, 'stripe-refused@taquilla.test');
    const { order, paymentId } = await paidOrder(REFUSED_INTENT);
    const before = await orderState(order.id);
    const res = await admin.post(`/orders/${before.reference}/refund`, { reason: 'customer request' });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ success: false, code: 'payment_provider_refused', message: expect.stringContaining('Charge ch_test_1 has already been refunded.') });
    // The order, its tickets and seats are as they were; no refund row, e-mail, event or record.
    expect(await orderState(order.id)).toEqual(before);
    expect(before.tickets.every((s) => s === 'valid')).toBe(true);
    expect(await recorded(paymentId)).toEqual([]);
    expect((await paymentStatus(t, paymentId)).status).toBe('succeeded');
    expect(await queryRows(t.ctx.db, sql`SELECT 1 FROM audit_log WHERE action = 'order.refund' AND target_id = ${before.reference}`)).toEqual([]);
  });

  // Last in the file: it cancels the demo session the other tests sell.
  it('cancelling the session with refunds in the dashboard says when Stripe refused one (cancel again to retry)', async () => {
    const { order } = await paidOrder(REFUSED_INTENT);
    const [{ session_id: sessionId }] = (await queryRows<{ session_id: number }>(t.ctx.db, sql`SELECT DISTINCT session_id FROM session_seats WHERE order_id = ${order.id}`)) as [{ session_id: number }];
    await account(t.ctx, 'stripe-dashboard@taquilla.test');
    const client = new DashboardClient(t.app);
    expect((await client.login('stripe-dashboard@taquilla.test')).statusCode).toBe(303);
    const cancelled = await client.post(`/admin/sessions/${sessionId}/cancel`, { refund: 'on' });
    expect(cancelled.headers.location).toBe(`/admin/sessions/${sessionId}?notice=cancelled_refunds_failed`);
    expect((await client.get(cancelled.headers.location as string)).body).toContain('<p class="notice" role="status">Session cancelled, but some refunds failed: cancel it again to retry them.</p>');
    expect((await orderState(order.id)).refunds).toBe(0);
  });
});
