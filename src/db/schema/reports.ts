import { pgTable, bigint, integer, primaryKey, timestamp } from 'drizzle-orm/pg-core';

/**
 * The events of each report transaction (migration 0041): written by triggers on orders when an
 * order becomes completed or cancelled; read by the sales report's event filter.
 */
export const orderEvents = pgTable(
  'order_events',
  {
    channelId: integer('channel_id').notNull(),
    eventId: integer('event_id').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    orderId: bigint('order_id', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.channelId, t.eventId, t.createdAt, t.orderId] })],
);
