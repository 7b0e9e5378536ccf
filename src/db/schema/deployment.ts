import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** Facts the serving process records for the others, by key (migration 0111): `public_base_url`. */
export const deploymentSettings = pgTable('deployment_settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
});
