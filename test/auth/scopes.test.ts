import Fastify from 'fastify';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { requireRoutePolicy } from '../../src/http/route-policy.js';
import { INTEGRATION_POLICY, SERVER_SIDE_OPERATIONS, TICKET_EMAIL_MODES, type B2BOperation, type CredentialScope } from '../../src/lib/integration-policy.js';
import { sha256 } from '../../src/lib/secrets.js';
import { issueToken } from '../../src/modules/auth/auth.service.js';
import { generateChannelKey, revokeChannelKey } from '../../src/modules/auth/auth.service.js';
import { findChannelBySlug } from '../../src/modules/channels/channels.repo.js';
import { appTest, bearer, DEMO, expectErrorBody, serverTokenFor, tokenFor } from '../helpers.js';

// Credential scopes (DECISIONS D39-D41): the token endpoint, the scope of each B2B route in each
// integration model, the browser-origin rule, the CORS policy and the separate token caps.

const { it, app } = appTest();

const TOKEN_URL = '/api/sales-channel/v1/auth/token';
const configUrl = (slug: string) => `/api/sales-channel/v1/${slug}/config`;
const requestToken = (payload: object, headers: Record<string, string> = {}) => app().app.inject({ method: 'POST', url: TOKEN_URL, payload, headers });

