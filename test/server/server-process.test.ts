import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { serverUrl, TEST_PG_URL } from '../global-setup.js';
import { isPostgres } from '../helpers.js';
import { runTsx, startTsx, tempFolders } from '../process.js';

// The real program (tsx src/server.ts) as an operator starts it: first start on an empty database,
// demo data, readiness, a token, then SIGTERM and a clean exit. The time limits are generous because
// a loaded CI machine can take a minute to compile and start the service; on an idle one it is seconds.

const freshDataDir = tempFolders('taquilla-server-');

async function startStopServer(env: Record<string, string>) {
  const server = startTsx('src/server.ts', [], { PORT: '0', HOST: '127.0.0.1', APP_ENV: 'development', LOG_LEVEL: 'info', ...env });
  try {
    const [, base] = await server.waitFor(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/);
    let ready = await fetch(`${base}/readyz`);
    for (let i = 0; i < 50 && ready.status !== 200; i++) ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });

    const token = await fetch(`${base}/api/sales-channel/v1/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sales_channel_slug: 'demo-d', widget_key: 'wk_demo_d' }),
    });
    expect(token.status).toBe(200);
    const { data } = (await token.json()) as { data: { access_token: string } };
    const config = await fetch(`${base}/api/sales-channel/v1/demo-d/config`, { headers: { authorization: `Bearer ${data.access_token}` } });
    expect(config.status).toBe(200);

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(server.stdout()).toContain('shutting down');
    expect(server.stdout()).toContain('demo catalogue loaded');
  } finally {
    server.killAll();
  }
}

describe('the server process', () => {
  it('starts on a fresh DATA_DIR (PGlite), serves, and shuts down cleanly on SIGTERM', async () => {
    const dataDir = freshDataDir();
    await startStopServer({ DATA_DIR: dataDir });
    expect(fs.existsSync(path.join(dataDir, 'pglite'))).toBe(true);
  }, 240_000);

  it.runIf(isPostgres)('starts on a PostgreSQL server (DATABASE_URL) and shuts down cleanly', async () => {
    const name = `taquilla_srv_${crypto.randomBytes(5).toString('hex')}`;
    const admin = new pg.Client({ connectionString: TEST_PG_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    try {
      await startStopServer({ DATABASE_URL: serverUrl(name), DATA_DIR: freshDataDir() });
      const channels = new pg.Client({ connectionString: serverUrl(name) });
      await channels.connect();
      const { rows } = await channels.query('SELECT slug FROM sales_channels ORDER BY slug');
      await channels.end();
      expect(rows.map((r) => r.slug)).toEqual(['demo-a', 'demo-b', 'demo-c', 'demo-d']);
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  }, 240_000);

  it('refuses to start with a bad variable, naming it', async () => {
    const run = await runTsx('src/server.ts', [], { PORT: 'abc', DATA_DIR: freshDataDir() });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('Configuration error: PORT must be a whole number');
  }, 120_000);
});
