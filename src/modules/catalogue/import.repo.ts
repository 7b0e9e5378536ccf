import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import * as t from '../../db/schema/index.js';
import type { CredentialScope } from '../../lib/integration-policy.js';
import { sha256 } from '../../lib/secrets.js';

// The writes of a catalogue import (import.service.ts owns the one transaction and hands it in as
// `tx`). Events, sessions, rates and fees are written by catalogue-admin.repo.ts, as the back
// office writes them.

export async function insertOrganiser(tx: Db, name: string): Promise<number> {
  const [row] = await tx.insert(t.organisers).values({ name }).returning({ id: t.organisers.id });
  return row!.id;
}

export async function insertVenue(tx: Db, venue: typeof t.venues.$inferInsert): Promise<number> {
  const [row] = await tx.insert(t.venues).values(venue).returning({ id: t.venues.id });
  return row!.id;
}

export async function insertTranslations(tx: Db, rows: (typeof t.eventTranslations.$inferInsert)[]): Promise<void> {
  await tx.insert(t.eventTranslations).values(rows);
}

export async function insertVoucher(tx: Db, voucher: typeof t.vouchers.$inferInsert): Promise<number> {
  const [row] = await tx.insert(t.vouchers).values(voucher).returning({ id: t.vouchers.id });
  return row!.id;
}

export async function insertChannel(tx: Db, channel: typeof t.salesChannels.$inferInsert): Promise<number> {
  const [row] = await tx.insert(t.salesChannels).values(channel).returning({ id: t.salesChannels.id });
  return row!.id;
}

export async function linkChannelEvents(tx: Db, channelId: number, eventIds: number[]): Promise<void> {
  if (eventIds.length) await tx.insert(t.channelEvents).values(eventIds.map((eventId) => ({ channelId, eventId })));
}

/** Fixed keys of a document (demo and test channels): stored as hashes, like generated ones. */
export async function insertFixedKeys(tx: Db, scope: CredentialScope, channelId: number, keys: string[]): Promise<void> {
  const table = scope === 'widget' ? t.widgetKeys : t.serverKeys;
  for (const key of keys) await tx.insert(table).values({ channelId, keyHash: sha256(key), lastFour: key.slice(-4) });
}

/**
 * One inventory row per numbered seat of the session's layout version (D64) and per place of each
 * unnumbered zone of it (the venue's newest version: a new session takes the newest).
 */
export async function createSessionInventory(tx: Db, sessionId: number, venueId: number): Promise<void> {
  await tx.execute(sql`
    INSERT INTO session_seats (session_id, sector_id, seat_id)
    SELECT ${sessionId}, s.id, st.id FROM sessions se JOIN seats st ON st.layout_id = se.layout_id JOIN sectors s ON s.id = st.sector_id
    WHERE se.id = ${sessionId}
    ORDER BY s.sort_order, st.id`);
  await tx.execute(sql`
    INSERT INTO session_seats (session_id, sector_id, seat_id)
    SELECT ${sessionId}, s.id, NULL FROM sectors s CROSS JOIN generate_series(1, s.capacity)
    WHERE s.venue_id = ${venueId} AND NOT s.numbered AND NOT s.retired`);
}

// ---- a second import of a document (issue 29): what the first created, by the document's keys

/**
 * Serialises imports of one document: the row of the document itself, inserted if new and locked.
 * A parallel import of the same new document waits on the primary key until the first commits.
 */
export async function lockImportScope(tx: Db, scope: string): Promise<void> {
  await tx.insert(t.catalogueImportKeys).values({ scope, kind: 'document', key: scope, objectId: 0 }).onConflictDoNothing();
  await tx.execute(sql`SELECT 1 FROM catalogue_import_keys WHERE scope = ${scope} AND kind = 'document' AND key = ${scope} FOR UPDATE`);
}

export async function recordedObject(tx: Db, scope: string, kind: string, key: string): Promise<number | null> {
  const k = t.catalogueImportKeys;
  const [row] = await tx.select({ id: k.objectId }).from(k).where(and(eq(k.scope, scope), eq(k.kind, kind), eq(k.key, key)));
  return row?.id ?? null;
}

export async function rememberObject(tx: Db, scope: string, kind: string, key: string, objectId: number): Promise<void> {
  await tx.insert(t.catalogueImportKeys).values({ scope, kind, key, objectId });
}

export async function forgetObject(tx: Db, scope: string, kind: string, key: string): Promise<void> {
  const k = t.catalogueImportKeys;
  await tx.delete(k).where(and(eq(k.scope, scope), eq(k.kind, kind), eq(k.key, key)));
}

export async function findOrganiser(tx: Db, id: number) {
  const [row] = await tx.select().from(t.organisers).where(eq(t.organisers.id, id));
  return row ?? null;
}

export async function updateOrganiserName(tx: Db, id: number, name: string): Promise<void> {
  await tx.update(t.organisers).set({ name }).where(eq(t.organisers.id, id));
}

export async function updateVenueFields(tx: Db, id: number, fields: { name: string; address: string | null; city: string | null }): Promise<void> {
  await tx.update(t.venues).set(fields).where(eq(t.venues.id, id));
}

/** The plan of the venue's newest layout version, as saved. */
export async function newestLayoutDocument(tx: Db, venueId: number): Promise<unknown> {
  const l = t.venueLayouts;
  const [row] = await tx.select({ document: l.document }).from(l).where(eq(l.venueId, venueId)).orderBy(desc(l.version)).limit(1);
  return row?.document ?? null;
}

export async function currentSectorIds(tx: Db, venueId: number): Promise<{ id: number; name: string }[]> {
  return tx.select({ id: t.sectors.id, name: t.sectors.name }).from(t.sectors).where(and(eq(t.sectors.venueId, venueId), eq(t.sectors.retired, false)));
}

export async function findVoucher(tx: Db, id: number) {
  const [row] = await tx.select().from(t.vouchers).where(eq(t.vouchers.id, id));
  return row ?? null;
}

export async function updateVoucher(tx: Db, id: number, patch: Partial<typeof t.vouchers.$inferInsert>): Promise<void> {
  await tx.update(t.vouchers).set(patch).where(eq(t.vouchers.id, id));
}

export async function findChannel(tx: Db, id: number) {
  const [row] = await tx.select().from(t.salesChannels).where(eq(t.salesChannels.id, id));
  return row ?? null;
}

export async function updateChannel(tx: Db, id: number, patch: Partial<typeof t.salesChannels.$inferInsert>): Promise<void> {
  await tx.update(t.salesChannels).set(patch).where(eq(t.salesChannels.id, id));
}

/** Links the events the channel does not sell yet; true when it linked any. */
export async function addChannelEvents(tx: Db, channelId: number, eventIds: number[]): Promise<boolean> {
  if (!eventIds.length) return false;
  const rows = await tx
    .insert(t.channelEvents)
    .values(eventIds.map((eventId) => ({ channelId, eventId })))
    .onConflictDoNothing()
    .returning({ id: t.channelEvents.eventId });
  return rows.length > 0;
}

/** The document's fixed keys the channel does not have yet; true when it added any. */
export async function addFixedKeys(tx: Db, scope: CredentialScope, channelId: number, keys: string[]): Promise<boolean> {
  const table = scope === 'widget' ? t.widgetKeys : t.serverKeys;
  const have = new Set((await tx.select({ hash: table.keyHash }).from(table).where(eq(table.channelId, channelId))).map((r) => r.hash));
  const missing = keys.filter((key) => !have.has(sha256(key)));
  await insertFixedKeys(tx, scope, channelId, missing);
  return missing.length > 0;
}
