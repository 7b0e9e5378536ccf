import { sql } from 'drizzle-orm';
import type { AppContext } from '../../app-context.js';
import { queryRows, type Db } from '../../db/client.js';
import { AppError } from '../../http/errors.js';
import { inventoryChanged } from '../../lib/inventory-events.js';
import { isoWithOffset } from '../../lib/time.js';
import { canSee, type Actor } from '../../platform/actor.js';
import { recordAudit } from '../../platform/audit.js';
import { refundOrder } from '../checkout/refund.service.js';
import { enqueueWebhookEvent } from '../webhooks/webhooks.outbox.js';
import * as repo from './catalogue-admin.repo.js';
import { dbDate, type DbTime } from '../../db/instants.js';

// A session that is cancelled or moved (D74). Cancelling ends its live carts at once (the database
// writes their order.cancelled events), tells its channels (session.cancelled) and, when asked,
// refunds every completed order of the session through refundOrder (D58). Moving its start e-mails
// every ticket holder once through the durable e-mail queue and tells its channels (session.changed);
// tickets and PDFs read the session's time when they are rendered, so they follow it.
//
// Locking (D74, no ticket after a cancellation): the cancellation commits the session's new status
// in its own short transaction first, holding the session's sale lock exclusive (lockSession);
// close_order takes it shared under the order's lock, so a confirm either commits before the
// cancellation or sees it. The live carts are
// ended afterwards, each batch in its own transaction (order locks are never taken while the
// session row is locked, so the two paths cannot deadlock).

interface SessionChangeEvent {
  id: number;
  event_id: number;
  start_datetime: string;
  previous_start_datetime?: string;
  status: string;
  sales_start_at: string | null;
  sales_end_at: string | null;
}

interface LockedSession {
  id: number;
  eventId: number;
  status: string;
  startDatetime: Date;
  salesStartAt: Date | null;
  salesEndAt: Date | null;
}

/** The session's sale lock, exclusive until the transaction ends: no closing of it runs meanwhile (D74, lock_session_sale). */
export async function lockSessionSale(tx: Db, id: number): Promise<void> {
  await tx.execute(sql`SELECT lock_session_sale(ARRAY[${id}::int], true)`);
}

async function lockSession(tx: Db, id: number): Promise<LockedSession> {
  // The sale lock first, then the row: the order every change of a session takes them in (updateSessionAs too).
  await lockSessionSale(tx, id);
  const [r] = await queryRows<{ id: number; event_id: number; status: string; start_datetime: DbTime; sales_start_at: DbTime | null; sales_end_at: DbTime | null }>(
    tx,
    sql`SELECT id, event_id, status, start_datetime, sales_start_at, sales_end_at FROM sessions WHERE id = ${id} FOR UPDATE`,
  );
  if (!r) throw new AppError('not_found', 'Session not found');
  return {
    id: r.id,
    eventId: r.event_id,
    status: r.status,
    startDatetime: dbDate(r.start_datetime),
    salesStartAt: dbDate(r.sales_start_at),
    salesEndAt: dbDate(r.sales_end_at),
  };
}

const eventData = (s: LockedSession, previousStart?: Date): SessionChangeEvent => ({
  id: s.id,
  event_id: s.eventId,
  start_datetime: isoWithOffset(s.startDatetime)!,
  ...(previousStart ? { previous_start_datetime: isoWithOffset(previousStart)! } : {}),
  status: s.status,
  sales_start_at: isoWithOffset(s.salesStartAt),
  sales_end_at: isoWithOffset(s.salesEndAt),
});

/** The channels that sell the session's event or sold tickets of the session. */
async function channelsOfSession(tx: Db, sessionId: number, eventId: number): Promise<number[]> {
  const rows = await queryRows<{ channel_id: number }>(
    tx,
    sql`SELECT channel_id FROM channel_events WHERE event_id = ${eventId}
        UNION
        SELECT DISTINCT o.channel_id FROM orders o JOIN order_items i ON i.order_id = o.id
        WHERE i.session_id = ${sessionId} AND o.status = 'completed'
        ORDER BY 1`,
  );
  return rows.map((r) => Number(r.channel_id));
}

