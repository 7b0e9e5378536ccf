import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, DEMO, type TestApp } from '../helpers.js';
import { createHeldOrder, paymentStatus } from './fixtures.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
}, 120_000);
afterAll(() => t.close());

const checkoutUrl = (slug: string, lang = 'es') => `/api/portal/${slug}/${lang}/checkout`;
const buyer = { name: 'Ana', surname: 'García', email: 'ana@example.com', phone: '+34600000000' };

describe('POST /api/portal/{slug}/{lang}/checkout', () => {
  it('model A: starts a sandbox card payment and returns the provider parameters', async () => {
    const order = await createHeldOrder(t, DEMO.a.slug, { seats: 2 });
    const res = await t.app.inject({ method: 'POST', url: checkoutUrl(DEMO.a.slug), payload: { order_token: order.token, ...buyer } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      status: 200,
      success: true,
      data: { integration_mode: 'portal_only', provider: 'sandbox', amount: order.total / 100, currency: 'EUR' },
    });
    expect(body.data.payment_id).toMatch(/^pay_[0-9a-f]{32}$/);
    expect(body.data.redirect_url).toBe(`http://taquilla.test/sandbox/pay/${body.data.payment_id}`);
    expect(body.data.params).toEqual({ payment_id: body.data.payment_id });
    expect(await paymentStatus(t, body.data.payment_id)).toEqual({ status: 'pending', failure_reason: null });
  });

  it('model C: the same card payment parameters', async () => {
    const order = await createHeldOrder(t, DEMO.c.slug);
    const res = await t.app.inject({ method: 'POST', url: checkoutUrl(DEMO.c.slug, 'en'), payload: { order_token: order.token, ...buyer } });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ integration_mode: 'widget_platform_payment', provider: 'sandbox' });
  });

  it('model B: returns the channel checkout address with the order token (no buyer fields needed)', async () => {
    const order = await createHeldOrder(t, DEMO.b.slug);
    const res = await t.app.inject({ method: 'POST', url: checkoutUrl(DEMO.b.slug), payload: { order_token: order.token } });
    expect(res.statusCode).toBe(200);
    const expected = `http://taquilla.test/widget/examples/model-b/checkout?order_token=${order.token}`;
    expect(res.json().data).toEqual({ integration_mode: 'portal_external_payment', redirect_url: expected, checkout_url: expected });
  });

  it('model D: 403 forbidden_for_integration_mode', async () => {
    const order = await createHeldOrder(t, DEMO.d.slug);
    const res = await t.app.inject({ method: 'POST', url: checkoutUrl(DEMO.d.slug), payload: { order_token: order.token, ...buyer } });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ status: 403, success: false, code: 'forbidden_for_integration_mode' });
  });

  it('model A without buyer details: 422 naming the missing fields', async () => {
    const order = await createHeldOrder(t, DEMO.a.slug);
    const res = await t.app.inject({
      method: 'POST',
      url: checkoutUrl(DEMO.a.slug),
      payload: { order_token: order.token, name: 'Ana', email: 'not-an-email' },
    });
    expect(res.statusCode).toBe(422);
    // The portal API answers in the page's language (the path's): the code and the keys stay.
    expect(res.json()).toMatchObject({ code: 'validation_failed', message: 'Revisa los datos marcados.' });
    expect(res.json().errors).toEqual({ surname: ['Este campo es obligatorio.'], email: ['Escribe una dirección de correo válida, como ana@ejemplo.com.'] });
    const en = await t.app.inject({ method: 'POST', url: checkoutUrl(DEMO.a.slug, 'en'), payload: { order_token: order.token, name: 'Ana', email: 'not-an-email' } });
    expect(en.json()).toMatchObject({ code: 'validation_failed', message: 'Please check the fields marked.' });
    expect(en.json().errors).toEqual({ surname: ['This field is required.'], email: ['Enter a valid e-mail address, such as ana@example.com.'] });
  });

  it("another channel's order is 404, an unknown channel is 404", async () => {
    const order = await createHeldOrder(t, DEMO.c.slug);
    const other = await t.app.inject({ method: 'POST', url: checkoutUrl(DEMO.a.slug), payload: { order_token: order.token, ...buyer } });
    expect(other.statusCode).toBe(404);
    expect(other.json().code).toBe('not_found');
    const unknown = await t.app.inject({ method: 'POST', url: checkoutUrl('no-such-channel'), payload: { order_token: order.token, ...buyer } });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('not_found');
  });

  it('an expired cart: 409 order_expired', async () => {
    const order = await createHeldOrder(t, DEMO.a.slug, { ttlSeconds: 60 });
    t.clock.advance(61_000);
    const res = await t.app.inject({ method: 'POST', url: checkoutUrl(DEMO.a.slug), payload: { order_token: order.token, ...buyer } });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('order_expired');
  });

  it('malformed body: 422 with field errors', async () => {
    const res = await t.app.inject({ method: 'POST', url: checkoutUrl(DEMO.a.slug), payload: { token: 'x' } });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toHaveProperty('order_token');
  });
});
