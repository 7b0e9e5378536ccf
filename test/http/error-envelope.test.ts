import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, expectErrorBody, type TestApp } from '../helpers.js';

// Every error leaves as the envelope of D4, Fastify's own errors included, each with a stable code.
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ demo: false });
}, 180_000);
afterAll(() => t.close());

const TOKEN_URL = '/api/sales-channel/v1/auth/token';

describe('error envelope', () => {
  it('unknown route: 404 route_not_found', async () => {
    const res = await t.app.inject({ url: '/api/sales-channel/v1/nope/nothing/here?x=1' });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expectErrorBody(res, 404, 'route_not_found', 'Route GET /api/sales-channel/v1/nope/nothing/here not found');
  });

  it('a known path with the wrong method is 404 too', async () => {
    const res = await t.app.inject({ method: 'DELETE', url: TOKEN_URL });
    expect(res.statusCode).toBe(404);
    expect(res.json().code).toBe('route_not_found');
  });

  it('malformed JSON: 400 bad_request', async () => {
    const res = await t.app.inject({ method: 'POST', url: TOKEN_URL, headers: { 'content-type': 'application/json' }, payload: '{"sales_channel_slug": ' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ status: 400, success: false, code: 'bad_request', message: 'The request body is not valid JSON' });
  });

  it('an empty JSON body: 400 bad_request', async () => {
    const res = await t.app.inject({ method: 'POST', url: TOKEN_URL, headers: { 'content-type': 'application/json' }, payload: '' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ status: 400, success: false, code: 'bad_request' });
  });

  it('a body over the limit: 413 payload_too_large', async () => {
    const payload = JSON.stringify({ sales_channel_slug: 'demo-d', widget_key: 'x'.repeat(200 * 1024) });
    const res = await t.app.inject({ method: 'POST', url: TOKEN_URL, headers: { 'content-type': 'application/json' }, payload });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ status: 413, success: false, code: 'payload_too_large', message: 'The request body is too large' });
  });

  it('a content type the service does not parse: 415 unsupported_media_type', async () => {
    const res = await t.app.inject({ method: 'POST', url: TOKEN_URL, headers: { 'content-type': 'application/xml' }, payload: '<token/>' });
    expectErrorBody(res, 415, 'unsupported_media_type', 'Unsupported content type; send application/json');
  });

  it('validation: 422 validation_failed with errors keyed by field', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: TOKEN_URL,
      payload: { sales_channel_slug: '', client_id: 'has spaces', extra: true },
    });
    expect(res.statusCode).toBe(422);
    const body = res.json();
    expect(body).toMatchObject({ status: 422, success: false, code: 'validation_failed', message: 'The given data was invalid' });
    // An unknown property is an error of its own (D56), never dropped silently.
    expect(Object.keys(body.errors).sort()).toEqual(['client_id', 'extra', 'sales_channel_slug']);
    for (const messages of Object.values(body.errors)) {
      expect(messages).toEqual(expect.arrayContaining([expect.any(String)]));
    }
  });

  it('a path parameter that fails its schema: 422 keyed by the parameter', async () => {
    const res = await t.app.inject({ url: '/api/sales-channel/v1/Not_A_Slug/config', headers: { authorization: 'Bearer tk_x' } });
    // The bearer check runs first (onRequest): an unauthenticated caller learns nothing about the path.
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ status: 401, success: false, code: 'invalid_token' });
  });
});
