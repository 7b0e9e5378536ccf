// npm run bench:flash : an end-to-end flash sale on PostgreSQL (issues 19 and 27).
//
// One session of FLASH_SEATS numbered seats, made by the checkout under test. A buyer buys two
// seats: a token (server key, a client_id of its own), an order created with both seats (`items`,
// D63), confirm: three requests. A checkout whose create takes no `items` (before D63, such as
// 457df1d) is found out by the first purchase (422) and bought from in four requests (create with a
// seat, add a seat, confirm); FLASH_ITEMS=0 forces that, FLASH_ITEMS=1 forbids the fallback.
//
// Parts of one run, each warmed up (FLASH_WARMUP seconds) and then measured (FLASH_SECONDS):
//   db    the API's exact SQL through pgbench: the statements of one API purchase, read off the wire
//         by a proxy (bench/pg-capture.ts) while two purchases go through a capture instance, sent
//         with the same parameters (fresh seats, tokens, references and codes per purchase; one
//         extra statement per purchase makes them), FLASH_PGBENCH_CLIENTS clients, with the
//         service's statistics and sales-figures jobs run beside it (src/db/statistics-keeper.ts,
//         src/modules/audience/sales-figures.jobs.ts) as the instances run them;
//   bare  the bare baseline: a minimal Fastify 5 + pg service (bench/bare-server.ts), one request
//         per call, same buyers: the floor of CPU per request on this machine;
//   one   one instance (node dist/server.mjs of the checkout under test, built first), HTTP to it;
//   two   two instances behind HAProxy with deploy/haproxy.cfg (skipped, said so, without haproxy).
// Printed per part: completed orders/s (requests/s for bare), p50/p99 of a purchase, 409s, errors,
// oversell (checked in SQL), and CPU per request and per purchase of the service, of PostgreSQL
// (only the backends of the bench's own database, pg_stat_activity by datname, /proc/<pid>/stat)
// and of the load generator (this process; pgbench for db); then the ratios: service per request
// over the bare baseline's, one instance over database only. CPU figures are steadier than
// throughput on a shared machine: the load average is printed with each part.
//
// Environment (all optional):
//   FLASH_TARGET     a checkout to measure (default: this one), e.g. /work/wt/base for main as of
//                    457df1d (`git worktree add --detach /work/wt/base 457df1d && cd /work/wt/base && npm ci`);
//                    its service is built and its own code makes the catalogue
//   FLASH_SECONDS    measured seconds per part (default 20); FLASH_WARMUP warm-up seconds (default 5).
//                    A quick check: FLASH_SECONDS=4 FLASH_WARMUP=1 FLASH_PARTS=bare,one
//   FLASH_PARTS      which parts, in order (default db,bare,one,two); FLASH_ROUNDS repeats them (default 1;
//                    medians printed at the end)
//   FLASH_BUYERS     buyers at once (default 64); FLASH_PGBENCH_CLIENTS (default 10); DB_POOL_SIZE per instance (default 10)
//   FLASH_SEATS      seats of the session (default 40000; a part stops early when they run out)
//   FLASH_ITEMS      auto (default), 1 or 0: see above
//   FLASH_BUILD=0    do not build the target's service (dist/server.mjs as it is)
//   FLASH_APP_ENV    the service's APP_ENV (default production); FLASH_LOG_LEVEL its LOG_LEVEL (default info;
//                    its output goes to /dev/null); FLASH_CPU_PROF a folder: the single instance runs with --cpu-prof
//   FLASH_KEEP=<dir> keep the bench's databases (the sale's and each part's copy; their names are printed) and write the db part's pgbench
//                    script and its -D defines to <dir>, to replay the purchase elsewhere (e.g. under callgrind)
//   FLASH_FUNCTIONS=1 after each part, the SQL functions' time per completed order (track_functions)
//   BENCH_PG_URL     (or TEST_PG_URL) the PostgreSQL server; the bench makes and drops a database of its own
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { DatabaseCpu, applySalesFigures, cpuOf, freePort, freshDatabase, hasSalesFiguresPass, instanceEnv, keepSalesFigures, keepStatistics, load, percentile, request, sleep, spawnProc, stop, waitReady, type Answer, type Proc } from './bench-processes.js';
import { StatementCapture, pgbenchScript, type CapturedPurchase } from './pg-capture.js';

const HERE = path.resolve(import.meta.dirname, '..');
const env = process.env;
const TARGET = path.resolve(env.FLASH_TARGET || HERE);
const PG_URL = env.BENCH_PG_URL || env.TEST_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const SECONDS = Number(env.FLASH_SECONDS || 20);
const WARMUP = Number(env.FLASH_WARMUP || 5);
const PARTS = (env.FLASH_PARTS || 'db,bare,one,two').split(',');
const ROUNDS = Number(env.FLASH_ROUNDS || 1);
const BUYERS = Number(env.FLASH_BUYERS || 64);
const PGBENCH_CLIENTS = Number(env.FLASH_PGBENCH_CLIENTS || 10);
const POOL = env.DB_POOL_SIZE || '10';
const SEATS = Number(env.FLASH_SEATS || 40_000);
const ITEMS = env.FLASH_ITEMS || 'auto';
const APP_ENV = env.FLASH_APP_ENV || 'production';
const LOG_LEVEL = env.FLASH_LOG_LEVEL || 'info';
const CPU_PROF = env.FLASH_CPU_PROF;
const SLUG = 'flash';
const SERVER_KEY = 'sk_flash_bench_server_key';
const B2B = '/api/sales-channel/v1';

