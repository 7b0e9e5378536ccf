import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase, queryRows, type Database, type Db } from '../../src/db/client.js';
import { listenerApplicationName } from '../../src/db/notifications.js';
import { sha256 } from '../../src/lib/secrets.js';
import { CLI_ACTOR } from '../../src/platform/actor.js';
import { announceRevocation, generateKeyForChannel, revokeWidgetKey } from '../../src/modules/auth/auth.service.js';
import { tokenCache } from '../../src/modules/auth/auth.token-cache.js';
import { REVOCATIONS_CHANNEL } from '../../src/modules/auth/auth.revocations.js';
import { updateChannelAs } from '../../src/modules/channels/channels-admin.service.js';
import { bearer, buildTestApp, isPostgres, tokenFor, type TestApp } from '../helpers.js';

// D42: a revocation takes effect on every instance sharing the database at once, through a database
// notification, not at the end of the token cache window. Every app here caches verified tokens for
// ten minutes, so that only a notification can explain a 401 seen within the test.

const CACHE_FOR_TEN_MINUTES = { AUTH_CACHE_MS: '600000' };
const configUrl = (slug: string) => `/api/sales-channel/v1/${slug}/config`;

const statusOf = async (app: FastifyInstance, slug: string, token: string) =>
  (await app.inject({ method: 'GET', url: configUrl(slug), headers: bearer(token) })).statusCode;

/**
 * Asks `app` with `token` until its token cache holds it. One answer of 200 is not enough: a drop
 * that lands while the token is read (a notification of an earlier test's change, late on a busy
 * machine) keeps that read out of the cache (TokenCache's epoch), and the next request reads again.
 */
async function untilCached(app: FastifyInstance, slug: string, token: string): Promise<void> {
  const cached = () => tokenCache(app.ctx).get(sha256(token), app.ctx.clock.now().getTime()) !== null;
  const deadline = performance.now() + 5_000;
  do {
    expect(await statusOf(app, slug, token)).toBe(200);
    if (performance.now() > deadline) throw new Error('the token never stayed in the cache');
  } while (!cached());
}

/** Revokes a token in the database without telling anyone: only the cache window would end it. */
const revokeSilently = (db: Db, token: string) =>
  db.execute(sql`UPDATE access_tokens SET revoked_at = now() WHERE token_hash = ${sha256(token)}`);

