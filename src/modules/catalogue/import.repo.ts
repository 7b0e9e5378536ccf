import { sql } from 'drizzle-orm';
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

export async function insertVoucher(tx: Db, voucher: typeof t.vouchers.$inferInsert): Promise<void> {
  await tx.insert(t.vouchers).values(voucher);
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
