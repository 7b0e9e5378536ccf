import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { channelEvents, events, salesChannels, widgetKeys } from '../../db/schema/index.js';
import type { NewChannel } from './channels.repo.js';

export async function updateChannelRow(db: Db, id: number, patch: Partial<NewChannel>, at: Date) {
  await db.update(salesChannels).set({ ...patch, updatedAt: at }).where(eq(salesChannels.id, id));
}

export async function channelEventIds(db: Db, channelId: number): Promise<number[]> {
  const rows = await db.select({ id: channelEvents.eventId }).from(channelEvents).where(eq(channelEvents.channelId, channelId)).orderBy(channelEvents.eventId);
  return rows.map((r) => r.id);
}

export async function replaceChannelEvents(db: Db, channelId: number, eventIds: number[]) {
  await db.delete(channelEvents).where(eq(channelEvents.channelId, channelId));
  if (eventIds.length) await db.insert(channelEvents).values(eventIds.map((eventId) => ({ channelId, eventId })));
}

/** Which of these events belong to the organiser. */
export async function eventsOfOrganiser(db: Db, organiserId: number, eventIds: number[]): Promise<number[]> {
  if (eventIds.length === 0) return [];
  const rows = await db
    .select({ id: events.id })
    .from(events)
    .where(and(eq(events.organiserId, organiserId), inArray(events.id, eventIds)));
  return rows.map((r) => r.id);
}

export async function findWidgetKey(db: Db, channelId: number, keyId: number) {
  const rows = await db.select().from(widgetKeys).where(and(eq(widgetKeys.channelId, channelId), eq(widgetKeys.id, keyId)));
  return rows[0] ?? null;
}
