import { pgTable, bigint, integer, primaryKey, smallint, type PgColumn, type PgColumnBuilderBase } from 'drizzle-orm/pg-core';
import { ts, createdAt } from './columns.js';

/**
 * A table of the overview's kept figures (D66, docs/audience.md "How the figures are kept"): what a
 * row counts by (`by`), then `slot smallint NOT NULL`, then the figures. A writing connection adds
 * to its own slot (sales_figures_slot(), src/db/functions) so that parallel purchases do not queue
 * on one row; the reader sums the slots. The primary key is what the row counts by, then the slot.
 */
function slottedFigures<
  N extends string,
  By extends Record<string, PgColumnBuilderBase>,
  Figures extends Record<string, PgColumnBuilderBase>,
>(name: N, by: By, figures: Figures) {
  return pgTable(name, { ...by, slot: smallint('slot').notNull(), ...figures }, (t) => {
    const column = (key: string) => (t as unknown as Record<string, PgColumn>)[key]!;
    const [first, ...rest] = [...Object.keys(by), 'slot'].map(column);
    return [primaryKey({ columns: [first!, ...rest] })];
  });
}

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
 * kept"): per session, channel, rate and sector, in slots. Kept by triggers on orders, order_items
 * and refund_items; read by overview.repo.ts. Amounts in minor units.
 */
export const salesFigures = slottedFigures(
  'sales_figures',
  {
    sessionId: integer('session_id').notNull(),
    channelId: integer('channel_id').notNull(),
    rateId: integer('rate_id').notNull(),
    sectorId: integer('sector_id').notNull(),
  },
  {
    items: integer('items').notNull(),
    refunded: integer('refunded').notNull(),
    baseAmount: bigint('base_amount', { mode: 'number' }).notNull(),
    discountAmount: bigint('discount_amount', { mode: 'number' }).notNull(),
    feeAmount: bigint('fee_amount', { mode: 'number' }).notNull(),
    totalAmount: bigint('total_amount', { mode: 'number' }).notNull(),
    refundAmount: bigint('refund_amount', { mode: 'number' }).notNull(),
  },
);

/** The overview's sales over time (migration 0270): items and gross per session and hour, in slots. */
export const salesFiguresHourly = slottedFigures(
  'sales_figures_hourly',
  { sessionId: integer('session_id').notNull(), hour: ts('hour').notNull() },
  { items: integer('items').notNull(), totalAmount: bigint('total_amount', { mode: 'number' }).notNull() },
);

/** The overview's count of places per session and sector (migrations 0271, 0330), in slots; kept by insert and delete triggers on session_seats. */
export const sessionInventory = slottedFigures(
  'session_inventory',
  { sessionId: integer('session_id').notNull(), sectorId: integer('sector_id').notNull() },
  { seats: integer('seats').notNull() },
);
