import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { serverUrl, TEST_PG_URL } from '../global-setup.js';
import { isPostgres } from '../helpers.js';
import { runTsx, startTsx, tempFolders } from '../process.js';

// One owner per embedded database folder (D48), with real processes: the service as `npm start`
// runs it, and the operator command line run beside it, as the README once told people to do.

const freshDataDir = tempFolders('taquilla-owner-');
const cli = (args: string[], env: Record<string, string>) => runTsx('src/cli/index.ts', args, env);
const slugs = (stdout: string) => (JSON.parse(stdout) as { slug: string }[]).map((c) => c.slug);
const CREATE = ['channels:create', '--slug', 'late', '--name', 'Late', '--mode', 'A', '--organiser-id', '1'];

describe('one owner per DATA_DIR', () => {
  it('refuses the command line at once (exit 3, what to do) while the service runs; nothing is written; alone it works', async () => {
    const dataDir = freshDataDir();
    const server = startTsx('src/server.ts', [], { PORT: '0', HOST: '127.0.0.1', APP_ENV: 'development', LOG_LEVEL: 'info', DATA_DIR: dataDir });
    try {
      const [, base] = await server.waitFor(/Server listening at (http:\/\/127\.0\.0\.1:\d+)/);
      expect((await fetch(`${base}/readyz`)).status).toBe(200);

      const started = Date.now();
      const refused = await cli(CREATE, { DATA_DIR: dataDir });
      expect(refused.code).toBe(3);
      expect(refused.stderr).toContain(`the embedded database ${path.join(dataDir, 'pglite')} is in use by a running Taquilla service (pid `);
      expect(refused.stderr).toContain('stop the service first');
      expect(refused.stderr).toContain('the admin API (/api/admin/v1)');
      expect(refused.stdout).toBe('');
      expect(refused.stderr).not.toContain('applied migration');
      // "At once": the time of starting tsx, not of waiting for the service.
      expect(Date.now() - started).toBeLessThan(60_000);

      // The service is unharmed and still the only writer.
      expect((await fetch(`${base}/readyz`)).status).toBe(200);
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    } finally {
      server.killAll();
    }
    expect(fs.existsSync(path.join(dataDir, 'pglite.lock'))).toBe(false);

    const list = await cli(['channels:list', '--json'], { DATA_DIR: dataDir });
    expect(list.code).toBe(0);
    expect(slugs(list.stdout)).toEqual(['demo-a', 'demo-b', 'demo-c', 'demo-d']);
    const created = await cli(CREATE, { DATA_DIR: dataDir });
    expect(created.code).toBe(0);
    expect(created.stdout).toContain('Created sales channel "late"');
  }, 300_000);

  it('does not let a stale lock (its process has died) block the command line', async () => {
    const dataDir = freshDataDir();
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    fs.writeFileSync(path.join(dataDir, 'pglite.lock'), JSON.stringify({ pid: Number(dead.stdout.toString()), owner: 'service', since: '2020-01-01T00:00:00Z' }));
    const load = await cli(['demo:load'], { DATA_DIR: dataDir });
    expect(load.stderr).not.toContain('in use');
    expect(load.code).toBe(0);
    expect(fs.existsSync(path.join(dataDir, 'pglite.lock'))).toBe(false);
  }, 300_000);

  it.runIf(isPostgres)('does not apply with DATABASE_URL: several processes share a PostgreSQL server', async () => {
    const dataDir = freshDataDir();
    // A live holder of the embedded folder (this test process) does not matter to a server database.
    fs.writeFileSync(path.join(dataDir, 'pglite.lock'), JSON.stringify({ pid: process.pid, owner: 'service', since: '2020-01-01T00:00:00Z' }));
    const name = `taquilla_own_${crypto.randomBytes(5).toString('hex')}`;
    const admin = new pg.Client({ connectionString: TEST_PG_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    try {
      const load = await cli(['demo:load'], { DATABASE_URL: serverUrl(name), DATA_DIR: dataDir });
      expect(load.code).toBe(0);
      const list = await cli(['channels:list', '--json'], { DATABASE_URL: serverUrl(name), DATA_DIR: dataDir });
      expect(slugs(list.stdout)).toEqual(['demo-a', 'demo-b', 'demo-c', 'demo-d']);
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  }, 300_000);
});
