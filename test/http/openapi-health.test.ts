import { describe, expect } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/client.js';
import { appTest } from '../helpers.js';

const { it } = appTest({ demo: false });

describe('OpenAPI', () => {
  it('/api/openapi.json is OpenAPI 3.1 with a bearer scheme', async ({ t }) => {
    const res = await t.app.inject({ url: '/api/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: expect.any(String), version: '1.2.0' });
    expect(doc.components.securitySchemes.bearer).toEqual({ type: 'http', scheme: 'bearer' });
  });

  it('lists the token endpoint (public) and the config endpoint (bearer)', async ({ t }) => {
    const { paths } = (await t.app.inject({ url: '/api/openapi.json' })).json();
    const token = paths['/api/sales-channel/v1/auth/token'].post;
    expect(token.security ?? []).toEqual([]);
    // exactly one of widget_key and server_key (D39): both optional in the schema, the service answers 422
    const body = token.requestBody.content['application/json'].schema;
    expect(body.required).toEqual(['sales_channel_slug']);
    expect(Object.keys(body.properties)).toEqual(expect.arrayContaining(['widget_key', 'server_key', 'client_id']));
    expect(token.responses['200'].content['application/json'].schema.properties.data.properties.scope).toBeDefined();
    expect(Object.keys(token.responses)).toEqual(expect.arrayContaining(['200', '401', '422']));

    const config = paths['/api/sales-channel/v1/{salesChannelSlug}/config'].get;
    expect(config.security).toEqual([{ bearer: [] }]);
    expect(config.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'salesChannelSlug', in: 'path', required: true })]));
    expect(Object.keys(config.responses)).toEqual(expect.arrayContaining(['200', '401', '403']));
  });

  it('does not list the operational routes', async ({ t }) => {
    const { paths } = (await t.app.inject({ url: '/api/openapi.json' })).json();
    for (const hidden of ['/healthz', '/readyz', '/api/openapi.json']) expect(paths).not.toHaveProperty([hidden]);
  });

  it('/api/docs serves the interactive reference page', async ({ t }) => {
    const res = await t.app.inject({ url: '/api/docs' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toContain('swagger-ui');
  });
});

describe('health', () => {
  it('/healthz and /readyz answer 200 while the database is up', async ({ t }) => {
    const alive = await t.app.inject({ url: '/healthz' });
    expect(alive.statusCode).toBe(200);
    expect(alive.json()).toEqual({ status: 'ok' });
    const ready = await t.app.inject({ url: '/readyz' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready' });
  });

  it('/readyz answers 503 once the database is closed; /healthz stays 200', { timeout: 120_000 }, async ({ t }) => {
    // A database of its own (same driver and server as the suite), so closing it spoils no other test.
    const database = await openDatabase(t.db.url ? { url: t.db.url, poolSize: 1 } : { pgliteDir: 'memory://' });
    const app = await buildApp({ config: loadConfig({ APP_ENV: 'test' }), database, logger: false });
    try {
      expect((await app.inject({ url: '/readyz' })).statusCode).toBe(200);
      await database.close();
      const res = await app.inject({ url: '/readyz' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ status: 'database unreachable' });
      expect((await app.inject({ url: '/healthz' })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });
});
