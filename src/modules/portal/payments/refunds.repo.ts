import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../../../db/client.js';
import type { PaymentProviderName, PaymentStatus } from '../../../db/schema/index.js';

// The SQL of card refunds (payments.refunds.ts): the payment under lock and payment_refunds.

export interface LockedPayment {
  id: string;
  orderId: number;
  provider: PaymentProviderName;
  providerRef: string | null;
  transactionRef: string | null;
  amount: number;
  currency: string;
  status: PaymentStatus;
}

const PAYMENT_COLUMNS = sql`id, order_id::int AS "orderId", provider, provider_ref AS "providerRef",
  transaction_ref AS "transactionRef", amount, currency, status`;

/** The payment, locked until the end of the transaction: its refunds are decided one at a time. */
export async function lockPayment(tx: Db, paymentId: string): Promise<LockedPayment | null> {
  const [row] = await queryRows<LockedPayment>(tx, sql`SELECT ${PAYMENT_COLUMNS} FROM payments WHERE id = ${paymentId} FOR UPDATE`);
  return row ?? null;
}

/** The payment that paid a completed card order (orders.transaction_id names it), or null. */
export async function cardPaymentOfOrder(db: Db, orderId: number): Promise<LockedPayment | null> {
  const [row] = await queryRows<LockedPayment>(
    db,
    sql`SELECT ${PAYMENT_COLUMNS} FROM payments
         WHERE order_id = ${orderId} AND status = 'succeeded'
           AND id = (SELECT transaction_id FROM orders WHERE id = ${orderId} AND payment_method = 'card')`,
  );
  return row ?? null;
}

export interface PaymentRefundRow {
  paymentId: string;
  amount: number;
  providerRefundRef: string;
}

export async function paymentRefundByKey(db: Db, key: string): Promise<PaymentRefundRow | null> {
  const [row] = await queryRows<PaymentRefundRow>(
    db,
    sql`SELECT payment_id AS "paymentId", amount, provider_refund_ref AS "providerRefundRef" FROM payment_refunds WHERE key = ${key}`,
  );
  return row ?? null;
}

/** Minor units already given back of a payment. */
export async function refundedAmount(db: Db, paymentId: string): Promise<number> {
  const [row] = await queryRows<{ total: number | string }>(
    db,
    sql`SELECT COALESCE(sum(amount), 0)::int AS total FROM payment_refunds WHERE payment_id = ${paymentId}`,
  );
  return Number(row?.total ?? 0);
}

/** Records a confirmed refund; false when the key is recorded already (UNIQUE). */
export async function insertPaymentRefund(
  db: Db,
  r: { paymentId: string; provider: PaymentProviderName; amount: number; currency: string; providerRefundRef: string; reason: string; key: string; now: Date },
): Promise<boolean> {
  const rows = await queryRows<{ id: number }>(
    db,
    sql`INSERT INTO payment_refunds (payment_id, provider, amount, currency, provider_refund_ref, reason, key, created_at)
        VALUES (${r.paymentId}, ${r.provider}, ${r.amount}, ${r.currency}, ${r.providerRefundRef}, ${r.reason}, ${r.key}, ${r.now})
        ON CONFLICT (key) DO NOTHING RETURNING id`,
  );
  return rows.length === 1;
}