interface Sale {
  channelId: number;
  sessionId: number;
  rateId: number;
  /** Seat ids of the session, ascending. */
  seats: number[];
}

/**
 * The catalogue, made by the target checkout's own code (its migrations, its importer): one
 * session of SEATS seats, one rate, a model D channel with the bench's server key.
 */
function makeSale(url: string): void {
  const script = `
    import path from 'node:path';
    import { pathToFileURL } from 'node:url';
    const root = ${JSON.stringify(TARGET)};
    const m = (p) => import(pathToFileURL(path.join(root, p)).href);
    const [{ createAppContext }, { loadConfig }, { openDatabase }, { migrate }, { systemClock }, { importCatalogue }, { flashSaleCatalogue }] = await Promise.all([
      m('src/app-context.ts'), m('src/config.ts'), m('src/db/client.ts'), m('src/db/migrate.ts'), m('src/lib/clock.ts'),
      m('src/modules/catalogue/import.service.ts'), m('bench/bench-catalogue.ts')]);
    const url = ${JSON.stringify(url)};
    const database = await openDatabase({ url, poolSize: 2 });
    await migrate(database);
    const ctx = createAppContext({ config: loadConfig({ APP_ENV: 'test', DATABASE_URL: url }), database, clock: systemClock });
    await importCatalogue(ctx, flashSaleCatalogue(${SEATS}, { slug: ${JSON.stringify(SLUG)}, server_keys: [${JSON.stringify(SERVER_KEY)}] }));
    await database.close();
  `;
  const file = path.join(os.tmpdir(), `flash-sale-${process.pid}.mts`);
  fs.writeFileSync(file, script);
  try {
    execFileSync(process.execPath, ['--import', 'tsx', file], { cwd: TARGET, stdio: ['ignore', 'ignore', 'inherit'] });
  } finally {
    fs.rmSync(file, { force: true });
  }
}

async function readSale(pool: pg.Pool): Promise<Sale> {
  const seats = (await pool.query<{ id: number }>('SELECT id FROM session_seats ORDER BY id')).rows.map((r) => Number(r.id));
  const { rows: [ids] } = await pool.query<{ channel: number; session: number; rate: number }>(
    'SELECT (SELECT id FROM sales_channels) AS channel, (SELECT id FROM sessions) AS session, (SELECT id FROM rates) AS rate',
  );
  return { channelId: ids!.channel, sessionId: ids!.session, rateId: ids!.rate, seats };
}

/** Seats back on sale and tokens revoked for the next part; answers the highest order id so far (the part's watermark). */
async function resetSeats(pool: pg.Pool, sale: Sale): Promise<number> {
  await pool.query(`UPDATE session_seats SET status = 'available', order_id = NULL, hold_expires_at = NULL WHERE session_id = $1`, [sale.sessionId]);
  await pool.query('UPDATE access_tokens SET revoked_at = now() WHERE revoked_at IS NULL');
  // The orders of the part before added to the kept sales figures here: otherwise the next
  // instance's first pass of the sales-figures job adds them (17,000 after the db part, about
  // 0.2 M instructions each) while its own buyers are measured.
  const run = (text: string) => pool.query(text).then((r) => r.rows);
  if (await hasSalesFiguresPass(run)) await applySalesFigures(run);
  const { rows } = await pool.query<{ max: string | null }>('SELECT max(id) AS max FROM orders');
  await pool.query('VACUUM ANALYZE session_seats, orders, order_items, tickets, access_tokens');
  await pool.query('CHECKPOINT');
  return Number(rows[0]!.max ?? 0);
}

/** Completed orders after `watermark`, and oversell: seats in two of them, or sold seats that do not add up. */
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



// ---- the load generator ----

/** How a buyer buys: three requests with `items`, or four on a checkout without them. */
let useItems = ITEMS !== '0';

class Refused extends Error {
  constructor(
    readonly what: string,
    readonly answer: Answer,
  ) {
    super(`${what}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`);
  }
}

