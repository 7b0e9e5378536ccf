import { pgTable, bigint, integer, text, boolean, json } from 'drizzle-orm/pg-core';
import { ts, serialId, bigserialId, createdAt, status, updatedAt } from './columns.js';

// Signed webhooks (D51, migration 0090, docs/webhooks.md).
export const webhookEndpoints = pgTable('webhook_endpoints', {
  id: serialId(),
  channelId: integer('channel_id').notNull(),
  url: text('url').notNull(),
  description: text('description').notNull().default(''),
  eventTypes: text('event_types').array().notNull(),
  secretSealed: text('secret_sealed').notNull(),
  previousSecretSealed: text('previous_secret_sealed'),
  previousUntil: ts('previous_until'),
  enabled: boolean('enabled').notNull().default(true),
  disabledReason: text('disabled_reason'),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const webhookEvents = pgTable('webhook_events', {
  id: bigserialId(),
  messageId: text('message_id').notNull().unique(),
  channelId: integer('channel_id').notNull(),
  type: text('type').notNull(),
  createdAt: createdAt(),
  data: json('data'),
  orderRows: json('order_rows'),
  extra: json('extra'),
  lang: text('lang'),
  payload: text('payload'),
});

export const webhookDeliveries = pgTable('webhook_deliveries', {
  id: bigserialId(),
  eventId: bigint('event_id', { mode: 'number' }).notNull(),
  endpointId: integer('endpoint_id').notNull(),
  status: status<'pending' | 'delivered' | 'failed'>('pending'),
  attempts: integer('attempts').notNull().default(0),
  nextAttemptAt: ts('next_attempt_at'),
  lease: text('lease'),
});

export const webhookAttempts = pgTable('webhook_attempts', {
  id: bigserialId(),
  deliveryId: bigint('delivery_id', { mode: 'number' }).notNull(),
  attemptedAt: ts('attempted_at').notNull(),
  statusCode: integer('status_code'),
  durationMs: integer('duration_ms').notNull(),
  responseExcerpt: text('response_excerpt'),
  error: text('error'),
  manual: boolean('manual').notNull().default(false),
});
