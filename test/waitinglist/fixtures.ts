import { sql } from 'drizzle-orm';
import type { AppContext } from '../../src/app-context.js';
import { queryRows } from '../../src/db/client.js';
import { createPendingOrder, type PendingOrder } from '../checkout/fixtures.js';

// A sold-out session for the waiting-list tests (D69): `held` seats in live carts of `channel`,
// every other numbered seat blocked (the session's unnumbered zone is left alone: the waiting list
// is for numbered seats).

export interface SoldOut {
  sessionId: number;
  orders: PendingOrder[];
}

export async function sellOut(ctx: AppContext, opts: { channel: string; sessionIndex: number; carts: number; seatsPerCart?: number; ttlMs?: number | ((cart: number) => number) }): Promise<SoldOut> {
  const orders: PendingOrder[] = [];
  for (let i = 0; i < opts.carts; i++) {
    orders.push(await createPendingOrder(ctx, { channel: opts.channel, sessionIndex: opts.sessionIndex, seats: opts.seatsPerCart ?? 1, ttlMs: typeof opts.ttlMs === 'function' ? opts.ttlMs(i) : opts.ttlMs }));
  }
  const sessionId = orders[0]!.sessionId;
  await ctx.db.execute(sql`UPDATE session_seats SET status = 'blocked' WHERE session_id = ${sessionId} AND seat_id IS NOT NULL AND status = 'available'`);
  return { sessionId, orders };
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
