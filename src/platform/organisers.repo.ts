import { eq } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { organisers } from '../db/schema/index.js';

// Organisers are the tenants that channels, catalogues, vouchers and accounts belong to; the
// existence check sits beside the actor (who is scoped by organiser) so that every module asks it alike.

/** Whether an organiser with this id exists. */
export async function organiserExists(db: Db, id: number): Promise<boolean> {
  const rows = await db.select({ id: organisers.id }).from(organisers).where(eq(organisers.id, id));
  return rows.length > 0;
}
