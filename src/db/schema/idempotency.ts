import { pgTable, integer, text, primaryKey } from 'drizzle-orm/pg-core';
import { ts, createdAt } from './columns.js';

/** Idempotency-Key claims and the first responses they keep for 24 hours (D52, migrations 0080, 0150). */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    credential: text('credential').notNull(),
    key: text('key').notNull(),
    fingerprint: text('fingerprint').notNull(),
    claim: text('claim').notNull(),
    state: text('state').$type<'running' | 'done'>().notNull(),
    responseStatus: integer('response_status'),
    responseType: text('response_type'),
    responseBody: text('response_body'),
    createdAt: createdAt(),
    /** The process that holds a running claim (D55, migration 0150). */
    owner: text('owner'),
    /** A running claim counts until then (the database's clock); its process renews it while the request runs. */
    leaseUntil: ts('lease_until'),
  },
  (t) => [primaryKey({ columns: [t.credential, t.key] })],
);
