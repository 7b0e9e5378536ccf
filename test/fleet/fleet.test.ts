import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { Redis } from 'ioredis';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createAppContext, type AppContext } from '../../src/app-context.js';
import { openDatabase, type Database } from '../../src/db/client.js';
import { sqlFiles, MIGRATIONS_DIR } from '../../src/db/migrate.js';
import { systemClock } from '../../src/lib/clock.js';
import { account } from '../admin/admin-helpers.js';
import { createPendingOrder } from '../checkout/fixtures.js';
import { serverUrl, TEST_PG_URL } from '../global-setup.js';
import { isPostgres, TEST_RATE_LIMITS } from '../helpers.js';
import { startBuiltService, type Running } from '../process.js';
import { freePort, SmtpPeer } from '../smtp-peer.js';
import { startReceiver } from '../webhooks/receiver.js';

// A fleet (issue 19): two real service processes (the build, as `npm start` runs it) on one PostgreSQL database and one Redis, behind
// HAProxy with deploy/haproxy.cfg as it is, every request through the balancer. What one process
// guarantees with its database (one hold per seat, zone capacity, voucher uses, one closing, one
// e-mail) must hold across two; what lives in a process (token cache, rate-limit counters) must be
// shared (a notification, Redis); a SIGTERM'd instance drains without failing a request.
// PostgreSQL only: the embedded PGlite belongs to one process. On PostgreSQL a missing haproxy or
// Redis fails the test (CI installs both: .ci/run), it never skips.

const ROOT = path.resolve(import.meta.dirname, '../..');
const REDIS_URL = 'redis://127.0.0.1:6379';
const B2B = '/api/sales-channel/v1';
// Low enough to reach, high enough for the token calls of the other tests (each from its own address).
const TOKEN_LIMIT = 20;
const DRAIN_SECONDS = 4;

interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  /** The instance that answered (HAProxy's X-Served-By: app1, app2). */
  server: string;
}

let lb = '';
const instances: Running[] = [];
const instancePorts: number[] = [];
let haproxy: ChildProcess | null = null;
let haproxyLog = '';
let dbName = '';
let pool: pg.Pool;
let database: Database | null = null;
let ctx: AppContext;
let peer: SmtpPeer;
let redisPrefix = '';

/** One request through the balancer; `from` is the client address HAProxy's X-Forwarded-For carries. */
async function call(method: string, url: string, opts: { token?: string; body?: unknown; from?: string; base?: string } = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  if (opts.from) headers['x-forwarded-for'] = opts.from;
  const res = await fetch(`${opts.base ?? lb}${url}`, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, server: res.headers.get('x-served-by') ?? '' };
}

let addresses = 0;
/** A client address of its own, so that only the rate-limit test spends its address's token budget. */
const newAddress = () => `10.0.${Math.floor(++addresses / 250)}.${(addresses % 250) + 1}`;

async function token(slug: string, key: string, from = newAddress()): Promise<string> {
  const res = await call('POST', `${B2B}/auth/token`, { body: { sales_channel_slug: slug, widget_key: key }, from });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.access_token;
}

const rows = async <T extends pg.QueryResultRow>(text: string, values: unknown[] = []) => (await pool.query<T>(text, values)).rows;
const servers = (answers: Answer[]) => new Set(answers.map((a) => a.server));

/** Numbered seats, zone and general rate of the demo session `index` (in id order). */
async function session(index: number) {
  const [s] = await rows<{ id: number }>('SELECT id FROM sessions ORDER BY id OFFSET $1 LIMIT 1', [index]);
  const seats = await rows<{ id: number }>(
    `SELECT ss.id FROM session_seats ss JOIN sectors sec ON sec.id = ss.sector_id WHERE ss.session_id = $1 AND sec.numbered ORDER BY ss.id`,
    [s!.id],
  );
  const [zone] = await rows<{ id: number }>('SELECT sec.id FROM sectors sec JOIN sessions se ON se.venue_id = sec.venue_id WHERE se.id = $1 AND NOT sec.numbered', [s!.id]);
  const [rate] = await rows<{ id: number }>('SELECT id FROM rates WHERE session_id = $1 ORDER BY sort_order LIMIT 1', [s!.id]);
  return { id: s!.id, seats: seats.map((r) => r.id), zone: zone!.id, rate: rate!.id };
}

