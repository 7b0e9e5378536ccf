import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { apiAs } from '../admin/admin-helpers.js';
import { demoSession } from '../orders/cart-helpers.js';
import { queryRows } from '../../src/db/client.js';
import { bearer, buildTestApp, DEMO, isPostgres, type TestApp } from '../helpers.js';

// Overload protection (docs/operations.md "Overload protection"): past the configured event-loop
// delay every request but /healthz, /readyz and /metrics is refused at once with 503 `overloaded`
// and Retry-After; /readyz says 503 so that the load balancer looks elsewhere; then it recovers.
const METRICS_TOKEN = 'metrics-token-of-the-overload-test';

/**
 * Holds this process's event loop (the app runs in it) the way a surge does: turns of 200 ms of
 * work one after another, serving what waits between them, until `done()` (at most `maxMs`).
 */
async function busyTurns(done: () => boolean, maxMs: number): Promise<void> {
  const end = Date.now() + maxMs;
  while (!done() && Date.now() < end) {
    const turn = Date.now() + 200;
    while (Date.now() < turn) {
      // busy: one long turn of the loop
    }
    await yieldToLoop();
  }
}

/**
 * The answer of `call` once the instance takes work: the set-up and the recovery are not what is
 * tested, and on a busy test machine the loop's own lag can pass the threshold for a second.
 */
async function served<T extends { status: number }>(call: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 15_000;
  let answer = await call();
  while (answer.status === 503 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    answer = await call();
  }
  return answer;
}

const tokenBody = JSON.stringify({ sales_channel_slug: DEMO.a.slug, widget_key: DEMO.a.key });

describe(`overload: event-loop delay (${isPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await buildTestApp({ env: { OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '100', OVERLOAD_RETRY_AFTER_SECONDS: '3', METRICS_TOKEN } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
  }, 120_000);
  afterAll(() => t.close());

  const tokenCall = () => fetch(`${base}/api/sales-channel/v1/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: tokenBody });

  /** Polls /readyz until it answers 200 (at most 10 s); the last status. */
  async function readyWithin(): Promise<number> {
    const deadline = Date.now() + 10_000;
    let status = (await fetch(`${base}/readyz`)).status;
    while (Date.now() < deadline && status !== 200) {
      await new Promise((r) => setTimeout(r, 200));
      status = (await fetch(`${base}/readyz`)).status;
    }
    return status;
  }

  it('answers 503 overloaded with Retry-After at once, keeps /healthz and /metrics, reports it on /readyz, then recovers', async () => {
    // Building the app (the embedded database loading its catalogue) may itself have held the loop.
    expect(await readyWithin()).toBe(200);
    expect((await served(tokenCall)).status).toBe(200);
    // A session behind a waiting room: its status polls are answered before Fastify from the second
    // on (src/modules/queue/queue.polls.ts), but not while the instance refuses work.
    const queued = await demoSession(t, 1);
    const salesStart = new Date(Math.ceil(Date.now() / 1000) * 1000 + 10 * 60_000).toISOString();
    const admin = await apiAs(t, 'overload@taquilla.test');
    const opened = await served(() => admin.patch(`/sessions/${queued.sessionId}`, { sales_start_at: salesStart, queue: { enabled: true, admission_per_minute: 60 } }));
    expect(opened.status).toBe(200);
    const statusPoll = () => fetch(`${base}/api/queue/v1/sessions/${queued.sessionId}`);
    expect((await served(statusPoll)).status).toBe(200);
    expect((await served(statusPoll)).status).toBe(200);
    const tokens = async () => (await queryRows<{ n: number }>(t.ctx.db, sql`SELECT count(*)::int AS n FROM access_tokens`))[0]!.n;
    const tokensBefore = await tokens();

    await busyTurns(() => t.app.isOverloaded(), 10_000);
    expect(t.app.isOverloaded()).toBe(true);
    // The surge goes on while the requests are answered between its turns: the measure is a mean
    // over each second, and a second of calm in the middle would end the overload.
    let answered = false;
    const requests = Promise.all([
      tokenCall(),
      fetch(`${base}/healthz`),
      fetch(`${base}/readyz`),
      fetch(`${base}/metrics`, { headers: bearer(METRICS_TOKEN) }),
      statusPoll(),
    ]).finally(() => {
      answered = true;
    });
    await busyTurns(() => answered, 20_000);
    const [refused, health, ready, metrics, polled] = await requests;

    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('3');
    expect(await refused.json()).toEqual({
      status: 503,
      success: false,
      code: 'overloaded',
      message: 'The service is overloaded; retry shortly',
    });
    // Refused before any work: no token was issued.
    expect(await tokens()).toBe(tokensBefore);
    expect(health.status).toBe(200);
    expect(ready.status).toBe(503);
    expect(ready.headers.get('retry-after')).toBe('3');
    expect(await ready.json()).toEqual({ status: 'overloaded' });
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/taquilla_http_request_duration_seconds_count\{route="\/api\/sales-channel\/v1\/auth\/token",method="POST",status_class="5xx"\} [1-9]/);
    expect(polled.status).toBe(503);
    expect((await polled.json()).code).toBe('overloaded');

    // The loop is idle again: within a few sample intervals /readyz and the API answer 200.
    expect(await readyWithin()).toBe(200);
    expect((await served(tokenCall)).status).toBe(200);
    expect((await served(statusPoll)).status).toBe(200);
    expect(await tokens()).toBe(tokensBefore + 1);
  });
});

describe.skipIf(!isPostgres)('overload: queries waiting for a database connection (PostgreSQL)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ poolSize: 2, env: { OVERLOAD_MAX_POOL_WAITING: '2' } });
  }, 120_000);
  afterAll(() => t.close());

  it('refuses while more queries than allowed wait for a connection, and recovers once they are served', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    // Two slow queries take both connections; four more wait for one.
    // (async: a Drizzle query runs only once awaited.)
    const slow = Array.from({ length: 6 }, async () => t.ctx.db.execute(sql`SELECT pg_sleep(1.5)`));
    const deadline = Date.now() + 3_000;
    while (!t.app.isOverloaded() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const refused = await t.app.inject({ method: 'POST', url: '/api/sales-channel/v1/auth/token', payload: { sales_channel_slug: DEMO.a.slug, widget_key: DEMO.a.key } });
    expect(refused.statusCode).toBe(503);
    expect(refused.json().code).toBe('overloaded');
    expect(refused.headers['retry-after']).toBe('5');
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(503);
    expect((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    await Promise.all(slow);
    const until = Date.now() + 3_000;
    while (t.app.isOverloaded() && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  });
});
