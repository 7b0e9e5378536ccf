import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../../db/client.js';
import { dbDate, type DbTime } from '../../db/instants.js';

export interface VoucherRow {
  id: number;
  code: string;
  kind: 'percent' | 'fixed';
  value: number;
  validFrom: Date | null;
  validUntil: Date | null;
  maxUses: number | null;
  eventId: number | null;
  sessionId: number | null;
  rateId: number | null;
  /** False when the organiser disabled it (D75). */
  active: boolean;
}

/**
 * The organiser's voucher with this code, locked for the rest of the transaction: two carts applying
 * the same voucher count its uses one after the other, so a use limit cannot be overrun.
 */
export async function lockVoucher(db: Db, organiserId: number, code: string): Promise<VoucherRow | null> {
  const rows = await queryRows<{
    id: number;
    code: string;
    kind: 'percent' | 'fixed';
    value: number;
    valid_from: DbTime | null;
    valid_until: DbTime | null;
    max_uses: number | null;
    event_id: number | null;
    session_id: number | null;
    rate_id: number | null;
    active: boolean;
  }>(
    db,
    sql`SELECT id, code, kind, value, valid_from, valid_until, max_uses, event_id, session_id, rate_id, active
        FROM vouchers WHERE organiser_id = ${organiserId} AND code = ${code} FOR UPDATE`,
  );
  const r = rows[0];
  if (!r) return null;
  return {
    id: r.id,
    code: r.code,
    kind: r.kind,
    value: r.value,
    validFrom: dbDate(r.valid_from),
    validUntil: dbDate(r.valid_until),
    maxUses: r.max_uses,
    eventId: r.event_id,
    sessionId: r.session_id,
    rateId: r.rate_id,
    active: r.active,
  };
}

/** Uses of a voucher by other orders that are live carts (pending, not expired) or completed. */
export async function countUses(db: Db, voucherId: number, exceptOrderId: number, now: Date): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    db,
    sql`SELECT count(*)::int AS n
        FROM order_vouchers ov JOIN orders o ON o.id = ov.order_id
        WHERE ov.voucher_id = ${voucherId} AND ov.order_id <> ${exceptOrderId}
          AND (o.status = 'completed' OR (o.status = 'pending' AND o.expires_at > ${now}))`,
  );
  return Number(row?.n ?? 0);
}

export async function orderVoucherCodes(db: Db, orderId: number): Promise<{ voucherId: number; code: string }[]> {
  const rows = await queryRows<{ voucher_id: number; code: string }>(
    db,
    sql`SELECT voucher_id, code FROM order_vouchers WHERE order_id = ${orderId}`,
  );
  return rows.map((r) => ({ voucherId: r.voucher_id, code: r.code }));
}

/** Makes `voucherId` the order's only voucher. */
export async function replaceOrderVoucher(db: Db, orderId: number, voucherId: number, code: string, now: Date): Promise<void> {
  await db.execute(sql`DELETE FROM order_vouchers WHERE order_id = ${orderId}`);
  await db.execute(sql`INSERT INTO order_vouchers (order_id, voucher_id, code, created_at) VALUES (${orderId}, ${voucherId}, ${code}, ${now})`);
}

export async function removeOrderVoucher(db: Db, orderId: number, voucherId: number): Promise<void> {
  await db.execute(sql`DELETE FROM order_vouchers WHERE order_id = ${orderId} AND voucher_id = ${voucherId}`);
}