describe('token endpoint: widget_key or server_key (D39)', () => {
  it('a widget key gives a widget-scope token, a server key a server-scope token', async () => {
    const widget = await requestToken({ sales_channel_slug: 'demo-d', widget_key: 'wk_demo_d' });
    expect(widget.statusCode).toBe(200);
    expect(widget.json().data).toMatchObject({ scope: 'widget', token_type: 'Bearer', sales_channel_slug: 'demo-d' });
    const server = await requestToken({ sales_channel_slug: 'demo-d', server_key: 'sk_demo_d', client_id: 'server-1' });
    expect(server.statusCode).toBe(200);
    expect(server.json().data).toMatchObject({ scope: 'server', token_type: 'Bearer', sales_channel_slug: 'demo-d' });
    expect(server.json().data.access_token).toMatch(/^tk_[A-Za-z0-9]{44}$/);
  });

  it('both keys, or neither: 422 in the envelope with a message on each field', async () => {
    const both = await requestToken({ sales_channel_slug: 'demo-d', widget_key: 'wk_demo_d', server_key: 'sk_demo_d' });
    expectErrorBody(both, 422, 'validation_failed', 'The given data was invalid', { widget_key: ['give either widget_key or server_key, not both'], server_key: ['give either widget_key or server_key, not both'] });
    const neither = await requestToken({ sales_channel_slug: 'demo-d' });
    expect(neither.statusCode).toBe(422);
    expect(neither.json()).toMatchObject({
      code: 'validation_failed',
      errors: { widget_key: ['widget_key or server_key is required'], server_key: ['widget_key or server_key is required'] },
    });
  });

  it('a wrong server key, a widget key sent as server key and the reverse: the same 401 as an unknown slug (D6)', async () => {
    const unknownSlug = await requestToken({ sales_channel_slug: 'no-such-channel', server_key: 'sk_demo_d' });
    expect(unknownSlug.statusCode).toBe(401);
    for (const payload of [
      { sales_channel_slug: 'demo-d', server_key: 'sk_demo_c' },
      { sales_channel_slug: 'demo-d', server_key: 'wk_demo_d' },
      { sales_channel_slug: 'demo-d', widget_key: 'sk_demo_d' },
    ]) {
      const res = await requestToken(payload);
      expect(res.statusCode).toBe(401);
      expect(res.body).toBe(unknownSlug.body);
    }
    expect(unknownSlug.json()).toEqual({ status: 401, success: false, message: 'Invalid sales channel credentials', code: 'invalid_credentials' });
  });

  it('a revoked server key gives 401, and the tokens issued from it stop at once; other keys\' tokens live on', async ({ t }) => {
    const channel = (await findChannelBySlug(t.ctx.db, 'demo-c'))!;
    const old = await generateChannelKey(t.ctx, 'server', channel.id);
    const next = await generateChannelKey(t.ctx, 'server', channel.id);
    expect(old.key).toMatch(/^sk_[A-Za-z0-9]{40}$/);
    const fromOld = await serverTokenFor(t.app, 'demo-c', old.key, 'rotation-old');
    const fromNext = await serverTokenFor(t.app, 'demo-c', next.key, 'rotation-next');
    const widget = await tokenFor(t.app, 'demo-c', 'wk_demo_c', 'rotation-widget');
    await revokeChannelKey(t.ctx, 'server', channel.id, old.id);
    expect((await t.app.inject({ url: configUrl('demo-c'), headers: bearer(fromOld) })).statusCode).toBe(401);
    expect((await t.app.inject({ url: configUrl('demo-c'), headers: bearer(fromNext) })).statusCode).toBe(200);
    expect((await t.app.inject({ url: configUrl('demo-c'), headers: bearer(widget) })).statusCode).toBe(200);
    const again = await requestToken({ sales_channel_slug: 'demo-c', server_key: old.key });
    expect(again.statusCode).toBe(401);
    expect(again.json().code).toBe('invalid_credentials');
  });

  it('revoking a widget key stops the widget tokens, never a server token (D41)', async ({ t }) => {
    const channel = (await findChannelBySlug(t.ctx.db, 'demo-c'))!;
    const key = await generateChannelKey(t.ctx, 'widget', channel.id);
    const widget = await tokenFor(t.app, 'demo-c', key.key, 'widget-revocation');
    const server = await serverTokenFor(t.app, 'demo-c', 'sk_demo_c', 'widget-revocation');
    await revokeChannelKey(t.ctx, 'widget', channel.id, key.id);
    expect((await t.app.inject({ url: configUrl('demo-c'), headers: bearer(widget) })).statusCode).toBe(401);
    expect((await t.app.inject({ url: configUrl('demo-c'), headers: bearer(server) })).statusCode).toBe(200);
  });

  it('a server key sent by a browser (Origin header) is refused 403 browser_origin_refused', async () => {
    const res = await requestToken({ sales_channel_slug: 'demo-d', server_key: 'sk_demo_d' }, { origin: 'https://shop.example' });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ status: 403, success: false, code: 'browser_origin_refused' });
    // the widget key is publishable: a browser may exchange it
    expect((await requestToken({ sales_channel_slug: 'demo-d', widget_key: 'wk_demo_d', client_id: 'browser' }, { origin: 'https://shop.example' })).statusCode).toBe(200);
  });

  it('a new token revokes the previous one of its own scope only: the same client_id in the other scope lives on', async ({ t }) => {
    const server = await serverTokenFor(t.app, 'demo-d', 'sk_demo_d');
    await tokenFor(t.app, 'demo-d', 'wk_demo_d'); // no client_id, like the server token
    expect((await t.app.inject({ url: configUrl('demo-d'), headers: bearer(server) })).statusCode).toBe(200);
    const serverAgain = await serverTokenFor(t.app, 'demo-d', 'sk_demo_d');
    expect((await t.app.inject({ url: configUrl('demo-d'), headers: bearer(server) })).statusCode).toBe(401);
    expect((await t.app.inject({ url: configUrl('demo-d'), headers: bearer(serverAgain) })).statusCode).toBe(200);
  });

  it('stores hashes only: no plain server key and no plain token in the database', async ({ t }) => {
    const channel = (await findChannelBySlug(t.ctx.db, 'demo-b'))!;
    const key = await generateChannelKey(t.ctx, 'server', channel.id);
    const token = await serverTokenFor(t.app, 'demo-b', key.key, 'hash-check');
    const rows = await queryRows<{ key_hash: string; last_four: string }>(t.ctx.db, sql`SELECT key_hash, last_four FROM server_keys WHERE id = ${key.id}`);
    expect(rows).toEqual([{ key_hash: sha256(key.key), last_four: key.key.slice(-4) }]);
    const [dump] = await queryRows<{ text: string }>(
      t.ctx.db,
      sql`SELECT (SELECT string_agg(s::text, '|') FROM server_keys s) || (SELECT string_agg(a::text, '|') FROM access_tokens a) AS text`,
    );
    expect(dump!.text).not.toContain(key.key);
    expect(dump!.text).not.toContain(token);
    expect(dump!.text).not.toContain('sk_demo_');
    const [tokenRow] = await queryRows<{ scope: string; server_key_id: number; widget_key_id: number | null }>(
      t.ctx.db,
      sql`SELECT scope, server_key_id, widget_key_id FROM access_tokens WHERE token_hash = ${sha256(token)}`,
    );
    expect(tokenRow).toEqual({ scope: 'server', server_key_id: key.id, widget_key_id: null });
  });
});

