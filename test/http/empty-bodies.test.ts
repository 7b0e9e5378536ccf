import { describe, expect } from 'vitest';
import { account, ADMIN_API } from '../admin/admin-helpers.js';
import { appTest, bearer, DEMO, serverTokenFor } from '../helpers.js';

// A client that sends `Content-Type: application/json` on every call (many HTTP helpers do) and no
// body on a DELETE, or on an action whose fields are all optional, is not sending malformed JSON
// (src/http/empty-bodies.ts). PGlite and PostgreSQL alike: the rule is HTTP only.
const { it } = appTest();
const JSON_TYPE = { 'content-type': 'application/json' };

async function demoDCart(t: { app: import('fastify').FastifyInstance }, token: string, seat: number) {
  const res = await t.app.inject({ method: 'POST', url: `/api/sales-channel/v1/${DEMO.d.slug}/es/orders`, headers: bearer(token), payload: { session_seat_id: seat, rate_id: 1 } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { order_token: string; events: { sessions: { items: { id: number }[] }[] }[] };
}

/** A demo-d order of one seat, confirmed for Ana Gil: its reference. */
async function demoDSale(t: { app: import('fastify').FastifyInstance }, token: string, seat: number) {
  const order = await demoDCart(t, token, seat);
  const confirm = await t.app.inject({
    method: 'POST',
    url: `/api/sales-channel/v1/${DEMO.d.slug}/es/orders/${order.order_token}/confirm`,
    headers: bearer(token),
    payload: { amount: 31.5, name: 'Ana', surname: 'Gil', email: 'ana@example.com' },
  });
  expect(confirm.statusCode, confirm.body).toBe(200);
  return confirm.json().data.reference as string;
}

describe('a request without a body but with a JSON content type', () => {
  it('DELETE of an order and of an item answer as without the header', async ({ t }) => {
    const token = await serverTokenFor(t.app, DEMO.d.slug);
    const order = await demoDCart(t, token, 301);
    const base = `/api/sales-channel/v1/${DEMO.d.slug}/es/orders/${order.order_token}`;
    const added = await t.app.inject({ method: 'POST', url: `${base}/items`, headers: bearer(token), payload: { session_seat_id: 302, rate_id: 1 } });
    const itemId = added.json().data.events[0].sessions[0].items[1].id as number;

    const removeItem = await t.app.inject({ method: 'DELETE', url: `${base}/items/${itemId}`, headers: { ...bearer(token), ...JSON_TYPE } });
    expect(removeItem.statusCode, removeItem.body).toBe(200);
    const remove = await t.app.inject({ method: 'DELETE', url: base, headers: { ...bearer(token), ...JSON_TYPE } });
    expect(remove.statusCode, remove.body).toBe(200);
    expect(remove.json().data.status).toBe('cancelled');
    // With Content-Length: 0, as some clients send it.
    const again = await t.app.inject({ method: 'DELETE', url: base, headers: { ...bearer(token), ...JSON_TYPE, 'content-length': '0' } });
    expect(again.statusCode, again.body).toBe(200);
  });

  it('an admin action whose fields are all optional reads no body as {} (a whole-order refund, D58)', async ({ t }) => {
    const admin = await account(t.ctx, 'empty-bodies@example.com');
    const token = await serverTokenFor(t.app, DEMO.d.slug);
    const reference = await demoDSale(t, token, 311);

    const refund = await t.app.inject({ method: 'POST', url: `${ADMIN_API}/orders/${reference}/refund`, headers: { ...bearer(admin.token), ...JSON_TYPE } });
    expect(refund.statusCode, refund.body).toBe(201);
    expect(refund.json().data).toMatchObject({ refunded_order_reference: reference, voided_tickets: 1 });
    // And without any content type.
    const reference2 = await demoDSale(t, token, 312);
    const refund2 = await t.app.inject({ method: 'POST', url: `${ADMIN_API}/orders/${reference2}/refund`, headers: bearer(admin.token) });
    expect(refund2.statusCode, refund2.body).toBe(201);
  });

  it('a route with required fields still says so: 400 for an empty JSON body where a body is required, 422 naming the fields otherwise', async ({ t }) => {
    const tokenUrl = '/api/sales-channel/v1/auth/token';
    const empty = await t.app.inject({ method: 'POST', url: tokenUrl, headers: JSON_TYPE, payload: '' });
    expect(empty.statusCode).toBe(400);
    expect(empty.json().code).toBe('bad_request');
    const token = await serverTokenFor(t.app, DEMO.d.slug);
    const url = `/api/sales-channel/v1/${DEMO.d.slug}/es/orders`;
    for (const headers of [{ ...bearer(token), ...JSON_TYPE }, bearer(token)]) {
      const none = await t.app.inject({ method: 'POST', url, headers });
      expect(none.statusCode).toBe(422);
      expect(none.json().errors).toHaveProperty('session_seat_id');
    }
    // A body that is there is parsed as ever: malformed JSON on a DELETE is still 400.
    const order = await demoDCart(t, token, 321);
    const bad = await t.app.inject({ method: 'DELETE', url: `${url}/${order.order_token}`, headers: { ...bearer(token), ...JSON_TYPE }, payload: '{' });
    expect(bad.statusCode).toBe(400);
  });
});
