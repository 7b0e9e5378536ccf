import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers.js';

// How /checkin serves the scanner: the page under the service worker's scope, its policy, the
// caching of each kind of file, the manifest and icons an install needs.

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ demo: false });
}, 120_000);
afterAll(async () => t?.close());

describe('the scanner at /checkin', () => {
  it('redirects /checkin into the scope and serves the page, revalidated, under its own policy', async () => {
    const redirect = await t.app.inject({ url: '/checkin' });
    expect(redirect.statusCode).toBe(301);
    expect(redirect.headers.location).toBe('/checkin/');
    const page = await t.app.inject({ url: '/checkin/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['cache-control']).toBe('no-cache');
    const csp = String(page.headers['content-security-policy']);
    for (const d of ["default-src 'none'", "script-src 'self'", "connect-src 'self'", "worker-src 'self'", "manifest-src 'self'", "frame-ancestors 'none'"]) expect(csp).toContain(d);
    expect(page.body).toContain('<link rel="manifest" href="/checkin/manifest.webmanifest"');
    // A page with a query (the set-up link's token is in the fragment, which never reaches us) is the same page.
    expect((await t.app.inject({ url: '/checkin/?from=qr' })).statusCode).toBe(200);
  });

  it('serves the service worker unhashed and revalidated, listing every file of the app shell', async () => {
    const sw = await t.app.inject({ url: '/checkin/sw.js' });
    expect(sw.statusCode).toBe(200);
    expect(sw.headers['content-type']).toMatch(/javascript/);
    expect(sw.headers['cache-control']).toBe('no-cache');
    const shell = [...sw.body.matchAll(/"(\/checkin\/[^"]*)"/g)].map((m) => m[1]!);
    expect(shell).toContain('/checkin/');
    expect(shell).toContain('/checkin/manifest.webmanifest');
    expect(sw.body).not.toContain('__CHECKIN_');
    const assets = shell.filter((f) => f.startsWith('/checkin/assets/'));
    expect(assets.some((f) => f.endsWith('.js'))).toBe(true);
    expect(assets.some((f) => f.endsWith('.css'))).toBe(true);
    for (const file of shell) {
      const res = await t.app.inject({ url: file });
      expect(res.statusCode, file).toBe(200);
      if (file.startsWith('/checkin/assets/')) expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    }
  });

  it('has an installable manifest with PNG icons of 192 and 512 pixels', async () => {
    const res = await t.app.inject({ url: '/checkin/manifest.webmanifest' });
    expect(res.headers['content-type']).toMatch(/^application\/manifest\+json/);
    const manifest = res.json();
    expect(manifest).toMatchObject({ start_url: '/checkin/', scope: '/checkin/', display: 'standalone' });
    for (const size of [192, 512]) {
      const icon = manifest.icons.find((i: { sizes: string }) => i.sizes === `${size}x${size}`);
      const png = await t.app.inject({ url: icon.src });
      expect(png.headers['content-type']).toBe('image/png');
      expect(png.rawPayload.subarray(1, 4).toString()).toBe('PNG');
      expect(png.rawPayload.readUInt32BE(16)).toBe(size);
    }
  });

  it('answers a missing file with the error envelope', async () => {
    const res = await t.app.inject({ url: '/checkin/nope.js' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ success: false, code: 'route_not_found' });
  });
});