// ---- each scope on each B2B route for each model (D40) ----------------------------------------

type Model = 'a' | 'b' | 'c' | 'd';
type Expected = 'allowed' | 'model_forbids' | 'server_credential_required';

/**
 * What each B2B route is, decided here from its path independently of the route's own
 * declaration: a new route that matches none of these fails the test until it gets a decision.
 */
function operationOfPath(url: string): B2BOperation | undefined {
  const path = url.replace('/api/sales-channel/v1/:salesChannelSlug', '');
  // The checklist is read like the config: every scope of every model, its own channel only.
  if (path === '/config' || path === '/integration-checklist') return 'config';
  if (/^\/:lang\/events(\/|$)/.test(path)) return 'catalogue';
  if (/^\/:lang\/orders\/:orderToken\/(confirm|confirm-payment)$/.test(path)) return 'confirm';
  if (path === '/:lang/reports/sales') return 'report';
  if (/^\/:lang\/orders(\/|$)/.test(path)) return 'cart';
  // D69: a buyer's waiting-list entry is written and read like a cart.
  if (path === '/:lang/sessions/:sessionId/waiting-list' || path === '/:lang/waiting-list/:entryToken') return 'cart';
  return undefined;
}

/** D40 and SPEC's error table, written out: model -> operation -> scope -> verdict. */
const W = 'allowed' as const;
const M = 'model_forbids' as const;
const S = 'server_credential_required' as const;
const EXPECTED: Record<Model, Record<B2BOperation, Record<CredentialScope, Expected>>> = {
  // A and B publish no widget: their widget key keeps every right (SPEC compatibility).
  a: { config: { widget: W, server: W }, catalogue: { widget: W, server: W }, cart: { widget: M, server: M }, confirm: { widget: M, server: M }, report: { widget: W, server: W } },
  b: { config: { widget: W, server: W }, catalogue: { widget: W, server: W }, cart: { widget: M, server: M }, confirm: { widget: W, server: W }, report: { widget: W, server: W } },
  // C and D: the page's widget key builds carts; confirm (D only) and the report need the server key.
  c: { config: { widget: W, server: W }, catalogue: { widget: W, server: W }, cart: { widget: W, server: W }, confirm: { widget: M, server: M }, report: { widget: S, server: W } },
  d: { config: { widget: W, server: W }, catalogue: { widget: W, server: W }, cart: { widget: W, server: W }, confirm: { widget: S, server: W }, report: { widget: S, server: W } },
};

/** A concrete URL for a route pattern: ids that exist nowhere, so an allowed call answers 404 or 422, never 403. */
const concrete = (url: string, slug: string) =>
  url
    .replace(':salesChannelSlug', slug)
    .replace(':lang', 'es')
    .replace(':orderToken', '00000000-0000-4000-8000-000000000000')
    .replace(/:[A-Za-z]+/g, '999999');