/** One purchase of seats `s1`, `s2`: the requests it took. Throws Refused. */
async function purchase(agent: http.Agent, base: URL, sale: Sale, clientId: string, s1: number, s2: number, txId: string): Promise<number> {
  const token = await request(agent, base, 'POST', `${B2B}/auth/token`, { sales_channel_slug: SLUG, server_key: SERVER_KEY, client_id: clientId });
  if (token.status !== 200) throw new Refused('token', token);
  const bearer = token.body.data.access_token as string;
  const orders = `${B2B}/${SLUG}/en/orders`;
  let total: number;
  let order: string;
  let requests = 3;
  if (useItems) {
    const created = await request(agent, base, 'POST', orders, { items: [{ session_seat_id: s1, rate_id: sale.rateId }, { session_seat_id: s2, rate_id: sale.rateId }] }, bearer);
    if (created.status === 422 && ITEMS === 'auto' && created.body?.errors && Object.keys(created.body.errors).some((f) => f === 'items' || f === 'session_seat_id')) {
      // A checkout from before D63: its create takes one seat. Four requests from now on.
      useItems = false;
      console.log('  the target takes no items on create (before D63): four requests per purchase (create with a seat, add a seat)');
      return purchase(agent, base, sale, clientId, s1, s2, txId);
    }
    if (created.status !== 201) throw new Refused('create', created);
    total = created.body.data.total_amount;
    order = created.body.data.order_token;
  } else {
    const created = await request(agent, base, 'POST', orders, { session_seat_id: s1, rate_id: sale.rateId }, bearer);
    if (created.status !== 201) throw new Refused('create', created);
    order = created.body.data.order_token;
    const added = await request(agent, base, 'POST', `${orders}/${order}/items`, { session_seat_id: s2, rate_id: sale.rateId }, bearer);
    if (added.status !== 200 && added.status !== 201) throw new Refused('add', added);
    total = added.body.data.total_amount;
    requests = 4;
  }
  const confirmed = await request(agent, base, 'POST', `${orders}/${order}/confirm`, { amount: total, name: 'Ana', surname: 'García', email: 'ana@example.com', transaction_id: txId, payment_method: 'card' }, bearer);
  if (confirmed.status !== 200) throw new Refused('confirm', confirmed);
  return requests;
}

/** What a part measured inside its window (after the warm-up). */
interface Result {
  part: string;
  label: string;
  seconds: number;
  /** Completed purchases (bare: requests) in the window. */
  completed: number;
  requests: number;
  p50: number | null;
  p99: number | null;
  conflicts: number;
  errors: number;
  oversell: number;
  /** CPU ms in the window. */
  cpu: { service: number; database: number; generator: number; balancer?: number };
  load: string;
  note?: string;
}

const selfCpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

interface Load {
  completed: number;
  requests: number;
  latencies: number[];
  conflicts: number;
  errors: number;
  firstErrors: string[];
  ranOut: boolean;
}

/**
 * Buyers buy until the window closes (or the seats run out): purchase k takes seats 2k and 2k + 1.
 * Counts the purchases that completed inside the window.
 */
async function buyers(base: URL, sale: Sale, runTag: string, isOpen: () => boolean, done: () => boolean): Promise<Load> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: BUYERS });
  const out: Load = { completed: 0, requests: 0, latencies: [], conflicts: 0, errors: 0, firstErrors: [], ranOut: false };
  let next = 0;
  await Promise.all(
    Array.from({ length: BUYERS }, async () => {
      while (!done()) {
        const k = next++;
        if (2 * k + 1 >= sale.seats.length) {
          out.ranOut = true;
          return;
        }
        const t0 = performance.now();
        try {
          const requests = await purchase(agent, base, sale, `${runTag}-${k}`, sale.seats[2 * k]!, sale.seats[2 * k + 1]!, `tx-${runTag}-${k}`);
          // What completes inside the window counts (started there or in the warm-up).
          if (isOpen()) {
            out.completed++;
            out.requests += requests;
            out.latencies.push(performance.now() - t0);
          }
        } catch (err) {
          if (err instanceof Refused && err.answer.status === 409) out.conflicts++;
          else {
            out.errors++;
            if (out.firstErrors.length < 3) out.firstErrors.push(String(err instanceof Error ? err.message : err));
          }
        }
      }
    }),
  );
  agent.destroy();
  return out;
}

// ---- processes ----