/** `n` carts of demo-d, each holding one seat of `seats`, created in parallel through the balancer. */
async function carts(tok: string, seats: number[], rate: number) {
  const made = await Promise.all(seats.map((seat) => call('POST', `${B2B}/demo-d/en/orders`, { token: tok, body: { session_seat_id: seat, rate_id: rate } })));
  for (const m of made) expect(m.status).toBe(201);
  return made.map((m) => m.body.data.order_token as string);
}

function startHaproxy(port: number) {
  const child = spawn('haproxy', ['-f', path.join(ROOT, 'deploy/haproxy.cfg'), '-db'], {
    env: { ...process.env, TAQUILLA_LB_BIND: `127.0.0.1:${port}`, TAQUILLA_APP1: `127.0.0.1:${instancePorts[0]}`, TAQUILLA_APP2: `127.0.0.1:${instancePorts[1]}` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (c) => (haproxyLog += c));
  child.stderr!.on('data', (c) => (haproxyLog += c));
  return child;
}

beforeAll(async () => {
  if (!isPostgres) return;
  try {
    execFileSync('haproxy', ['-v'], { stdio: 'ignore' });
  } catch {
    throw new Error('haproxy is not installed: the fleet test needs it on PostgreSQL runs (Debian: apt-get install haproxy; .ci/run installs it)');
  }
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1, lazyConnect: true });
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    throw new Error(`the fleet test needs Redis at ${REDIS_URL} (its shared rate limits): ${(err as Error).message}`);
  } finally {
    redis.disconnect();
  }

  // An empty database: the two instances, started at once, migrate it under the migration lock.
  dbName = `taquilla_fleet_${crypto.randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  peer = new SmtpPeer(await freePort());
  await peer.start();
  redisPrefix = `fleet-${crypto.randomBytes(4).toString('hex')}:`;

  const lbPort = await freePort();
  instancePorts.push(await freePort(), await freePort());
  lb = `http://127.0.0.1:${lbPort}`;
  const env = {
    ...TEST_RATE_LIMITS,
    TOKEN_RATE_LIMIT_PER_MINUTE: String(TOKEN_LIMIT),
    APP_ENV: 'test',
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    DATABASE_URL: serverUrl(dbName),
    DB_POOL_SIZE: '15',
    REDIS_URL,
    REDIS_KEY_PREFIX: redisPrefix,
    SMTP_URL: `smtp://127.0.0.1:${peer.port}`,
    MAIL_FROM: 'Taquilla <tickets@taquilla.test>',
    PUBLIC_BASE_URL: lb,
    TRUST_PROXY: '127.0.0.1',
    SHUTDOWN_DRAIN_SECONDS: String(DRAIN_SECONDS),
    // Verified tokens cached for ten minutes: only the revocation notification can explain a 401.
    AUTH_CACHE_MS: '600000',
    MAX_LIVE_ORDERS_PER_BUYER: '100000',
  };
  // Only the first loads the demo catalogue: two fresh instances must not both import it.
  instances.push(
    startBuiltService({ ...env, PORT: String(instancePorts[0]), DEMO_DATA: 'true' }),
    startBuiltService({ ...env, PORT: String(instancePorts[1]), DEMO_DATA: 'false' }),
  );
  await Promise.all(instances.map((i) => i.waitFor(/"msg":"Taquilla test on/)));
  haproxy = startHaproxy(lbPort);

  pool = new pg.Pool({ connectionString: serverUrl(dbName), max: 5 });
  // The test's own view of the database, for what an operator or the portal would do.
  database = await openDatabase({ url: serverUrl(dbName), poolSize: 3 });
  ctx = createAppContext({ config: loadConfig({ APP_ENV: 'test', DATABASE_URL: serverUrl(dbName) }), database, clock: systemClock });
  // Both instances in rotation: /readyz through the balancer until each has answered.
  const seen = new Set<string>();
  for (let i = 0; i < 200 && seen.size < 2; i++) {
    try {
      const r = await call('GET', '/readyz');
      if (r.status === 200) seen.add(r.server);
    } catch {
      // the balancer is not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (seen.size < 2) throw new Error(`the balancer never reached both instances: ${[...seen].join()} ${haproxyLog}`);
}, 300_000);

afterAll(async () => {
  if (!isPostgres) return;
  haproxy?.kill('SIGKILL');
  for (const i of instances) i.killAll();
  await Promise.all(instances.map((i) => i.exited));
  await pool?.end();
  await database?.close();
  await peer?.stop();
  if (redisPrefix) {
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${redisPrefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  }
  if (dbName) {
    const admin = new pg.Client({ connectionString: TEST_PG_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  }
}, 120_000);

describe.runIf(isPostgres)('two instances behind HAProxy (deploy/haproxy.cfg), one PostgreSQL, one Redis', () => {
  it('both migrated at once: every migration applied once; both serve, with no stickiness', async () => {
    const applied = await rows<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
    expect(applied.map((r) => r.name)).toEqual(sqlFiles(MIGRATIONS_DIR));
    const tok = await token('demo-d', 'wk_demo_d');
    const answers: Answer[] = [];
    for (let i = 0; i < 10; i++) answers.push(await call('GET', `${B2B}/demo-d/config`, { token: tok }));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    // One client, one token, one keep-alive connection: its requests still go to both.
    expect(servers(answers)).toEqual(new Set(['app1', 'app2']));
  });

  it('60 parallel holds on one seat: exactly one', async () => {
    const tok = await token('demo-d', 'wk_demo_d');
    const s = await session(0);
    const seat = s.seats[0]!;
    const answers = await Promise.all(
      Array.from({ length: 60 }, () => call('POST', `${B2B}/demo-d/en/orders`, { token: tok, body: { session_seat_id: seat, rate_id: s.rate } })),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409 && a.body.code === 'seat_unavailable')).toHaveLength(59);
    expect(servers(answers)).toEqual(new Set(['app1', 'app2']));
    const held = await rows<{ n: number }>(`SELECT count(*)::int AS n FROM order_items WHERE session_seat_id = $1`, [seat]);
    expect(held[0]!.n).toBe(1);
  });

  it('40 parallel buyers for the last 10 places of a zone: exactly 10', async () => {
    const tok = await token('demo-d', 'wk_demo_d');
    const s = await session(1);
    await pool.query(
      `UPDATE session_seats SET status = 'blocked' WHERE session_id = $1 AND sector_id = $2
         AND id NOT IN (SELECT id FROM session_seats WHERE session_id = $1 AND sector_id = $2 ORDER BY id DESC LIMIT 10)`,
      [s.id, s.zone],
    );
    const orders = await carts(tok, s.seats.slice(0, 40), s.rate);
    const answers = await Promise.all(
      orders.map((o) => call('POST', `${B2B}/demo-d/en/orders/${o}/items/sector`, { token: tok, body: { sector_id: s.zone, rate_id: s.rate, quantity: 1 } })),
    );
    expect(answers.filter((a) => a.status === 200)).toHaveLength(10);
    expect(answers.filter((a) => a.status === 409 && a.body.code === 'zone_capacity_exceeded')).toHaveLength(30);
    expect(servers(answers)).toEqual(new Set(['app1', 'app2']));
    const held = await rows<{ n: number }>(`SELECT count(*)::int AS n FROM session_seats WHERE session_id = $1 AND sector_id = $2 AND status = 'held'`, [s.id, s.zone]);
    expect(held[0]!.n).toBe(10);
  });

  it('40 parallel carts applying a voucher limited to 5 uses: exactly 5', async () => {
    const tok = await token('demo-d', 'wk_demo_d');
    await pool.query(`INSERT INTO vouchers (organiser_id, code, kind, value, max_uses) SELECT organiser_id, 'FLEET5', 'percent', 1500, 5 FROM sales_channels WHERE slug = 'demo-d'`);
    const s = await session(0);
    const orders = await carts(tok, s.seats.slice(100, 140), s.rate);
    const answers = await Promise.all(orders.map((o) => call('POST', `${B2B}/demo-d/en/orders/${o}/apply-voucher`, { token: tok, body: { code: 'FLEET5' } })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
    expect(answers.filter((a) => a.status === 409 && a.body.code === 'voucher_exhausted')).toHaveLength(35);
    expect(servers(answers)).toEqual(new Set(['app1', 'app2']));
    const uses = await rows<{ n: number }>(`SELECT count(*)::int AS n FROM order_vouchers ov JOIN vouchers v ON v.id = ov.voucher_id WHERE v.code = 'FLEET5'`);
    expect(uses[0]!.n).toBe(5);
  });

  it('20 parallel confirms of one order: one closing, one set of tickets; then each e-mail sent once', async () => {
    // Model B: carts are the portal's (written here as the portal leaves them), confirm is the channel's.
    const tok = await token('demo-b', 'wk_demo_b');
    const pending = (seats: number) => createPendingOrder(ctx, { channel: 'demo-b', seats });
    const o = await pending(3);
    const raced = o.token;
    const amount = o.total / 100;
    const confirm = (order: string, total: number, email: string, i: number) =>
      call('POST', `${B2B}/demo-b/es/orders/${order}/confirm`, {
        token: tok,
        body: { name: 'Ana', surname: 'García', email, amount: total, transaction_id: `tx-${i}`, payment_method: 'card' },
      });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => confirm(raced, amount, `racer-${i}@example.com`, i)));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(answers.filter((a) => a.body.message === 'Order confirmed')).toHaveLength(1);
    // The same tickets in every answer (their links' signatures differ by the second they were made).
    const ticketSets = answers.map((a) => JSON.stringify(a.body.data.ticket_pdf_urls.map((u: string) => new URL(u).pathname)));
    expect(new Set(ticketSets).size).toBe(1);
    expect(servers(answers)).toEqual(new Set(['app1', 'app2']));
    const tickets = await rows<{ n: number }>(`SELECT count(*)::int AS n FROM tickets t JOIN orders o ON o.id = t.order_id WHERE o.order_token = $1`, [raced]);
    expect(tickets[0]!.n).toBe(3);

    // Ten more orders confirmed through the balancer; both instances' e-mail workers poll the one outbox.
    const more = [];
    for (let i = 0; i < 10; i++) more.push(await pending(1));
    const confirmed = await Promise.all(more.map((m, i) => confirm(m.token, m.total / 100, `buyer-${i}@example.com`, 100 + i)));
    expect(confirmed.map((a) => a.status)).toEqual(Array(10).fill(200));
    const deadline = Date.now() + 60_000;
    while (peer.received.length < 11 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    // Past a whole worker interval (5 s) of both instances: nothing more arrives.
    await new Promise((resolve) => setTimeout(resolve, 7_000));
    const recipients = peer.received.map((m) => m.to.join());
    expect(recipients).toHaveLength(11);
    expect(new Set(recipients).size).toBe(11);
    const outbox = await rows<{ status: string; n: number }>(`SELECT status, count(*)::int AS n FROM email_outbox GROUP BY status`);
    expect(outbox).toEqual([{ status: 'sent', n: 11 }]);
  }, 120_000);

  it('webhooks: 10 orders completed through the balancer, each event delivered once, signed', async () => {
    const receiver = await startReceiver();
    try {
      const { token: adminToken } = await account(ctx, 'fleet-hooks@example.com');
      const [channel] = await rows<{ id: number }>(`SELECT id FROM sales_channels WHERE slug = 'demo-b'`);
      const created = await call('POST', `/api/admin/v1/channels/${channel!.id}/webhooks`, {
        token: adminToken,
        body: { url: receiver.url, event_types: ['order.completed'] },
      });
      expect(created.status).toBe(201);
      const tok = await token('demo-b', 'wk_demo_b');
      const orders = [];
      for (let i = 0; i < 10; i++) orders.push(await createPendingOrder(ctx, { channel: 'demo-b', seats: 1 }));
      const confirmed = await Promise.all(
        orders.map((o, i) =>
          call('POST', `${B2B}/demo-b/es/orders/${o.token}/confirm`, {
            token: tok,
            body: { name: 'Ana', surname: 'García', email: `hook-${i}@example.com`, amount: o.total / 100, transaction_id: `hook-${i}`, payment_method: 'card' },
          }),
        ),
      );
      expect(confirmed.map((a) => a.status)).toEqual(Array(10).fill(200));
      expect(servers(confirmed)).toEqual(new Set(['app1', 'app2']));
      // Both instances' delivery workers poll the one outbox (every 2 s).
      const deadline = Date.now() + 60_000;
      while (receiver.received.length < 10 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      const ids = receiver.received.map((r) => String(r.headers['webhook-id']));
      expect(ids).toHaveLength(10);
      expect(new Set(ids).size).toBe(10);
      const wh = new Webhook(created.body.data.secret);
      const references = receiver.received.map((r) => {
        const body = wh.verify(r.body, {
          'webhook-id': String(r.headers['webhook-id']),
          'webhook-timestamp': String(r.headers['webhook-timestamp']),
          'webhook-signature': String(r.headers['webhook-signature']),
        }) as { type: string; data: { reference: string } };
        expect(body.type).toBe('order.completed');
        return body.data.reference;
      });
      expect(new Set(references).size).toBe(10);
    } finally {
      await receiver.close();
    }
  }, 120_000);

  it('a revocation made through one instance is seen at once by the other (token cache of ten minutes)', async () => {
    const { token: adminToken } = await account(ctx, 'fleet-admin@example.com');
    const [channel] = await rows<{ id: number }>(`SELECT id FROM sales_channels WHERE slug = 'demo-c'`);
    const key = await call('POST', `/api/admin/v1/channels/${channel!.id}/keys`, { token: adminToken, body: {} });
    expect(key.status).toBe(201);
    const tok = await token('demo-c', key.body.data.widget_key);
    // Both instances verify it once and cache it.
    const warm: Answer[] = [];
    while (servers(warm).size < 2 && warm.length < 50) warm.push(await call('GET', `${B2B}/demo-c/config`, { token: tok }));
    expect(warm.every((a) => a.status === 200)).toBe(true);
    expect(servers(warm).size).toBe(2);

    const revoked = await call('DELETE', `/api/admin/v1/channels/${channel!.id}/keys/${key.body.data.id}`, { token: adminToken });
    expect(revoked.status).toBe(200);
    const other = revoked.server === 'app1' ? 'app2' : 'app1';
    const after: Answer[] = [];
    const start = Date.now();
    while (!after.some((a) => a.server === other && a.status === 401) && Date.now() - start < 5_000) {
      after.push(await call('GET', `${B2B}/demo-c/config`, { token: tok }));
    }
    const refusedAt = Date.now() - start;
    console.log(`[fleet] revocation on ${revoked.server} refused by ${other} after ${refusedAt} ms`);
    expect(after.some((a) => a.server === other && a.status === 401)).toBe(true);
    expect(refusedAt).toBeLessThan(1_000);
    // Once refused, refused everywhere.
    const later = await Promise.all(Array.from({ length: 10 }, () => call('GET', `${B2B}/demo-c/config`, { token: tok })));
    expect(later.map((a) => a.status)).toEqual(Array(10).fill(401));
  });

  it(`a shared rate limit: ${TOKEN_LIMIT} token requests a minute from one address across both instances`, async () => {
    const from = '192.0.2.7';
    const answers: Answer[] = [];
    for (let i = 0; i < TOKEN_LIMIT + 10; i++) {
      answers.push(await call('POST', `${B2B}/auth/token`, { body: { sales_channel_slug: 'demo-d', widget_key: 'wk_demo_d' }, from }));
    }
    // Counted per instance, each would have let about 15 of 30 through, all of them.
    expect(answers.filter((a) => a.status === 200)).toHaveLength(TOKEN_LIMIT);
    expect(answers.filter((a) => a.status === 429)).toHaveLength(10);
    expect(servers(answers.filter((a) => a.status === 200))).toEqual(new Set(['app1', 'app2']));
    // Another address still has its own budget.
    expect((await call('POST', `${B2B}/auth/token`, { body: { sales_channel_slug: 'demo-d', widget_key: 'wk_demo_d' }, from: '192.0.2.8' })).status).toBe(200);
  });

  it('one waiting room across both instances (D60, Redis): one pre-queue, one draw, one numbering, passes good everywhere', async () => {
    // The play's session (no other test here sells it) gets a waiting room, its sales starting a
    // few seconds from now.
    const s = await session(2);
    const { token: adminToken } = await account(ctx, 'fleet-queue@example.com');
    const salesStart = Date.now() + 4_000;
    const set = await call('PATCH', `/api/admin/v1/sessions/${s.id}`, {
      token: adminToken,
      body: { sales_start_at: new Date(salesStart).toISOString(), queue: { enabled: true, admission_per_minute: 600 } },
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const Q = `/api/queue/v1/sessions/${s.id}`;
    const direct = instancePorts.map((port) => `http://127.0.0.1:${port}`);
    // Twenty buyers join the pre-queue through the balancer (both instances take joins); each joins
    // again on the other instance directly and gets the same ticket.
    const joins: Answer[] = [];
    for (let i = 0; i < 20; i++) joins.push(await call('POST', `${Q}/join`, { body: { client_id: `fleet-buyer-${i}` } }));
    expect(joins.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(servers(joins)).toEqual(new Set(['app1', 'app2']));
    for (const [i, j] of joins.entries()) {
      const base = direct[j.server === 'app1' ? 1 : 0];
      expect((await call('POST', `${Q}/join`, { base, body: { client_id: `fleet-buyer-${i}` } })).body.data.ticket).toBe(j.body.data.ticket);
    }
    for (const base of direct) expect((await call('GET', Q, { base })).body.data).toMatchObject({ state: 'pre_queue', queue_length: 20 });

    // The draw: once, the same order from either instance.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, salesStart - Date.now() + 200)));
    const draws = await Promise.all(direct.map((base) => call('GET', `${Q}/draw`, { base })));
    expect(draws.map((d) => d.status)).toEqual([200, 200]);
    expect(draws[0]!.body.data.ticket_ids).toEqual(draws[1]!.body.data.ticket_ids);
    expect(draws[0]!.body.data.ticket_ids).toHaveLength(20);
    // A poll naming a ticket brings its number from Redis on either instance.
    const drawnIds = draws[0]!.body.data.ticket_ids as string[];
    for (const [i, base] of direct.entries()) {
      const id = drawnIds[i * 7]!;
      expect((await call('GET', `${Q}?ticket_id=${id}`, { base })).body.data).toMatchObject({ state: 'admitting', number: i * 7 + 1 });
    }
    // The status document through the balancer: HAProxy's cache answers it for its second
    // (deploy/haproxy.cfg; `public, max-age=1`), so an instance builds it about once a second
    // whatever the number of buyers; a poll naming a ticket (its number) always reaches an instance.
    const polls: Answer[] = [];
    for (let i = 0; i < 3; i++) polls.push(await call('GET', Q));
    expect(polls.map((p) => p.status)).toEqual([200, 200, 200]);
    expect(polls.map((p) => p.server)).toContain('<CACHE>');
    for (const p of polls) expect(p.body.data).toMatchObject({ state: 'admitting' });
    const named = await call('GET', `${Q}?ticket_id=${drawnIds[0]}`);
    expect(named.server).toMatch(/^app[12]$/);
    expect(named.body.data).toMatchObject({ number: 1 });
    // Later arrivals, on alternating instances, are numbered 21, 22, ... in arrival order.
    const late: number[] = [];
    for (let i = 0; i < 6; i++) late.push((await call('POST', `${Q}/join`, { base: direct[i % 2], body: { client_id: `fleet-late-${i}` } })).body.data.number);
    expect(late).toEqual([21, 22, 23, 24, 25, 26]);

    // A pass issued by one instance creates a cart through the other.
    const first = joins[0]!.body.data;
    let passAnswer: Answer;
    for (;;) {
      passAnswer = await call('POST', `${Q}/pass`, { base: direct[0], body: { ticket: first.ticket } });
      if (passAnswer.status === 200) break;
      expect(passAnswer.body.code).toBe('not_admitted_yet');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const tok = await (async () => {
      const res = await call('POST', `${B2B}/auth/token`, { body: { sales_channel_slug: 'demo-c', widget_key: 'wk_demo_c', client_id: 'fleet-buyer-0' }, from: newAddress() });
      return res.body.data.access_token as string;
    })();
    const res = await fetch(`${direct[1]}${B2B}/demo-c/en/orders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tok}`, 'content-type': 'application/json', 'queue-pass': passAnswer.body.data.pass },
      body: JSON.stringify({ session_seat_id: s.seats[0], rate_id: s.rate }),
    });
    expect(res.status, await res.clone().text()).toBe(201);
  }, 60_000);

  it('SIGTERM drains an instance: /readyz 503, the balancer stops sending, no request fails, exit 0', async () => {
    const tok = await token('demo-d', 'wk_demo_d');
    const [, second] = instances;
    const direct = `http://127.0.0.1:${instancePorts[1]}`;
    let stop = false;
    const answers: Answer[] = [];
    const errors: string[] = [];
    // Four clients asking all the time through the balancer while the second instance stops.
    const load = Promise.all(
      Array.from({ length: 4 }, async () => {
        while (!stop) {
          try {
            answers.push(await call('GET', `${B2B}/demo-d/config`, { token: tok }));
          } catch (err) {
            errors.push((err as Error).message);
          }
        }
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    second!.child.kill('SIGTERM');
    const readiness: number[] = [];
    const exited = second!.exited.then((code) => code);
    let done = false;
    void exited.then(() => (done = true));
    while (!done) {
      try {
        readiness.push((await call('GET', '/readyz', { base: direct })).status);
      } catch {
        // closed: the process is on its way out
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // A little more load after the exit: all of it to the first instance.
    const servedBefore = answers.length;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    stop = true;
    await load;
    expect(await exited).toBe(0);
    expect(readiness).toContain(503);
    expect(errors).toEqual([]);
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    expect(servers(answers.slice(servedBefore))).toEqual(new Set(['app1']));
    expect(second!.stdout()).toContain('draining');
    expect(haproxyLog).toMatch(/app2 is DOWN/);
  }, 120_000);
});
