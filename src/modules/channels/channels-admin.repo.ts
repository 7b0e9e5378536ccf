import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { channelEvents, events, salesChannels } from '../../db/schema/index.js';
import type { NewChannel } from './channels.repo.js';

export async function updateChannelRow(db: Db, id: number, patch: Partial<NewChannel>, at: Date) {
  await db.update(salesChannels).set({ ...patch, updatedAt: at }).where(eq(salesChannels.id, id));
}

export async function channelEventIds(db: Db, channelId: number): Promise<number[]> {
  const rows = await db.select({ id: channelEvents.eventId }).from(channelEvents).where(eq(channelEvents.channelId, channelId)).orderBy(channelEvents.eventId);
  return rows.map((r) => r.id);
}

/** Event ids of many channels at once, keyed by channel id. */
export async function eventIdsByChannel(db: Db, channelIds: number[]): Promise<Map<number, number[]>> {
  const map = new Map<number, number[]>(channelIds.map((id) => [id, []]));
  if (channelIds.length === 0) return map;
  const rows = await db
    .select({ channelId: channelEvents.channelId, eventId: channelEvents.eventId })
    .from(channelEvents)
    .where(inArray(channelEvents.channelId, channelIds))
    .orderBy(channelEvents.eventId);
  for (const r of rows) map.get(r.channelId)?.push(r.eventId);
  return map;
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