/** Writes a session event to the outbox of every channel of the session (same transaction as the change). */
async function tellChannels(tx: Db, type: 'session.cancelled' | 'session.changed', session: LockedSession, data: Record<string, unknown>, at: Date) {
  for (const channelId of await channelsOfSession(tx, session.id, session.eventId)) {
    await enqueueWebhookEvent(tx, { channelId, type, data, at });
  }
}

async function insertChange(tx: Db, c: { sessionId: number; kind: 'cancelled' | 'moved'; oldStart: Date; newStart: Date; refund: boolean; at: Date }): Promise<number> {
  const [row] = await queryRows<{ id: string | number }>(
    tx,
    sql`INSERT INTO session_changes (session_id, kind, old_start, new_start, refund, created_at)
        VALUES (${c.sessionId}, ${c.kind}, ${c.oldStart}, ${c.newStart}, ${c.refund}, ${c.at}) RETURNING id`,
  );
  return Number(row!.id);
}

async function visibleSession(ctx: AppContext, actor: Actor, id: number) {
  const found = await repo.findSession(ctx.db, id);
  if (!found || !canSee(actor, found.organiserId)) throw new AppError('not_found', 'Session not found');
  return found;
}

const CART_BATCH = 200;

/**
 * Ends every live cart holding a seat or place of the session (status cancelled, all its holds
 * released, the order.cancelled event written by the database), in batches; returns how many.
 */
async function endLiveCartsOfSession(ctx: AppContext, sessionId: number): Promise<{ orders: number; sessionIds: number[] }> {
  let total = 0;
  const touched = new Set<number>([sessionId]);
  for (;;) {
    const now = ctx.clock.now();
    const batch = await ctx.db.transaction(async (tx) => {
      const orders = await queryRows<{ id: string | number }>(
        tx,
        sql`UPDATE orders SET status = 'cancelled', expires_at = NULL, updated_at = ${now}
            WHERE id IN (
              SELECT o.id FROM orders o
              WHERE o.status = 'pending' AND (o.expires_at IS NULL OR o.expires_at > ${now})
                AND EXISTS (SELECT 1 FROM order_items i WHERE i.order_id = o.id AND i.session_id = ${sessionId})
              ORDER BY o.id LIMIT ${CART_BATCH}
              FOR UPDATE)
            RETURNING id`,
      );
      const ids = orders.map((o) => Number(o.id));
      if (ids.length === 0) return { ids, sessions: [] as number[] };
      const released = await queryRows<{ session_id: number }>(
        tx,
        sql`UPDATE session_seats SET status = 'available', order_id = NULL, hold_expires_at = NULL
            WHERE order_id = ANY(${`{${ids.join(',')}}`}::bigint[]) AND status = 'held'
            RETURNING session_id`,
      );
      return { ids, sessions: released.map((r) => Number(r.session_id)) };
    });
    batch.sessions.forEach((s) => touched.add(s));
    total += batch.ids.length;
    if (batch.ids.length < CART_BATCH) break;
  }
  inventoryChanged(ctx, [...touched]);
  return { orders: total, sessionIds: [...touched] };
}

/**
 * Completed orders that still hold a valid ticket of the session, oldest first (an order refunded
 * before for other tickets counts: what it still holds of the session is refunded).
 */
async function refundableOrders(db: Db, sessionId: number): Promise<string[]> {
  const rows = await queryRows<{ reference: string }>(
    db,
    sql`SELECT o.reference FROM orders o
        WHERE o.status = 'completed' AND o.type IN ('purchase', 'reservation')
          AND EXISTS (SELECT 1 FROM order_items i JOIN tickets t ON t.order_item_id = i.id
                      WHERE i.order_id = o.id AND i.session_id = ${sessionId} AND t.status = 'valid')
        ORDER BY o.id`,
  );
  return rows.map((r) => r.reference);
}

export interface CancelResult {
  session_id: number;
  status: 'cancelled';
  /** False when the session was cancelled before (nothing was announced again). */
  newly_cancelled: boolean;
  cancelled_carts: number;
  refunded_orders: number;
  /** Orders whose refund failed (e.g. the card provider refused); a repeat of the cancel retries them. */
  refund_failures: { reference: string; code: string; message: string }[];
}

