import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../../../db/client.js';
import type { OrderStatus, PaymentStatus } from '../../../db/schema/index.js';
import { payments } from '../../../db/schema/index.js';
import { and, asc, eq, or, type SQL } from 'drizzle-orm';
import { dbDate, type DbTime } from '../../../db/instants.js';

// SQL of the payment attempts (D73): one open attempt per order, closed with its cart, and the
// automatic refund of the payments that could not complete their order.

export type PaymentRow = typeof payments.$inferSelect;

/** The order as a payment's completion sees it, locked for the rest of the transaction. */
export interface LockedOrder {
  id: number;
  status: OrderStatus;
  expiresAt: Date | null;
  totalAmount: number;
  transactionId: string | null;
  itemCount: number;
}

export async function lockOrder(tx: Db, orderId: number): Promise<LockedOrder | null> {
  const rows = await queryRows<{ id: string | number; status: OrderStatus; expires_at: DbTime | null; total_amount: number; transaction_id: string | null }>(
    tx,
    sql`SELECT id, status, expires_at, total_amount, transaction_id FROM orders WHERE id = ${orderId} AND type = 'purchase' FOR UPDATE`,
  );
  const row = rows[0];
  if (!row) return null;
  const [count] = await queryRows<{ n: number }>(tx, sql`SELECT count(*)::int AS n FROM order_items WHERE order_id = ${orderId}`);
  return {
    id: Number(row.id),
    status: row.status,
    expiresAt: dbDate(row.expires_at),
    totalAmount: Number(row.total_amount),
    transactionId: row.transaction_id,
    itemCount: count?.n ?? 0,
  };
}

/** The order of a channel by its token, locked (checkout start). */
export async function lockChannelOrderId(tx: Db, channelId: number, orderToken: string): Promise<number | null> {
  const rows = await queryRows<{ id: string | number }>(
    tx,
    sql`SELECT id FROM orders WHERE channel_id = ${channelId} AND order_token = ${orderToken} AND type = 'purchase' FOR UPDATE`,
  );
  return rows[0] ? Number(rows[0].id) : null;
}

export async function lockPayment(tx: Db, paymentId: string): Promise<PaymentRow | null> {
  const rows = await tx.select().from(payments).where(eq(payments.id, paymentId)).for('update');
  return rows[0] ?? null;
}

/** The order's open attempt, if any (at most one: payments_one_open_attempt_idx). */
export async function openAttemptOf(db: Db, orderId: number): Promise<PaymentRow | null> {
  const rows = await db
    .select()
    .from(payments)
    .where(and(eq(payments.orderId, orderId), eq(payments.status, 'pending')));
  return rows[0] ?? null;
}

