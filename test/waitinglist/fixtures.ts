import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import type { AppContext } from '../../src/app-context.js';
import { openDatabase, queryRows, type Database } from '../../src/db/client.js';
import { offerFreedSeats } from '../../src/modules/waitinglist/waitinglist.service.js';
import { createPendingOrder, type PendingOrder } from '../checkout/fixtures.js';
import { expect, test } from 'vitest';
import { newDemoSession } from '../orders/cart-helpers.js';
import { bearer, buildTestApp, DEMO, serverTokenFor, type TestApp } from '../helpers.js';

// A sold-out session for the waiting-list tests (D69): `held` seats in live carts of `channel`,
// every other numbered seat blocked (the session's unnumbered zone is left alone: the waiting list
// is for numbered seats).

export interface SoldOut {
  sessionId: number;
  orders: PendingOrder[];
}

export async function sellOut(
  ctx: AppContext,
  opts: { channel: string; sessionIndex?: number; sessionId?: number; carts: number; seatsPerCart?: number; ttlMs?: number | ((cart: number) => number) },
): Promise<SoldOut> {
  const orders: PendingOrder[] = [];
  for (let i = 0; i < opts.carts; i++) {
    const ttlMs = typeof opts.ttlMs === 'function' ? opts.ttlMs(i) : opts.ttlMs;
    orders.push(await createPendingOrder(ctx, { channel: opts.channel, sessionIndex: opts.sessionIndex, sessionId: opts.sessionId, seats: opts.seatsPerCart ?? 1, ttlMs }));
  }
  const sessionId = orders[0]!.sessionId;
  await ctx.db.execute(sql`UPDATE session_seats SET status = 'blocked' WHERE session_id = ${sessionId} AND seat_id IS NOT NULL AND status = 'available'`);
  return { sessionId, orders };
}

/**
 * Takes a test's waiting list out of the waiting-list job once the test is done: its entries still
 * waiting or offered are marked as left. The job serves every session with such entries, so a later
 * test's pass (and its count of offers made) would otherwise serve this test's list too.
 */
export async function retireList(ctx: AppContext, sessionId: number): Promise<void> {
  await ctx.db.execute(sql`UPDATE waiting_list_entries SET status = 'left' WHERE session_id = ${sessionId} AND status IN ('waiting', 'offered')`);
}

/**
 * A vitest `it` whose tests each get a waiting list of their own (`list`): `make` fills it on a new
 * session (newDemoSession, its own event) of the app that `app()` gives; once the test is done, the
 * list leaves the job (retireList).
 */
export function ownListTest<L extends object>(app: () => TestApp, make: (t: TestApp, sessionId: number) => Promise<L>) {
  return test.extend<{ list: L & { sessionId: number } }>({
    // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from its first parameter's pattern
    list: async ({}, use) => {
      const t = app();
      const { sessionId } = await newDemoSession(t);
      const list = await make(t, sessionId);
      try {
        await use({ ...list, sessionId });
      } finally {
        await retireList(t.ctx, sessionId);
      }
    },
  });
}

/** The seats held now (D15: unexpired) by each live order of the session, by order id. */
export async function liveHolds(ctx: AppContext, sessionId: number): Promise<{ seat: number; order: number }[]> {
  const rows = await queryRows<{ id: number; order_id: string }>(
    ctx.db,
    sql`SELECT ss.id, ss.order_id FROM session_seats ss JOIN orders o ON o.id = ss.order_id
        WHERE ss.session_id = ${sessionId} AND ss.status = 'held' AND ss.hold_expires_at > ${ctx.clock.now()} AND o.status = 'pending'`,
  );
  return rows.map((r) => ({ seat: r.id, order: Number(r.order_id) }));
}

export const joinUrl = (slug: string, sessionId: number, lang = 'es') => `/api/sales-channel/v1/${slug}/${lang}/sessions/${sessionId}/waiting-list`;
export const portalJoinUrl = (slug: string, sessionId: number, lang = 'es') => `/api/portal/${slug}/${lang}/sessions/${sessionId}/waiting-list`;

/** The entries of a session's waiting list, in list order. */
export async function listEntries(ctx: AppContext, sessionId: number) {
  return queryRows<{ email: string; status: string; offer_order_id: string | null }>(
    ctx.db,
    sql`SELECT email, status, offer_order_id FROM waiting_list_entries WHERE session_id = ${sessionId} ORDER BY id`,
  );
}

/**
 * Two instances of the service on one PostgreSQL database (pools of 30), as two servers run it:
 * `passes(n)` runs n waiting-list passes at once, taking turns between the instances.
 */
export interface TwoInstances {
  t: TestApp;
  second: { app: FastifyInstance; database: Database };
  passes(n: number): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * The first round of the parallel tests: the carts before `expiring` have run out (6 minutes on: they
 * ran for 5) and the others are cancelled through demo-c's API while 8 parallel passes run; then 4
 * passes more.
 */
export async function freedDuringPasses(instances: TwoInstances, carts: PendingOrder[], expiring: number): Promise<void> {
  const { t } = instances;
  const server = await serverTokenFor(t.app, DEMO.c.slug);
  t.clock.advance(6 * 60_000);
  const cancels = carts.slice(expiring).map((o) => t.app.inject({ method: 'DELETE', url: `/api/sales-channel/v1/${DEMO.c.slug}/es/orders/${o.token}`, headers: bearer(server) }));
  const [cancelled] = await Promise.all([Promise.all(cancels), instances.passes(8)]);
  expect(cancelled.map((r) => r.statusCode)).toEqual(Array(carts.length - expiring).fill(200));
  await instances.passes(4);
}

export async function twoInstances(): Promise<TwoInstances> {
  const t = await buildTestApp({ poolSize: 30 });
  const database = await openDatabase({ url: t.db.url!, poolSize: 30 });
  const app = await buildApp({ config: t.config, database, clock: t.clock, logger: false });
  await app.ready();
  const contexts: AppContext[] = [t.ctx, app.ctx];
  return {
    t,
    second: { app, database },
    passes: (n) => Promise.all(Array.from({ length: n }, (_, i) => offerFreedSeats(contexts[i % 2]!))),
    async close() {
      await app.close();
      await database.close();
      await t.close();
    },
  };
}
