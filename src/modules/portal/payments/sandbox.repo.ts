import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../../../db/client.js';
import type { DbTime } from '../../../db/instants.js';

// The sandbox provider's own books (D27, D58): it stands in for a provider's side, so it keeps
// its refunds in a table of its own (sandbox_refunds), apart from what this service records.

export interface SandboxRefund {
  id: string;
  amount: number;
  currency: string;
  reason: string;
  createdAt: Date;
}

/** The captured payment as the sandbox sees it: amount, currency, whether it was paid. */
export async function sandboxCapture(db: Db, paymentId: string): Promise<{ amount: number; currency: string; status: string } | null> {
  const [row] = await queryRows<{ amount: number; currency: string; status: string }>(
    db,
    sql`SELECT amount, currency, status FROM payments WHERE id = ${paymentId} AND provider = 'sandbox'`,
  );
  return row ?? null;
}

/** The refund recorded under an idempotency key, or null. */
export async function sandboxRefundByKey(db: Db, key: string): Promise<SandboxRefund | null> {
  const [row] = await queryRows<SandboxRefund>(
    db,
    sql`SELECT id, amount, currency, reason, created_at AS "createdAt" FROM sandbox_refunds WHERE idempotency_key = ${key}`,
  );
  return row ?? null;
}

/** Every refund of a payment, oldest first (the test card page lists them). */
export async function sandboxRefundsOf(db: Db, paymentId: string): Promise<SandboxRefund[]> {
  const rows = await queryRows<SandboxRefund & { createdAt: DbTime }>(
    db,
    sql`SELECT id, amount, currency, reason, created_at AS "createdAt" FROM sandbox_refunds
         WHERE payment_id = ${paymentId} ORDER BY created_at, id`,
  );
  return rows.map((r) => ({ ...r, createdAt: new Date(r.createdAt) }));
}

/**
 * Records a refund unless one with this key exists, and only while the payment's refunds stay
 * within what was captured (one statement, so that two refunds cannot both fit). The refund under
 * the key (new or earlier), or null when it would exceed the capture.
 */
export async function insertSandboxRefund(
  db: Db,
  r: { id: string; paymentId: string; amount: number; currency: string; reason: string; key: string; now: Date },
): Promise<SandboxRefund | null> {
  await db.execute(sql`
    INSERT INTO sandbox_refunds (id, payment_id, amount, currency, reason, idempotency_key, created_at)
    SELECT ${r.id}, ${r.paymentId}, ${r.amount}, ${r.currency}, ${r.reason}, ${r.key}, ${r.now}
      FROM payments p
     WHERE p.id = ${r.paymentId}
       AND p.amount >= ${r.amount} + (SELECT COALESCE(sum(s.amount), 0) FROM sandbox_refunds s WHERE s.payment_id = p.id)
    ON CONFLICT (idempotency_key) DO NOTHING`);
  return sandboxRefundByKey(db, r.key);
}
