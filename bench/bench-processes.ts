// What the benchmarks share: a fresh database per run, processes and their CPU (bench:flash,
// bench:onsale), PostgreSQL backends' CPU, a plain HTTP client on a keep-alive agent, percentiles.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import pg from 'pg';
import { analyseTablesBehind, STATISTICS_INTERVAL_MS, type RunSql } from '../src/db/statistics-keeper.js';
import { SALES_FIGURES_INTERVAL_MS, salesFiguresPass } from '../src/modules/audience/sales-figures.jobs.js';

/** The URL of database `name` on the server of `serverUrl`. */
export const dbUrl = (serverUrl: string, name: string) => {
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return u.toString();
};

export interface BenchDatabase {
  /** postgres:// URL of the new database. */
  url: string;
  /** The connection to the server that made it (the bench may use it, e.g. to set options). */
  admin: pg.Client;
  /** Drops the database (WITH FORCE) and ends `admin`. */
  drop(): Promise<void>;
}

/** A new, empty database `name` on the server at `serverUrl` (dropped first if a crashed run left it). */
export async function freshDatabase(serverUrl: string, name: string): Promise<BenchDatabase> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  return {
    url: dbUrl(serverUrl, name),
    admin,
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/**
 * The environment of a built instance (dist/server.mjs) that the bench's buyers reach at
 * 127.0.0.1:`port`, over the database at `url`: every simulated buyer comes from 127.0.0.1, so the
 * per-address limits are lifted; the bench measures what a purchase costs, not load shedding (on a
 * busy machine the event-loop delay passes 200 ms and the instance would answer 503 overloaded,
 * counted as errors), so overload protection is off unless OVERLOAD_MAX_EVENT_LOOP_DELAY_MS says.
 */
export function instanceEnv(url: string, port: number): NodeJS.ProcessEnv {
  return {
    DEMO_DATA: 'false',
    DATABASE_URL: url,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    TOKEN_RATE_LIMIT_PER_MINUTE: '10000000',
    TOKEN_FAILURE_LIMIT_PER_MINUTE: '10000000',
    CART_WRITE_RATE_LIMIT_PER_MINUTE: '10000000',
    TRUST_PROXY: '127.0.0.1',
    OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: process.env.OVERLOAD_MAX_EVENT_LOOP_DELAY_MS ?? '0',
  };
}

/** /proc/<pid>/stat counts CPU in ticks of 10 ms (USER_HZ 100). */
const TICK_MS = 10;

/** A port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', () => resolve()));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const load = () => os.loadavg().map((l) => l.toFixed(1)).join(' ');


export const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]! : null);
// ---- CPU ----

/** CPU milliseconds of a process so far (user + system), from /proc; 0 when it is gone or not on Linux. */
export function cpuOf(pid: number | undefined): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/**
 * CPU of the PostgreSQL backends of one database (pg_stat_activity by datname, this monitor's own
 * connection left out): sampled every 250 ms while a window is open, so that a backend that starts
 * or ends inside the window counts what it used while seen.
 */
export class DatabaseCpu {
  private first = new Map<number, number>();
  private last = new Map<number, number>();
  private timer: NodeJS.Timeout | null = null;
  constructor(
    private readonly monitor: pg.Client,
    private readonly datname: string,
  ) {}

  private async sample(into: 'first' | 'last'): Promise<void> {
    const { rows } = await this.monitor.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [this.datname]);
    for (const { pid } of rows) {
      const cpu = cpuOf(pid);
      if (into === 'first') this.first.set(pid, cpu);
      else if (!this.first.has(pid)) this.first.set(pid, 0);
      if (cpu > 0) this.last.set(pid, cpu);
    }
  }

  async open(): Promise<void> {
    this.first = new Map();
    this.last = new Map();
    await this.sample('first');
    this.timer = setInterval(() => void this.sample('last').catch(() => undefined), 250);
  }

  /** CPU ms of the database's backends since open. */
  async close(): Promise<number> {
    if (this.timer) clearInterval(this.timer);
    await this.sample('last');
    let sum = 0;
    for (const [pid, start] of this.first) sum += Math.max(0, (this.last.get(pid) ?? start) - start);
    return sum;
  }
}


export interface Answer {
  status: number;
  headers?: http.IncomingHttpHeaders;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export function request(agent: http.Agent, base: URL, method: string, urlPath: string, body: unknown, token?: string, headers: Record<string, string> = {}): Promise<Answer> {
  const payload = body === undefined ? '' : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: base.hostname,
        port: base.port,
        method,
        path: urlPath,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          try {
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : null });
          } catch {
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text });
          }
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}


export interface Proc {
  child: ChildProcess;
  stderr: () => string;
}

export function spawnProc(command: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv }): Proc {
  const child = spawn(command, args, { ...opts, stdio: ['ignore', process.env.BENCH_CHILD_LOG ? fs.openSync(process.env.BENCH_CHILD_LOG, 'a') : 'ignore', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (c) => (err += c));
  return { child, stderr: () => err };
}


export async function waitReady(url: string, procs: Proc[], timeoutMs = 180_000) {
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
    await sleep(200);
  }
}

export async function stop(procs: Proc[]) {
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

/**
 * The service's statistics job (src/db/statistics-keeper.ts) at its interval, for the parts of a
 * bench that do not start dist/server.mjs (whose scheduler runs it): an app built in the bench's
 * own process, or pgbench on the API's SQL. Answers the function that stops it.
 */
export function keepStatistics(run: RunSql): () => void {
  const timer = setInterval(() => void analyseTablesBehind(run).catch(() => {}), STATISTICS_INTERVAL_MS);
  return () => clearInterval(timer);
}

/** Runs `sales_figures_apply_pending(batch)` and answers how many orders it added. */
const applyFigures = (run: RunSql) => async (batch: number) => Number((await run(`SELECT sales_figures_apply_pending(${batch}) AS n`))[0]!.n);

/** Whether the database has the kept sales figures' pass (migration 0342; older checkouts, such as 457df1d, have not). */
export async function hasSalesFiguresPass(run: RunSql): Promise<boolean> {
  return (await run(`SELECT 1 FROM pg_proc WHERE proname = 'sales_figures_apply_pending'`)).length > 0;
}

/** Adds every order marked `figures_pending` to the kept sales figures now (what the service's next pass would do). */
export const applySalesFigures = (run: RunSql): Promise<number> => salesFiguresPass(applyFigures(run));

/**
 * The service's sales-figures job (src/modules/audience/sales-figures.jobs.ts) at its interval,
 * for a part that replays the API's SQL with pgbench: each completed order is added to the kept
 * figures off its transaction, about 0.2 M instructions per order (docs/operations.md), work the
 * service's database does per purchase. Answers the function that stops it.
 */
export function keepSalesFigures(run: RunSql): () => void {
  const timer = setInterval(() => void applySalesFigures(run).catch(() => {}), SALES_FIGURES_INTERVAL_MS);
  return () => clearInterval(timer);
}
