import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { registerSecurityHeaders } from '../../src/http/security-headers.js';
import { buildTestApp, DEMO, type TestApp } from '../helpers.js';
import { createHeldOrder } from '../portal/fixtures.js';

// Security headers of every page kind (D50), from the same service over http and over https
// (HSTS). APP_ENV=development so that the widget example pages are served.

let t: TestApp;
let https: FastifyInstance;
const pages: [kind: string, url: string][] = [];
beforeAll(async () => {
  t = await buildTestApp({ env: { APP_ENV: 'development', OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0' } });
  https = await buildApp({
    // Overload refusals off (here and above), as in APP_ENV=test: on a busy machine the development
    // default (200 ms of event-loop delay) answered these pages with 503s.
    config: loadConfig({ APP_ENV: 'development', PUBLIC_BASE_URL: 'https://tickets.example', WIDGET_URL: 'https://cdn.example/widget', OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0' }),
    database: t.db.database,
    logger: false,
  });
  await https.ready();
  const order = await createHeldOrder(t, DEMO.a.slug);
  const checkout = await t.app.inject({
    method: 'POST',
    url: `/api/portal/${DEMO.a.slug}/es/checkout`,
    payload: { order_token: order.token, name: 'Ana', surname: 'García', email: 'ana@example.com' },
  });
  expect(checkout.statusCode).toBe(200);
  pages.push(
    ['storefront', `/${DEMO.a.slug}/es/events`],
    ['event page', `/${DEMO.a.slug}/es/events/1`],
    ['checkout', `/${DEMO.a.slug}/es/checkout?order_token=${order.token}`],
    ['order page', `/${DEMO.a.slug}/es/orders/${order.token}`],
    ['sandbox card page', `/sandbox/pay/${checkout.json().data.payment_id}`],
    ['portal not-found page', `/${DEMO.a.slug}/es/events/999999`],
    ['dashboard', '/admin/login'],
    ['dashboard not-found page', '/admin/no-such-page'],
    ['API docs', '/api/docs'],
    ['widget example index', '/widget/examples/'],
    ['widget example model C', '/widget/examples/model-c.html'],
    ['widget example model D', '/widget/examples/model-d.html?hostile=1'],
  );
}, 180_000);
afterAll(async () => {
  await https?.close();
  await t?.close();
});

/** The CSP as directive -> sources. */
function csp(header: unknown): Map<string, string[]> {
  expect(typeof header).toBe('string');
  return new Map(
    String(header)
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...sources]) => [name!, sources]),
  );
}

const isExample = (kind: string) => kind.startsWith('widget example');

describe('every HTML page', () => {
  it.each([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11])('page %i: CSP, frame-ancestors, nosniff, Referrer-Policy, no HSTS over http', async (i) => {
    const [kind, url] = pages[i]!;
    const res = await t.app.inject({ method: 'GET', url });
    expect(res.statusCode, `${kind} ${url}`).toBeLessThan(500);
    expect(res.headers['content-type'], kind).toMatch(/^text\/html/);
    const policy = csp(res.headers['content-security-policy']);
    expect(res.headers['x-content-type-options'], kind).toBe('nosniff');
    expect(res.headers['referrer-policy'], kind).toBeTruthy();
    expect(res.headers['strict-transport-security'], kind).toBeUndefined();
    expect(policy.get('default-src'), kind).toEqual(expect.arrayContaining([expect.stringMatching(/^'(none|self)'$/)]));
    expect(policy.get('base-uri'), kind).toEqual(["'none'"]);
    // No page of ours runs inline script without a nonce.
    expect(policy.get('script-src') ?? [], kind).not.toContain("'unsafe-inline'");
    if (isExample(kind)) {
      expect(policy.has('frame-ancestors'), kind).toBe(false);
      expect(res.headers['x-frame-options'], kind).toBeUndefined();
    } else {
      expect(policy.get('frame-ancestors'), kind).toEqual(["'none'"]);
      expect(res.headers['x-frame-options'], kind).toBe('DENY');
    }
  });

  it.each([0, 6, 8, 10])('page %i over https also sends HSTS', async (i) => {
    const [kind, url] = pages[i]!;
    const res = await https.inject({ method: 'GET', url });
    expect(res.headers['content-type'], kind).toMatch(/^text\/html/);
    expect(res.headers['strict-transport-security'], kind).toBe('max-age=31536000');
  });
});

describe('what each page needs, and no more', () => {
  it('portal pages: script and styles from self; the inline <style> carries the reply nonce; no inline script', async () => {
    for (const [kind, url] of pages.filter(([k]) => ['storefront', 'checkout', 'order page', 'sandbox card page'].includes(k))) {
      const res = await t.app.inject({ method: 'GET', url });
      const policy = csp(res.headers['content-security-policy']);
      expect(policy.get('script-src')![0], kind).toBe("'self'");
      const nonce = /<style nonce="([^"]+)">/.exec(res.body)?.[1];
      expect(nonce, kind).toMatch(/^[0-9a-f]{32}$/);
      expect(policy.get('style-src'), kind).toEqual(["'self'", `'nonce-${nonce}'`]);
      expect(policy.get('style-src-attr'), kind).toEqual(["'unsafe-inline'"]);
      expect(policy.get('connect-src'), kind).toEqual(["'self'"]);
      // Only scripts from files; a JSON data block is not run.
      expect(res.body, kind).not.toMatch(/<script(?![^>]*\b(src=|type="application\/json"))/);
    }
    // A new nonce for every answer.
    const [a, b] = await Promise.all([1, 2].map(() => t.app.inject({ method: 'GET', url: pages[0]![1] })));
    expect(a!.headers['content-security-policy']).not.toBe(b!.headers['content-security-policy']);
  });

  it('the dashboard: only its own script and stylesheet', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/admin/login' });
    const policy = csp(res.headers['content-security-policy']);
    expect(policy.get('default-src')).toEqual(["'none'"]);
    expect(policy.get('script-src')).toEqual(["'self'"]);
    expect(policy.get('style-src')).toEqual(["'self'"]);
    expect(policy.get('form-action')).toEqual(["'self'"]);
    expect(res.headers['referrer-policy']).toBe('same-origin');
  });

  it('the widget example page: its inline script and styles by nonce, the widget from WIDGET_URL, its API at PUBLIC_BASE_URL', async () => {
    const res = await https.inject({ method: 'GET', url: '/widget/examples/model-d.html?hostile=1' });
    const policy = csp(res.headers['content-security-policy']);
    const nonces = (tag: string) => [...res.body.matchAll(new RegExp(`<${tag}[^>]*nonce="([^"]*)"`, 'g'))].map((m) => m[1]);
    const [scriptNonce] = nonces('script');
    const styleNonces = nonces('style');
    expect(styleNonces).toHaveLength(2);
    expect(policy.get('script-src')).toEqual(["'self'", 'https://cdn.example', `'nonce-${scriptNonce}'`]);
    for (const nonce of styleNonces) expect(policy.get('style-src')).toContain(`'nonce-${nonce}'`);
    // The widget's own stylesheet is a constructed one: no hash, no 'unsafe-inline'; Trusted Types enforced.
    expect(policy.get('style-src')!.filter((s) => !s.startsWith("'nonce-"))).toEqual(["'self'"]);
    expect(policy.get('require-trusted-types-for')).toEqual(["'script'"]);
    expect(policy.get('connect-src')).toEqual(["'self'", 'https://tickets.example']);
    expect(res.body).toContain('<script src="https://cdn.example/widget/v1/widget.iife.js"></script>');
  });
});

describe('JSON and files', () => {
  it.each(['/healthz', '/readyz', '/api/openapi.json'])('%s: nosniff and Referrer-Policy, no page policy', async (url) => {
    const res = await t.app.inject({ method: 'GET', url });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['content-security-policy']).toBeUndefined();
    expect((await https.inject({ method: 'GET', url })).headers['strict-transport-security']).toBe('max-age=31536000');
  });

  it('the widget script keeps its cross-origin headers', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/widget/v1/widget.iife.js' });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cross-origin-resource-policy']).toBe('cross-origin');
  });
});

it('an HTML answer that no page policy claimed gets the strictest policy', async () => {
  const app = Fastify();
  await registerSecurityHeaders(app, loadConfig({ APP_ENV: 'test' }));
  app.get('/new-page', async (_request, reply) => reply.type('text/html; charset=utf-8').send('<p>new</p>'));
  const res = await app.inject({ method: 'GET', url: '/new-page' });
  const policy = csp(res.headers['content-security-policy']);
  expect(policy.get('default-src')).toEqual(["'none'"]);
  expect(policy.has('script-src')).toBe(false);
  expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
  expect(res.headers['x-frame-options']).toBe('DENY');
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  await app.close();
});
