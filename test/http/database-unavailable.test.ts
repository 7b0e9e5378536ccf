import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Database } from '../../src/db/client.js';
import { unreachableCause } from '../../src/db/unreachable.js';

// D46 without a server to cut: the service pointed at a port where nothing listens (the database is
// down from the start). Every request that needs the database answers 503 `service_unavailable`
// with Retry-After in the envelope, /readyz answers 503, and the process is fine. Needs no
// PostgreSQL, so it runs in both database modes.

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('a database that refuses connections (D46)', () => {
  let app: FastifyInstance;
  let database: Database;
  beforeAll(async () => {
    database = await openDatabase({ url: `postgres://postgres@127.0.0.1:${await closedPort()}/taquilla`, poolSize: 2 });
    const config = loadConfig({ APP_ENV: 'test', PUBLIC_BASE_URL: 'http://taquilla.test' });
    app = await buildApp({ config, database, logger: false });
    await app.ready(); // the revocation listener's first attempt fails; it keeps retrying quietly
  });
  afterAll(async () => {
    await app?.close();
    await database?.close();
  });

  it.each([
    ['POST', '/api/sales-channel/v1/auth/token', { sales_channel_slug: 'demo-d', widget_key: 'wk_demo_d' }],
    ['GET', '/api/sales-channel/v1/demo-d/config', undefined],
    // (in English: the portal API answers in the language of its path, docs/errors.md)
    ['GET', '/api/portal/demo-a/en/orders/0123456789abcdef0123456789abcdef', undefined],
    ['GET', '/api/admin/v1/me', undefined],
  ])('%s %s answers 503 service_unavailable with Retry-After', async (method, url, payload) => {
    const res = await app.inject({ method: method as 'GET' | 'POST', url, payload, headers: { authorization: 'Bearer some-token' } });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('2');
    expect(res.json()).toEqual({
      status: 503,
      success: false,
      code: 'service_unavailable',
      message: 'The service is temporarily unavailable; retry shortly',
    });
  });

  it('a dashboard page answers 503 too, with Retry-After and a page that says so', async () => {
    const res = await app.inject({ method: 'GET', url: '/admin/channels', cookies: { taquilla_admin: 'some-session' } });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('2');
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('temporarily unavailable');
  });

  it('/readyz answers 503, /healthz 200 (the process itself is fine)', async () => {
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });
});

describe('which errors mean "database unreachable"', () => {
  const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });
  it.each([
    ['connection refused', withCode('ECONNREFUSED'), true],
    ['connection reset', withCode('ECONNRESET'), true],
    ['admin_shutdown (a restart)', withCode('57P01', 'terminating connection due to administrator command'), true],
    ['cannot_connect_now (starting up)', withCode('57P03'), true],
    ['connection_failure (class 08)', withCode('08006'), true],
    ['too many connections', withCode('53300'), true],
    ['node-postgres: connection ended under a query', new Error('Connection terminated unexpectedly'), true],
    ['node-postgres: pool wait timed out', new Error('timeout exceeded when trying to connect'), true],
    ['wrapped by Drizzle (cause)', Object.assign(new Error('Failed query: select 1\nparams: '), { cause: withCode('ECONNREFUSED') }), true],
    ['all addresses refused (AggregateError)', new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')]), true],
    ['unique violation: a bug or a conflict, not an outage', withCode('23505', 'duplicate key value violates unique constraint'), false],
    ['syntax error', withCode('42601'), false],
    ['a plain programming error', new TypeError('x is undefined'), false],
    ['not an error at all', 'ECONNREFUSED', false],
  ])('%s', (_name, err, unreachable) => {
    expect(unreachableCause(err) !== null).toBe(unreachable);
  });
});
