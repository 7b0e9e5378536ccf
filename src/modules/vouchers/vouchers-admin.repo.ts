import { and, asc, eq, sql } from 'drizzle-orm';
import { queryRows, type Db } from '../../db/client.js';
import { events, rates, sessions, vouchers } from '../../db/schema/index.js';
import { eventTextSql } from '../../platform/i18n.js';
import { ofOrganiser, ofOrganiserSql } from '../../platform/organisers.repo.js';
import type { DbTime } from '../../db/instants.js';

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
    .where(ofOrganiser(vouchers.organiserId, organiserId))
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

/**
 * What a voucher may be limited to, for the dashboard's pickers: the events of one organiser (or of
 * all when null) with their sessions and rates, one row per rate (a session without rates, an event
 * without sessions: one row with nulls), by event name and start.
 */
export function voucherTargets(db: Db, organiserId: number | null) {
  return queryRows<{ event_id: number; event_name: string; session_id: number | null; start_datetime: DbTime | null; rate_id: number | null; rate_name: string | null }>(
    db,
    sql`SELECT e.id AS event_id, COALESCE(${eventTextSql('name', sql`e.id`, sql`e.default_lang`, sql`e.default_lang`)}, '') AS event_name,
               s.id AS session_id, s.start_datetime, r.id AS rate_id, r.name AS rate_name
          FROM events e LEFT JOIN sessions s ON s.event_id = e.id LEFT JOIN rates r ON r.session_id = s.id
         WHERE ${ofOrganiserSql(sql`e.organiser_id`, organiserId)}
         ORDER BY event_name, e.id, s.start_datetime, s.id, r.name, r.id
         LIMIT 5000`,
  );
}
