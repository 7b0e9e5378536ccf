import { and, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { queryRows, type Json } from '../../db/client.js';
import { webhookAttempts, webhookDeliveries, webhookEndpoints, webhookEvents } from '../../db/schema/index.js';
import type { OrderRows } from '../orders/orders.view.js';

export type EndpointRow = typeof webhookEndpoints.$inferSelect;

// ---- endpoints

export const listEndpoints = (db: Db, channelId: number) =>
  db.select().from(webhookEndpoints).where(eq(webhookEndpoints.channelId, channelId)).orderBy(webhookEndpoints.id);

export async function findEndpoint(db: Db, id: number): Promise<EndpointRow | undefined> {
  const [row] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id));
  return row;
}

export async function insertEndpoint(db: Db, values: typeof webhookEndpoints.$inferInsert): Promise<EndpointRow> {
  const [row] = await db.insert(webhookEndpoints).values(values).returning();
  return row!;
}

export async function updateEndpoint(db: Db, id: number, values: Partial<typeof webhookEndpoints.$inferInsert>): Promise<EndpointRow> {
  const [row] = await db.update(webhookEndpoints).set(values).where(eq(webhookEndpoints.id, id)).returning();
  return row!;
}

export const deleteEndpoint = (db: Db, id: number) => db.delete(webhookEndpoints).where(eq(webhookEndpoints.id, id));

// ---- deliveries and their attempts, for the dashboard and the admin API

export async function listDeliveries(db: Db, endpointId: number, opts: { status?: string; beforeId?: number; limit: number }) {
  const conditions = [eq(webhookDeliveries.endpointId, endpointId)];
  if (opts.status) conditions.push(eq(webhookDeliveries.status, opts.status as 'pending'));
  if (opts.beforeId) conditions.push(lt(webhookDeliveries.id, opts.beforeId));
  return db
    .select({
      id: webhookDeliveries.id,
      status: webhookDeliveries.status,
      attempts: webhookDeliveries.attempts,
      nextAttemptAt: webhookDeliveries.nextAttemptAt,
      messageId: webhookEvents.messageId,
      type: webhookEvents.type,
      createdAt: webhookEvents.createdAt,
    })
    .from(webhookDeliveries)
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
    .where(and(...conditions))
    .orderBy(desc(webhookDeliveries.id))
    .limit(opts.limit);
}

export const attemptsOf = (db: Db, deliveryIds: number[]) =>
  deliveryIds.length === 0
    ? Promise.resolve([])
    : db.select().from(webhookAttempts).where(inArray(webhookAttempts.deliveryId, deliveryIds)).orderBy(webhookAttempts.id);

// ---- the worker

/** What one attempt needs: where, with which secrets, and the event to render or send. */
export interface DeliveryJob {
  id: number;
  endpoint_id: number;
  attempts: number;
  status: 'pending' | 'delivered' | 'failed';
  url: string;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_until: Date | string | null;
  event_id: number;
  message_id: string;
  type: string;
  created_at: Date | string;
  payload: string | null;
  data: Json<Record<string, unknown>> | null;
  order_rows: OrderRows;
  extra: Json<Record<string, unknown>> | null;
  lang: string | null;
}

const JOB_COLUMNS = sql`d.id::int AS id, d.endpoint_id, d.attempts, d.status, e.url, e.secret_sealed, e.previous_secret_sealed, e.previous_until,
  v.id::int AS event_id, v.message_id, v.type, v.created_at, v.payload, v.data, v.order_rows, v.extra, v.lang`;

/**
 * Takes up to `limit` due deliveries of enabled endpoints for this worker: their next_attempt_at
 * moves to `leaseUntil` and they carry `lease`, in one statement that commits at once, so no
 * transaction stays open while they are sent. SKIP LOCKED lets several workers (instances) claim
 * side by side; a row another claimed is no longer due. A worker that dies leaves its rows due
 * again when the lease ends.
 */
export async function claimDue(db: Db, o: { now: Date; leaseUntil: Date; lease: string; limit: number }): Promise<DeliveryJob[]> {
  return queryRows<DeliveryJob>(
    db,
    sql`WITH c AS (
          SELECT d.id FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
          WHERE d.status = 'pending' AND d.next_attempt_at <= ${o.now} AND e.enabled
          ORDER BY d.next_attempt_at, d.id LIMIT ${o.limit}
          FOR UPDATE OF d SKIP LOCKED),
        d AS (
          UPDATE webhook_deliveries d SET next_attempt_at = ${o.leaseUntil}, lease = ${o.lease}
          FROM c WHERE d.id = c.id RETURNING d.*)
        SELECT ${JOB_COLUMNS}
        FROM d JOIN webhook_endpoints e ON e.id = d.endpoint_id JOIN webhook_events v ON v.id = d.event_id
        ORDER BY d.id`,
  );
}

/** One delivery for a redelivery by hand (any status). */
export async function findDeliveryJob(db: Db, deliveryId: number): Promise<DeliveryJob | undefined> {
  const [row] = await queryRows<DeliveryJob>(
    db,
    sql`SELECT ${JOB_COLUMNS}
        FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id JOIN webhook_events v ON v.id = d.event_id
        WHERE d.id = ${deliveryId}`,
  );
  return row;
}

/** Keeps the first rendering of an event's body: every attempt, by any worker, sends the same bytes. */
export async function freezePayload(db: Db, eventId: number, payload: string): Promise<string> {
  const [row] = await queryRows<{ payload: string }>(
    db,
    sql`UPDATE webhook_events SET payload = COALESCE(payload, ${payload}) WHERE id = ${eventId} RETURNING payload`,
  );
  return row!.payload;
}

export interface AttemptRecord {
  deliveryId: number;
  at: Date;
  statusCode: number | null;
  durationMs: number;
  responseExcerpt: string | null;
  error: string | null;
  manual: boolean;
}

/**
 * Logs an attempt and moves its delivery on, in one statement. A scheduled attempt (`lease` set)
 * moves it only while its lease still holds it; a redelivery by hand (`lease` null) moves it only
 * to a final status, and `status` null leaves it as it is. `gone` disables the endpoint (410).
 */
export async function recordAttempt(
  db: Db,
  a: AttemptRecord,
  next: { status: 'pending' | 'delivered' | 'failed' | null; nextAttemptAt: Date | null; lease: string | null; countsAsAttempt: boolean; gone: boolean; endpointId: number },
): Promise<void> {
  await db.execute(
    sql`WITH a AS (
          INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, duration_ms, response_excerpt, error, manual)
          VALUES (${a.deliveryId}, ${a.at}, ${a.statusCode}, ${a.durationMs}, ${a.responseExcerpt}, ${a.error}, ${a.manual})),
        g AS (
          UPDATE webhook_endpoints SET enabled = false, disabled_reason = 'gone', updated_at = ${a.at}
          WHERE ${next.gone}::boolean AND id = ${next.endpointId})
        UPDATE webhook_deliveries SET status = ${next.status}::text, next_attempt_at = ${next.nextAttemptAt}, lease = NULL,
          attempts = attempts + ${next.countsAsAttempt ? 1 : 0}
        WHERE id = ${a.deliveryId} AND ${next.status}::text IS NOT NULL
          AND (${next.lease}::text IS NULL OR lease = ${next.lease}::text)`,
  );
}
