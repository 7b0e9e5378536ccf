import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { createPendingOrder } from '../checkout/fixtures.js';
import { buildTestApp, isPostgres, type TestApp } from '../helpers.js';

// The background work of the modules is registered with the app's scheduler by buildApp, and runs
// only when started (src/server.ts) or asked: building an app (a test, the CLI) runs nothing.

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t?.close());

const statusOf = async (orderId: number) =>
  (await queryRows<{ status: string }>(t.ctx.db, sql`SELECT status FROM orders WHERE id = ${orderId}`))[0]!.status;

describe('background jobs', () => {
  it('buildApp registers the expiry sweep, the e-mail queue, the idempotency-key sweep and the other jobs', () => {
    expect(t.app.scheduler.jobNames).toEqual([
      'expiry-sweep',
      'email-queue',
      'idempotency-sweep',
      'webhook-delivery',
      'webhook-retention',
      'personal-data-retention',
      'payment-attempts',
      'waiting-list',
      // The kept sales figures catch up with the completed orders (migration 0342).
      'sales-figures',
      // On PostgreSQL, the planner statistics of fast-growing tables (src/db/statistics-keeper.ts).
      ...(isPostgres ? ['statistics'] : []),
      // Apple pass updates: the development signer makes Apple passes in test (google-wallet-sync
      // only with a configured Google issuer).
      'wallet-push',
    ]);
  });

  it('the expiry sweep runs through the scheduler (and not by itself)', async () => {
    const order = await createPendingOrder(t.ctx, { channel: 'demo-d', ttlMs: 1_000 });
    t.clock.advance(2_000);
    expect(await statusOf(order.id)).toBe('pending'); // nothing swept it on its own
    await t.app.scheduler.runOnce('expiry-sweep');
    expect(await statusOf(order.id)).toBe('expired');
  });
});
