import { and, eq, sql } from 'drizzle-orm';
import { queryRows, type Db } from '../../db/client.js';
import { orders, paymentNotifications, payments, type PaymentProviderName } from '../../db/schema/index.js';
import type { OrderStatus } from '../../db/schema/index.js';

export interface PortalOrder {
  id: number;
  orderToken: string;
  reference: string;
  channelId: number;
  status: OrderStatus;
  lang: string;
  currency: string;
  totalAmount: number;
  expiresAt: Date | null;
  transactionId: string | null;
  itemCount: number;
}

/**
 * A purchase of one channel by its token (another channel's order is not found, D5); with
 * `reservations`, also an order the box office issued without payment (its ticket e-mail links the
 * order page too).
 */
export async function findChannelOrder(db: Db, channelId: number, orderToken: string, opts: { reservations?: boolean } = {}): Promise<PortalOrder | null> {
  const rows = await queryRows<PortalOrder & { expiresAt: string | Date | null }>(
    db,
    sql`SELECT o.id::int AS "id", o.order_token AS "orderToken", o.reference, o.channel_id AS "channelId", o.status,
               o.lang, o.currency, o.total_amount AS "totalAmount", o.expires_at AS "expiresAt",
               o.transaction_id AS "transactionId",
               (SELECT count(*)::int FROM order_items i WHERE i.order_id = o.id) AS "itemCount"
          FROM orders o
         WHERE o.channel_id = ${channelId} AND o.order_token = ${orderToken}
           AND (o.type = 'purchase' OR (${opts.reservations ?? false}::boolean AND o.type = 'reservation'))`,
  );
  const row = rows[0];
  if (!row) return null;
  return { ...row, id: Number(row.id), expiresAt: row.expiresAt ? new Date(row.expiresAt) : null };
}

export async function findOrderById(db: Db, orderId: number) {
  const rows = await db.select().from(orders).where(eq(orders.id, orderId));
  return rows[0] ?? null;
}

export type NewPayment = typeof payments.$inferInsert;
export type PaymentRow = typeof payments.$inferSelect;

export async function insertPayment(db: Db, payment: NewPayment): Promise<PaymentRow> {
  const [row] = await db.insert(payments).values(payment).returning();
  return row!;
}

export async function setProviderRef(db: Db, paymentId: string, providerRef: string | null, now: Date) {
  await db.update(payments).set({ providerRef, updatedAt: now }).where(eq(payments.id, paymentId));
}

/** The provider's reference of the captured money (a Stripe payment intent), which a refund names (D58). */
export async function setTransactionRef(db: Db, paymentId: string, transactionRef: string) {
  await db.update(payments).set({ transactionRef }).where(eq(payments.id, paymentId));
}

export async function findPayment(db: Db, paymentId: string): Promise<PaymentRow | null> {
  const rows = await db.select().from(payments).where(eq(payments.id, paymentId));
  return rows[0] ?? null;
}

export async function findPaymentByProviderRef(db: Db, provider: PaymentProviderName, ref: string): Promise<PaymentRow | null> {
  const rows = await db
    .select()
    .from(payments)
    .where(and(eq(payments.provider, provider), eq(payments.providerRef, ref)));
  return rows[0] ?? null;
}

/** Latest payment attempt of an order, for the order page. */
export async function latestPaymentOfOrder(db: Db, orderId: number): Promise<PaymentRow | null> {
  const rows = await db
    .select()
    .from(payments)
    .where(eq(payments.orderId, orderId))
    .orderBy(sql`${payments.createdAt} DESC, ${payments.id} DESC`)
    .limit(1);
  return rows[0] ?? null;
}

/** Records a notification id; false when it was already recorded (a replay). */
export async function claimNotification(
  db: Db,
  n: { provider: PaymentProviderName; notificationId: string; paymentId: string | null; kind: string; now: Date },
): Promise<boolean> {
  const rows = await db
    .insert(paymentNotifications)
    .values({ provider: n.provider, notificationId: n.notificationId, paymentId: n.paymentId, kind: n.kind, receivedAt: n.now })
    .onConflictDoNothing()
    .returning({ id: paymentNotifications.notificationId });
  return rows.length === 1;
}

export async function setNotificationResult(db: Db, provider: PaymentProviderName, notificationId: string, result: string) {
  await db
    .update(paymentNotifications)
    .set({ result })
    .where(and(eq(paymentNotifications.provider, provider), eq(paymentNotifications.notificationId, notificationId)));
}

/** Forgets a notification whose processing failed, so that the provider's retry is processed. */
export async function releaseNotification(db: Db, provider: PaymentProviderName, notificationId: string) {
  await db
    .delete(paymentNotifications)
    .where(and(eq(paymentNotifications.provider, provider), eq(paymentNotifications.notificationId, notificationId)));
}