describe('every B2B route, each model, each scope (D40)', () => {
  const tokens = {} as Record<Model, Record<CredentialScope, string>>;
  beforeAll(async () => {
    for (const m of ['a', 'b', 'c', 'd'] as const) {
      tokens[m] = {
        widget: await tokenFor(app().app, DEMO[m].slug, DEMO[m].key, 'scope-table'),
        server: await serverTokenFor(app().app, DEMO[m].slug, DEMO[m].serverKey, 'scope-table'),
      };
    }
  });

  it('every route has a scope decision, and the one it declares is the one its path says', () => {
    const routes = app().app.routePolicies.b2b;
    for (const route of routes) {
      expect(operationOfPath(route.url), `${route.method} ${route.url} has no scope decision in this test`).toBeDefined();
      expect(route.operation, `${route.method} ${route.url}`).toBe(operationOfPath(route.url));
    }
    // the confirm alias and both report formats (JSON, CSV: one route) are covered
    const urls = routes.map((r) => r.url);
    expect(urls).toContain('/api/sales-channel/v1/:salesChannelSlug/:lang/orders/:orderToken/confirm');
    expect(urls).toContain('/api/sales-channel/v1/:salesChannelSlug/:lang/orders/:orderToken/confirm-payment');
    expect(urls).toContain('/api/sales-channel/v1/:salesChannelSlug/:lang/reports/sales');
  });

  it('a route registered without a decision stops the start', async () => {
    const app = Fastify();
    void app.register(async (scope) => {
      requireRoutePolicy(scope, { operation: true });
      scope.get('/undeclared', async () => 'reachable with any credential');
    });
    await expect(app.ready()).rejects.toThrow(/declares no config.b2bOperation/);
  });

  it('answers each route as the table says, for widget and server tokens of models A-D', async ({ t }) => {
    let checked = 0;
    // HEAD routes are Fastify's copies of the GET routes, with their hooks; the GET is asked.
    const routes = t.app.routePolicies.b2b.filter((r) => r.method !== 'HEAD');
    for (const route of routes) {
      for (const m of ['a', 'b', 'c', 'd'] as const) {
        for (const scope of ['widget', 'server'] as const) {
          const expected = EXPECTED[m][operationOfPath(route.url)!][scope];
          const res = await t.app.inject({
            method: route.method as 'GET',
            url: concrete(route.url, DEMO[m].slug),
            headers: bearer(tokens[m][scope]),
            ...(['POST', 'PUT', 'DELETE'].includes(route.method) ? { payload: {} } : {}),
          });
          const what = `${route.method} ${route.url} model ${m.toUpperCase()} ${scope}: ${res.statusCode} ${res.body.slice(0, 120)}`;
          if (expected === 'allowed') {
            expect(res.statusCode, what).not.toBe(403);
            expect(res.statusCode, what).not.toBe(401);
            expect(res.statusCode, what).toBeLessThan(500);
          } else {
            expect(res.statusCode, what).toBe(403);
            const body = res.json();
            expect(body.code, what).toBe(expected === 'model_forbids' ? 'forbidden_for_integration_mode' : 'server_credential_required');
            if (expected === 'server_credential_required') {
              expect(body).toEqual({ status: 403, success: false, code: 'server_credential_required', message: "This operation requires the channel's server key" });
            }
          }
          checked++;
        }
      }
    }
    expect(checked).toBe(routes.length * 8);
    expect(routes.length).toBeGreaterThanOrEqual(20);
  });

  it('a server-scope token sent with an Origin header is refused on every route (403 browser_origin_refused); a widget token is not', async ({ t }) => {
    for (const route of t.app.routePolicies.b2b.filter((r) => r.method !== 'HEAD')) {
      const url = concrete(route.url, 'demo-d');
      const method = route.method as 'GET';
      const payload = ['POST', 'PUT', 'DELETE'].includes(route.method) ? { payload: {} } : {};
      const server = await t.app.inject({ method, url, headers: { ...bearer(tokens.d.server), origin: 'https://shop.example' }, ...payload });
      expect(server.statusCode, `${route.method} ${route.url}`).toBe(403);
      expect(server.json()).toMatchObject({ status: 403, success: false, code: 'browser_origin_refused' });
      if (EXPECTED.d[route.operation].widget === 'allowed') {
        const widget = await t.app.inject({ method, url, headers: { ...bearer(tokens.d.widget), origin: 'https://shop.example' }, ...payload });
        expect(widget.statusCode, `${route.method} ${route.url}`).not.toBe(403);
      }
    }
  });

  it('the sales report as CSV is refused to a widget token of C and D, served to their server token', async ({ t }) => {
    for (const m of ['c', 'd'] as const) {
      const url = `/api/sales-channel/v1/${DEMO[m].slug}/es/reports/sales?format=csv`;
      const widget = await t.app.inject({ url, headers: { ...bearer(tokens[m].widget), accept: 'text/csv' } });
      expect(widget.statusCode).toBe(403);
      expect(widget.json().code).toBe('server_credential_required');
      const server = await t.app.inject({ url, headers: { ...bearer(tokens[m].server), accept: 'text/csv' } });
      expect(server.statusCode).toBe(200);
      expect(server.headers['content-type']).toContain('text/csv');
    }
  });

  it('CORS admits every route but confirm, confirm-payment and the report (preflight and answer)', async ({ t }) => {
    expect([...SERVER_SIDE_OPERATIONS].sort()).toEqual(['confirm', 'report']);
    for (const route of t.app.routePolicies.b2b) {
      if (route.method === 'HEAD') continue;
      const url = concrete(route.url, 'demo-d');
      const preflight = await t.app.inject({
        method: 'OPTIONS',
        url,
        headers: { origin: 'https://shop.example', 'access-control-request-method': route.method, 'access-control-request-headers': 'authorization,content-type' },
      });
      const serverSide = SERVER_SIDE_OPERATIONS.includes(route.operation);
      const what = `${route.method} ${route.url}: ${preflight.statusCode}`;
      if (serverSide) {
        expect(preflight.headers['access-control-allow-origin'], what).toBeUndefined();
        expect(preflight.statusCode, what).not.toBe(204);
      } else {
        expect(preflight.statusCode, what).toBe(204);
        expect(preflight.headers['access-control-allow-origin'], what).toBe('*');
      }
    }
    const report = await t.app.inject({ url: '/api/sales-channel/v1/demo-b/es/reports/sales', headers: { ...bearer(tokens.b.widget), origin: 'https://shop.example' } });
    expect(report.statusCode).toBe(200); // model B's widget key keeps the report (SPEC compatibility) ...
    expect(report.headers['access-control-allow-origin']).toBeUndefined(); // ... but a browser cannot read it
    const config = await t.app.inject({ url: configUrl('demo-d'), headers: { ...bearer(tokens.d.widget), origin: 'https://shop.example' } });
    expect(config.headers['access-control-allow-origin']).toBe('*');
  });
});

