import { pgTable, text } from 'drizzle-orm/pg-core';
import { updatedAt } from './columns.js';

/** Facts the serving process records for the others, by key (migration 0111): `public_base_url`. */
export const deploymentSettings = pgTable('deployment_settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
  updatedAt: updatedAt(),
});
