import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, buildTestApp, tokenFor, type TestApp } from '../helpers.js';
import { WIDGET_FILE } from './build-widget.global.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
}, 180_000); // a fresh database with demo data is slow on a loaded machine
afterAll(() => t.close());

const SCRIPT = '/widget/v1/widget.iife.js';

describe('GET /widget/v1/widget.iife.js', () => {
  it('serves the built IIFE with a strong ETag, a short cache and CORS', async () => {
    const res = await t.app.inject({ url: SCRIPT });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(res.headers.etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(res.headers['cache-control']).toMatch(/max-age=300/);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.body).toBe(readFileSync(WIDGET_FILE, 'utf8'));
    expect(res.body).toMatch(/^var TicketWidget=/);
  });

  it('answers 304 to a matching If-None-Match and 200 to a stale one', async () => {
    const first = await t.app.inject({ url: SCRIPT });
    const again = await t.app.inject({ url: SCRIPT, headers: { 'if-none-match': first.headers.etag as string } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    const stale = await t.app.inject({ url: SCRIPT, headers: { 'if-none-match': '"0000"' } });
    expect(stale.statusCode).toBe(200);
  });

  it('serves the same bytes under a content-hashed name, cached for a year', async () => {
    const first = await t.app.inject({ url: SCRIPT });
    const hash = first.headers['x-widget-build'] as string;
    const pinned = await t.app.inject({ url: `/widget/v1/widget.${hash}.iife.js` });
    expect(pinned.statusCode).toBe(200);
    expect(pinned.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(pinned.body).toBe(first.body);
    const unknown = await t.app.inject({ url: '/widget/v1/widget.000000000000.iife.js' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ success: false, code: 'not_found' });
  });

  it('publishes the build behind the alias with its Subresource Integrity value (manifest and header)', async () => {
    const { createHash } = await import('node:crypto');
    const script = await t.app.inject({ url: SCRIPT });
    const integrity = `sha384-${createHash('sha384').update(script.rawPayload).digest('base64')}`;
    expect(script.headers['x-widget-integrity']).toBe(integrity);
    const res = await t.app.inject({ url: '/widget/v1/manifest.json', headers: { origin: 'https://partner.example' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['cache-control']).toMatch(/max-age=300/);
    const build = script.headers['x-widget-build'] as string;
    const manifest = res.json();
    expect(manifest).toEqual({
      build,
      file: `widget.${build}.iife.js`,
      url: `${t.app.ctx.config.widgetUrl}/v1/widget.${build}.iife.js`,
      integrity,
      alias: `${t.app.ctx.config.widgetUrl}/v1/widget.iife.js`,
    });
    // The pinned address serves exactly the bytes the integrity value covers.
    const pinned = await t.app.inject({ url: `/widget/v1/${manifest.file}` });
    expect(`sha384-${createHash('sha384').update(pinned.rawPayload).digest('base64')}`).toBe(manifest.integrity);
    const again = await t.app.inject({ url: '/widget/v1/manifest.json', headers: { 'if-none-match': res.headers.etag as string } });
    expect(again.statusCode).toBe(304);
  });

  it('does not serve the example pages outside development', async () => {
    const res = await t.app.inject({ url: '/widget/examples/model-d.html' });
    expect(res.statusCode).toBe(404);
  });
});

describe('CORS on the B2B routes (the widget runs on partner origins)', () => {
  const configUrl = '/api/sales-channel/v1/demo-d/config';
  const origin = 'https://partner.example';

  it('answers a preflight without a token, allowing the Authorization header', async () => {
    const res = await t.app.inject({
      method: 'OPTIONS',
      url: configUrl,
      headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(String(res.headers['access-control-allow-headers'])).toMatch(/Authorization/);
    expect(String(res.headers['access-control-allow-methods'])).toMatch(/DELETE/);
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('adds the CORS header to answers, 401s included (so the widget can renew its token)', async () => {
    const token = await tokenFor(t.app, 'demo-d');
    const okRes = await t.app.inject({ url: configUrl, headers: { origin, ...bearer(token) } });
    expect(okRes.statusCode).toBe(200);
    expect(okRes.headers['access-control-allow-origin']).toBe('*');
    const denied = await t.app.inject({ url: configUrl, headers: { origin, ...bearer('tk_nope') } });
    expect(denied.statusCode).toBe(401);
    expect(denied.headers['access-control-allow-origin']).toBe('*');
    const tokenRes = await t.app.inject({
      method: 'OPTIONS',
      url: '/api/sales-channel/v1/auth/token',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(tokenRes.statusCode).toBe(204);
  });

  it('keeps CORS off the admin API', async () => {
    const res = await t.app.inject({ method: 'OPTIONS', url: '/api/admin/v1/anything', headers: { origin, 'access-control-request-method': 'GET' } });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('still checks the channel: another channel\'s slug with a valid token is 403', async () => {
    const token = await tokenFor(t.app, 'demo-c');
    const res = await t.app.inject({ url: configUrl, headers: { origin, ...bearer(token) } });
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toBe('Unauthorized sales channel');
  });
});
