import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, serverTokenFor, bearer, type TestApp } from '../helpers.js';

// Route schemas are compiled on first use (src/http/lazy-compilers.ts, issue 19). What a start no
// longer proves, this does: every route's validators and serialisers compile; and a validator or
// serialiser compiled by its first request behaves as one compiled at start.

describe('route schemas compiled on first use', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp();
  }, 180_000);
  afterAll(() => t?.close());

  it("a route's first request refuses a bad body with the validator's errors, in the envelope", async () => {
    const token = await serverTokenFor(t.app, 'demo-d');
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/sales-channel/v1/demo-d/en/orders',
      headers: bearer(token),
      payload: { session_seat_id: 'not a number', rate_id: 1 },
    });
    expect(res.statusCode).toBe(422);
    const body = res.json();
    expect(body).toMatchObject({ status: 422, success: false, code: 'validation_failed' });
    expect(Object.keys(body.errors)).toEqual(['session_seat_id']);
  });

  it("a route's first answer is written by its response schema's serialiser", async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/sales-channel/v1/auth/token', payload: { sales_channel_slug: 'demo-a', widget_key: 'wk_demo_a' } });
    expect(res.statusCode).toBe(200);
    const { data } = res.json();
    expect(data).toMatchObject({ token_type: 'Bearer', sales_channel_slug: 'demo-a', scope: 'widget' });
    expect(Number.isInteger(data.expires_in)).toBe(true);
  });

  it('every route schema compiles, each once', () => {
    // Hundreds of routes, each with response schemas: a broken schema throws here, not in production.
    expect(t.app.compileRouteSchemas()).toBeGreaterThan(200);
    expect(t.app.compileRouteSchemas()).toBe(0);
  });
});
