import { pgTable, integer, text, primaryKey } from 'drizzle-orm/pg-core';
import { ts } from './columns.js';

/** The pre-production integration checklist: first completion of each step per channel (migration 0095). */
export const channelIntegrationSteps = pgTable(
  'channel_integration_steps',
  {
    channelId: integer('channel_id').notNull(),
    step: text('step').notNull(),
    completedAt: ts('completed_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.channelId, t.step] })],
);