/**
 * Cancels a session (D74): status cancelled (no cart write, confirm or card completion sells it
 * any more), channels told once (session.cancelled), live carts ended at once. With `refund`, every
 * completed order of the session is refunded once through refundOrder (D58, with the buyer's
 * e-mail), for its tickets of this session only (an order with tickets of another session keeps
 * those), checked-in ones included (the session did not take place as sold); repeating the call,
 * or a parallel one, refunds only what is not refunded yet (chosen under the order's lock).
 */
export async function cancelSessionAs(ctx: AppContext, actor: Actor, id: number, input: { refund?: boolean }): Promise<CancelResult> {
  const { organiserId } = await visibleSession(ctx, actor, id);
  const refund = input.refund === true;
  const now = ctx.clock.now();
  const newly = await ctx.db.transaction(async (tx) => {
    const session = await lockSession(tx, id);
    if (session.status === 'cancelled') return false;
    await tx.execute(sql`UPDATE sessions SET status = 'cancelled', cancelled_at = ${now}, updated_at = ${now} WHERE id = ${id}`);
    session.status = 'cancelled';
    await insertChange(tx, { sessionId: id, kind: 'cancelled', oldStart: session.startDatetime, newStart: session.startDatetime, refund, at: now });
    await tellChannels(tx, 'session.cancelled', session, { session: eventData(session), refund }, now);
    await recordAudit(tx, { actor, action: 'session.cancel', targetType: 'session', targetId: id, organiserId, details: { refund }, at: now });
    return true;
  });
  const carts = await endLiveCartsOfSession(ctx, id);
  let refunded = 0;
  const failures: CancelResult['refund_failures'] = [];
  if (refund) {
    const who = actor.email || 'admin';
    for (const reference of await refundableOrders(ctx.db, id)) {
      try {
        await refundOrder(ctx, { reference, reason: `Session ${id} cancelled`, actor: who, sessionId: id, allowUsed: true });
        refunded++;
      } catch (err) {
        // Refunded meanwhile (a parallel cancel): once is enough. Anything else is reported.
        if (err instanceof AppError && err.code === 'order_already_refunded') continue;
        failures.push({ reference, code: err instanceof AppError ? err.code : 'internal_error', message: (err as Error).message });
      }
    }
  }
  inventoryChanged(ctx, [id]);
  return { session_id: id, status: 'cancelled', newly_cancelled: newly, cancelled_carts: carts.orders, refunded_orders: refunded, refund_failures: failures };
}

/**
 * Records a move of a session's start inside the transaction that writes it (updateSessionAs):
 * one e-mail per ticket holder (distinct recipient address of the completed orders with valid
 * tickets of the session, in the language of their latest order) through the durable queue, and
 * session.changed to the channels. Nothing when the start does not change.
 */
export async function recordSessionMove(tx: Db, sessionId: number, oldStart: Date, at: Date): Promise<void> {
  const session = await lockSession(tx, sessionId);
  if (session.startDatetime.getTime() === oldStart.getTime()) return;
  const changeId = await insertChange(tx, { sessionId, kind: 'moved', oldStart, newStart: session.startDatetime, refund: false, at });
  await tx.execute(sql`
    INSERT INTO email_outbox (kind, order_id, recipient, next_attempt_at, created_at, session_change_id, lang)
    SELECT DISTINCT ON (lower(c.email)) 'session_changed', NULL, c.email, ${at}::timestamptz, ${at}::timestamptz, ${changeId}::bigint, o.lang
    FROM orders o
    JOIN customers c ON c.id = o.customer_id
    WHERE o.status = 'completed' AND o.type IN ('purchase', 'reservation') AND c.email <> ''
      AND EXISTS (SELECT 1 FROM order_items i JOIN tickets t ON t.order_item_id = i.id
                  WHERE i.order_id = o.id AND i.session_id = ${sessionId} AND t.status = 'valid')
    ORDER BY lower(c.email), o.id DESC
    ON CONFLICT DO NOTHING`);
  await tellChannels(tx, 'session.changed', session, { session: eventData(session, oldStart) }, at);
}