/** Asks `app` with `token` until it answers 401; the milliseconds it took (fails past `limitMs`). */
async function msUntilRefused(app: FastifyInstance, slug: string, token: string, limitMs = 5_000): Promise<number> {
  const start = performance.now();
  for (;;) {
    if ((await statusOf(app, slug, token)) === 401) return performance.now() - start;
    if (performance.now() - start > limitMs) throw new Error(`still accepted after ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

const channelId = async (db: Db, slug: string) =>
  (await queryRows<{ id: number }>(db, sql`SELECT id FROM sales_channels WHERE slug = ${slug}`))[0]!.id;

describe('revocation notifications on one instance (the same path on PGlite and PostgreSQL)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ env: CACHE_FOR_TEN_MINUTES });
  });
  afterAll(() => t?.close());

  it('a revoked token stays cached without a notification, and is refused as soon as one arrives', async () => {
    const token = await tokenFor(t.app, 'demo-c', 'wk_demo_c', 'listen-1');
    await untilCached(t.app, 'demo-c', token);
    await revokeSilently(t.ctx.db, token);
    // The control: with no notification the cache still vouches for it.
    expect(await statusOf(t.app, 'demo-c', token)).toBe(200);
    // What another instance's revocation sends (announceRevocation's payload).
    await t.ctx.db.execute(sql`SELECT pg_notify(${REVOCATIONS_CHANNEL}, ${JSON.stringify({ tokens: [sha256(token)] })})`);
    const ms = await msUntilRefused(t.app, 'demo-c', token);
    console.log(`[D42] ${t.ctx.database.kind}: token refused ${ms.toFixed(1)} ms after the notification`);
    expect(ms).toBeLessThan(1_000);
  });

  it('a channel notification drops every cached token of that channel only', async () => {
    const c = await tokenFor(t.app, 'demo-c', 'wk_demo_c', 'listen-2');
    const d = await tokenFor(t.app, 'demo-d', 'wk_demo_d', 'listen-2');
    await untilCached(t.app, 'demo-c', c);
    await untilCached(t.app, 'demo-d', d);
    await revokeSilently(t.ctx.db, c);
    await revokeSilently(t.ctx.db, d);
    await t.ctx.db.execute(sql`SELECT pg_notify(${REVOCATIONS_CHANNEL}, ${JSON.stringify({ channels: [await channelId(t.ctx.db, 'demo-c')] })})`);
    await msUntilRefused(t.app, 'demo-c', c);
    expect(await statusOf(t.app, 'demo-d', d)).toBe(200); // demo-d's entry was not touched
  });

  it('an unreadable notification clears the whole cache (always safe)', async () => {
    const token = await tokenFor(t.app, 'demo-d', 'wk_demo_d', 'listen-3');
    await untilCached(t.app, 'demo-d', token);
    await revokeSilently(t.ctx.db, token);
    await t.ctx.db.execute(sql`SELECT pg_notify(${REVOCATIONS_CHANNEL}, 'not json')`);
    await msUntilRefused(t.app, 'demo-d', token);
  });

  it('a revocation rolled back announces nothing', async () => {
    const token = await tokenFor(t.app, 'demo-c', 'wk_demo_c', 'listen-4');
    await untilCached(t.app, 'demo-c', token);
    await revokeSilently(t.ctx.db, token);
    // Sent on a transaction that rolls back; the announcing instance is another one (own context copy).
    const other = { ...t.ctx, database: { ...t.ctx.database } as Database };
    await expect(
      t.ctx.db.transaction(async (tx) => {
        await announceRevocation(other, tx, { tokenHashes: [sha256(token)] });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await statusOf(t.app, 'demo-c', token)).toBe(200);
  });
});

describe.runIf(isPostgres)('revocation across two instances on one PostgreSQL database (D42)', () => {
  let a: TestApp;
  let b: FastifyInstance;
  let bDatabase: Database;

  beforeAll(async () => {
    a = await buildTestApp({ env: CACHE_FOR_TEN_MINUTES });
    // Instance B: its own pool and listener on the same database, as a second process would have.
    bDatabase = await openDatabase({ url: a.db.url!, poolSize: 5 });
    const config = loadConfig({ APP_ENV: 'test', PUBLIC_BASE_URL: 'http://taquilla.test', ...CACHE_FOR_TEN_MINUTES });
    b = await buildApp({ config, database: bDatabase, clock: a.clock, logger: false });
    await b.ready();
  });
  afterAll(async () => {
    await b?.close();
    await bDatabase?.close();
    await a?.close();
  });

  it('a new token of the same group, issued through A, is refused by B at once', async () => {
    const old = await tokenFor(a.app, 'demo-d', 'wk_demo_d', 'fleet-buyer');
    expect(await statusOf(b, 'demo-d', old)).toBe(200); // cached on B
    const started = performance.now();
    await tokenFor(a.app, 'demo-d', 'wk_demo_d', 'fleet-buyer');
    const answeredAt = performance.now();
    const ms = await msUntilRefused(b, 'demo-d', old);
    console.log(`[D42] postgres, new token of the group: B refused the old token ${ms.toFixed(1)} ms after A answered (${(answeredAt - started + ms).toFixed(1)} ms after A was asked)`);
    expect(ms).toBeLessThan(1_000);
  });

  it('a widget key revoked through A: every token of the channel is refused by B at once', async () => {
    // A second key, so that the demo key keeps working for the other tests.
    const cId = await channelId(a.ctx.db, 'demo-c');
    const extra = await generateKeyForChannel(a.ctx, cId);
    const token = await tokenFor(a.app, 'demo-c', extra.widget_key, 'fleet-key');
    expect(await statusOf(b, 'demo-c', token)).toBe(200);
    await revokeWidgetKey(a.ctx, cId, extra.id);
    const ms = await msUntilRefused(b, 'demo-c', token);
    console.log(`[D42] postgres, widget key revoked: B refused its token ${ms.toFixed(1)} ms after A committed`);
    expect(ms).toBeLessThan(1_000);
  });

  it("a channel's mode changed through A applies on B at once (B's cached tokens carried the old mode)", async () => {
    const id = await channelId(a.ctx.db, 'demo-c');
    const token = await tokenFor(a.app, 'demo-c', 'wk_demo_c', 'fleet-mode');
    const orders = '/api/sales-channel/v1/demo-c/en/orders/0123456789abcdef0123456789abcdef';
    const before = await b.inject({ method: 'GET', url: orders, headers: bearer(token) });
    expect(before.statusCode).toBe(404); // a C channel may read orders: the token is cached with mode C
    await updateChannelAs(a.ctx, CLI_ACTOR, id, { integration_mode: 'portal_only' });
    try {
      const start = performance.now();
      let status = 0;
      while (performance.now() - start < 5_000) {
        status = (await b.inject({ method: 'GET', url: orders, headers: bearer(token) })).statusCode;
        if (status === 401) break;
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      console.log(`[D42] postgres, mode changed: B applied it after ${(performance.now() - start).toFixed(1)} ms`);
      // A mode change revokes the channel's tokens (D42, D74): the old token is 401 on every instance.
      expect(status).toBe(401);
      expect(performance.now() - start).toBeLessThan(1_000);
    } finally {
      await updateChannelAs(a.ctx, CLI_ACTOR, id, { integration_mode: 'widget_platform_payment' });
    }
  });

  it('the listener reconnects after its connection is killed, forgets what it may have missed, and hears revocations again', async () => {
    const listeners = () =>
      queryRows<{ pid: number }>(
        a.ctx.db,
        sql`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = ${listenerApplicationName(REVOCATIONS_CHANNEL)}`,
      );
    const before = await listeners();
    expect(before).toHaveLength(2); // A's and B's

    // Revoked without a notification while B still caches it: only B's reconnection can clear it.
    const missed = await tokenFor(a.app, 'demo-d', 'wk_demo_d', 'fleet-missed');
    await untilCached(b, 'demo-d', missed);
    await revokeSilently(a.ctx.db, missed);
    expect(await statusOf(b, 'demo-d', missed)).toBe(200);

    await a.ctx.db.execute(sql`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE datname = current_database() AND application_name = ${listenerApplicationName(REVOCATIONS_CHANNEL)}`);
    const killedAt = performance.now();
    let after = await listeners();
    while (after.length < 2 || after.some((r) => before.some((p) => p.pid === r.pid))) {
      if (performance.now() - killedAt > 5_000) throw new Error('the listeners did not come back');
      await new Promise((resolve) => setTimeout(resolve, 20));
      after = await listeners();
    }
    console.log(`[D42] postgres: listeners back ${(performance.now() - killedAt).toFixed(0)} ms after pg_terminate_backend`);
    await msUntilRefused(b, 'demo-d', missed, 2_000);

    // And a revocation through A reaches B over the new connection.
    const old = await tokenFor(a.app, 'demo-d', 'wk_demo_d', 'fleet-after');
    expect(await statusOf(b, 'demo-d', old)).toBe(200);
    await tokenFor(a.app, 'demo-d', 'wk_demo_d', 'fleet-after');
    const ms = await msUntilRefused(b, 'demo-d', old);
    console.log(`[D42] postgres after reconnection: B refused the old token ${ms.toFixed(1)} ms after A answered`);
    expect(ms).toBeLessThan(1_000);
  });
});
