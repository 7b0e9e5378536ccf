import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../../db/client.js';
import type { SessionQueueSettings } from '../../db/schema/index.js';

/** What a session's queue needs to know about it, read once and cached (queue.service.ts). */
export interface QueueFactsRow {
  sessionId: number;
  status: string;
  startDatetime: Date;
  salesStartAt: Date | null;
  salesEndAt: Date | null;
  settings: SessionQueueSettings | null;
  seedSealed: string | null;
  seedSha256: string | null;
  drawnAt: Date | null;
}

const date = (v: unknown) => (v == null ? null : new Date(v as string | Date));

export async function queueFacts(db: Db, sessionId: number): Promise<QueueFactsRow | null> {
  const rows = await queryRows<Record<string, unknown>>(
    db,
    sql`SELECT s.id, s.status, s.start_datetime, s.sales_start_at, s.sales_end_at, s.queue, d.seed_sealed, d.seed_sha256, d.drawn_at
          FROM sessions s LEFT JOIN session_queue_draws d ON d.session_id = s.id
         WHERE s.id = ${sessionId}`,
  );
  const r = rows[0];
  if (!r) return null;
  return {
    sessionId: Number(r.id),
    status: r.status as string,
    startDatetime: date(r.start_datetime)!,
    salesStartAt: date(r.sales_start_at),
    salesEndAt: date(r.sales_end_at),
    settings: (typeof r.queue === 'string' ? JSON.parse(r.queue) : r.queue) as SessionQueueSettings | null,
    seedSealed: (r.seed_sealed as string | null) ?? null,
    seedSha256: (r.seed_sha256 as string | null) ?? null,
    drawnAt: date(r.drawn_at),
  };
}

/** The sessions whose queue is enabled. */
export async function enabledQueueSessions(db: Db): Promise<number[]> {
  const rows = await queryRows<{ id: number }>(db, sql`SELECT id FROM sessions WHERE (queue ->> 'enabled') = 'true'`);
  return rows.map((r) => Number(r.id));
}

/** The sessions of an event (or the one session) that have a waiting room, enabled or not. */
export async function queuedSessionsOfEvent(db: Db, eventId: number, sessionId: number | null): Promise<number[]> {
  const rows = await queryRows<{ id: number }>(
    db,
    sql`SELECT id FROM sessions WHERE event_id = ${eventId} AND queue IS NOT NULL AND (${sessionId}::int IS NULL OR id = ${sessionId}::int) ORDER BY start_datetime, id`,
  );
  return rows.map((r) => Number(r.id));
}

/** Gives the session its draw's seed unless it has one (a seed never changes once committed). */
export async function ensureSeed(db: Db, sessionId: number, seedSealed: string, seedSha256: string, at: Date): Promise<void> {
  await queryRows(
    db,
    sql`INSERT INTO session_queue_draws (session_id, seed_sealed, seed_sha256, created_at)
        VALUES (${sessionId}, ${seedSealed}, ${seedSha256}, ${at.toISOString()}) ON CONFLICT (session_id) DO NOTHING`,
  );
}

/** Records the draw once: when, and how many pre-queue tickets it numbered. */
export async function recordDraw(db: Db, sessionId: number, count: number, at: Date): Promise<void> {
  await queryRows(db, sql`UPDATE session_queue_draws SET drawn_at = ${at.toISOString()}, drawn_count = ${count} WHERE session_id = ${sessionId} AND drawn_at IS NULL`);
}

/** The sessions the rates belong to (a cart create names rates; a rate fits only its own session's units). */
export async function sessionsOfRates(db: Db, rateIds: readonly number[]): Promise<number[]> {
  if (!rateIds.length) return [];
  const ids = `{${[...new Set(rateIds)].join(',')}}`;
  const rows = await queryRows<{ session_id: number }>(db, sql`SELECT DISTINCT session_id FROM rates WHERE id = ANY(${ids}::int[])`);
  return rows.map((r) => Number(r.session_id));
}
