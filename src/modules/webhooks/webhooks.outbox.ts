import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { queryRows } from '../../db/client.js';

/** The event types of D51 (session.cancelled and session.changed: D74; waitinglist.offered: D69). */
export const WEBHOOK_EVENT_TYPES = [
  'order.completed',
  'order.cancelled',
  'order.expired',
  'order.refunded',
  'ticket.checked_in',
  'session.cancelled',
  'session.changed',
  'waitinglist.offered',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export interface WebhookEventInput {
  channelId: number;
  type: WebhookEventType;
  /** The body's `data`, as the receiver will read it (e.g. the checked-in ticket). */
  data: Record<string, unknown>;
  /** When the change happened (the caller's clock); the body's `timestamp` and when delivery is due. */
  at: Date;
}

/**
 * Writes an event to the outbox (D51) with one delivery per endpoint of the channel subscribed to
 * its type; nothing when none subscribes. Call it with the transaction of the change it reports,
 * so that the event exists exactly when the change commits. Order events need no call: the
 * database writes them when an order's outcome changes (migration 0090; the trigger function order_outcome since 0352).
 * Returns the event id, or null when no endpoint subscribes.
 */
export async function enqueueWebhookEvent(tx: Db, event: WebhookEventInput): Promise<number | null> {
  const [row] = await queryRows<{ id: string | number | null }>(
    tx,
    sql`SELECT webhook_enqueue(${event.channelId}::int, ${event.type}, ${event.at}::timestamptz, ${JSON.stringify(event.data)}::json, NULL, NULL, NULL) AS id`,
  );
  return row?.id == null ? null : Number(row.id);
}
