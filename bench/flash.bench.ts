// npm run bench:flash : an end-to-end flash sale on PostgreSQL (issue 19).
//
// One session of 10,000 numbered seats, made by the bench. Each buyer: a token (server key, its own
// client_id), create an order with one seat, add a second seat, confirm. BENCH_BUYERS (default 64)
// buyers at once, BENCH_PURCHASES (default 2000) purchases per configuration. Printed per
// configuration: completed orders per second, p50/p99 of one purchase (its four requests), 409s,
// errors, and the oversell checked in SQL (seats in two completed orders, or sold seats that do not
// add up). Configurations, same run, same database:
//   * database only: the three durable transactions of a purchase (create + claim, claim, complete +
//     sell + tickets) as the service issues them (cart_hold_seat twice, close_order), through
//     pgbench with BENCH_PGBENCH_CLIENTS (default 10) clients: a script this bench writes;
//   * one instance: the real program as `npm start` runs it (node dist/server.mjs, built by the
//     bench first with `npm run build:server`), HTTP straight to it;
//   * two instances behind HAProxy with deploy/haproxy.cfg (skipped, said so, without haproxy).
// Seats are handed back between configurations (earlier orders stay completed; each check counts
// only the orders of its own run). BENCH_ROUNDS (default 1) repeats the three, alternating, for a
// loaded machine: medians are printed at the end.
//
// The load generator (node:http, keep-alive) runs in this process, the service in its own: both,
// PostgreSQL and pgbench share the machine's cores, so figures are comparable only at a low load.
// Environment: BENCH_PG_URL (or TEST_PG_URL), DB_POOL_SIZE (per instance, default 10),
// BENCH_CONFIGS (db,one,two: which to run), BENCH_LOG_LEVEL (the service's LOG_LEVEL, default info as in production; its output goes to
// /dev/null), BENCH_CPU_PROF (a folder: the single instance runs with --cpu-prof into it).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { sql } from 'drizzle-orm';
import { createAppContext } from '../src/app-context.js';
import { loadConfig } from '../src/config.js';
import { openDatabase, queryRows } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { systemClock } from '../src/lib/clock.js';
import { TICKET_EMAIL_MODES } from '../src/lib/integration-policy.js';
import { flashSaleCatalogue } from './bench-catalogue.js';
import { importCatalogue } from '../src/modules/catalogue/import.service.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const PG_URL = process.env.BENCH_PG_URL || process.env.TEST_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const BUYERS = Number(process.env.BENCH_BUYERS || 64);
const PURCHASES = Number(process.env.BENCH_PURCHASES || 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 1);
const POOL = process.env.DB_POOL_SIZE || '10';
const PGBENCH_CLIENTS = Number(process.env.BENCH_PGBENCH_CLIENTS || 10);
const LOG_LEVEL = process.env.BENCH_LOG_LEVEL || 'info';
const CPU_PROF = process.env.BENCH_CPU_PROF;
/** Which configurations to run (db, one, two; default all): profiling runs only the one it profiles. */
const CONFIGS = new Set((process.env.BENCH_CONFIGS || 'db,one,two').split(','));
const SEATS = 10_000;
const SLUG = 'flash';
const SERVER_KEY = 'sk_flash_bench_server_key';
const B2B = `/api/sales-channel/v1`;

const dbUrl = (name: string) => {
  const u = new URL(PG_URL);
  u.pathname = `/${name}`;
  return u.toString();
};

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', () => resolve()));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

interface Sale {
  channelId: number;
  sessionId: number;
  rateId: number;
  /** Seat ids of the session, ascending. */
  seats: number[];
}

