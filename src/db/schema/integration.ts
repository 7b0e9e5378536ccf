import { pgTable, integer, text, timestamp, primaryKey } from 'drizzle-orm/pg-core';

/** The pre-production integration checklist: first completion of each step per channel (migration 0095). */
export const channelIntegrationSteps = pgTable(
  'channel_integration_steps',
  {
    channelId: integer('channel_id').notNull(),
    step: text('step').notNull(),
    completedAt: timestamp('completed_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.channelId, t.step] })],
);
