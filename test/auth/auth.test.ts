import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, buildTestApp, countStatements, DEMO, tokenFor, type TestApp } from '../helpers.js';
import { generateKeyForChannel, revokeWidgetKey } from '../../src/modules/auth/auth.service.js';
import { findChannelBySlug } from '../../src/modules/channels/channels.repo.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const TOKEN_URL = '/api/sales-channel/v1/auth/token';
const configUrl = (slug: string) => `/api/sales-channel/v1/${slug}/config`;

describe('POST /auth/token', () => {
  it('issues a bearer token for the right key', async () => {
    const res = await t.app.inject({ method: 'POST', url: TOKEN_URL, payload: { sales_channel_slug: 'demo-d', widget_key: 'wk_demo_d' } });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ status: 200, success: true, data: { token_type: 'Bearer', sales_channel_slug: 'demo-d' } });
    expect(body.data.access_token).toMatch(/^tk_[A-Za-z0-9]{44}$/);
    expect(body.data.expires_at).toMatch(/\+00:00$/);
  });

  it('answers a wrong key and an unknown slug with the same 401 body', async () => {
    const wrongKey = await t.app.inject({ method: 'POST', url: TOKEN_URL, payload: { sales_channel_slug: 'demo-d', widget_key: 'wk_demo_c' } });
    const unknownSlug = await t.app.inject({ method: 'POST', url: TOKEN_URL, payload: { sales_channel_slug: 'nope', widget_key: 'wk_demo_d' } });
    expect(wrongKey.statusCode).toBe(401);
    expect(unknownSlug.statusCode).toBe(401);
    expect(wrongKey.body).toBe(unknownSlug.body);
    expect(wrongKey.json()).toEqual({ status: 401, success: false, message: 'Invalid sales channel credentials', code: 'invalid_credentials' });
  });

  it('sends one statement per token request, issued or refused (issue 27)', async () => {
    const post = (payload: Record<string, string>) => t.app.inject({ method: 'POST', url: TOKEN_URL, payload });
    let status = 0;
    const issued = await countStatements(async () => {
      status = (await post({ sales_channel_slug: 'demo-d', widget_key: 'wk_demo_d', client_id: 'one-statement' })).statusCode;
    });
    expect(status).toBe(200);
    expect(issued).toBe(1);
    const refused = await countStatements(async () => {
      status = (await post({ sales_channel_slug: 'demo-d', widget_key: 'wk_demo_c' })).statusCode;
    });
    expect(status).toBe(401);
    expect(refused).toBe(1);
  });

  it('rejects a malformed body with 422 and field errors', async () => {
    const res = await t.app.inject({ method: 'POST', url: TOKEN_URL, payload: { sales_channel_slug: 'demo-d' } });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ success: false, code: 'validation_failed', message: 'The given data was invalid', errors: { widget_key: expect.any(Array) } });
  });

  it('rejects a body that is not JSON with 400 in the envelope', async () => {
    const res = await t.app.inject({ method: 'POST', url: TOKEN_URL, headers: { 'content-type': 'application/json' }, payload: '{"a":' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ status: 400, success: false, code: 'bad_request' });
  });

  it('a new token revokes the previous one', async () => {
    const first = await tokenFor(t.app, DEMO.c.slug, DEMO.c.key);
    expect((await t.app.inject({ url: configUrl('demo-c'), headers: bearer(first) })).statusCode).toBe(200);
    const second = await tokenFor(t.app, DEMO.c.slug, DEMO.c.key);
    const old = await t.app.inject({ url: configUrl('demo-c'), headers: bearer(first) });
    expect(old.statusCode).toBe(401);
    expect(old.json().code).toBe('invalid_token');
    expect((await t.app.inject({ url: configUrl('demo-c'), headers: bearer(second) })).statusCode).toBe(200);
  });

  it('client_id groups tokens: one buyer does not revoke another (D38)', async () => {
    const buyer1 = await tokenFor(t.app, DEMO.c.slug, DEMO.c.key, 'browser-1');
    const buyer2 = await tokenFor(t.app, DEMO.c.slug, DEMO.c.key, 'browser-2');
    expect((await t.app.inject({ url: configUrl('demo-c'), headers: bearer(buyer1) })).statusCode).toBe(200);
    expect((await t.app.inject({ url: configUrl('demo-c'), headers: bearer(buyer2) })).statusCode).toBe(200);
    const buyer1Again = await tokenFor(t.app, DEMO.c.slug, DEMO.c.key, 'browser-1');
    expect((await t.app.inject({ url: configUrl('demo-c'), headers: bearer(buyer1) })).statusCode).toBe(401);
    expect((await t.app.inject({ url: configUrl('demo-c'), headers: bearer(buyer1Again) })).statusCode).toBe(200);
    expect((await t.app.inject({ url: configUrl('demo-c'), headers: bearer(buyer2) })).statusCode).toBe(200);
  });

  it('rejects a malformed client_id', async () => {
    const res = await t.app.inject({ method: 'POST', url: TOKEN_URL, payload: { sales_channel_slug: 'demo-c', widget_key: 'wk_demo_c', client_id: 'a b' } });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toHaveProperty('client_id');
  });
});

describe('bearer tokens on B2B routes', () => {
  it('401 without a token, with a malformed header and with an unknown token', async () => {
    for (const headers of [{}, { authorization: 'Basic abc' }, bearer('tk_unknown')]) {
      const res = await t.app.inject({ url: configUrl('demo-d'), headers });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ status: 401, success: false });
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
  });

  it('403 "Unauthorized sales channel" for another channel slug, even an unknown one', async () => {
    const token = await tokenFor(t.app, DEMO.d.slug, DEMO.d.key);
    for (const slug of ['demo-a', 'demo-b', 'demo-c', 'no-such-channel']) {
      const res = await t.app.inject({ url: configUrl(slug), headers: bearer(token) });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ status: 403, success: false, message: 'Unauthorized sales channel', code: 'unauthorized_sales_channel' });
    }
  });

  it('an expired token gives 401 (injected clock)', async () => {
    const token = await tokenFor(t.app, DEMO.b.slug, DEMO.b.key, 'expiry-test');
    expect((await t.app.inject({ url: configUrl('demo-b'), headers: bearer(token) })).statusCode).toBe(200);
    t.clock.advance(t.config.tokenTtlSeconds * 1000 + 1000);
    const res = await t.app.inject({ url: configUrl('demo-b'), headers: bearer(token) });
    expect(res.statusCode).toBe(401);
  });

  it('revoking the widget key invalidates tokens issued earlier, and the key itself', async () => {
    const channel = (await findChannelBySlug(t.ctx.db, 'demo-b'))!;
    const key = await generateKeyForChannel(t.ctx, channel.id);
    expect(key.widget_key).toMatch(/^wk_[A-Za-z0-9]{40}$/);
    const token = await tokenFor(t.app, 'demo-b', key.widget_key, 'revocation');
    const other = await tokenFor(t.app, 'demo-b', 'wk_demo_b', 'other-client');
    expect((await t.app.inject({ url: configUrl('demo-b'), headers: bearer(token) })).statusCode).toBe(200);
    await revokeWidgetKey(t.ctx, channel.id, key.id);
    expect((await t.app.inject({ url: configUrl('demo-b'), headers: bearer(token) })).statusCode).toBe(401);
    expect((await t.app.inject({ url: configUrl('demo-b'), headers: bearer(other) })).statusCode).toBe(401);
    const again = await t.app.inject({ method: 'POST', url: TOKEN_URL, payload: { sales_channel_slug: 'demo-b', widget_key: key.widget_key } });
    expect(again.statusCode).toBe(401);
  });
});