/** The bench's catalogue: one session of 10,000 seats, one rate, a model D channel (cart and confirm through the API). */
async function makeSale(url: string): Promise<Sale> {
  const database = await openDatabase({ url, poolSize: 2 });
  try {
    await migrate(database);
    const ctx = createAppContext({ config: loadConfig({ APP_ENV: 'test', DATABASE_URL: url }), database, clock: systemClock });
    await importCatalogue(ctx, flashSaleCatalogue(SEATS, { slug: SLUG, server_keys: [SERVER_KEY] }));
    const seats = (await queryRows<{ id: number }>(ctx.db, sql`SELECT id FROM session_seats ORDER BY id`)).map((r) => Number(r.id));
    const [ids] = await queryRows<{ channel: number; session: number; rate: number }>(
      ctx.db,
      sql`SELECT (SELECT id FROM sales_channels) AS channel, (SELECT id FROM sessions) AS session, (SELECT id FROM rates) AS rate`,
    );
    return { channelId: ids!.channel, sessionId: ids!.session, rateId: ids!.rate, seats };
  } finally {
    await database.close();
  }
}

interface Result {
  label: string;
  /** CPU milliseconds per completed order (Linux /proc). */
  cpu?: CpuShare;
  purchases: number;
  completed: number;
  seconds: number;
  p50: number | null;
  p99: number | null;
  conflicts: number;
  errors: number;
  oversell: number;
}

const perSecond = (r: Result) => r.completed / r.seconds;

/** Seats back on sale and tokens revoked for the next configuration; answers the highest order id so far (the run's watermark). */
async function resetSeats(pool: pg.Pool, sale: Sale): Promise<number> {
  await pool.query(`UPDATE session_seats SET status = 'available', order_id = NULL, hold_expires_at = NULL WHERE session_id = $1`, [sale.sessionId]);
  // Each configuration starts with no live token: issuing one scans the channel's live tokens for
  // the cap (D41, MAX_LIVE_TOKENS_PER_CHANNEL), so the earlier runs' tokens would slow the later.
  await pool.query('UPDATE access_tokens SET revoked_at = now() WHERE revoked_at IS NULL');
  const { rows } = await pool.query<{ max: string | null }>('SELECT max(id) AS max FROM orders');
  await pool.query('VACUUM ANALYZE session_seats, orders, order_items, tickets');
  return Number(rows[0]!.max ?? 0);
}

/**
 * Oversell of the orders after `watermark`: seats in more than one of its completed orders, and
 * completed orders whose two seats are not both sold to them.
 */
async function oversell(pool: pg.Pool, watermark: number): Promise<{ completed: number; oversell: number }> {
  const { rows: [r] } = await pool.query<{ completed: number; twice: number; unsold: number }>(
    `WITH run AS (SELECT id FROM orders WHERE id > $1 AND status = 'completed')
     SELECT (SELECT count(*)::int FROM run) AS completed,
       (SELECT count(*)::int FROM (SELECT oi.session_seat_id FROM order_items oi JOIN run ON run.id = oi.order_id
                                   GROUP BY oi.session_seat_id HAVING count(*) > 1) x) AS twice,
       (SELECT count(*)::int FROM order_items oi JOIN run ON run.id = oi.order_id
          JOIN session_seats ss ON ss.id = oi.session_seat_id WHERE ss.status <> 'sold' OR ss.order_id <> oi.order_id) AS unsold`,
    [watermark],
  );
  return { completed: r!.completed, oversell: r!.twice + r!.unsold };
}

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]! : null);

// ---- database only: pgbench ----

/** The three transactions of a purchase, as the service sends them (orders.repo.ts holdSeatInOneStatement, closing.service.ts). */
function pgbenchScript(sale: Sale): string {
  const modes = `ARRAY[${TICKET_EMAIL_MODES.map((m) => `'${m}'`).join(',')}]::text[]`;
  // A purchase takes seats 2k and 2k + 1 of the session; k from a sequence, so purchases never collide.
  return `SELECT nextval('flash_bench_pair') - 1 AS k \\gset
\\set s1 ${sale.seats[0]} + 2 * :k
\\set s2 :s1 + 1
SELECT t AS tok, cart_hold_seat(${sale.channelId}, t, true, 'TQ-' || substr(md5(t), 1, 8), 'en', 'EUR', now() + interval '15 minutes', :s1, ${sale.rateId}, 20, now(), 'server:' || t, 2)->>'outcome' AS o1 FROM (SELECT gen_random_uuid()::text AS t) x \\gset
SELECT cart_hold_seat(${sale.channelId}, :tok, false, NULL, 'en', 'EUR', now() + interval '15 minutes', :s2, ${sale.rateId}, 20, now(), NULL, 2)->>'outcome' AS o2 \\gset
SELECT close_order(NULL, :tok, ${sale.channelId}, now(), false, NULL, 'Ana', 'García', 'ana@example.com', NULL, 'card', 'tx', ARRAY[md5(random()::text), md5(random()::text)], true, ${modes})->>'outcome' AS o3 \\gset
`;
}

