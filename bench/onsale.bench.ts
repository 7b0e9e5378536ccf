// npm run bench:onsale : an on-sale through the waiting room (issue 28, D60-D61), on PostgreSQL.
//
// One session of ONSALE_SEATS numbered seats (rows of 100) with a waiting room (challenge none,
// ONSALE_RATE admissions per minute) whose sales start ONSALE_PREQUEUE seconds after the service is
// up, and a twin session without a waiting room. Parts (ONSALE_PARTS, default one,two):
//   one   one instance (node dist/server.mjs, built first);
//   two   two instances behind HAProxy (deploy/haproxy.cfg) sharing the queue through Redis
//         (ONSALE_REDIS_URL, default redis://127.0.0.1:6379; skipped, said so, without haproxy).
// Each part has a database of its own. In each:
//   1. ONSALE_BUYERS buyers join the pre-queue, spread over the pre-queue's seconds, then poll the
//      status document every ONSALE_POLL_MS (with 20 % jitter, sending the ETag they last saw);
//   2. at the sales start the pre-queue is drawn; each buyer learns its number (a status poll that
//      names its ticket_id, or with ONSALE_LEARN=pass a pass request answered 409 with it) and keeps polling;
//   3. when `admitted_through` reaches its number, a buyer takes its pass and buys two seats through
//      best available with it: a token (server key), best available with `Queue-Pass`, confirm;
//   4. after ONSALE_SECONDS of admissions, the same number of purchases is made on the twin session
//      at the same rate without a waiting room: the purchase path without the queue.
// Printed per part, beside the goals of issue 28: status polls (served per second, p50/p99, how late
// the generator sent them), joins (p99), admissions (measured rate against the configured one),
// out-of-order admissions (a number against the published drawn order, or a pass for a number
// beyond `admitted_through`), purchases with and without the queue (p50/p99), the best-available
// request p99 (the selection alone is `npm run bench:best-available`), oversell (checked in SQL),
// CPU of each process and its peak memory. The load generator shares this machine's two cores with
// the service, so the polls come from a cheap process of their own (bench/poll-generator.ts: raw
// keep-alive sockets, prebuilt request bytes); its CPU per poll is printed beside the service's, with
// how late it sent polls (its timer's lag apart from the wait for a free connection), and a window
// of polls alone after the admissions gives the service's CPU per poll with nothing else running.
//
// Environment (all optional): ONSALE_BUYERS (100000), ONSALE_SEATS (20000), ONSALE_RATE (6000 a
// minute), ONSALE_PREQUEUE (60 s), ONSALE_SECONDS (60), ONSALE_POLL_MS (5000), ONSALE_CONNECTIONS
// (sockets of the buyers' joins, passes and purchases, 256), ONSALE_POLL_CONNECTIONS (sockets of the
// poll generator, 128), ONSALE_POLL_ONLY (seconds of polls alone after the admissions, 10),
// ONSALE_PARTS, ONSALE_LEARN (poll: a pre-queue buyer learns its number from a status poll naming its
// ticket_id; pass: from a pass request answered 409, as before that existed), ONSALE_PIN=1 (part one only:
// the instance alone on CPU 0, and the bench, its poll generator and the bench database's PostgreSQL
// backends on the other CPUs: what the instance does with a core of its own, as on a machine of its
// own; Linux `taskset`), ONSALE_BUILD=0 (use dist/ as it is), ONSALE_CPU_PROF (a directory: each instance's
// V8 CPU profile), ONSALE_NODE_ARGS (more Node.js options for each instance, e.g. --trace-gc with
// BENCH_CHILD_LOG=<file> to keep its output), BENCH_PG_URL.
// A quick check: ONSALE_BUYERS=2000 ONSALE_PREQUEUE=10 ONSALE_SECONDS=10 ONSALE_PARTS=one
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { DatabaseCpu, cpuOf, freePort, freshDatabase, instanceEnv, load, percentile, request, sleep, spawnProc, stop, waitReady, type Answer, type Proc } from './bench-processes.js';
import { flashSaleCatalogue } from './bench-catalogue.js';
import type { PollFigures, PollGeneratorOptions } from './poll-generator.js';

