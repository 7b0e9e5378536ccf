import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Database } from '../../src/db/client.js';
import { loadDemoDataIfEmpty } from '../../src/demo/demo-data.js';
import { ManualClock } from '../../src/lib/clock.js';
import { startDbProxy, type DbProxy } from '../db-proxy.js';
import { bearer, createTestDatabase, DEMO, isPostgres, serverTokenFor, TEST_RATE_LIMITS, waitFor, type TestDatabase } from '../helpers.js';

// D55, issue 25: a database outage in the middle of parallel confirms with Idempotency-Key. A model D
// channel's server confirms 20 carts with `Idempotency-Key: <order token>` through a fleet of two
// instances (one database, reached through a TCP proxy that the test cuts for 4 s and restores).
// Three kinds of confirm are caught by the cut:
//   A  still inside the closing (its order row is locked by another connection): its transaction dies;
//   B  completed and committed, its answer not yet stored (the key table is locked), and its client
//      gone after a 3 s timeout: the order is completed but nobody heard it;
//   C  sent while the key table is locked, then during the cut: refused (503).
// Every client retries with the same key and body, on either instance. Every retry within 5 s of the
// restore gets its final answer (never 409 idempotency_key_in_use once the database is back), and
// afterwards every order is completed once, with its tickets and one order.completed event, as its
// client was told. PostgreSQL only: the cut is of a network path to a server.

const B2B = '/api/sales-channel/v1';
const ORDERS = `${B2B}/demo-d/es/orders`;
const CUT_MS = 4000;
const CLIENT_TIMEOUT_MS = 3000;
const RETRY_PAUSE_MS = 200;
const GROUPS = { A: 7, B: 7, C: 6 } as const;

interface Attempt {
  sentAt: number;
  answeredAt: number | null;
  /** When the service answered, heard or not (a client that timed out does not hear it). */
  serverAnsweredAt: number | null;
  /** HTTP status, or 'timeout' when the client stopped waiting. */
  status: number | 'timeout';
  code?: string;
  message?: string;
  replayed: boolean;
  instance: number;
}