async function databaseOnly(pool: pg.Pool, url: string, sale: Sale): Promise<Result | null> {
  try {
    execFileSync('pgbench', ['--version'], { stdio: 'ignore' });
  } catch {
    console.log('  database only: skipped (pgbench not installed: Debian postgresql-contrib / postgresql-client)');
    return null;
  }
  const watermark = await resetSeats(pool, sale);
  await pool.query('DROP SEQUENCE IF EXISTS flash_bench_pair; CREATE SEQUENCE flash_bench_pair');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flash-pgbench-'));
  const script = path.join(dir, 'purchase.sql');
  fs.writeFileSync(script, pgbenchScript(sale));
  const perClient = Math.ceil(PURCHASES / PGBENCH_CLIENTS);
  const database0 = databaseCpuMs();
  const pgbench0 = cpuOf('self').children;
  const started = process.hrtime.bigint();
  let out = '';
  let failed = 0;
  try {
    out = execFileSync('pgbench', ['-n', '-M', 'extended', '-c', String(PGBENCH_CLIENTS), '-j', '2', '-t', String(perClient), '-f', script, '-r', url], { encoding: 'utf8' });
  } catch (err) {
    out = String((err as { stdout?: string }).stdout ?? '');
    failed = 1;
    console.log(`  pgbench failed: ${(err as { stderr?: string }).stderr ?? err}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const databaseCpu = databaseCpuMs() - database0;
  const pgbenchCpu = cpuOf('self').children - pgbench0;
  const latency = out.match(/latency average = ([\d.]+) ms/);
  const check = await oversell(pool, watermark);
  return {
    label: `database only (pgbench, ${PGBENCH_CLIENTS} clients)`,
    cpu: { serviceUser: 0, serviceSystem: 0, database: databaseCpu / Math.max(1, check.completed), generator: pgbenchCpu / Math.max(1, check.completed) },
    purchases: perClient * PGBENCH_CLIENTS,
    completed: check.completed,
    seconds,
    p50: latency ? Number(latency[1]) : null,
    p99: null,
    conflicts: 0,
    errors: failed + perClient * PGBENCH_CLIENTS - check.completed,
    oversell: check.oversell,
  };
}

// ---- through the API ----

interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

function request(agent: http.Agent, base: URL, method: string, urlPath: string, body: unknown, token?: string): Promise<Answer> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: base.hostname,
        port: base.port,
        method,
        path: urlPath,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...(token ? { authorization: `Bearer ${token}` } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          try {
            resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null });
          } catch {
            resolve({ status: res.statusCode ?? 0, body: text });
          }
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** CPU time of a process so far, in ms: user, system, and its ended children's; from /proc (Linux; 0 elsewhere). Ticks of 10 ms. */
function cpuOf(pid: number | 'self' | undefined): { user: number; system: number; children: number } {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10, children: (Number(fields[13]) + Number(fields[14])) * 10 };
  } catch {
    return { user: 0, system: 0, children: 0 };
  }
}

/**
 * CPU time so far of every PostgreSQL process of this machine (backends, WAL writer, checkpointer),
 * in ms; with the time of its ended children (the postmaster's: pgbench's backends end with it).
 */
function databaseCpuMs(): number {
  let sum = 0;
  for (const entry of fs.existsSync('/proc') ? fs.readdirSync('/proc') : []) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres') continue;
    } catch {
      continue;
    }
    const cpu = cpuOf(Number(entry));
    sum += cpu.user + cpu.system + cpu.children;
  }
  return sum;
}

/** Where the machine's CPU went per completed order: the service (user, system), PostgreSQL, this load generator. */
interface CpuShare {
  serviceUser: number;
  serviceSystem: number;
  database: number;
  generator: number;
}

function cpuMeter(servicePids: (number | undefined)[]): () => (completed: number) => CpuShare {
  const service = () => servicePids.map(cpuOf).reduce((a, b) => ({ user: a.user + b.user, system: a.system + b.system }), { user: 0, system: 0 });
  const s0 = service();
  const d0 = databaseCpuMs();
  const g0 = process.cpuUsage();
  return () => {
    const s = service();
    const d = databaseCpuMs() - d0;
    const g = process.cpuUsage(g0);
    return (completed: number) => {
      const per = Math.max(1, completed);
      return { serviceUser: (s.user - s0.user) / per, serviceSystem: (s.system - s0.system) / per, database: d / per, generator: (g.user + g.system) / 1000 / per };
    };
  };
}

async function throughApi(label: string, baseUrl: string, pool: pg.Pool, sale: Sale, runTag: string, servicePids: (number | undefined)[]): Promise<Result> {
  const watermark = await resetSeats(pool, sale);
  const meter = cpuMeter(servicePids);
  const base = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: BUYERS });
  let next = 0;
  let conflicts = 0;
  let errors = 0;
  const latencies: number[] = [];
  const firstError: string[] = [];
  const fail = (what: string, a: Answer) => {
    errors++;
    if (firstError.length < 3) firstError.push(`${what}: ${a.status} ${JSON.stringify(a.body).slice(0, 200)}`);
  };
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: BUYERS }, async () => {
      for (let k = next++; k < PURCHASES; k = next++) {
        const t0 = performance.now();
        try {
          const token = await request(agent, base, 'POST', `${B2B}/auth/token`, { sales_channel_slug: SLUG, server_key: SERVER_KEY, client_id: `${runTag}-${k}` });
          if (token.status !== 200) {
            fail('token', token);
            continue;
          }
          const bearer = token.body.data.access_token as string;
          const created = await request(agent, base, 'POST', `${B2B}/${SLUG}/en/orders`, { session_seat_id: sale.seats[2 * k], rate_id: sale.rateId }, bearer);
          if (created.status !== 201) {
            if (created.status === 409) conflicts++;
            else fail('create', created);
            continue;
          }
          const order = created.body.data.order_token as string;
          const added = await request(agent, base, 'POST', `${B2B}/${SLUG}/en/orders/${order}/items`, { session_seat_id: sale.seats[2 * k + 1], rate_id: sale.rateId }, bearer);
          if (added.status !== 200 && added.status !== 201) {
            if (added.status === 409) conflicts++;
            else fail('add', added);
            continue;
          }
          const confirmed = await request(
            agent,
            base,
            'POST',
            `${B2B}/${SLUG}/en/orders/${order}/confirm`,
            { amount: added.body.data.total_amount, name: 'Ana', surname: 'García', email: 'ana@example.com', transaction_id: `tx-${k}`, payment_method: 'card' },
            bearer,
          );
          if (confirmed.status !== 200) {
            if (confirmed.status === 409) conflicts++;
            else fail('confirm', confirmed);
            continue;
          }
          latencies.push(performance.now() - t0);
        } catch (err) {
          errors++;
          if (firstError.length < 3) firstError.push(String(err));
        }
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpuPer = meter();
  agent.destroy();
  if (firstError.length) console.log(`  ${label}: first errors: ${firstError.join(' | ')}`);
  const check = await oversell(pool, watermark);
  latencies.sort((a, b) => a - b);
  const cpu = cpuPer(check.completed);
  return { label, cpu, purchases: PURCHASES, completed: check.completed, seconds, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), conflicts, errors, oversell: check.oversell };
}

// ---- processes ----

interface Proc {
  child: ChildProcess;
  stderr: () => string;
}

function startInstance(url: string, port: number, cpuProf?: string): Proc {
  const env: Record<string, string | undefined> = {
    ...process.env,
    APP_ENV: 'development',
    DEMO_DATA: 'false',
    DATABASE_URL: url,
    DB_POOL_SIZE: POOL,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL,
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    // The bench's buyers all come from 127.0.0.1: the per-address limits would stop them.
    TOKEN_RATE_LIMIT_PER_MINUTE: '10000000',
    TOKEN_FAILURE_LIMIT_PER_MINUTE: '10000000',
    CART_WRITE_RATE_LIMIT_PER_MINUTE: '10000000',
    TRUST_PROXY: '127.0.0.1',
  };
  for (const name of ['TEST_DB', 'VITEST', 'NODE_ENV']) delete env[name];
  const args = [...(cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${cpuProf}`] : []), 'dist/server.mjs'];
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (c) => (err += c));
  return { child, stderr: () => err };
}

