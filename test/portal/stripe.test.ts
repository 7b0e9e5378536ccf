import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installProvider } from '../../src/modules/portal/payments/payments.providers.js';
import { createStripeProvider } from '../../src/modules/portal/payments/stripe.provider.js';
import { buildTestApp, DEMO, type TestApp } from '../helpers.js';
import { createHeldOrder, orderStatus, paymentStatus } from './fixtures.js';

const WEBHOOK_SECRET = 'whsec_test_portal_secret';
const WEBHOOK_URL = '/api/portal/payments/stripe/webhook';
const stripe = new Stripe('sk_test_portal');

let t: TestApp;
let fakeStripe: http.Server;
/** Form bodies the stand-in of the Stripe API received. */
const received: URLSearchParams[] = [];

beforeAll(async () => {
  // A local stand-in for api.stripe.com: Checkout Session creation only.
  fakeStripe = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const form = new URLSearchParams(body);
      received.push(form);
      const id = `cs_test_${received.length}`;
      res.setHeader('content-type', 'application/json');
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

  it('the sandbox notification endpoint is closed when Stripe is the provider', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/portal/payments/sandbox/notifications', headers: { 'content-type': 'application/json' }, payload: '{}' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ status: 404, success: false, code: 'not_found' });
  });
});
