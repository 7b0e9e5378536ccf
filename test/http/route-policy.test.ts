import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Fastify, { type FastifyInstance } from 'fastify';
import { decorateBearer } from '../../src/http/bearer.js';
import { sha256 } from '../../src/lib/secrets.js';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { assertDecided } from '../../src/http/rate-limits.js';
import { createTestDatabase } from '../helpers.js';

// Issue 27: each route's policy (its rate limits and their keys, its CORS answer) is resolved as the
// route is declared, not per request; a write of the B2B or portal API that no table decides stops
// the start instead of going live unguarded.

describe('route policy resolved at start', () => {
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

  it('stops the start at a portal write that neither rate-limit table decides', () => {
    expect(() => app.post('/api/portal/:salesChannelSlug/:lang/orders/:orderToken/undeclared', async () => ({}))).toThrow(
      'POST /api/portal/:salesChannelSlug/:lang/orders/:orderToken/undeclared is in neither ROUTE_LIMITS nor UNLIMITED_ROUTES',
    );
  });

  it('decides by method and path: reads and routes outside the two APIs need no row', () => {
    expect(() => assertDecided('GET /api/portal/:salesChannelSlug/:lang/somewhere')).not.toThrow();
    expect(() => assertDecided('POST /admin/somewhere')).not.toThrow();
    expect(() => assertDecided('DELETE /api/sales-channel/v1/:salesChannelSlug/:lang/orders/:orderToken/undeclared')).toThrow(/neither ROUTE_LIMITS/);
    expect(() => assertDecided('POST /api/sales-channel/v1/:salesChannelSlug/:lang/orders')).not.toThrow();
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