const HERE = path.resolve(import.meta.dirname, '..');
const env = process.env;
const PG_URL = env.BENCH_PG_URL || env.TEST_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = env.ONSALE_REDIS_URL || 'redis://127.0.0.1:6379';
const BUYERS = Number(env.ONSALE_BUYERS || 100_000);
const SEATS = Number(env.ONSALE_SEATS || 20_000);
const RATE = Number(env.ONSALE_RATE || 6_000);
const PREQUEUE_S = Number(env.ONSALE_PREQUEUE || 60);
const ADMIT_S = Number(env.ONSALE_SECONDS || 60);
const POLL_MS = Number(env.ONSALE_POLL_MS || 5_000);
const CONNECTIONS = Number(env.ONSALE_CONNECTIONS || 256);
const POLL_CONNECTIONS = Number(env.ONSALE_POLL_CONNECTIONS || 128);
const POLL_ONLY_S = Number(env.ONSALE_POLL_ONLY || 10);
const PARTS = (env.ONSALE_PARTS || 'one,two').split(',');
/** How a buyer of the pre-queue learns its number after the draw: its status poll naming its ticket (poll), or a pass request (pass). */
const LEARN = env.ONSALE_LEARN === 'pass' ? 'pass' : 'poll';
/** ONSALE_PIN=1: the single instance on CPU 0, everything else of the run on the other CPUs. */
const PIN = env.ONSALE_PIN === '1';
const INSTANCE_CPU = '0';
const OTHER_CPUS = `1-${Math.max(1, os.cpus().length - 1)}`;
const SLUG = 'onsale';
const SERVER_KEY = 'sk_onsale_bench_server_key';
/** The instances' and the import's: the queue's seed is sealed with it. */
const SIGNING_SECRET = 'onsale-bench-signing-secret-0123456789abcdef';
const B2B = `/api/sales-channel/v1/${SLUG}/en`;

/** The catalogue: the flash sale's session with a waiting room, and its twin without one. */
function makeSale(url: string, salesStartAt: Date): void {
  const catalogue = flashSaleCatalogue(SEATS, { slug: SLUG, server_keys: [SERVER_KEY] });
  const event = catalogue.events[0]!;
  const queued = event.sessions[0]!;
  queued.sales_start_at = salesStartAt.toISOString();
  queued.queue = { admission_per_minute: RATE, opens_minutes_before: 60, pass_ttl_seconds: 3600, challenge: 'none' };
  event.sessions.push({ ...queued, key: 's2', sales_start_at: undefined, queue: undefined });
  const script = `
    import { createAppContext } from ${JSON.stringify(path.join(HERE, 'src/app-context.ts'))};
    import { loadConfig } from ${JSON.stringify(path.join(HERE, 'src/config.ts'))};
    import { openDatabase } from ${JSON.stringify(path.join(HERE, 'src/db/client.ts'))};
    import { migrate } from ${JSON.stringify(path.join(HERE, 'src/db/migrate.ts'))};
    import { systemClock } from ${JSON.stringify(path.join(HERE, 'src/lib/clock.ts'))};
    import { importCatalogue } from ${JSON.stringify(path.join(HERE, 'src/modules/catalogue/import.service.ts'))};
    const url = ${JSON.stringify(url)};
    const database = await openDatabase({ url, poolSize: 2 });
    await migrate(database);
    const ctx = createAppContext({ config: loadConfig({ APP_ENV: 'test', DATABASE_URL: url, SIGNING_SECRET: ${JSON.stringify(SIGNING_SECRET)} }), database, clock: systemClock });
    await importCatalogue(ctx, ${JSON.stringify(catalogue)});
    await database.close();
  `;
  const file = path.join(os.tmpdir(), `onsale-${process.pid}.mts`);
  fs.writeFileSync(file, script);
  try {
    execFileSync(process.execPath, ['--import', 'tsx', file], { cwd: HERE, stdio: ['ignore', 'ignore', 'inherit'] });
  } finally {
    fs.rmSync(file, { force: true });
  }
}

/** Sets the CPUs a process (all its threads) may run on. */
function pinTo(pid: number, cpus: string): void {
  execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
}

/** With ONSALE_PIN, keeps the bench database's PostgreSQL backends (the pool opens them as it needs) off the instance's CPU. */
function pinBackends(monitor: pg.Client, dbName: string): () => void {
  const pinned = new Set<number>();
  const timer = setInterval(() => {
    void monitor
      .query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1', [dbName])
      .then(({ rows }) => {
        for (const { pid } of rows) {
          if (pinned.has(pid)) continue;
          pinned.add(pid);
          try {
            pinTo(pid, OTHER_CPUS);
          } catch {
            // a backend that ended meanwhile
          }
        }
      })
      .catch(() => undefined);
  }, 250);
  return () => clearInterval(timer);
}

