import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { events, rates, sessions, vouchers } from '../../db/schema/index.js';

// The back office's reads and writes of vouchers (vouchers-admin.service.ts).

/** A voucher row as the back office edits it. */
export type VoucherAdminRow = typeof vouchers.$inferSelect;

/** Organiser of an event, session or rate, or null when it does not exist. */
export async function organiserOf(db: Db, target: 'event' | 'session' | 'rate', id: number): Promise<number | null> {
  const q =
    target === 'event'
      ? db.select({ o: events.organiserId }).from(events).where(eq(events.id, id))
      : target === 'session'
        ? db.select({ o: events.organiserId }).from(sessions).innerJoin(events, eq(events.id, sessions.eventId)).where(eq(sessions.id, id))
        : db
            .select({ o: events.organiserId })
            .from(rates)
            .innerJoin(sessions, eq(sessions.id, rates.sessionId))
            .innerJoin(events, eq(events.id, sessions.eventId))
            .where(eq(rates.id, id));
  return (await q)[0]?.o ?? null;
}

export async function findVoucher(db: Db, id: number): Promise<VoucherAdminRow | null> {
  const [row] = await db.select().from(vouchers).where(eq(vouchers.id, id));
  return row ?? null;
}

/** The id of the organiser's voucher with this code, or null. */
export async function voucherIdByCode(db: Db, organiserId: number, code: string): Promise<number | null> {
  const [row] = await db.select({ id: vouchers.id }).from(vouchers).where(and(eq(vouchers.organiserId, organiserId), eq(vouchers.code, code)));
  return row?.id ?? null;
}

/** Vouchers of one organiser (or of all when null), by code. */
export async function listVouchers(db: Db, organiserId: number | null): Promise<VoucherAdminRow[]> {
  return db
    .select()
    .from(vouchers)
    .where(organiserId === null ? undefined : eq(vouchers.organiserId, organiserId))
    .orderBy(asc(vouchers.code), asc(vouchers.id));
}

export async function insertVoucher(db: Db, values: typeof vouchers.$inferInsert): Promise<VoucherAdminRow> {
  const [row] = await db.insert(vouchers).values(values).returning();
  return row!;
}

export async function updateVoucher(db: Db, id: number, patch: Partial<VoucherAdminRow>): Promise<VoucherAdminRow> {
  const [row] = await db.update(vouchers).set(patch).where(eq(vouchers.id, id)).returning();
  return row!;
}