async function waitReady(url: string, procs: Proc[], timeoutMs = 180_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    const dead = procs.find((p) => p.child.exitCode !== null);
    if (dead) throw new Error(`a process ended before ${url} was ready: ${dead.stderr().slice(-2000)}`);
    if (Date.now() > deadline) throw new Error(`${url} not ready after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function stop(procs: Proc[]) {
  await Promise.all(
    procs.map(
      (p) =>
        new Promise<void>((resolve) => {
          if (p.child.exitCode !== null || p.child.signalCode !== null) return resolve();
          p.child.once('exit', () => resolve());
          p.child.kill('SIGTERM');
        }),
    ),
  );
}

async function oneInstance(url: string, pool: pg.Pool, sale: Sale, round: number): Promise<Result> {
  const port = await freePort();
  const proc = startInstance(url, port, CPU_PROF);
  try {
    await waitReady(`http://127.0.0.1:${port}`, [proc]);
    return await throughApi('one instance', `http://127.0.0.1:${port}`, pool, sale, `one-${round}`, [proc.child.pid]);
  } finally {
    await stop([proc]);
  }
}

async function twoInstances(url: string, pool: pg.Pool, sale: Sale, round: number): Promise<Result | null> {
  try {
    execFileSync('haproxy', ['-v'], { stdio: 'ignore' });
  } catch {
    console.log('  two instances: skipped (haproxy not installed: apt-get install haproxy)');
    return null;
  }
  const [p1, p2, lbPort] = [await freePort(), await freePort(), await freePort()];
  const procs = [startInstance(url, p1), startInstance(url, p2)];
  try {
    await Promise.all([waitReady(`http://127.0.0.1:${p1}`, procs), waitReady(`http://127.0.0.1:${p2}`, procs)]);
    const lb = spawn('haproxy', ['-f', path.join(ROOT, 'deploy/haproxy.cfg'), '-db'], {
      env: { ...process.env, TAQUILLA_LB_BIND: `127.0.0.1:${lbPort}`, TAQUILLA_APP1: `127.0.0.1:${p1}`, TAQUILLA_APP2: `127.0.0.1:${p2}` },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let lbErr = '';
    lb.stderr!.on('data', (c) => (lbErr += c));
    const lbProc: Proc = { child: lb, stderr: () => lbErr };
    procs.push(lbProc);
    await waitReady(`http://127.0.0.1:${lbPort}`, [lbProc]);
    // Both servers up in HAProxy's eyes (its checks start after it listens).
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    return await throughApi('two instances behind HAProxy', `http://127.0.0.1:${lbPort}`, pool, sale, `two-${round}`, [procs[0]!.child.pid, procs[1]!.child.pid]);
  } finally {
    await stop(procs);
  }
}

function print(r: Result) {
  const ms = (x: number | null) => (x === null ? '-' : `${x.toFixed(0)} ms`);
  console.log(
    `  ${r.label.padEnd(36)} ${perSecond(r).toFixed(0).padStart(5)} completed orders/s  (${r.completed}/${r.purchases} in ${r.seconds.toFixed(1)} s; ` +
      `p50 ${ms(r.p50)}, p99 ${ms(r.p99)}; 409s ${r.conflicts}; errors ${r.errors}; oversell ${r.oversell})` +
      (r.cpu && r.label.startsWith('database only')
        ? `\n  ${''.padEnd(36)} CPU per completed order: PostgreSQL ${r.cpu.database.toFixed(2)} ms, pgbench ${r.cpu.generator.toFixed(2)} ms`
        : r.cpu
        ? `\n  ${''.padEnd(36)} CPU per completed order: service ${(r.cpu.serviceUser + r.cpu.serviceSystem).toFixed(2)} ms (user ${r.cpu.serviceUser.toFixed(2)}, system ${r.cpu.serviceSystem.toFixed(2)}), ` +
          `PostgreSQL ${r.cpu.database.toFixed(2)} ms, load generator ${r.cpu.generator.toFixed(2)} ms`
        : ''),
  );
}

async function main() {
  const name = `taquilla_bench_flash_${process.pid}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  const url = dbUrl(name);
  if (CONFIGS.has('one') || CONFIGS.has('two')) execFileSync('npm', ['run', '--silent', 'build:server'], { cwd: ROOT, stdio: 'inherit' });
  const pool = new pg.Pool({ connectionString: url, max: 3 });
  pool.on('error', () => {});
  try {
    const sale = await makeSale(url);
    console.log(`flash sale: ${PURCHASES} purchases per configuration (token, create with a seat, add a seat, confirm), ${BUYERS} buyers at once, one session of ${SEATS} seats, PostgreSQL, pool ${POOL} per instance, LOG_LEVEL=${LOG_LEVEL}`);
    console.log(`  machine: ${os.cpus().length} CPUs, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} (figures are only comparable at a low load)`);
    const all: Record<string, Result[]> = {};
    const keep = (r: Result | null) => {
      if (!r) return;
      print(r);
      (all[r.label] ??= []).push(r);
    };
    for (let round = 0; round < ROUNDS; round++) {
      if (ROUNDS > 1) console.log(`round ${round + 1}`);
      if (CONFIGS.has('db')) keep(await databaseOnly(pool, url, sale));
      if (CONFIGS.has('one')) keep(await oneInstance(url, pool, sale, round));
      if (CONFIGS.has('two')) keep(await twoInstances(url, pool, sale, round));
    }
    if (ROUNDS > 1) {
      console.log(`medians of ${ROUNDS} rounds:`);
      for (const [label, runs] of Object.entries(all)) {
        const rates = runs.map(perSecond).sort((a, b) => a - b);
        const p50s = runs.map((r) => r.p50 ?? 0).sort((a, b) => a - b);
        const p99s = runs.map((r) => r.p99 ?? 0).sort((a, b) => a - b);
        const sum = (f: (r: Result) => number) => runs.reduce((s, r) => s + f(r), 0);
        console.log(
          `  ${label.padEnd(36)} ${rates[Math.floor(rates.length / 2)]!.toFixed(0).padStart(5)} completed orders/s  (p50 ${p50s[Math.floor(p50s.length / 2)]!.toFixed(0)} ms, p99 ${p99s[Math.floor(p99s.length / 2)]!.toFixed(0)} ms; ` +
            `409s ${sum((r) => r.conflicts)}; errors ${sum((r) => r.errors)}; oversell ${sum((r) => r.oversell)}; runs: ${runs.map((r) => perSecond(r).toFixed(0)).join(', ')})`,
        );
      }
    }
    const one = all['one instance']?.map(perSecond).sort((a, b) => a - b);
    const db = all[`database only (pgbench, ${PGBENCH_CLIENTS} clients)`]?.map(perSecond).sort((a, b) => a - b);
    if (one && db) console.log(`  one instance / database only: ${(one[Math.floor(one.length / 2)]! / db[Math.floor(db.length / 2)]!).toFixed(2)}`);
  } finally {
    await pool.end();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
