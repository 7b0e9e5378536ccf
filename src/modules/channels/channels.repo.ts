import { asc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { channelColumns, type ChannelRecord } from '../../db/channel-record.js';
import { channelEvents, events, salesChannels, type Branding, type IntegrationMode } from '../../db/schema/index.js';


export async function findChannelBySlug(db: Db, slug: string): Promise<ChannelRecord | null> {
  const rows = await db.select(channelColumns).from(salesChannels).where(eq(salesChannels.slug, slug));
  return rows[0] ?? null;
}

export async function findChannelById(db: Db, id: number): Promise<ChannelRecord | null> {
  const rows = await db.select(channelColumns).from(salesChannels).where(eq(salesChannels.id, id));
  return rows[0] ?? null;
}

export async function listChannels(db: Db): Promise<ChannelRecord[]> {
  return db.select(channelColumns).from(salesChannels).orderBy(salesChannels.slug);
}

export interface NewChannel {
  organiserId: number;
  slug: string;
  name: string;
  integrationMode: IntegrationMode;
  checkoutUrl?: string | null;
  websiteUrl?: string | null;
  branding?: Branding;
  cartTtlSeconds?: number | null;
  defaultLang?: string;
}

export async function insertChannel(db: Db, channel: NewChannel): Promise<ChannelRecord> {
  const [row] = await db.insert(salesChannels).values(channel).returning(channelColumns);
  return row!;
}

export async function organiserEventIds(db: Db, organiserId: number): Promise<number[]> {
  const rows = await db.select({ id: events.id }).from(events).where(eq(events.organiserId, organiserId)).orderBy(asc(events.id));
  return rows.map((r) => r.id);
}

export async function linkChannelEvents(db: Db, channelId: number, eventIds: number[]): Promise<void> {
  await db
    .insert(channelEvents)
    .values(eventIds.map((eventId) => ({ channelId, eventId })))
    .onConflictDoNothing();
}

export async function channelEventIds(db: Db, channelId: number): Promise<number[]> {
  const rows = await db
    .select({ id: channelEvents.eventId })
    .from(channelEvents)
    .where(eq(channelEvents.channelId, channelId))
    .orderBy(asc(channelEvents.eventId));
  return rows.map((r) => r.id);
}
