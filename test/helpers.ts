import crypto from 'node:crypto';
import fs from 'node:fs';
import { sql } from 'drizzle-orm';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, beforeAll, expect, inject, test } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import type { AppContext } from '../src/app-context.js';
import { loadConfig, type Config } from '../src/config.js';
import { openDatabase, queryRows, type Database } from '../src/db/client.js';
import { loadDemoDataIfEmpty } from '../src/demo/demo-data.js';
import { ManualClock } from '../src/lib/clock.js';
import { serverUrl, TEST_PG_URL } from './global-setup.js';
import { openClocks } from './test-clocks.js';

export const isPostgres = process.env.TEST_DB === 'postgres';

export interface TestDatabase {
  database: Database;
  /** postgres:// URL of the test database (PostgreSQL runs only). */
  url: string | null;
  drop(): Promise<void>;
}

/** The migrated PGlite of the global setup, read once per test file. */
let pgliteTemplate: Blob | undefined;

/**
 * A fresh, migrated database: an in-memory PGlite loaded from the migrated dump of the global setup,
 * or a clone of the migrated template on PostgreSQL.
 */
export async function createTestDatabase(opts: { poolSize?: number; connectTimeoutMs?: number } = {}): Promise<TestDatabase> {
  const template = inject('pgTemplate');
  if (!template) {
    const tarball = inject('pgliteTemplate');
    if (!tarball) throw new Error('no migrated PGlite: test/global-setup.ts did not run');
    pgliteTemplate ??= new Blob([fs.readFileSync(tarball)]);
    const database = await openDatabase({ pgliteDir: 'memory://', pgliteLoadDataDir: pgliteTemplate });
    return { database, url: null, drop: () => database.close() };
  }
  const name = `taquilla_t_${template.split('_').pop()}_${crypto.randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_PG_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  } finally {
    await admin.end();
  }
  const url = serverUrl(name);
  const database = await openDatabase({ url, poolSize: opts.poolSize ?? 20, connectTimeoutMs: opts.connectTimeoutMs });
  return {
    database,
    url,
    async drop() {
      await database.close();
      const a = new pg.Client({ connectionString: TEST_PG_URL });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await a.end();
    },
  };
}

export interface TestApp {
  app: FastifyInstance;
  ctx: AppContext;
  clock: ManualClock;
  config: Config;
  db: TestDatabase;
  close(): Promise<void>;
}

/**
 * Rate limits of the test configuration: every test file sends all its requests from one address and
 * one token, far more than a buyer would, so the limits a test does not study are set out of reach.
 * test/http/rate-limits.test.ts sets its own. The portal's and the admin sign-in's stay at their
 * production defaults (their tests count on them).
 */
export const TEST_RATE_LIMITS = {
  TOKEN_RATE_LIMIT_PER_MINUTE: '100000',
  TOKEN_FAILURE_LIMIT_PER_MINUTE: '100000',
  CART_WRITE_RATE_LIMIT_PER_MINUTE: '100000',
  VOUCHER_RATE_LIMIT_PER_ORDER_PER_MINUTE: '100000',
  VOUCHER_RATE_LIMIT_PER_CLIENT_PER_MINUTE: '100000',
};

/**
 * The whole service on a fresh database with the demo catalogue, a manual clock (starting at the
 * real now) and test configuration. `env` overrides environment variables of the config. Until the
 * app closes, its clock is put back after each test to where it was when the test started
 * (test/test-clocks.ts).
 */
export async function buildTestApp(
  opts: { env?: Record<string, string>; demo?: boolean; clock?: ManualClock; poolSize?: number; connectTimeoutMs?: number; logStream?: { write(line: string): void } } = {},
): Promise<TestApp> {
  const db = await createTestDatabase({ poolSize: opts.poolSize, connectTimeoutMs: opts.connectTimeoutMs });
  // Most test files play many buyers through one token (or one portal address): they lift the
  // live-cart cap of D44, which test/orders/hold-caps.test.ts tests at its real default.
  // Overload protection stays off whatever APP_ENV a file asks for (development and production turn
  // it on at 200 ms of event-loop delay): on a machine running two suites side by side that delay is
  // the machine's, and a test about something else got 503 `overloaded` (test/http/overload.test.ts
  // sets it where it is the subject).
  const config = loadConfig({
    APP_ENV: 'test',
    PUBLIC_BASE_URL: 'http://taquilla.test',
    MAX_LIVE_ORDERS_PER_BUYER: '100000',
    OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '0',
    ...TEST_RATE_LIMITS,
    ...opts.env,
  });
  const clock = opts.clock ?? new ManualClock(new Date());
  // Silent, unless the file reads the service's own log lines (logStream).
  const app = await buildApp({ config, database: db.database, clock, ...(opts.logStream ? { logStream: opts.logStream } : { logger: false }) });
  if (opts.demo !== false) await loadDemoDataIfEmpty(app.ctx);
  await app.ready();
  openClocks.add(clock);
  return {
    app,
    ctx: app.ctx,
    clock,
    config,
    db,
    async close() {
      openClocks.delete(clock);
      await app.close();
      await db.drop();
    },
  };
}

/**
 * Something a test file starts once before its tests and closes after them all (beforeAll and
 * afterAll, registered for the calling file). The getter gives it to the file's hooks (they run
 * after this one), fixtures and helpers.
 */
export function startedForFile<T extends { close(): Promise<unknown> }>(start: () => Promise<T>, timeoutMs = 180_000): () => T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  }, timeoutMs);
  afterAll(() => started?.close());
  return () => {
    if (!started) throw new Error('not started yet: this is for beforeAll hooks and tests, not for the collection of the file');
    return started;
  };
}

/**
 * The app's fixture (vitest test.extend) for a file that shares one app across its tests:
 * buildTestApp(opts), started and closed for the file (startedForFile); each test gets it as `t`.
 * Returns the test function and `app()`, the started app for the file's own beforeAll hooks and its
 * helpers.
 */
export function appTest(opts: Parameters<typeof buildTestApp>[0] = {}) {
  const app = startedForFile(() => buildTestApp(opts));
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from its first parameter's pattern
  const it = test.extend<{ t: TestApp }>({ t: async ({}, use) => use(app()) });
  return { it, app };
}

/** A bearer token for a channel, through the real token endpoint. */
export async function tokenFor(app: FastifyInstance, slug: string, key = `wk_${slug.replace('-', '_')}`, clientId?: string) {
  const res = await app.inject({
    method: 'POST',
    url: '/api/sales-channel/v1/auth/token',
    payload: { sales_channel_slug: slug, widget_key: key, ...(clientId ? { client_id: clientId } : {}) },
  });
  if (res.statusCode !== 200) throw new Error(`token for ${slug}: ${res.statusCode} ${res.body}`);
  return res.json().data.access_token as string;
}

/**
 * A server-scope bearer token (D39) for a channel, through the real token endpoint: what confirm
 * and the report of models C and D need (D40). The demo channels' server keys are `sk_demo_*` (D43).
 */
export async function serverTokenFor(app: FastifyInstance, slug: string, key = `sk_${slug.replace('-', '_')}`, clientId?: string) {
  const res = await app.inject({
    method: 'POST',
    url: '/api/sales-channel/v1/auth/token',
    payload: { sales_channel_slug: slug, server_key: key, ...(clientId ? { client_id: clientId } : {}) },
  });
  if (res.statusCode !== 200) throw new Error(`server token for ${slug}: ${res.statusCode} ${res.body}`);
  return res.json().data.access_token as string;
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The demo channels of D37, with their widget keys and server keys (D43). */
export const DEMO = {
  a: { slug: 'demo-a', key: 'wk_demo_a', serverKey: 'sk_demo_a' },
  b: { slug: 'demo-b', key: 'wk_demo_b', serverKey: 'sk_demo_b' },
  c: { slug: 'demo-c', key: 'wk_demo_c', serverKey: 'sk_demo_c' },
  d: { slug: 'demo-d', key: 'wk_demo_d', serverKey: 'sk_demo_d' },
} as const;

/** An answer as the tests hold it: an inject response, or the `{ status, body }` of test/admin/admin-helpers.ts's api(). */
type Answer = { statusCode: number; json(): unknown } | { status: number; body: unknown };

/**
 * An error answer of the API: its HTTP status and the envelope of D4 with the stable code that
 * integrators branch on (a bare 404 would pass for an unknown route's `route_not_found` too). A 422
 * says SPEC's "The given data was invalid" and names the fields.
 */
export function expectRefused(res: Answer, status: number, code: string): void {
  const [got, body] = 'statusCode' in res ? [res.statusCode, res.json()] : [res.status, res.body];
  expect(got, JSON.stringify(body)).toBe(status);
  expect(body).toMatchObject({ status, success: false, code, message: expect.any(String) });
  if (status === 422) expect(body).toMatchObject({ message: 'The given data was invalid', errors: expect.any(Object) });
}

/** The whole error body of D4 and nothing else: status, code and message word for word, and a 422's field errors. */
export function expectErrorBody(res: { statusCode: number; json(): unknown }, status: number, code: string, message: string, errors?: Record<string, string[]>): void {
  expect(res.statusCode, JSON.stringify(res.json())).toBe(status);
  expect(res.json()).toEqual({ status, success: false, code, message, ...(errors ? { errors } : {}) });
}

/** The demo catalogue's first session by start time, its event, and the session's first rate. */
export async function firstDemoSession(t: TestApp): Promise<{ sessionId: number; eventId: number; rateId: number }> {
  const [session] = await queryRows<{ id: number; event_id: number }>(t.ctx.db, sql`SELECT id, event_id FROM sessions ORDER BY start_datetime, id LIMIT 1`);
  const [rate] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM rates WHERE session_id = ${session!.id} ORDER BY id LIMIT 1`);
  return { sessionId: session!.id, eventId: session!.event_id, rateId: rate!.id };
}

/** Resolves once `condition` holds (asked every 25 ms); fails after `ms`. */
export async function waitFor(condition: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Counts the statements the app sends to its database while `work` runs (both drivers). */
export async function countStatements(work: () => Promise<void>): Promise<number> {
  let n = 0;
  const targets = [pg.Client.prototype, PGlite.prototype] as unknown as Record<string, (...a: unknown[]) => unknown>[];
  const saved = targets.map((p) => ({ p, query: p.query!, exec: p.exec }));
  for (const { p, query, exec } of saved) {
    p.query = function (this: unknown, ...a: unknown[]) {
      n++;
      return query.apply(this, a);
    };
    if (exec)
      p.exec = function (this: unknown, ...a: unknown[]) {
        n++;
        return exec.apply(this, a);
      };
  }
  try {
    await work();
  } finally {
    for (const { p, query, exec } of saved) {
      p.query = query;
      if (exec) p.exec = exec;
    }
  }
  return n;
}
