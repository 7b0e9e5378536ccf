import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { decorateBearer } from '../../src/http/bearer.js';
import { sha256 } from '../../src/lib/secrets.js';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { requireRoutePolicy } from '../../src/http/route-policy.js';
import { createTestDatabase } from '../helpers.js';

// Issue 26 item 3 (and 27): each route declares its policy in its `config` (operation, rate limits,
// checklist step; CORS follows the operation), read once as the route is declared; a route of a
// scope that demands a declaration and lacks it stops the start instead of going live unguarded.

describe('route policy declared on the route, read at start', () => {
  let app: FastifyInstance;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const db = await createTestDatabase();
    drop = db.drop;
    // Not made ready: routes may still be declared, as a module's plugin would.
    app = await buildApp({ config: loadConfig({ APP_ENV: 'test', PUBLIC_BASE_URL: 'http://taquilla.test' }), database: db.database, logger: false });
  });
  afterAll(async () => {
    await app.close();
    await drop();
  });

  /** A scope demanding `demands` with one route declared as `config`: the error its start stops with, or null. */
  async function startWith(demands: Parameters<typeof requireRoutePolicy>[1], method: 'GET' | 'POST' | 'DELETE', config: object | undefined) {
    const probe = Fastify();
    void probe.register(async (scope) => {
      requireRoutePolicy(scope, demands);
      scope.route({ method, url: '/undeclared', config, handler: async () => 'reachable' });
    });
    try {
      await probe.ready();
      return null;
    } catch (err) {
      return (err as Error).message;
    } finally {
      await probe.close();
    }
  }

  it('stops the start at a write that declares no rate limit where its scope demands one', async () => {
    expect(await startWith({ writeLimits: true }, 'POST', undefined)).toBe(
      "POST /undeclared declares no config.rateLimits: give it its limits (src/http/rate-limits.ts) or { none: 'the reason it has none' }",
    );
    expect(await startWith({ writeLimits: true }, 'DELETE', { rateLimits: [] })).toMatch(/declares no config.rateLimits/);
    // A reason must say something.
    expect(await startWith({ writeLimits: true }, 'POST', { rateLimits: { none: '' } })).toMatch(/declares no config.rateLimits/);
    expect(await startWith({ writeLimits: true }, 'POST', { rateLimits: ['portal'] })).toBeNull();
    expect(await startWith({ writeLimits: true }, 'POST', { rateLimits: { none: 'signed by the provider' } })).toBeNull();
    // Reads need no declaration.
    expect(await startWith({ writeLimits: true }, 'GET', undefined)).toBeNull();
  });

  it('stops the start at a route that declares no B2B operation where its scope demands one', async () => {
    expect(await startWith({ operation: true }, 'GET', undefined)).toMatch(/^B2B route GET \/undeclared declares no config.b2bOperation/);
    expect(await startWith({ operation: true }, 'GET', { b2bOperation: 'refund' })).toMatch(/declares no config.b2bOperation/);
    expect(await startWith({ operation: true }, 'GET', { b2bOperation: 'catalogue' })).toBeNull();
  });

  it('stops the start at a route that declares a rate limit the table does not have', () => {
    expect(() => app.post('/somewhere', { config: { rateLimits: ['no_such_limit' as never] } }, async () => ({}))).toThrow(
      'POST /somewhere declares an unknown rate limit "no_such_limit"',
    );
  });

  it('keeps each route of the app with its declared policy', () => {
    const of = (method: string, url: string) => app.routePolicies.routes.find((r) => r.method === method && r.url === url);
    expect(of('POST', '/api/sales-channel/v1/:salesChannelSlug/:lang/orders')).toMatchObject({ operation: 'cart', rateLimits: ['cart_writes'], checklistStep: 'cart_built', serverOnly: false });
    expect(of('POST', '/api/sales-channel/v1/:salesChannelSlug/:lang/orders/:orderToken/confirm')).toMatchObject({ operation: 'confirm', checklistStep: 'set_by_handler', serverOnly: true });
    expect(of('GET', '/api/sales-channel/v1/:salesChannelSlug/:lang/reports/sales')).toMatchObject({ operation: 'report', rateLimits: [], checklistStep: 'report_read', serverOnly: true });
    expect(of('POST', '/api/portal/:salesChannelSlug/:lang/orders')).toMatchObject({ operation: null, rateLimits: ['portal', 'cart_writes'] });
  });

  it('parses and hashes the bearer credential once per request, on the request', async () => {
    const seen: unknown[] = [];
    const probe = Fastify();
    decorateBearer(probe);
    probe.get('/', async (request) => {
      seen.push(request.bearer, request.bearer);
      return {};
    });
    await probe.inject({ url: '/', headers: { authorization: 'Bearer tk_abc' } });
    await probe.inject({ url: '/', headers: { authorization: 'Basic x' } });
    await probe.inject({ url: '/' });
    await probe.close();
    expect(seen[0]).toEqual({ token: 'tk_abc', hash: sha256('tk_abc') });
    // The same object both times: parsed and hashed once.
    expect(seen[1]).toBe(seen[0]);
    expect(seen.slice(2)).toEqual([null, null, null, null]);
  });
});