function startInstance(url: string, port: number, redis: boolean): Proc {
  const childEnv: NodeJS.ProcessEnv = {
    ...env,
    APP_ENV: 'production',
    SIGNING_SECRET,
    STRIPE_SECRET_KEY: 'sk_test_onsale_bench',
    STRIPE_WEBHOOK_SECRET: 'whsec_onsale_bench',
    ...instanceEnv(url, port),
    ...(redis ? { REDIS_URL } : {}),
  };
  for (const name of ['TEST_DB', 'VITEST', 'NODE_ENV', ...(redis ? [] : ['REDIS_URL'])]) delete childEnv[name];
  // ONSALE_CPU_PROF=<dir>: each instance writes a V8 CPU profile there when it stops (open it in Chrome's DevTools).
  const profile = env.ONSALE_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(env.ONSALE_CPU_PROF)}`] : [];
  const extra = env.ONSALE_NODE_ARGS ? env.ONSALE_NODE_ARGS.split(' ').filter(Boolean) : [];
  const proc = spawnProc(process.execPath, [...profile, ...extra, 'dist/server.mjs'], { cwd: HERE, env: childEnv });
  // Before the instance starts its helper threads (V8's, libuv's): they inherit the main thread's CPUs.
  if (PIN && !redis) pinTo(proc.child.pid!, INSTANCE_CPU);
  return proc;
}

/** Peak resident memory of a process (VmHWM), in MB. */
function peakMemoryMb(child: ChildProcess): number {
  try {
    const kb = /VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1];
    return Number(kb) / 1024;
  } catch {
    return NaN;
  }
}

interface Buyer {
  id: string;
  ticket?: string;
  ticketId?: string;
  number?: number | null;
  etag?: string;
  /** A pass request is out, or the buyer has bought (or given up). */
  busy: boolean;
  done: boolean;
}

class Latencies {
  readonly values: number[] = [];
  add(ms: number) {
    this.values.push(ms);
  }
  figures(): string {
    const sorted = [...this.values].sort((a, b) => a - b);
    const f = (x: number | null) => (x === null ? '-' : x.toFixed(1));
    return `p50 ${f(percentile(sorted, 0.5))} ms, p99 ${f(percentile(sorted, 0.99))} ms (${sorted.length})`;
  }
  p99(): number {
    return percentile([...this.values].sort((a, b) => a - b), 0.99) ?? NaN;
  }
}

/** Runs `task` for every item with at most `limit` at once, starting each no earlier than its due time. */
class Sender {
  private running = 0;
  private readonly waiting: Array<() => Promise<void>> = [];
  constructor(private readonly limit: number) {}
  push(task: () => Promise<void>) {
    this.waiting.push(task);
    this.pump();
  }
  get backlog() {
    return this.waiting.length;
  }
  /** Tasks waiting or running. */
  get pending() {
    return this.waiting.length + this.running;
  }
  private pump() {
    while (this.running < this.limit && this.waiting.length) {
      const task = this.waiting.shift()!;
      this.running++;
      void task()
        .catch(() => undefined)
        .finally(() => {
          this.running--;
          this.pump();
        });
    }
  }
}

interface PollGenerator {
  ready: Promise<void>;
  /** Ends the measured window under way (its figures; null before the first) and starts the next. */
  window(): Promise<PollFigures | null>;
  /** Ends the last window and the process. */
  stop(): Promise<PollFigures | null>;
  kill(): void;
}

/** The status polls' own process (bench/poll-generator.ts): the bench's CPU does not slow them, nor theirs the bench. */
function startPollGenerator(options: PollGeneratorOptions): PollGenerator {
  const child = fork(path.join(HERE, 'bench/poll-generator.ts'), [JSON.stringify(options)], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiting: Array<(f: PollFigures | null) => void> = [];
  let resolveReady!: () => void;
  const ready = new Promise<void>((resolve) => (resolveReady = resolve));
  child.on('message', (m: { type: string; figures?: PollFigures | null }) => {
    if (m.type === 'ready') resolveReady();
    else if (m.type === 'figures') waiting.shift()?.(m.figures ?? null);
  });
  const ask = (type: string) =>
    new Promise<PollFigures | null>((resolve) => {
      waiting.push(resolve);
      child.send({ type });
    });
  return { ready, window: () => ask('window'), stop: () => ask('stop'), kill: () => child.kill() };
}

interface PartResult {
  label: string;
  lines: string[];
}

async function runPart(part: 'one' | 'two'): Promise<PartResult | null> {
  const twoInstances = part === 'two';
  if (twoInstances) {
    try {
      execFileSync('haproxy', ['-v'], { stdio: 'ignore' });
    } catch {
      console.log('  two instances: skipped (haproxy not installed: apt-get install haproxy)');
      return null;
    }
  }
  const dbName = `taquilla_bench_onsale_${process.pid}_${part}`;
  const fresh = await freshDatabase(PG_URL, dbName);
  const url = fresh.url;
  // The instances need a few seconds to start: the sales start is counted from after that.
  const salesStartAt = new Date(Date.now() + (PREQUEUE_S + 20) * 1000);
  makeSale(url, salesStartAt);
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  // Dropping the database at the end ends its connections: not an error of the bench.
  pool.on('error', () => undefined);
  const { rows: sessions } = await pool.query<{ id: number; queued: boolean }>('SELECT id, queue IS NOT NULL AS queued FROM sessions ORDER BY id');
  const queued = sessions.find((s) => s.queued)!.id;
  const plain = sessions.find((s) => !s.queued)!.id;
  const { rows: rateRows } = await pool.query<{ id: number; session_id: number }>('SELECT id, session_id FROM rates');
  const rateOf = new Map(rateRows.map((r) => [r.session_id, r.id]));

  const ports = twoInstances ? [await freePort(), await freePort()] : [await freePort()];
  const instances = ports.map((p) => startInstance(url, p, twoInstances));
  const procs: Proc[] = [...instances];
  let base: URL;
  let balancer: Proc | undefined;
  const monitor = new pg.Client({ connectionString: url });
  let pollGenerator: PollGenerator | undefined;
  let stopPinning = () => {};
  try {
    await Promise.all(ports.map((p) => waitReady(`http://127.0.0.1:${p}`, procs)));
    if (twoInstances) {
      const lbPort = await freePort();
      balancer = spawnProc('haproxy', ['-f', path.join(HERE, 'deploy/haproxy.cfg'), '-db'], {
        cwd: HERE,
        env: { ...env, TAQUILLA_LB_BIND: `127.0.0.1:${lbPort}`, TAQUILLA_APP1: `127.0.0.1:${ports[0]}`, TAQUILLA_APP2: `127.0.0.1:${ports[1]}` },
      });
      procs.push(balancer);
      await waitReady(`http://127.0.0.1:${lbPort}`, [balancer]);
      await sleep(2_500);
      base = new URL(`http://127.0.0.1:${lbPort}`);
    } else {
      base = new URL(`http://127.0.0.1:${ports[0]}`);
    }
    await monitor.connect();
    if (PIN && !twoInstances) stopPinning = pinBackends(monitor, dbName);
    // What the instances use with no request at all (their timers, background jobs): the fixed cost
    // that a per-poll figure at a low rate would otherwise count as the polls'.
    const idleFrom = instances.map((p) => cpuOf(p.child.pid));
    const IDLE_MS = 3_000;
    await sleep(IDLE_MS);
    const idleMsPerSecond = instances.reduce((sum, p, i) => sum + cpuOf(p.child.pid) - idleFrom[i]!, 0) / (IDLE_MS / 1000);
    const dbCpu = new DatabaseCpu(monitor, dbName);
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    const sender = new Sender(CONNECTIONS);
    const queue = `/api/queue/v1/sessions/${queued}`;
    const call = (method: string, p: string, body?: unknown, token?: string, headers?: Record<string, string>): Promise<Answer> => request(agent, base, method, p, body, token, headers);
    // At the draw every pre-queue buyer asks once for its number (as the widget's join again does):
    // those requests have sockets and slots of their own, as each buyer's browser has its own
    // connection, so that an admitted buyer's purchase does not wait in this process behind
    // thousands of them (it did: the purchases then came in bursts, long after their admission).
    const learnAgent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    const learnSender = new Sender(CONNECTIONS);

    const joins = new Latencies();
    const bought = new Latencies();
    const bestAvailable = new Latencies();
    /** Each step of a purchase, with and without the queue (the pass request only with it). */
    const steps = { queued: { pass: new Latencies(), token: new Latencies(), best: new Latencies(), confirm: new Latencies() }, plain: { pass: new Latencies(), token: new Latencies(), best: new Latencies(), confirm: new Latencies() }, plainPolls: { pass: new Latencies(), token: new Latencies(), best: new Latencies(), confirm: new Latencies() } };
    /** From the clock's admission of a buyer's number to its pass request (the buyer's poll interval: not the purchase path). */
    const learnDelay = new Latencies();
    /** Requests of the buyers' driver waiting for a free slot (its CONNECTIONS), when the pass request starts. */
    const senderBacklog = new Latencies();
    let errors = 0;
    const firstErrors: string[] = [];
    const fail = (what: string, a: Answer | unknown) => {
      errors++;
      if (firstErrors.length < 5) firstErrors.push(`${what}: ${a && typeof a === 'object' && 'status' in a ? `${(a as Answer).status} ${JSON.stringify((a as Answer).body).slice(0, 200)}` : String(a)}`);
    };
    /** Numbers that differ from the published draw's order. */
    let offDraw = 0;
    /** Passes for a number well beyond the admitted_through the monitor last read. */
    let passesAhead = 0;
    let passesGranted = 0;
    let admittedSeen = 0;
    let stopping = false;


    // A buyer asks for its pass: the first time after the draw to learn its number (409
    // not_admitted_yet carries it), then once `admitted_through` reaches that number; with the pass
    // it buys: a token, best available with `Queue-Pass`, confirm.
    // Learning the number: by default a status poll that names the ticket (ONSALE_LEARN=poll: the
    // answer carries its number); ONSALE_LEARN=pass: one pass request, answered 409 not_admitted_yet
    // with it (or 200: then it buys).
    // A pass answered 409 not_admitted_yet carries the buyer's number: it waits for its turn.
    const notAdmittedYet = (b: Buyer, pass: Answer) => {
      if (pass.status !== 409 || pass.body?.code !== 'not_admitted_yet') return false;
      b.number = pass.body.data.number;
      b.busy = false;
      return true;
    };
    const learn = async (b: Buyer) => {
      if (LEARN === 'poll') {
        const doc = await request(learnAgent, base, 'GET', `${queue}?ticket_id=${b.ticketId}`, undefined);
        b.busy = false;
        if (doc.status !== 200) return fail('status with ticket_id', doc);
        if (typeof doc.body.data.number === 'number') b.number = doc.body.data.number;
        return;
      }
      const pass = await request(learnAgent, base, 'POST', `${queue}/pass`, { ticket: b.ticket });
      if (notAdmittedYet(b, pass)) return;
      b.busy = false;
      if (pass.status !== 200) return fail('pass (number)', pass);
      // Admitted already: it buys as any admitted buyer (the pass asked again, the same pass).
      b.number = pass.body.data.number as number;
      b.busy = true;
      sender.push(() => tryPass(b));
    };
    const purchaseStarts: number[] = [];
    const tryPass = async (b: Buyer) => {
      const t0 = performance.now();
      const askedAt = Date.now();
      purchaseStarts.push(askedAt);
      const pass = await call('POST', `${queue}/pass`, { ticket: b.ticket });
      if (notAdmittedYet(b, pass)) return;
      b.done = true;
      if (pass.status !== 200) return fail('pass', pass);
      passesGranted++;
      steps.queued.pass.add(performance.now() - t0);
      senderBacklog.add(sender.backlog);
      b.number = pass.body.data.number as number;
      learnDelay.add(askedAt - (salesStartAt.getTime() + (b.number * 60_000) / RATE));
      // A pass far beyond what the status document admitted (the monitor reads it every second).
      if (b.number > admittedSeen + Math.ceil(RATE / 60) * 2) passesAhead++;
      await purchase(b.id, queued, { 'queue-pass': pass.body.data.pass }, steps.queued);
      bought.add(performance.now() - t0);
    };
    const purchase = async (clientId: string, sessionId: number, headers: Record<string, string>, timed: (typeof steps)['plain']) => {
      const t0 = performance.now();
      const token = await call('POST', '/api/sales-channel/v1/auth/token', { sales_channel_slug: SLUG, server_key: SERVER_KEY, client_id: clientId });
      if (token.status !== 200) return fail('token', token);
      const bearer = token.body.data.access_token as string;
      const t1 = performance.now();
      timed.token.add(t1 - t0);
      const created = await call('POST', `${B2B}/orders/best-available`, { session_id: sessionId, quantity: 2, rate_id: rateOf.get(sessionId) }, bearer, headers);
      const t2 = performance.now();
      bestAvailable.add(t2 - t1);
      timed.best.add(t2 - t1);
      if (created.status !== 201) return fail('best available', created);
      const { order_token: order, total_amount: amount } = created.body.data;
      const confirmed = await call('POST', `${B2B}/orders/${order}/confirm`, { amount, name: 'Ana', surname: 'García', email: 'ana@example.com', transaction_id: `tx-${clientId}`, payment_method: 'card' }, bearer);
      timed.confirm.add(performance.now() - t2);
      if (confirmed.status !== 200) fail('confirm', confirmed);
    };

    // The buyers' next step, as their widget would take it on each poll (every POLL_MS with
    // jitter), from the latest status the monitor read. The polls themselves are sent by the poll
    // generator's process (bench/poll-generator.ts); here only the decision.
    const SLOT_MS = 100;
    const wheel = new Map<number, Buyer[]>();
    const schedule = (b: Buyer, inMs: number) => {
      const slot = Math.floor((Date.now() + inMs) / SLOT_MS);
      const list = wheel.get(slot);
      if (list) list.push(b);
      else wheel.set(slot, [b]);
    };
    let admittedThrough = 0;
    let state = 'pre_queue';
    const step = (b: Buyer) => {
      if (!stopping && !b.done) schedule(b, POLL_MS * (0.8 + Math.random() * 0.4));
      if (b.busy || b.done || !b.ticket || state !== 'admitting') return;
      if (b.number === undefined || b.number === null) {
        b.busy = true;
        learnSender.push(() => learn(b));
      } else if (b.number <= admittedThrough) {
        b.busy = true;
        sender.push(() => tryPass(b));
      }
    };
    const wheelTimer = setInterval(() => {
      const now = Math.floor(Date.now() / SLOT_MS);
      for (const [slot, list] of wheel) {
        if (slot > now) continue;
        wheel.delete(slot);
        for (const b of list) step(b);
      }
    }, SLOT_MS / 2);

    // The monitor: the status document every second (admissions against the clock).
    const admissions: Array<{ at: number; through: number }> = [];
    const monitorTimer = setInterval(() => {
      void call('GET', queue).then((a) => {
        if (a.status !== 200) return;
        state = a.body.data.state;
        admittedThrough = a.body.data.admitted_through ?? 0;
        admittedSeen = Math.max(admittedSeen, admittedThrough);
        if (state === 'admitting') admissions.push({ at: Date.now(), through: admittedThrough });
      });
    }, 1000);

    // 1. Joins, spread over the pre-queue.
    const buyers: Buyer[] = Array.from({ length: BUYERS }, (_, i) => ({ id: `buyer-${part}-${i}`, busy: false, done: false }));
    const joinStart = Date.now() + 3_000;
    const joinEnd = salesStartAt.getTime() - 2_000;
    pollGenerator = startPollGenerator({ host: base.hostname, port: Number(base.port), path: queue, buyers: BUYERS, pollMs: POLL_MS, connections: POLL_CONNECTIONS, joinStart, joinEnd });
    await pollGenerator.ready;
    await sleep(Math.max(0, joinStart - Date.now()));
    let joinedBeforeDraw = 0;
    await Promise.all(
      buyers.map(async (b, i) => {
        await sleep(Math.max(0, joinStart + ((joinEnd - joinStart) * i) / BUYERS - Date.now()));
        await new Promise<void>((resolve) =>
          sender.push(async () => {
            const t0 = performance.now();
            const a = await call('POST', `${queue}/join`, { client_id: b.id }).catch((err: unknown) => ({ status: 0, body: String(err) }) as Answer);
            joins.add(performance.now() - t0);
            if (a.status !== 200 && a.status !== 201) fail('join', a);
            else {
              b.ticket = a.body.data.ticket;
              b.ticketId = a.body.data.ticket_id;
              b.number = a.body.data.number;
              if (b.number === null) joinedBeforeDraw++;
            }
            resolve();
          }),
        );
      }),
    );
    const joinSeconds = (Date.now() - joinStart) / 1000;
    console.log(`  ${part}: ${BUYERS} joins in ${joinSeconds.toFixed(1)} s (${joinedBeforeDraw} before the draw); load ${load()}`);

    // 2-3. The draw and the admissions.
    await sleep(Math.max(0, salesStartAt.getTime() - Date.now()));
    // The buyers start asking for passes at the draw (each at its next poll).
    for (const b of buyers) schedule(b, POLL_MS * Math.random());
    const cpuAt = () => ({
      service: instances.map((p) => cpuOf(p.child.pid)),
      generator: process.cpuUsage(),
      balancer: balancer ? cpuOf(balancer.child.pid) : 0,
    });
    const cpuSince = (from: ReturnType<typeof cpuAt>) => ({
      service: instances.map((p, i) => cpuOf(p.child.pid) - from.service[i]!),
      generator: (() => {
        const u = process.cpuUsage(from.generator);
        return (u.user + u.system) / 1000;
      })(),
      balancer: balancer ? cpuOf(balancer.child.pid) - from.balancer : 0,
    });
    await pollGenerator.window();
    const admitCpu = cpuAt();
    await dbCpu.open();
    const admitStart = Date.now();
    await sleep(ADMIT_S * 1000);
    const admitSeconds = (Date.now() - admitStart) / 1000;
    const pollWindow = (await pollGenerator.window())!;
    const cpu = { ...cpuSince(admitCpu), database: await dbCpu.close() };
    stopping = true;
    clearInterval(monitorTimer);
    clearInterval(wheelTimer);
    const purchasesWithQueue = bought.values.length;
    // Let what is in flight end (passes and purchases, up to a minute); the polls go on.
    for (let i = 0; i < 600 && sender.pending + learnSender.pending > 0; i++) await sleep(100);
    await sleep(1_000);
    // The polls alone: no joins, passes or purchases; the service's CPU per poll with nothing else.
    await pollGenerator.window();
    const pollOnlyCpu = cpuAt();
    await sleep(POLL_ONLY_S * 1000);
    const pollOnly = (await pollGenerator.window())!;
    const pollOnlyService = cpuSince(pollOnlyCpu).service.reduce((a, b) => a + b, 0);
    const pollOnlyNet = Math.max(0, pollOnlyService - (idleMsPerSecond * pollOnly.windowMs) / 1000);

    // The purchases of the twin session without a waiting room, evenly at the admission rate: the
    // comparison of issue 28 (below, with nothing else running), and, as a second figure, the same
    // while the status polls still run, which tells the polls' load from the queue's own steps.
    const n = Math.max(1, purchasesWithQueue);
    const plainPurchases = async (count: number, tag: string, timed: (typeof steps)['plain'], total: Latencies) => {
      const every = 60_000 / RATE;
      const plainStart = Date.now();
      await Promise.all(
        Array.from({ length: count }, async (_, i) => {
          await sleep(Math.max(0, plainStart + i * every - Date.now()));
          const t0 = performance.now();
          await purchase(`plain-${tag}-${part}-${i}`, plain, {}, timed);
          total.add(performance.now() - t0);
        }),
      );
    };
    // The twin session has SEATS seats, two a purchase: this run takes what the goal's run (after
    // it) leaves, less 5 % of the session: two seats together run out in the last fragments of the
    // rows (with 10 seats to spare, 190 of the goal's 5,659 purchases were refused no_seats_together).
    const underPollsCount = Math.min(n, Math.floor((SEATS / 2) * 0.95) - n);
    const withoutUnderPolls = new Latencies();
    if (underPollsCount > 0) await plainPurchases(underPollsCount, 'polls', steps.plainPolls, withoutUnderPolls);
    const pollsWithPlain = underPollsCount > 0 ? (await pollGenerator.stop())! : (await pollGenerator.stop(), null);
    pollGenerator = undefined;
    const memory = instances.map((p) => peakMemoryMb(p.child));

    // Out of order against the published draw: the n-th drawn ticket has number n.
    const draw = await call('GET', `${queue}/draw`);
    if (draw.status === 200) {
      const position = new Map<string, number>((draw.body.data.ticket_ids as string[]).map((id, i) => [id, i + 1]));
      for (const b of buyers) {
        const drawn = b.ticketId ? position.get(b.ticketId) : undefined;
        if (drawn !== undefined && typeof b.number === 'number' && b.number !== drawn) offDraw++;
      }
    } else fail('draw', draw);

    // Admission rate: admitted_through over the admitting window against the configured rate.
    const first = admissions[0];
    const last = admissions.at(-1);
    const measuredRate = first && last && last.at > first.at ? ((last.through - first.through) / (last.at - first.at)) * 60_000 : NaN;

    // 4. The same purchases at the same rate on the twin session without a waiting room.
    const without = new Latencies();
    await plainPurchases(n, 'alone', steps.plain, without);
    const bestWithQueue = steps.queued.best;
    const bestWithout = steps.plain.best;
    // How evenly the admitted buyers came: purchases started in each second of the admissions.
    const perSecond = new Map<number, number>();
    for (const at of purchaseStarts) if (at < admitStart + admitSeconds * 1000) perSecond.set(Math.floor((at - admitStart) / 1000), (perSecond.get(Math.floor((at - admitStart) / 1000)) ?? 0) + 1);
    const secondsSorted = [...perSecond.values()].sort((a, b) => a - b);

    const { rows: [check] } = await pool.query<{ twice: number; completed: number }>(
      `SELECT (SELECT count(*)::int FROM (SELECT oi.session_seat_id FROM order_items oi JOIN orders o ON o.id = oi.order_id
                WHERE o.status = 'completed' GROUP BY oi.session_seat_id HAVING count(*) > 1) x) AS twice,
              (SELECT count(*)::int FROM orders WHERE status = 'completed') AS completed`,
    );
    agent.destroy();
    learnAgent.destroy();

    const per = (x: number, count: number) => (count ? (x / count).toFixed(3) : '-');
    const ms = (x: number | null) => (x === null ? '-' : x.toFixed(1));
    const dist = (h: PollFigures['latency']) => `p50 ${ms(h.p50)} ms, p99 ${ms(h.p99)} ms, max ${ms(h.max)} ms`;
    const serviceCpu = cpu.service.reduce((a, b) => a + b, 0);
    const pollRate = (w: PollFigures) => (w.served / (w.windowMs / 1000)).toFixed(0);
    const lines = [
      `status polls during admissions: ${pollRate(pollWindow)} served/s (goal at least 10,000 per instance; offered ${(BUYERS / (POLL_MS / 1000)).toFixed(0)}/s); ${dist(pollWindow.latency)} (goal p99 under 20 ms); ${pollWindow.notModified} of ${pollWindow.served} answered 304; errors ${pollWindow.errors}${pollWindow.firstErrors.length ? ` (${pollWindow.firstErrors.join(' | ')})` : ''}`,
      `  the poll generator: sent late ${dist(pollWindow.late)} (its own timer's lag p99 ${ms(pollWindow.timerLate.p99)} ms, the rest is waiting for one of its ${POLL_CONNECTIONS} connections); CPU ${(pollWindow.cpuMs / 1000).toFixed(1)} s, ${per(pollWindow.cpuMs, pollWindow.served)} ms per poll`,
      `status polls alone (${POLL_ONLY_S} s after the admissions, no other request): ${pollRate(pollOnly)} served/s, ${dist(pollOnly.latency)}, sent late p99 ${ms(pollOnly.late.p99)} ms; CPU per poll: service ${per(pollOnlyService, pollOnly.served)} ms${instances.length > 1 ? ' (both instances)' : ''}, ${per(pollOnlyNet, pollOnly.served)} ms without the ${idleMsPerSecond.toFixed(0)} ms a second the idle instance${instances.length > 1 ? 's use' : ' uses'}, generator ${per(pollOnly.cpuMs, pollOnly.served)} ms; at that cost one core serves ${pollOnlyNet > 0 ? ((1000 * pollOnly.served) / pollOnlyNet).toFixed(0) : '-'} polls/s`,
      `joins: ${joins.figures()} (goal p99 under 50 ms)`,
      `admissions: ${measuredRate.toFixed(0)} a minute measured against ${RATE} configured (goal within 5 %); admitted through ${last?.through ?? 0}; passes granted ${passesGranted}`,
      `out-of-order admissions: ${offDraw} numbers off the published draw (goal 0); ${passesAhead} passes for a number more than 2 s of admissions beyond the admitted_through the monitor last read (the monitor's reads wait behind the generator's own queue when it is saturated: a lagging reading, not an admission, unless the draw check fails too)`,
      `purchases through the queue: ${purchasesWithQueue} in ${admitSeconds.toFixed(0)} s, pass to confirmed ${bought.figures()}; without the queue at the same rate: ${without.figures()} (goal: p99 no worse)`,
      `  each step, through the queue: pass request ${steps.queued.pass.figures()}; token ${steps.queued.token.figures()}; best available ${steps.queued.best.figures()}; confirm ${steps.queued.confirm.figures()}`,
      `  purchases started per second of the admissions (${RATE / 60} admitted a second): p50 ${percentile(secondsSorted, 0.5) ?? '-'}, p99 ${percentile(secondsSorted, 0.99) ?? '-'}, max ${secondsSorted.at(-1) ?? '-'}`,
      `  without the queue while the status polls still run (the polls' load, not the goal's figure): ${withoutUnderPolls.figures()}; token ${steps.plainPolls.token.figures()}; best available ${steps.plainPolls.best.figures()}; confirm ${steps.plainPolls.confirm.figures()}${pollsWithPlain ? `; the polls meanwhile ${pollRate(pollsWithPlain)} served/s, ${dist(pollsWithPlain.latency)}` : ''}`,
      `  each step, without the queue: token ${steps.plain.token.figures()}; best available ${steps.plain.best.figures()}; confirm ${steps.plain.confirm.figures()}`,
      `  not in the purchase path: admission by the clock to the buyer's pass request ${learnDelay.figures()} (the buyer's poll interval and the monitor's 1 s reading); the driver's requests waiting for one of its ${CONNECTIONS} slots when a pass came ${senderBacklog.figures().replace(/ ms/g, '')}`,
      `best-available request (the hold included): with the queue ${bestWithQueue.figures()}, without ${bestWithout.figures()}; goal for the selection p99 under 10 ms (npm run bench:best-available measures the selection alone)`,
      `oversell: ${check!.twice} seats in two completed orders (${check!.completed} orders completed)`,
      `errors (joins, passes, purchases): ${errors}${firstErrors.length ? ` (first: ${firstErrors.join(' | ')})` : ''}`,
      `CPU during the ${admitSeconds.toFixed(0)} s of admissions: ${cpu.service.map((c, i) => `instance ${i + 1} ${(c / 1000).toFixed(1)} s`).join(', ')}, PostgreSQL ${(cpu.database / 1000).toFixed(1)} s, poll generator ${(pollWindow.cpuMs / 1000).toFixed(1)} s, buyers' driver (joins, passes, purchases, this process) ${(cpu.generator / 1000).toFixed(1)} s${balancer ? `, HAProxy ${(cpu.balancer / 1000).toFixed(1)} s` : ''}; service CPU per poll served ${per(serviceCpu, pollWindow.served)} ms (passes and purchases included)`,
      `peak memory: ${memory.map((m, i) => `instance ${i + 1} ${m.toFixed(0)} MB`).join(', ')}; load ${load()}`,
    ];
    return { label: twoInstances ? 'two instances behind HAProxy, queue in Redis' : 'one instance, queue in memory', lines };
  } finally {
    stopPinning();
    pollGenerator?.kill();
    await stop(procs);
    await monitor.end().catch(() => undefined);
    await pool.end();
    await fresh.drop();
  }
}

async function main() {
  // Everything this process starts from now on (the poll generator, the catalogue's import) inherits it.
  if (PIN) pinTo(process.pid, OTHER_CPUS);
  if (env.ONSALE_BUILD !== '0') execFileSync('npm', ['run', 'build:server'], { cwd: HERE, stdio: ['ignore', 'ignore', 'inherit'] });
  console.log(
    `on-sale through the waiting room: ${BUYERS} buyers polling every ${POLL_MS / 1000} s, ${SEATS} seats, ${RATE} admissions a minute, ${PREQUEUE_S} s of pre-queue, ${ADMIT_S} s of admissions; numbers learnt by ${LEARN === 'poll' ? 'a status poll naming the ticket' : 'a pass request'}; ` +
      `machine: ${os.cpus().length} CPUs, load ${load()}${PIN ? `; the instance pinned to CPU ${INSTANCE_CPU}, the rest of the run to ${OTHER_CPUS}` : ''}`,
  );
  for (const part of PARTS) {
    if (part !== 'one' && part !== 'two') throw new Error(`ONSALE_PARTS: unknown part ${part}`);
    const result = await runPart(part);
    if (!result) continue;
    console.log(`  ${result.label}`);
    for (const line of result.lines) console.log(`    ${line}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