describe('the integration policy table', () => {
  it('SPEC config flags per model, and the ticket e-mail of every model but D (D24)', async ({ t }) => {
    const rows = Object.fromEntries(
      Object.entries(INTEGRATION_POLICY).map(([mode, p]) => [mode, [p.model, p.allowsWidget, p.storefront, p.portalCheckout, p.channelCollectsPayment, p.sendsTicketEmail]]),
    );
    expect(rows).toEqual({
      portal_only: ['A', false, true, 'card', false, true],
      portal_external_payment: ['B', false, true, 'external_page', true, true],
      widget_platform_payment: ['C', true, false, 'card', false, true],
      widget_external_payment: ['D', true, false, null, true, false],
    });
    expect([...TICKET_EMAIL_MODES].sort()).toEqual(['portal_external_payment', 'portal_only', 'widget_platform_payment']);
    // confirm is allowed exactly where the channel collects the payment
    for (const p of Object.values(INTEGRATION_POLICY)) expect(p.b2b.confirm.length > 0).toBe(p.channelCollectsPayment);
    for (const m of ['a', 'b', 'c', 'd'] as const) {
      const token = await tokenFor(t.app, DEMO[m].slug, DEMO[m].key, 'policy-config');
      const config = (await t.app.inject({ url: configUrl(DEMO[m].slug), headers: bearer(token) })).json().data;
      const p = INTEGRATION_POLICY[config.integration_mode as keyof typeof INTEGRATION_POLICY];
      expect(config.allows_widget).toBe(p.allowsWidget);
      expect(config.requires_external_payment_callback).toBe(p.channelCollectsPayment);
      expect(config.show_checkout_button).toBe(m === 'c');
    }
  });
});