export async function countAttempts(db: Db, orderId: number): Promise<number> {
  const [row] = await queryRows<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM payments WHERE order_id = ${orderId}`);
  return row?.n ?? 0;
}

/**
 * Closes an open attempt on our side (status cancelled); the provider's session is closed next
 * (provider_closed_at). False when it was not open any more.
 */
export async function closeAttempt(db: Db, paymentId: string, reason: string, now: Date): Promise<boolean> {
  const rows = await queryRows<{ id: string }>(
    db,
    sql`UPDATE payments SET status = 'cancelled', failure_reason = ${reason}, closed_at = ${now}, updated_at = ${now}
         WHERE id = ${paymentId} AND status = 'pending' RETURNING id`,
  );
  return rows.length === 1;
}

/** Extends a cart (and its holds) once to cover the provider's session (D73); never shortens it. */
export async function extendCart(tx: Db, orderId: number, until: Date, now: Date): Promise<void> {
  await tx.execute(sql`UPDATE orders SET expires_at = ${until}, updated_at = ${now}
                        WHERE id = ${orderId} AND expires_at IS NOT NULL AND expires_at < ${until}`);
  await tx.execute(sql`UPDATE session_seats SET hold_expires_at = ${until}
                        WHERE order_id = ${orderId} AND status = 'held' AND hold_expires_at < ${until}`);
}

/**
 * Settles a payment under its order's lock: succeeded, declined, or refund_required (then the
 * refund is due now). The provider's session needs no closing after any of these.
 */
export async function settle(tx: Db, paymentId: string, status: PaymentStatus, reason: string | null, now: Date): Promise<void> {
  await tx.execute(sql`
    UPDATE payments SET status = ${status}, failure_reason = ${reason}, updated_at = ${now},
           closed_at = COALESCE(closed_at, ${now}), provider_closed_at = COALESCE(provider_closed_at, ${now}),
           refund_next_at = CASE WHEN ${status} = 'refund_required' THEN ${now}::timestamptz ELSE refund_next_at END
     WHERE id = ${paymentId}`);
}

/** Closed attempts whose provider session is still to be closed, oldest first. */
export async function attemptsToCloseAtProvider(db: Db, limit: number, orderId?: number): Promise<PaymentRow[]> {
  const where: SQL[] = [eq(payments.status, 'cancelled'), sql`${payments.providerClosedAt} IS NULL`];
  if (orderId !== undefined) where.push(eq(payments.orderId, orderId));
  return db
    .select()
    .from(payments)
    .where(and(...where))
    .orderBy(asc(payments.closedAt))
    .limit(limit);
}

export async function markClosedAtProvider(db: Db, paymentId: string, now: Date): Promise<void> {
  await db.update(payments).set({ providerClosedAt: now }).where(eq(payments.id, paymentId));
}

/**
 * Claims up to `limit` refund_required payments whose refund is due, for `leaseMs` (several
 * instances can run side by side: SKIP LOCKED, and the lease keeps the others off a claimed row).
 */
export async function claimDueRefunds(db: Db, now: Date, leaseUntil: Date, limit: number): Promise<PaymentRow[]> {
  const rows = await queryRows<{ id: string }>(
    db,
    sql`UPDATE payments SET refund_next_at = ${leaseUntil}, refund_attempts = refund_attempts + 1
         WHERE id IN (SELECT id FROM payments
                       WHERE status = 'refund_required' AND (refund_next_at IS NULL OR refund_next_at <= ${now})
                       ORDER BY refund_next_at NULLS FIRST, id LIMIT ${limit} FOR UPDATE SKIP LOCKED)
     RETURNING id`,
  );
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  return db
    .select()
    .from(payments)
    .where(or(...ids.map((id) => eq(payments.id, id))));
}

/** The refund went through: `refunded`, with the provider's reference. False when it already was. */
export async function markRefunded(tx: Db, paymentId: string, refundRef: string, now: Date): Promise<boolean> {
  const rows = await queryRows<{ id: string }>(
    tx,
    sql`UPDATE payments SET status = 'refunded', refunded_at = ${now}, refund_ref = ${refundRef}, refund_error = NULL,
               refund_next_at = NULL, updated_at = ${now}
         WHERE id = ${paymentId} AND status = 'refund_required' RETURNING id`,
  );
  return rows.length === 1;
}

export async function markRefundFailed(db: Db, paymentId: string, error: string, retryAt: Date, now: Date): Promise<void> {
  await db.execute(sql`UPDATE payments SET refund_error = ${error.slice(0, 500)}, refund_next_at = ${retryAt}, updated_at = ${now}
                        WHERE id = ${paymentId} AND status = 'refund_required'`);
}

/** Queues the buyer's payment refund e-mail (D73), once per payment. */
export async function queueRefundEmail(tx: Db, p: { orderId: number; paymentId: string; recipient: string; at: Date }): Promise<void> {
  await tx.execute(sql`
    INSERT INTO email_outbox (kind, order_id, payment_id, recipient, next_attempt_at, created_at)
    VALUES ('payment_refunded', ${p.orderId}, ${p.paymentId}, ${p.recipient}, ${p.at}, ${p.at})
    ON CONFLICT (payment_id, kind) WHERE payment_id IS NOT NULL DO NOTHING`);
}
