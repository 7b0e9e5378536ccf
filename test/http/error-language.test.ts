import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, buildTestApp, tokenFor, type TestApp } from '../helpers.js';

// Issue 16: errors a buyer reads come in the page's language; the code never changes, and a
// channel's server that does not ask keeps SPEC's English texts word for word.

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await buildTestApp();
  token = await tokenFor(t.app, 'demo-c', 'wk_demo_c');
}, 300_000);
afterAll(async () => t?.close());

const cart = (lang: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'POST', url: `/api/sales-channel/v1/demo-c/${lang}/orders`, headers: { ...bearer(token), ...headers }, payload: { rate_id: 1 } });

describe('B2B: the language of Accept-Language, only when asked', () => {
  it('no Accept-Language (or one we do not speak): SPEC English', async () => {
    for (const headers of [{}, { 'accept-language': '*' }, { 'accept-language': 'fr-FR,fr;q=0.9' }] as Record<string, string>[]) {
      const res = await cart('es', headers);
      expect(res.statusCode).toBe(422);
      expect(res.json()).toMatchObject({ code: 'validation_failed', message: 'The given data was invalid' });
      expect(res.json().errors.session_seat_id[0]).toMatch(/required/);
    }
  });

  it('the widget asks in Spanish or English: message and field texts in it, same code and keys', async () => {
    const es = await cart('es', { 'accept-language': 'es' });
    expect(es.json()).toMatchObject({ status: 422, code: 'validation_failed', message: 'Revisa los datos marcados.', errors: { session_seat_id: ['Este campo es obligatorio.'] } });
    const en = await cart('es', { 'accept-language': 'en-GB,en;q=0.8' });
    expect(en.json()).toMatchObject({ code: 'validation_failed', message: 'Please check the fields marked.', errors: { session_seat_id: ['This field is required.'] } });
  });

  it('a wrong voucher names its code in Spanish', async () => {
    const [seat] = (await t.app.inject({ url: '/api/sales-channel/v1/demo-c/es/events', headers: bearer(token) })).json().data[0].sessions;
    const detail = (await t.app.inject({ url: `/api/sales-channel/v1/demo-c/es/events/${seat.event_id ?? 1}/sessions/${seat.id}`, headers: bearer(token) })).json().data;
    const free = detail.elements.seats.find((s: { status: string }) => s.status === 'available');
    const rate = (free.rates ?? detail.elements.sectors.find((s: { id: number }) => s.id === free.sector_id).rates)[0].id;
    const order = (await t.app.inject({ method: 'POST', url: '/api/sales-channel/v1/demo-c/es/orders', headers: bearer(token), payload: { session_seat_id: free.id, rate_id: rate } })).json().data;
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/sales-channel/v1/demo-c/es/orders/${order.order_token}/apply-voucher`,
      headers: { ...bearer(token), 'accept-language': 'es' },
      payload: { code: 'NOPE' },
    });
    expect(res.json()).toMatchObject({ status: 422, code: 'voucher_invalid', message: 'El código de descuento NOPE no existe.', errors: { code: ['El código no existe.'] } });
  });
});

describe('portal API: the language of the path', () => {
  it('answers in the page language; an unknown channel is 404 in it too', async () => {
    const es = await t.app.inject({ method: 'POST', url: '/api/portal/nope/es/checkout', payload: { order_token: 'x'.repeat(20) } });
    expect(es.json()).toMatchObject({ status: 404, code: 'not_found', message: 'No se ha encontrado lo que buscas.' });
    const en = await t.app.inject({ method: 'POST', url: '/api/portal/nope/en/checkout', payload: { order_token: 'x'.repeat(20) } });
    expect(en.json()).toMatchObject({ status: 404, code: 'not_found', message: 'Sales channel not found' });
  });
});
