import { pgTable, bigint, integer, primaryKey, smallint } from 'drizzle-orm/pg-core';
import { ts, createdAt } from './columns.js';

/**
 * The events of each report transaction (migration 0041): written by triggers on orders when an
 * order becomes completed or cancelled; read by the sales report's event filter.
 */
export const orderEvents = pgTable(
  'order_events',
  {
    channelId: integer('channel_id').notNull(),
    eventId: integer('event_id').notNull(),
    createdAt: createdAt(),
    orderId: bigint('order_id', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.channelId, t.eventId, t.createdAt, t.orderId] })],
);

/**
 * The sales overview's money figures (D66, migration 0270, docs/audience.md "How the figures are
 * kept"): per session, channel, rate and sector, in `slot`s (one per writing connection, summed by
 * the reader) so that parallel purchases do not queue on one row. Kept by triggers on orders,
 * order_items and refund_items; read by overview.repo.ts. Amounts in minor units.
 */
export const salesFigures = pgTable(
  'sales_figures',
  {
    sessionId: integer('session_id').notNull(),
    channelId: integer('channel_id').notNull(),
    rateId: integer('rate_id').notNull(),
    sectorId: integer('sector_id').notNull(),
    slot: smallint('slot').notNull(),
    items: integer('items').notNull(),
    refunded: integer('refunded').notNull(),
    baseAmount: bigint('base_amount', { mode: 'number' }).notNull(),
    discountAmount: bigint('discount_amount', { mode: 'number' }).notNull(),
    feeAmount: bigint('fee_amount', { mode: 'number' }).notNull(),
    totalAmount: bigint('total_amount', { mode: 'number' }).notNull(),
    refundAmount: bigint('refund_amount', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.sessionId, t.channelId, t.rateId, t.sectorId, t.slot] })],
);

/** The overview's sales over time (migration 0270): items and gross per session and hour, in slots. */
export const salesFiguresHourly = pgTable(
  'sales_figures_hourly',
  {
    sessionId: integer('session_id').notNull(),
    hour: ts('hour').notNull(),
    slot: smallint('slot').notNull(),
    items: integer('items').notNull(),
    totalAmount: bigint('total_amount', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.sessionId, t.hour, t.slot] })],
);

/** The overview's count of places per session and sector (migrations 0271, 0330), in slots; kept by insert and delete triggers on session_seats. */
export const sessionInventory = pgTable(
  'session_inventory',
  {
    sessionId: integer('session_id').notNull(),
    sectorId: integer('sector_id').notNull(),
    slot: smallint('slot').notNull(),
    seats: integer('seats').notNull(),
  },
  (t) => [primaryKey({ columns: [t.sessionId, t.sectorId, t.slot] })],
);