interface Cart {
  token: string;
  group: keyof typeof GROUPS;
  total: number;
  seats: number;
  attempts: Attempt[];
  final: { status: number; at: number; body: { message: string; data?: { ticket_pdf_urls: string[] } } } | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.runIf(isPostgres)('an outage between the service and its database during keyed confirms (D55)', () => {
  let testDb: TestDatabase;
  let proxy: DbProxy;
  let direct: pg.Pool;
  const databases: Database[] = [];
  const apps: FastifyInstance[] = [];
  let token: string;
  const carts: Cart[] = [];
  /** Every request sent, heard or not: the test ends after the last has answered. */
  const inFlight: Promise<unknown>[] = [];

  beforeAll(async () => {
    testDb = await createTestDatabase({ poolSize: 2 });
    direct = new pg.Pool({ connectionString: testDb.url!, max: 6 });
    const server = new URL(testDb.url!);
    proxy = await startDbProxy({ host: server.hostname, port: Number(server.port || 5432) });
    const config = loadConfig({ APP_ENV: 'test', PUBLIC_BASE_URL: 'http://taquilla.test', MAX_LIVE_ORDERS_PER_BUYER: '100000', ...TEST_RATE_LIMITS });
    const clock = new ManualClock(new Date());
    // A fleet: two instances, each with its own pool, both through the proxy to the one database.
    for (let i = 0; i < 2; i++) {
      const database = await openDatabase({ url: proxy.url(testDb.url!), poolSize: 12 });
      databases.push(database);
      apps.push(await buildApp({ config, database, clock, logger: false }));
    }
    await loadDemoDataIfEmpty(apps[0]!.ctx);
    await Promise.all(apps.map((a) => a.ready()));
    token = await serverTokenFor(apps[0]!, DEMO.d.slug);
    // The channel's webhook endpoint: each completion writes one order.completed event to the outbox.
    await direct.query(
      `INSERT INTO webhook_endpoints (channel_id, url, event_types, secret_sealed, created_at, updated_at)
       SELECT id, 'https://hooks.example/taquilla', ARRAY['order.completed'], 'unused', now(), now() FROM sales_channels WHERE slug = 'demo-d'`,
    );
    const [session] = (await direct.query<{ id: number }>('SELECT id FROM sessions ORDER BY start_datetime, id LIMIT 1')).rows;
    const [rate] = (await direct.query<{ id: number }>('SELECT id FROM rates WHERE session_id = $1 ORDER BY id LIMIT 1', [session!.id])).rows;
    const total = GROUPS.A + GROUPS.B + GROUPS.C;
    const seats = (
      await direct.query<{ id: number }>(
        `SELECT id FROM session_seats WHERE session_id = $1 AND status = 'available' AND seat_id IS NOT NULL ORDER BY id LIMIT $2`,
        [session!.id, 2 * total],
      )
    ).rows.map((r) => r.id);
    // 20 carts of two seats each, through the B2B API.
    for (let i = 0; i < total; i++) {
      const created = await apps[0]!.inject({ method: 'POST', url: ORDERS, headers: bearer(token), payload: { session_seat_id: seats[2 * i], rate_id: rate!.id } });
      expect(created.statusCode).toBe(201);
      const orderToken = created.json().data.order_token as string;
      const added = await apps[0]!.inject({
        method: 'POST',
        url: `${ORDERS}/${orderToken}/items-bulk`,
        headers: bearer(token),
        payload: { items: [{ session_seat_id: seats[2 * i + 1], rate_id: rate!.id }] },
      });
      expect(added.statusCode).toBe(200);
      const group = i < GROUPS.A ? 'A' : i < GROUPS.A + GROUPS.B ? 'B' : 'C';
      carts.push({ token: orderToken, group, total: added.json().data.total_amount as number, seats: 2, attempts: [], final: null });
    }
  }, 180_000);

  afterAll(async () => {
    proxy?.restore();
    for (const app of apps) await app.close();
    for (const database of databases) await database.close().catch(() => {});
    await proxy?.close();
    await direct?.end();
    await testDb?.drop();
  });

  /** One confirm of a cart on an instance, as its client sees it (it stops waiting after CLIENT_TIMEOUT_MS). */
  async function attempt(cart: Cart, instance: number): Promise<Attempt> {
    const sentAt = Date.now();
    const record: Attempt = { sentAt, answeredAt: null, serverAnsweredAt: null, status: 'timeout', replayed: false, instance };
    cart.attempts.push(record);
    const answer = apps[instance]!.inject({
      method: 'POST',
      url: `${ORDERS}/${cart.token}/confirm`,
      headers: { ...bearer(token), 'idempotency-key': cart.token },
      payload: { name: 'Ana', surname: 'Outage', email: `outage-${cart.token.slice(0, 8)}@example.com`, amount: cart.total, transaction_id: `tx-${cart.token}` },
    });
    inFlight.push(answer.finally(() => (record.serverAnsweredAt = Date.now())));
    const res = await Promise.race([answer, sleep(CLIENT_TIMEOUT_MS).then(() => null)]);
    if (res === null) return record;
    const body = res.json() as { code?: string; message: string; data?: { ticket_pdf_urls: string[] } };
    Object.assign(record, { answeredAt: Date.now(), status: res.statusCode, code: body.code, message: body.message, replayed: res.headers['idempotent-replayed'] === 'true' });
    const final = res.statusCode === 200 || (res.statusCode >= 400 && res.statusCode < 500 && res.statusCode !== 429 && body.code !== 'idempotency_key_in_use');
    if (final) cart.final = { status: res.statusCode, at: record.answeredAt!, body };
    return record;
  }

  /** A client: confirms, and repeats with the same key and body (on either instance) until it has a final answer. */
  async function client(cart: Cart, first: number, deadline: number): Promise<void> {
    for (let n = 0; !cart.final && Date.now() < deadline; n++) {
      await attempt(cart, (first + n) % 2);
      if (!cart.final) await sleep(RETRY_PAUSE_MS);
    }
  }

  it('every retry within 5 s of the restore gets its final answer; every order completed once, as its client was told', async () => {
    const group = (g: Cart['group']) => carts.filter((c) => c.group === g);
    const orderIds = async (cs: Cart[]) =>
      (await direct.query<{ id: string }>('SELECT id FROM orders WHERE order_token = ANY($1::text[])', [cs.map((c) => c.token)])).rows.map((r) => r.id);
    const blockA = await direct.connect();
    const blockB = await direct.connect();
    const blockKeys = await direct.connect();
    const clients: Promise<void>[] = [];
    const deadline = Date.now() + 30_000;
    let cutAt = 0;
    let restoreAt = 0;
    try {
      // A and B wait inside the closing, each on its order's row.
      await blockA.query('BEGIN');
      await blockA.query('SELECT id FROM orders WHERE id = ANY($1::bigint[]) FOR UPDATE', [await orderIds(group('A'))]);
      await blockB.query('BEGIN');
      await blockB.query('SELECT id FROM orders WHERE id = ANY($1::bigint[]) FOR UPDATE', [await orderIds(group('B'))]);
      [...group('A'), ...group('B')].forEach((cart, i) => clients.push(client(cart, i % 2, deadline)));
      const running = async (n: number) =>
        (await direct.query<{ n: number }>(`SELECT count(*)::int AS n FROM idempotency_keys WHERE state = 'running'`)).rows[0]!.n === n;
      await waitFor(() => running(GROUPS.A + GROUPS.B), 10_000);
      // No answer can be stored now: B completes its orders, then waits to store its answer.
      await blockKeys.query('BEGIN');
      await blockKeys.query('LOCK TABLE idempotency_keys IN EXCLUSIVE MODE');
      await blockB.query('COMMIT');
      await waitFor(
        async () =>
          (await direct.query<{ n: number }>(`SELECT count(*)::int AS n FROM orders WHERE status = 'completed' AND order_token = ANY($1::text[])`, [group('B').map((c) => c.token)]))
            .rows[0]!.n === GROUPS.B,
        10_000,
      );
      // C's first confirms wait for the key table too.
      group('C').forEach((cart, i) => clients.push(client(cart, i % 2, deadline)));
      // Let B's clients give up waiting (their orders are completed: nobody heard it).
      await sleep(CLIENT_TIMEOUT_MS);
      proxy.cut();
      cutAt = Date.now();
      // The connections that held the locks are the test's own (not through the proxy): let go.
      await blockKeys.query('ROLLBACK');
      await blockA.query('ROLLBACK');
      await sleep(CUT_MS);
      const atRestore = (
        await direct.query(`SELECT key, state, owner, claim, extract(epoch FROM lease_until - clock_timestamp()) AS lease_left FROM idempotency_keys`)
      ).rows;
      proxy.restore();
      restoreAt = Date.now();
      await Promise.all(clients);
      await Promise.allSettled(inFlight);
      if (process.env.OUTAGE_DEBUG) {
        console.log(JSON.stringify({ atRestore, cutAt, restoreAt }));
        for (const c of carts) console.log(c.group, c.token.slice(0, 8), JSON.stringify(c.attempts.map((a) => [a.sentAt - restoreAt, a.serverAnsweredAt! - restoreAt, a.status, a.code, a.instance])));
      }
    } finally {
      proxy.restore();
      for (const c of [blockA, blockB, blockKeys]) {
        await c.query('ROLLBACK').catch(() => {});
        c.release();
      }
    }

    // What each client was finally told, and when.
    const unanswered = carts.filter((c) => !c.final).map((c) => c.token);
    expect(unanswered).toEqual([]);
    const afterRestore = carts.flatMap((c) => c.attempts.filter((a) => a.sentAt >= restoreAt));
    const inUseAfterRestore = afterRestore.filter((a) => a.code === 'idempotency_key_in_use');
    // Once the database is back, 409 only while an earlier attempt with the key really still runs
    // on the service (a client that stopped waiting for it does not stop it): never for a claim
    // left behind by the outage.
    const stale = carts.flatMap((c) =>
      c.attempts
        .filter((a) => a.sentAt >= restoreAt && a.code === 'idempotency_key_in_use')
        .filter((a) => !c.attempts.some((b) => b.sentAt < a.sentAt && b.serverAnsweredAt !== null && b.serverAnsweredAt > a.sentAt))
        .map((a) => ({ token: c.token, group: c.group, sentAfterRestoreMs: a.sentAt - restoreAt })),
    );
    expect(stale).toEqual([]);
    const recoveryMs = Math.max(...carts.map((c) => c.final!.at - restoreAt));
    expect(recoveryMs).toBeLessThanOrEqual(5000);

    // What the database holds: every order told 200 is completed once, with its two tickets and one
    // order.completed event; none is completed that its client was not told about.
    const orders = (
      await direct.query<{ order_token: string; status: string; tickets: number; events: number }>(
        `SELECT o.order_token, o.status,
                (SELECT count(*)::int FROM tickets t WHERE t.order_id = o.id) AS tickets,
                (SELECT count(*)::int FROM webhook_events e WHERE e.type = 'order.completed' AND e.order_rows->>'order_token' = o.order_token) AS events
           FROM orders o WHERE o.order_token = ANY($1::text[])`,
        [carts.map((c) => c.token)],
      )
    ).rows;
    const byToken = new Map(orders.map((o) => [o.order_token, o]));
    let lost = 0;
    let duplicated = 0;
    for (const cart of carts) {
      const order = byToken.get(cart.token)!;
      const told = cart.final!.status === 200;
      if (order.status === 'completed' && !told) lost++;
      if (order.events > 1 || order.tickets > cart.seats) duplicated++;
      expect({ token: cart.token, status: order.status, tickets: order.tickets, events: order.events }).toEqual(
        told
          ? { token: cart.token, status: 'completed', tickets: cart.seats, events: 1 }
          : { token: cart.token, status: expect.not.stringMatching(/^completed$/), tickets: 0, events: 0 },
      );
      // Every 200 of one order names the same tickets.
      const paths = cart.attempts.filter((a) => a.status === 200).length;
      expect(paths).toBeGreaterThanOrEqual(told ? 1 : 0);
      if (told) expect(cart.final!.body.data!.ticket_pdf_urls).toHaveLength(cart.seats);
    }
    expect(lost).toBe(0);
    expect(duplicated).toBe(0);
    const outcomes = carts.filter((c) => c.final!.status === 200).length;
    // Model D with keyed confirms: every order ends completed (no cart expired meanwhile).
    expect(outcomes).toBe(carts.length);
    // B's answers were lost with the cut: each retry got the first answer replayed, or ran confirm
    // again and got "already confirmed" (D22); either way with the same tickets.
    for (const cart of group('B')) expect(cart.final!.body.message).toMatch(/Order (already )?confirmed/);

    const attempts = carts.flatMap((c) => c.attempts);
    const statusCount = (pred: (a: Attempt) => boolean) => attempts.filter(pred).length;
    const figures = {
      orders: carts.length,
      attempts: attempts.length,
      retries: attempts.length - carts.length,
      retriesAnswered: statusCount((a) => a.status !== 'timeout') - carts.filter((c) => c.attempts[0]!.status !== 'timeout').length,
      clientTimeouts: statusCount((a) => a.status === 'timeout'),
      answers503: statusCount((a) => a.status === 503),
      answers409InUse: statusCount((a) => a.code === 'idempotency_key_in_use'),
      answers409InUseAfterRestore: inUseAfterRestore.length,
      answers409ForAStaleClaim: stale.length,
      attemptsAfterRestore: afterRestore.length,
      replayed: statusCount((a) => a.replayed),
      cutMs: restoreAt - cutAt,
      timeToRecoveryMs: recoveryMs,
      ordersCompleted: orders.filter((o) => o.status === 'completed').length,
      ordersLost: lost,
      ordersDuplicated: duplicated,
    };
    console.log(`idempotency outage figures (D55): ${JSON.stringify(figures)}`);
  }, 60_000);
});