// ---- separate caps and eviction (D41) -------------------------------------------------------

describe('widget and server tokens are capped and evicted apart (D41)', () => {
  it('10,000 widget tokens minted with random client_ids: the server token still works', async ({ t }) => {
    const server = await serverTokenFor(t.app, 'demo-d', 'sk_demo_d', 'eviction-server');
    const cap = t.config.maxLiveTokensPerChannel;
    expect(cap).toBe(10_000);
    const channel = (await findChannelBySlug(t.ctx.db, 'demo-d'))!;
    // The first 9,800 as rows written in one statement (a loop of 10,000 token requests takes
    // minutes on the embedded database), newer than the server token; then 205 real token
    // requests, which take the channel past its cap of widget tokens and run the eviction.
    const bulk = cap - 200;
    await t.ctx.db.execute(sql`
      INSERT INTO access_tokens (channel_id, scope, widget_key_id, client_id, token_hash, created_at, expires_at)
      SELECT ${channel.id}, 'widget', (SELECT id FROM widget_keys WHERE channel_id = ${channel.id} AND revoked_at IS NULL ORDER BY id LIMIT 1),
             'bulk-' || g, md5('bulk-token-' || g || random()), now(), now() + interval '1 day'
      FROM generate_series(1, ${bulk}) g`);
    const started = performance.now();
    const minted: string[] = [];
    for (let i = 0; i < 205; i++) {
      const token = await issueToken(t.ctx, { slug: 'demo-d', widgetKey: 'wk_demo_d', clientId: `buyer-${i}-${Math.random().toString(36).slice(2)}` });
      minted.push(token.access_token);
    }
    console.log(`205 widget token requests on top of ${bulk} live widget tokens: ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const [live] = await queryRows<{ widget: number; server: number; bulk_revoked: number }>(
      t.ctx.db,
      sql`SELECT count(*) FILTER (WHERE scope = 'widget' AND revoked_at IS NULL)::int AS widget,
                 count(*) FILTER (WHERE scope = 'server' AND revoked_at IS NULL)::int AS server,
                 count(*) FILTER (WHERE client_id LIKE 'bulk-%' AND revoked_at IS NOT NULL)::int AS bulk_revoked
          FROM access_tokens WHERE channel_id = ${channel.id}`,
    );
    expect(live!.widget).toBe(cap);
    expect(live!.server).toBeGreaterThanOrEqual(1);
    expect(live!.bulk_revoked).toBeGreaterThan(0); // the oldest widget tokens were evicted ...
    expect((await t.app.inject({ url: configUrl('demo-d'), headers: bearer(server) })).statusCode).toBe(200); // ... the server token was not
    expect((await t.app.inject({ url: configUrl('demo-d'), headers: bearer(minted.at(-1)!) })).statusCode).toBe(200);
  }, 300_000);

  it('server tokens past their cap evict the oldest server token, never a widget token', async ({ t }) => {
    const config = t.ctx.config;
    (t.ctx as { config: typeof config }).config = { ...config, maxLiveTokensPerChannel: 2 };
    try {
      const widget = await tokenFor(t.app, 'demo-a', 'wk_demo_a', 'cap-widget');
      const servers = [];
      for (let i = 0; i < 3; i++) servers.push(await serverTokenFor(t.app, 'demo-a', 'sk_demo_a', `cap-server-${i}`));
      expect((await t.app.inject({ url: configUrl('demo-a'), headers: bearer(servers[0]!) })).statusCode).toBe(401);
      expect((await t.app.inject({ url: configUrl('demo-a'), headers: bearer(servers[2]!) })).statusCode).toBe(200);
      expect((await t.app.inject({ url: configUrl('demo-a'), headers: bearer(widget) })).statusCode).toBe(200);
    } finally {
      (t.ctx as { config: typeof config }).config = config;
    }
  });
});
