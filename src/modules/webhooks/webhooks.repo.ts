import { and, desc, eq, inArray, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { queryRows, type Json } from '../../db/client.js';
import { webhookAttempts, webhookDeliveries, webhookEndpoints, webhookEvents } from '../../db/schema/index.js';
import type { OrderRows } from '../orders/orders.view.js';
import type { DbTime } from '../../db/instants.js';

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

/** Deletes the endpoint and its deliveries (their attempts follow by cascade); call it in a transaction. */
export async function deleteEndpoint(tx: Db, id: number): Promise<void> {
  await tx.delete(webhookEndpoints).where(eq(webhookEndpoints.id, id));
  // A delivery that a closing committing after this one still wrote for it is never claimed:
  // claimDue joins the endpoint.
  await tx.delete(webhookDeliveries).where(eq(webhookDeliveries.endpointId, id));
}

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
  channel_id: number;
  attempts: number;
  status: 'pending' | 'delivered' | 'failed';
  url: string;
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_until: DbTime | null;
  event_id: number;
  message_id: string;
  type: string;
  created_at: DbTime;
  payload: string | null;
  data: Json<Record<string, unknown>> | null;
  order_rows: OrderRows;
  extra: Json<Record<string, unknown>> | null;
  lang: string | null;
}

const JOB_COLUMNS = sql`d.id::int AS id, d.endpoint_id, e.channel_id, d.attempts, d.status, e.url, e.secret_sealed, e.previous_secret_sealed, e.previous_until,
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

/**
 * Keeps the first rendering of each event's body, for a batch in one statement: every attempt, by
 * any worker, sends the same bytes. Answers the kept body of each event id.
 */
export async function freezePayloads(db: Db, bodies: { id: number; payload: string }[]): Promise<Map<number, string>> {
  if (bodies.length === 0) return new Map();
  const rows = await queryRows<{ id: number | string; payload: string }>(
    db,
    sql`UPDATE webhook_events v SET payload = COALESCE(v.payload, r.payload)
        FROM json_to_recordset(${JSON.stringify(bodies)}::json) AS r(id bigint, payload text)
        WHERE v.id = r.id RETURNING v.id, v.payload`,
  );
  return new Map(rows.map((r) => [Number(r.id), r.payload]));
}

export interface AttemptRecord {
  delivery_id: number;
  endpoint_id: number;
  status_code: number | null;
  duration_ms: number;
  response_excerpt: string | null;
  error: string | null;
  /** What the delivery becomes; null leaves it as it is (a failed redelivery by hand). */
  status: 'pending' | 'delivered' | 'failed' | null;
  next_attempt_at: string | null;
  /** The endpoint answered 410: disable it. */
  gone: boolean;
}

/**
 * Logs a batch of attempts made at `at` and moves their deliveries on, in one statement. Scheduled
 * attempts (`lease` set) move a delivery only while this worker's lease still holds it, and count
 * as an attempt; a redelivery by hand (`lease` null, `manual`) does not move the schedule.
 */
export async function recordAttempts(db: Db, at: Date, lease: string | null, records: AttemptRecord[]): Promise<void> {
  if (records.length === 0) return;
  const manual = lease === null;
  await db.execute(
    sql`WITH r AS (
          SELECT * FROM json_to_recordset(${JSON.stringify(records)}::json) AS r(delivery_id bigint, endpoint_id integer, status_code integer,
            duration_ms integer, response_excerpt text, error text, status text, next_attempt_at timestamptz, gone boolean)),
        a AS (
          INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, duration_ms, response_excerpt, error, manual)
          SELECT delivery_id, ${at}::timestamptz, status_code, duration_ms, response_excerpt, error, ${manual}::boolean FROM r),
        g AS (
          UPDATE webhook_endpoints e SET enabled = false, disabled_reason = 'gone', updated_at = ${at}::timestamptz
          FROM r WHERE r.gone AND e.id = r.endpoint_id)
        UPDATE webhook_deliveries d SET status = r.status, next_attempt_at = r.next_attempt_at, lease = NULL,
          attempts = d.attempts + ${manual ? 0 : 1}::int
        FROM r
        WHERE d.id = r.delivery_id AND r.status IS NOT NULL
          AND (${lease}::text IS NULL OR d.lease = ${lease}::text)`,
  );
}

/**
 * Deletes up to `limit` events created before `before` that no delivery still waits for, with their
 * deliveries and attempts (by cascade). Answers how many.
 */
export async function deleteOldEvents(db: Db, before: Date, limit: number): Promise<number> {
  const rows = await queryRows<{ id: string }>(
    db,
    sql`DELETE FROM webhook_events WHERE id IN (
          SELECT v.id FROM webhook_events v WHERE v.created_at < ${before}
            AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = v.id AND d.status = 'pending')
          ORDER BY v.created_at LIMIT ${limit})
        RETURNING id`,
  );
  return rows.length;
}

/** Pending deliveries (due or waiting for a retry) and the creation time of the oldest one's event. */
export async function queueStats(db: Db): Promise<{ depth: number; oldest: Date | null }> {
  const [row] = await queryRows<{ depth: number | string; oldest: DbTime | null }>(
    db,
    sql`SELECT count(*) AS depth, min(v.created_at) AS oldest
        FROM webhook_deliveries d JOIN webhook_events v ON v.id = d.event_id WHERE d.status = 'pending'`,
  );
  return { depth: Number(row?.depth ?? 0), oldest: row?.oldest ? new Date(row.oldest) : null };
}
