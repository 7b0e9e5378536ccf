// npm run bench:tokens : token requests at a channel's live-token cap (D41, issue 19) on PostgreSQL.
//
// A fresh database with one channel holding BENCH_LIVE (default 8,000) live widget tokens; then
// pgbench calls issue_access_token (what a token request runs in the database) 1,000 times per
// client with a new client_id each time. Printed per configuration: tokens per second and the
// average latency, and the live tokens left (the cap must hold). Configurations: at the cap (cap =
// BENCH_LIVE) with 1 and 4 clients, below it (cap = 2.5 x BENCH_LIVE) with 4 clients.
// Environment: BENCH_PG_URL (or TEST_PG_URL).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDatabase } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';

const PG_URL = process.env.BENCH_PG_URL || process.env.TEST_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const LIVE = Number(process.env.BENCH_LIVE || 8000);

const dbUrl = (name: string) => {
  const u = new URL(PG_URL);
  u.pathname = `/${name}`;
  return u.toString();
};

async function run(cap: number, clients: number): Promise<string> {
  const name = `taquilla_bench_tokens_${process.pid}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  const url = dbUrl(name);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-tokens-'));
  try {
    const database = await openDatabase({ url, poolSize: 1 });
    await migrate(database);
    await database.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`INSERT INTO organisers (name) VALUES ('Bench') `);
    await client.query(`INSERT INTO sales_channels (organiser_id, slug, name, integration_mode) VALUES (1, 'bench', 'Bench', 'widget_external_payment')`);
    await client.query(`INSERT INTO widget_keys (channel_id, key_hash, last_four) VALUES (1, 'not-a-real-hash', 'abcd')`);
    const issue = (clientId: string, hash: string) =>
      `issue_access_token(1, 'widget', 1, NULL, ${clientId}, ${hash}, now(), now() + interval '1 hour', ${cap}, 'bench_tokens', 100)`;
    await client.query(`SELECT ${issue(`'pre-' || g`, 'md5(g::text)')} FROM generate_series(1, ${LIVE}) g`);
    await client.query('VACUUM ANALYZE access_tokens');
    const script = path.join(dir, 'token.sql');
    fs.writeFileSync(script, `SELECT ${issue('md5(random()::text)', 'md5(random()::text)')};\n`);
    const out = execFileSync('pgbench', ['-n', '-M', 'prepared', '-c', String(clients), '-j', String(Math.min(clients, 2)), '-t', '1000', '-f', script, url], {
      encoding: 'utf8',
    });
    const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM access_tokens WHERE revoked_at IS NULL');
    await client.end();
    const tps = Number(/tps = ([\d.]+)/.exec(out)?.[1]);
    const latency = /latency average = ([\d.]+) ms/.exec(out)?.[1];
    return `${tps.toFixed(0).padStart(6)} tokens/s, latency ${latency} ms, live tokens after: ${rows[0]!.n}`;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

console.log(`token requests on a channel with ${LIVE} live tokens (issue_access_token through pgbench, 1,000 per client)`);
console.log(`  machine: ${os.cpus().length} CPUs, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
console.log(`  at the cap (${LIVE}), 1 client:    ${await run(LIVE, 1)}`);
console.log(`  at the cap (${LIVE}), 4 clients:   ${await run(LIVE, 4)}`);
console.log(`  below the cap (${LIVE * 2.5}), 4 clients: ${await run(LIVE * 2.5, 4)}`);
