import { asc, eq, sql, type Column, type SQL } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { organisers } from '../db/schema/index.js';

// Organisers are the tenants that channels, catalogues, vouchers and accounts belong to, and the
// scope of every back-office actor: their SQL sits beside the actor so that every module reads it alike.

/** Whether an organiser with this id exists. */
export async function organiserExists(db: Db, id: number): Promise<boolean> {
  const rows = await db.select({ id: organisers.id }).from(organisers).where(eq(organisers.id, id));
  return rows.length > 0;
}

/**
 * The condition that limits a back-office read to one organiser's rows (`column` is the table's
 * organiser id), or none when `organiserId` is null: an admin's scope (organiserScope) sees every row.
 */
export const ofOrganiser = (column: Column, organiserId: number | null): SQL | undefined =>
  organiserId === null ? undefined : eq(column, organiserId);

/** ofOrganiser for a raw SQL WHERE: `column = organiserId` (e.g. sql`e.organiser_id`), or `true` for an admin's scope. */
export const ofOrganiserSql = (column: SQL, organiserId: number | null): SQL =>
  organiserId === null ? sql`true` : sql`${column} = ${organiserId}`;

/** Every organiser, or only the one with `onlyId`, by id. */
export async function listOrganisers(db: Db, onlyId: number | null = null) {
  return db
    .select()
    .from(organisers)
    .where(ofOrganiser(organisers.id, onlyId))
    .orderBy(asc(organisers.id));
}

export async function insertOrganiser(db: Db, name: string, now: Date, settings: { refundFees?: boolean; replyToEmail?: string | null } = {}) {
  const [row] = await db
    .insert(organisers)
    .values({ name, createdAt: now, refundFees: settings.refundFees ?? true, replyToEmail: settings.replyToEmail ?? null })
    .returning();
  return row!;
}

/** Sets what is given (undefined: unchanged); null when there is no such organiser. */
export async function updateOrganiserRow(db: Db, id: number, change: { name?: string; refundFees?: boolean; replyToEmail?: string | null }) {
  const set = Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined));
  if (Object.keys(set).length === 0) return (await db.select().from(organisers).where(eq(organisers.id, id)))[0] ?? null;
  const [row] = await db.update(organisers).set(set).where(eq(organisers.id, id)).returning();
  return row ?? null;
}