function startInstance(url: string, port: number, cpuProf?: string): Proc {
  const childEnv: NodeJS.ProcessEnv = {
    ...env,
    APP_ENV,
    // What production insists on; nothing of it is used by a purchase through the API.
    SIGNING_SECRET: 'flash-bench-signing-secret-0123456789abcdef',
    STRIPE_SECRET_KEY: 'sk_test_flash_bench',
    STRIPE_WEBHOOK_SECRET: 'whsec_flash_bench',
    ...instanceEnv(url, port),
    DB_POOL_SIZE: POOL,
    LOG_LEVEL,
  };
  for (const name of ['TEST_DB', 'VITEST', 'NODE_ENV', 'REDIS_URL']) delete childEnv[name];
  return spawnProc(process.execPath, [...(cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${cpuProf}`] : []), 'dist/server.mjs'], { cwd: TARGET, env: childEnv });
}

// ---- the parts ----

interface Run {
  url: string;
  datname: string;
  pool: pg.Pool;
  monitor: pg.Client;
  dbCpu: DatabaseCpu;
  sale: Sale;
}

/** A stop flag for a part's load: set once its window has closed. */
function until(): { done: () => boolean; finish: () => void } {
  let stopped = false;
  return { done: () => stopped, finish: () => (stopped = true) };
}

async function apiPart(run: Run, part: string, label: string, baseUrl: string, pids: () => (number | undefined)[], round: number, balancer?: () => number | undefined): Promise<Result> {
  const watermark = await resetSeats(run.pool, run.sale);
  const flag = until();
  const measured = await windowed(run, pids, balancer, (isOpen) => buyers(new URL(baseUrl), run.sale, `${part}${round}`, isOpen, flag.done), flag.finish);
  const l = measured.value;
  if (l.firstErrors.length) console.log(`  ${label}: first errors: ${l.firstErrors.join(' | ')}`);
  const check = await oversell(run.pool, watermark);
  l.latencies.sort((a, b) => a - b);
  return {
    part,
    label,
    seconds: measured.seconds,
    completed: l.completed,
    requests: l.requests,
    p50: percentile(l.latencies, 0.5),
    p99: percentile(l.latencies, 0.99),
    conflicts: l.conflicts,
    errors: l.errors,
    oversell: check.oversell,
    cpu: measured.cpu,
    load: load(),
    note: l.ranOut ? 'the seats ran out before the window closed (raise FLASH_SEATS)' : undefined,
  };
}

/**
 * Runs `work` (which goes on until `finish` is called) through a warm-up and a measured window:
 * CPU of `pids`, of the database's backends and of the load generator sampled as the window opens
 * and closes; `isOpen` tells the work whether what completes now counts.
 */
async function windowed<T>(
  run: Run,
  pids: () => (number | undefined)[],
  balancer: (() => number | undefined) | undefined,
  work: (isOpen: () => boolean) => Promise<T>,
  finish: () => void,
  generator: () => number = selfCpu,
): Promise<{ value: T; seconds: number; cpu: Result['cpu']; from: number; to: number }> {
  let open = false;
  const service = () => pids().reduce<number>((s, pid) => s + cpuOf(pid), 0);
  const working = work(() => open);
  await sleep(WARMUP * 1000);
  await run.dbCpu.open();
  const s0 = service();
  const g0 = generator();
  const b0 = balancer ? cpuOf(balancer()) : 0;
  const t0 = performance.now();
  const from = Date.now();
  open = true;
  await Promise.race([sleep(SECONDS * 1000), working]);
  open = false;
  const to = Date.now();
  const seconds = (performance.now() - t0) / 1000;
  const cpu = { service: service() - s0, generator: generator() - g0, balancer: balancer ? cpuOf(balancer()) - b0 : undefined, database: await run.dbCpu.close() };
  finish();
  return { value: await working, seconds, cpu, from, to };
}

async function bare(run: Run): Promise<Result> {
  const port = await freePort();
  const proc = spawnProc(process.execPath, ['--import', 'tsx', path.join(HERE, 'bench/bare-server.ts')], {
    cwd: HERE,
    env: { ...env, PORT: String(port), DATABASE_URL: run.url, DB_POOL_SIZE: POOL },
  });
  try {
    await waitReady(`http://127.0.0.1:${port}`, [proc]);
    const flag = until();
    const base = new URL(`http://127.0.0.1:${port}`);
    const measured = await windowed(
      run,
      () => [proc.child.pid],
      undefined,
      async (isOpen) => {
        const agent = new http.Agent({ keepAlive: true, maxSockets: BUYERS });
        const out = { completed: 0, latencies: [] as number[], errors: 0 };
        await Promise.all(
          Array.from({ length: BUYERS }, async () => {
            while (!flag.done()) {
              const t0 = performance.now();
              const a = await request(agent, base, 'POST', `/bare/${SLUG}/orders`, { session_seat_id: 7, rate_id: 3 }).catch(() => ({ status: 0, body: null }));
              if (a.status !== 200) out.errors++;
              else if (isOpen()) {
                out.completed++;
                out.latencies.push(performance.now() - t0);
              }
            }
          }),
        );
        agent.destroy();
        return out;
      },
      flag.finish,
    );
    const l = measured.value;
    l.latencies.sort((a, b) => a - b);
    return {
      part: 'bare',
      label: 'bare Fastify + pg (1 request)',
      seconds: measured.seconds,
      completed: l.completed,
      requests: l.completed,
      p50: percentile(l.latencies, 0.5),
      p99: percentile(l.latencies, 0.99),
      conflicts: 0,
      errors: l.errors,
      oversell: 0,
      cpu: measured.cpu,
      load: load(),
    };
  } finally {
    await stop([proc]);
  }
}

async function oneInstance(run: Run, round: number): Promise<Result> {
  const port = await freePort();
  const proc = startInstance(run.url, port, CPU_PROF);
  try {
    await waitReady(`http://127.0.0.1:${port}`, [proc]);
    return await apiPart(run, 'one', 'one instance', `http://127.0.0.1:${port}`, () => [proc.child.pid], round);
  } finally {
    await stop([proc]);
  }
}

async function twoInstances(run: Run, round: number): Promise<Result | null> {
  try {
    execFileSync('haproxy', ['-v'], { stdio: 'ignore' });
  } catch {
    console.log('  two instances: skipped (haproxy not installed: apt-get install haproxy)');
    return null;
  }
  const [p1, p2, lbPort] = [await freePort(), await freePort(), await freePort()];
  const procs = [startInstance(run.url, p1), startInstance(run.url, p2)];
  try {
    await Promise.all([waitReady(`http://127.0.0.1:${p1}`, procs), waitReady(`http://127.0.0.1:${p2}`, procs)]);
    const lb = spawnProc('haproxy', ['-f', path.join(HERE, 'deploy/haproxy.cfg'), '-db'], {
      cwd: HERE,
      env: { ...env, TAQUILLA_LB_BIND: `127.0.0.1:${lbPort}`, TAQUILLA_APP1: `127.0.0.1:${p1}`, TAQUILLA_APP2: `127.0.0.1:${p2}` },
    });
    procs.push(lb);
    await waitReady(`http://127.0.0.1:${lbPort}`, [lb]);
    // Both servers up in HAProxy's eyes (its checks start after it listens).
    await sleep(2_500);
    return await apiPart(run, 'two', 'two instances behind HAProxy', `http://127.0.0.1:${lbPort}`, () => [procs[0]!.child.pid, procs[1]!.child.pid], round, () => lb.child.pid);
  } finally {
    await stop(procs);
  }
}

// ---- database only: the API's SQL through pgbench ----

/** Two purchases through a capture instance (the target's service on a proxy that reads its SQL). */
async function captureSql(run: Run): Promise<[CapturedPurchase, CapturedPurchase]> {
  const u = new URL(run.url);
  const capture = await StatementCapture.start({ host: u.hostname, port: Number(u.port || 5432) });
  const proxied = new URL(run.url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(capture.port);
  const port = await freePort();
  const proc = startInstance(proxied.toString(), port);
  try {
    await waitReady(`http://127.0.0.1:${port}`, [proc]);
    await resetSeats(run.pool, run.sale);
    const base = new URL(`http://127.0.0.1:${port}`);
    const agent = new http.Agent({ keepAlive: true });
    const seats = run.sale.seats;
    // A first purchase outside the capture: the instance's first-use work (schema compilation,
    // the cold token cache's misses) and the items detection are not a purchase's.
    await purchase(agent, base, run.sale, 'flashwarm', seats[seats.length - 1]!, seats[seats.length - 2]!, 'tx-warm');
    // Background jobs may send a statement during a purchase: two purchases must send the same
    // statements; a few attempts find two that do.
    const taken: CapturedPurchase[] = [];
    for (let attempt = 0; attempt < 8; attempt++) {
      const i = taken.length;
      const [s1, s2] = [seats[seats.length - 3 - 2 * attempt]!, seats[seats.length - 4 - 2 * attempt]!];
      capture.take();
      capture.recording = true;
      const clientId = `flashcap${String.fromCharCode(97 + attempt)}`;
      await purchase(agent, base, run.sale, clientId, s1, s2, `tx-cap-${attempt}`);
      capture.recording = false;
      const p: CapturedPurchase = { statements: capture.take(), seats: [s1, s2], clientId };
      const same = (x: CapturedPurchase, y: CapturedPurchase) => x.statements.length === y.statements.length && x.statements.every((s, j) => s.text === y.statements[j]!.text);
      const match = taken.find((t) => same(t, p));
      if (match) return [match, p];
      taken[i] = p;
    }
    throw new Error('bench:flash: no two purchases sent the same statements in 8 attempts');
  } finally {
    await stop([proc]);
    await capture.close();
  }
}

let captured: { a: CapturedPurchase; b: CapturedPurchase } | null = null;

async function databaseOnly(run: Run): Promise<Result | null> {
  try {
    execFileSync('pgbench', ['--version'], { stdio: 'ignore' });
  } catch {
    console.log('  database only: skipped (pgbench not installed: Debian postgresql-contrib / postgresql-client)');
    return null;
  }
  if (!captured) {
    const [a, b] = await captureSql(run);
    captured = { a, b };
  }
  const watermark = await resetSeats(run.pool, run.sale);
  await run.pool.query('CREATE SEQUENCE IF NOT EXISTS flash_bench_purchase');
  const n = (await run.pool.query<{ n: string }>(`SELECT nextval('flash_bench_purchase') + 1 AS n`)).rows[0]!.n;
  const generated = pgbenchScript(captured.a, captured.b, { sequence: 'flash_bench_purchase', firstSeat: run.sale.seats[0]!, base: Number(n), seatStep: 2 });
  if (run.sale.seats[1] !== run.sale.seats[0]! + 1) throw new Error('bench:flash: the session\'s seat ids are not consecutive');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flash-pgbench-'));
  const script = path.join(dir, 'purchase.sql');
  fs.writeFileSync(script, generated.script);
  if (env.FLASH_SHOW_SQL) console.log(generated.script, generated.defines.join(' '));
  if (env.FLASH_KEEP) {
    fs.mkdirSync(env.FLASH_KEEP, { recursive: true });
    fs.writeFileSync(path.join(env.FLASH_KEEP, 'purchase.sql'), generated.script);
    fs.writeFileSync(path.join(env.FLASH_KEEP, 'pgbench-args'), [ '-M', generated.mode, ...generated.defines].join('\n') + '\n');
  }
  const flag = until();
  let proc: Proc | null = null;
  const orderIds = { from: 0, to: 0 };
  // The service's statistics and sales-figures jobs, as the instances of the other parts run them
  // (docs/operations.md): the figures of a completed order are added off its transaction, work
  // the service's database does per purchase that the replayed statements do not contain.
  const runSql = (text: string) => run.pool.query(text).then((r) => r.rows);
  const stopStatistics = keepStatistics(runSql);
  const stopFigures = (await hasSalesFiguresPass(runSql)) ? keepSalesFigures(runSql) : () => {};
  try {
    const measured = await windowed(
      run,
      () => [],
      undefined,
      async (isOpen) => {
        // The orders made while the window is open: the highest order id as it opens and as it closes.
        const maxOrderId = async () => Number((await run.pool.query<{ id: string | null }>('SELECT max(id) AS id FROM orders')).rows[0]!.id ?? 0);
        void (async () => {
          while (!isOpen()) await sleep(10);
          orderIds.from = await maxOrderId();
          while (isOpen()) await sleep(10);
          orderIds.to = await maxOrderId();
        })();
        // pgbench runs its whole time (its log is written as it ends): past the window by a margin.
        const args = ['-n', '-M', generated.mode, '-c', String(PGBENCH_CLIENTS), '-j', '2', '-T', String(WARMUP + SECONDS + 3), '-f', script, '-l', `--log-prefix=${path.join(dir, 'log')}`, ...generated.defines, run.url];
        proc = spawnProc('pgbench', args, { cwd: dir, env });
        const p = proc;
        await new Promise<void>((resolve) => p.child.once('exit', () => resolve()));
      },
      flag.finish,
      () => (proc ? cpuOf(proc.child.pid) : 0),
    );
    // The per-transaction log: latency (us) and the epoch time each purchase ended.
    const [windowStart, windowEnd] = [measured.from / 1000, measured.to / 1000];
    const latencies: number[] = [];
    for (const file of fs.readdirSync(dir).filter((f) => f.startsWith('log'))) {
      for (const line of fs.readFileSync(path.join(dir, file), 'utf8').split('\n')) {
        const f = line.split(' ');
        if (f.length < 6) continue;
        const at = Number(f[4]) + Number(f[5]) / 1e6;
        if (at >= windowStart && at <= windowEnd) latencies.push(Number(f[2]) / 1000);
      }
    }
    const stderr = (proc as Proc | null)?.stderr() ?? '';
    const failed = (stderr.match(/ERROR|FATAL/g) ?? []).length;
    if (failed) console.log(`  pgbench: ${stderr.split('\n').filter((l) => /ERROR|FATAL/.test(l)).slice(0, 3).join(' | ')}`);
    const check = await oversell(run.pool, watermark);
    latencies.sort((a, b) => a - b);
    // A pgbench transaction ends without an error also when its hold was refused (the session sold
    // out: cart_hold_seats answers, it does not raise), so the orders made in the window and
    // completed are what counts (the replayed statements carry the captured time, so completed_at
    // cannot tell); transactions beyond them are failed purchases.
    const { rows: [inWindow] } = await run.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM orders WHERE id > $1 AND id <= $2 AND status = 'completed'`,
      [Math.max(watermark, orderIds.from), orderIds.to],
    );
    const done = Math.min(latencies.length, inWindow!.n);
    const refused = latencies.length - done;
    if (refused > latencies.length / 100) console.log(`  database only: ${refused} of ${latencies.length} purchases in the window completed no order (sold out? raise FLASH_SEATS)`);
    return {
      part: 'db',
      label: `database only (pgbench, ${PGBENCH_CLIENTS} clients)`,
      seconds: measured.seconds,
      completed: done,
      requests: done * generated.statements,
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      conflicts: 0,
      errors: failed + (refused > latencies.length / 100 ? refused : 0),
      oversell: check.oversell,
      cpu: measured.cpu,
      load: load(),
      note: `${generated.statements} statements per purchase as the API sends them (${generated.mode}), plus one that makes its values; ${check.completed} orders completed in all`,
    };
  } finally {
    stopStatistics();
    stopFigures();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

// ---- report ----

const fixed = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : '-');
const perSecond = (r: Result) => r.completed / r.seconds;

function print(r: Result) {
  const ms = (x: number | null) => (x === null ? '-' : `${x.toFixed(1)} ms`);
  const n = Math.max(1, r.completed);
  const perReq = (x: number) => x / Math.max(1, r.requests);
  const unit = r.part === 'bare' ? 'requests/s' : 'orders/s';
  console.log(
    `  ${r.label.padEnd(36)} ${perSecond(r).toFixed(0).padStart(5)} ${unit}  (${r.completed} in ${r.seconds.toFixed(1)} s; p50 ${ms(r.p50)}, p99 ${ms(r.p99)}; ` +
      `409s ${r.conflicts}; errors ${r.errors}; oversell ${r.oversell}; load ${r.load})`,
  );
  if (r.completed === 0) {
    console.log(`  ${''.padEnd(36)} nothing completed inside the window: no CPU per purchase (a busy machine: raise FLASH_SECONDS)`);
  } else if (r.part === 'db') {
    console.log(`  ${''.padEnd(36)} CPU per purchase: PostgreSQL ${fixed(r.cpu.database / n)} ms, pgbench ${fixed(r.cpu.generator / n)} ms`);
  } else if (r.part === 'bare') {
    console.log(`  ${''.padEnd(36)} CPU per request: service ${fixed(r.cpu.service / n, 3)} ms, PostgreSQL ${fixed(r.cpu.database / n, 3)} ms, load generator ${fixed(r.cpu.generator / n, 3)} ms`);
  } else {
    const lb = r.cpu.balancer !== undefined ? `, HAProxy ${fixed(r.cpu.balancer / n)}` : '';
    console.log(
      `  ${''.padEnd(36)} CPU per purchase (${(r.requests / n).toFixed(0)} requests): service ${fixed(r.cpu.service / n)} ms (${fixed(perReq(r.cpu.service), 3)} per request), ` +
        `PostgreSQL ${fixed(r.cpu.database / n)} ms, load generator ${fixed(r.cpu.generator / n)} ms (${fixed(perReq(r.cpu.generator), 3)} per request)${lb}`,
    );
  }
  if (r.note) console.log(`  ${''.padEnd(36)} ${r.note}`);
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)]! : NaN;
};

function summary(all: Result[]) {
  const of = (part: string) => all.filter((r) => r.part === part);
  const m = (part: string, f: (r: Result) => number) => median(of(part).map(f));
  const rate = (part: string) => m(part, perSecond);
  const servicePerRequest = (part: string) => m(part, (r) => r.cpu.service / Math.max(1, r.requests));
  if (ROUNDS > 1) {
    console.log(`medians of ${ROUNDS} rounds:`);
    for (const part of PARTS) {
      if (!of(part).length) continue;
      const n = (r: Result) => Math.max(1, r.completed);
      console.log(
        `  ${of(part)[0]!.label.padEnd(36)} ${rate(part).toFixed(0).padStart(5)}/s  p50 ${fixed(m(part, (r) => r.p50 ?? NaN), 1)} ms, p99 ${fixed(m(part, (r) => r.p99 ?? NaN), 1)} ms; ` +
          `CPU per purchase: service ${fixed(m(part, (r) => r.cpu.service / n(r)))} ms (${fixed(servicePerRequest(part), 3)} per request), PostgreSQL ${fixed(m(part, (r) => r.cpu.database / n(r)))} ms, ` +
          `generator ${fixed(m(part, (r) => r.cpu.generator / n(r)))} ms; runs ${of(part).map((r) => perSecond(r).toFixed(0)).join(', ')}`,
      );
    }
  }
  console.log('ratios:');
  if (of('bare').length && of('one').length) {
    console.log(`  service CPU per request, one instance / bare baseline: ${fixed(servicePerRequest('one') / servicePerRequest('bare'))} (goal at most 3; ${fixed(servicePerRequest('one'), 3)} ms against ${fixed(servicePerRequest('bare'), 3)} ms)`);
  }
  if (of('one').length) console.log(`  PostgreSQL CPU per purchase through the API: ${fixed(m('one', (r) => r.cpu.database / Math.max(1, r.completed)))} ms (goal at most 1.5)`);
  if (of('db').length && of('one').length) console.log(`  one instance / database only, orders/s: ${fixed(rate('one') / rate('db'))} (goal at least 0.7)`);
  if (of('two').length && of('one').length) console.log(`  two instances / one instance, orders/s: ${fixed(rate('two') / rate('one'))}`);
}

/**
 * FLASH_FUNCTIONS=1: the SQL functions' time per completed order of the part just run (PostgreSQL's
 * track_functions: wall time inside each function, lock waits included, warm-up included), then
 * the counters reset for the next part. Where a purchase's database time goes, function by function.
 */
async function printFunctionTimes(pool: pg.Pool, completed: number) {
  const { rows } = await pool.query(
    `SELECT funcname, round(calls::numeric / $1, 2) AS calls_per_order, round(total_time::numeric / $1, 3) AS total_ms_per_order,
            round(self_time::numeric / $1, 3) AS self_ms_per_order
     FROM pg_stat_user_functions ORDER BY self_time DESC LIMIT 20`,
    [Math.max(1, completed)],
  );
  console.table(rows);
  await pool.query('SELECT pg_stat_reset()');
}

async function main() {
  const name = `taquilla_bench_flash_${process.pid}`;
  const fresh = await freshDatabase(PG_URL, name);
  const admin = fresh.admin;
  const url = fresh.url;
  const commit = (() => {
    try {
      return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: TARGET, encoding: 'utf8' }).trim();
    } catch {
      return '?';
    }
  })();
  if (env.FLASH_BUILD !== '0' && PARTS.some((p) => p !== 'bare')) execFileSync('npm', ['run', '--silent', 'build:server'], { cwd: TARGET, stdio: ['ignore', 'ignore', 'inherit'] });
  const copies: string[] = [];
  const fileCopy = Number((await admin.query<{ v: string }>('SHOW server_version_num')).rows[0]!.v) >= 150_000;
  /**
   * A part's own database: a copy of the one the sale was made in, so that every part starts from
   * the same tables and not from what the parts before it left (the db part completes 20,000 to
   * 30,000 orders with their tickets and tokens). Copied file by file (PostgreSQL 15's FILE_COPY;
   * the default WAL_LOG would write the whole database into the WAL and through shared buffers).
   */
  const partRun = async (sale: Sale): Promise<Run> => {
    const copy = `${name}_${copies.length + 1}`;
    await admin.query(`DROP DATABASE IF EXISTS ${copy}`);
    await admin.query(`CREATE DATABASE ${copy} TEMPLATE ${name}${fileCopy ? ' STRATEGY = FILE_COPY' : ''}`);
    copies.push(copy);
    // A database's own settings are not copied with it.
    if (env.FLASH_FUNCTIONS === '1') await admin.query(`ALTER DATABASE ${copy} SET track_functions = 'all'`);
    const copyUrl = new URL(url);
    copyUrl.pathname = `/${copy}`;
    const pool = new pg.Pool({ connectionString: copyUrl.toString(), max: 3 });
    pool.on('error', () => {});
    const monitor = new pg.Client({ connectionString: copyUrl.toString() });
    await monitor.connect();
    return { url: copyUrl.toString(), datname: copy, pool, monitor, dbCpu: new DatabaseCpu(monitor, copy), sale };
  };
  const endRun = async (run: Run) => {
    await run.monitor.end().catch(() => undefined);
    await run.pool.end();
    if (!env.FLASH_KEEP) await admin.query(`DROP DATABASE IF EXISTS ${run.datname} WITH (FORCE)`);
  };
  try {
    makeSale(url);
    // The sale's database is only copied from: no connection may stay open to it.
    const setup = new pg.Pool({ connectionString: url, max: 1 });
    for (const t of (env.BENCH_OFF || '').split(',').filter(Boolean)) { const [tab, trg] = t.split(':'); await setup.query(`ALTER TABLE ${tab} DISABLE TRIGGER ${trg}`); }
    const sale = await readSale(setup);
    await setup.end();
    console.log(
      `flash sale on ${TARGET} (${commit}): two seats per purchase, ${BUYERS} buyers at once, one session of ${SEATS} seats, PostgreSQL, pool ${POOL} per instance, ` +
        `APP_ENV=${APP_ENV}, LOG_LEVEL=${LOG_LEVEL}; ${WARMUP} s warm-up, ${SECONDS} s measured per part, each part on its own copy of the sale's database`,
    );
    console.log(`  machine: ${os.cpus().length} CPUs, load average ${load()} (figures are only comparable at a low load; CPU per request is the steadier)`);
    const all: Result[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      if (ROUNDS > 1) console.log(`round ${round + 1}`);
      for (const part of PARTS) {
        if (!['db', 'bare', 'one', 'two'].includes(part)) throw new Error(`FLASH_PARTS: unknown part ${part} (db, bare, one, two)`);
        const run = await partRun(sale);
        let r: Result | null;
        try {
          r = part === 'db' ? await databaseOnly(run) : part === 'bare' ? await bare(run) : part === 'one' ? await oneInstance(run, round) : await twoInstances(run, round);
          if (r) print(r);
          if (r && env.FLASH_FUNCTIONS === '1') await printFunctionTimes(run.pool, r.completed);
        } finally {
          await endRun(run);
        }
        if (r) all.push(r);
      }
    }
    if (captured) {
      console.log(`one purchase's SQL (${captured.a.statements.length} statements, captured on the wire):`);
      for (const line of pgbenchScript(captured.a, captured.b, { sequence: 's', firstSeat: 0, base: 0, seatStep: 2 }).summary) console.log(`    ${line}`);
    }
    summary(all);
  } finally {
    if (env.FLASH_KEEP) {
      console.log(`  kept databases ${[name, ...copies].join(', ')} (FLASH_KEEP; each part ran on its own copy of ${name})`);
      await admin.end();
    } else await fresh.drop();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
