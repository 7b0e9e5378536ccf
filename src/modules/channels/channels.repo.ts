import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { salesChannels, widgetKeys, type Branding, type IntegrationMode } from '../../db/schema/index.js';

export interface ChannelRecord {
  id: number;
  organiserId: number;
  slug: string;
  name: string;
  integrationMode: IntegrationMode;
  checkoutUrl: string | null;
  branding: Branding;
  cartTtlSeconds: number | null;
  defaultLang: string;
}

const channelColumns = {
  id: salesChannels.id,
  organiserId: salesChannels.organiserId,
  slug: salesChannels.slug,
  name: salesChannels.name,
  integrationMode: salesChannels.integrationMode,
  checkoutUrl: salesChannels.checkoutUrl,
  branding: salesChannels.branding,
  cartTtlSeconds: salesChannels.cartTtlSeconds,
  defaultLang: salesChannels.defaultLang,
};

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
  branding?: Branding;
  cartTtlSeconds?: number | null;
  defaultLang?: string;
}

export async function insertChannel(db: Db, channel: NewChannel): Promise<ChannelRecord> {
  const [row] = await db.insert(salesChannels).values(channel).returning(channelColumns);
  return row!;
}

export async function insertWidgetKey(db: Db, channelId: number, keyHash: string, lastFour: string) {
  const [row] = await db.insert(widgetKeys).values({ channelId, keyHash, lastFour }).returning();
  return row!;
}

export async function listWidgetKeys(db: Db, channelId: number) {
  return db.select().from(widgetKeys).where(eq(widgetKeys.channelId, channelId)).orderBy(widgetKeys.id);
}

export async function activeWidgetKeys(db: Db, channelId: number) {
  return db
    .select()
    .from(widgetKeys)
    .where(and(eq(widgetKeys.channelId, channelId), isNull(widgetKeys.revokedAt)));
}
