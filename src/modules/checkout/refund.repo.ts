import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../../db/client.js';

// The SQL of a refund (refund.service.ts): the refunded order, its seats and the refund row.

/** The columns of an order a refund reads. */
export interface RefundableOrder {
  id: string | number;
  reference: string;
  channel_id: number;
  type: string;
  status: string;
  lang: string;
  currency: string;
  base_amount: number;
  discount_amount: number;
  fee_amount: number;
  total_amount: number;
  customer_id: number | null;
  payment_method: string | null;
}

/** The order with this reference, locked; limited to one channel or one organiser's channels when given. */
export async function lockOrderByReference(tx: Db, reference: string, scope: { channelId?: number; organiserId?: number }): Promise<RefundableOrder | null> {
  const channelFilter = scope.channelId === undefined ? sql`` : sql` AND channel_id = ${scope.channelId}`;
  const organiserFilter =
    scope.organiserId === undefined ? sql`` : sql` AND channel_id IN (SELECT id FROM sales_channels WHERE organiser_id = ${scope.organiserId})`;
  const [order] = await queryRows<RefundableOrder>(tx, sql`SELECT * FROM orders WHERE reference = ${reference}${channelFilter}${organiserFilter} FOR UPDATE`);
  return order ?? null;
}

/** The refund's view of an order's channel: its organiser, the organiser's fee rule and the model. */
export async function channelSettings(tx: Db, channelId: number): Promise<{ organiser_id: number; refund_fees: boolean; integration_mode: string }> {
  const [row] = await queryRows<{ organiser_id: number; refund_fees: boolean; integration_mode: string }>(
    tx,
    sql`SELECT ch.organiser_id, o.refund_fees, ch.integration_mode
          FROM sales_channels ch JOIN organisers o ON o.id = ch.organiser_id WHERE ch.id = ${channelId}`,
  );
  return row!;
}

/** One item of the refunded order, with its ticket and what became of it. */
export interface RefundableItem {
  item_id: number;
  ticket_id: number | null;
  session_id: number;
  session_seat_id: number;
  base_amount: number;
  discount_amount: number;
  fee_amount: number;
  total_amount: number;
  /** Refunded by an earlier refund. */
  refunded: boolean;
  /** Checked in on some list (D58: needs allow_used). */
  used: boolean;
}

/**
 * Locks the order's tickets (the lock a scan takes too, checkin.repo lockTicketForScan, so that a
 * ticket is never both admitted and refunded) and reads every item with its ticket, whether it
 * was refunded already and whether it was checked in, as they are under the lock.
 */
export async function lockItems(tx: Db, orderId: number): Promise<RefundableItem[]> {
  await tx.execute(sql`SELECT id FROM tickets WHERE order_id = ${orderId} ORDER BY id FOR UPDATE`);
  const rows = await queryRows<RefundableItem & { item_id: string | number; ticket_id: string | number | null }>(
    tx,
    sql`SELECT i.id AS item_id, t.id AS ticket_id, i.session_id, i.session_seat_id, i.base_amount, i.discount_amount, i.fee_amount, i.total_amount,
               EXISTS (SELECT 1 FROM refund_items ri WHERE ri.order_item_id = i.id) AS refunded,
               (t.id IS NOT NULL AND EXISTS (SELECT 1 FROM checkin_entries e WHERE e.ticket_id = t.id)) AS used
          FROM order_items i LEFT JOIN tickets t ON t.order_item_id = i.id
         WHERE i.order_id = ${orderId}
         ORDER BY i.id`,
  );
  return rows.map((r) => ({ ...r, item_id: Number(r.item_id), session_id: Number(r.session_id), ticket_id: r.ticket_id === null ? null : Number(r.ticket_id) }));
}

/** How many refunds the order has had (the next refund's reference counts on). */
export async function refundCount(tx: Db, orderId: number): Promise<number> {
  const [row] = await queryRows<{ n: number }>(tx, sql`SELECT count(*)::int AS n FROM order_refunds WHERE refunded_order_id = ${orderId}`);
  return row?.n ?? 0;
}

/** Makes the given sold seats of an order available again; the session id of each released seat. */
export async function releaseSoldSeats(tx: Db, orderId: number, sessionSeatIds: number[]): Promise<number[]> {
  if (sessionSeatIds.length === 0) return [];
  const released = await queryRows<{ session_id: number }>(
    tx,
    sql`UPDATE session_seats SET status = 'available', order_id = NULL, hold_expires_at = NULL
        WHERE order_id = ${orderId} AND status = 'sold' AND id IN (${sql.join(sessionSeatIds.map((id) => sql`${id}`), sql`, `)})
        RETURNING session_id`,
  );
  return released.map((r) => r.session_id);
}

export interface RefundAmounts {
  base_amount: number;
  discount_amount: number;
  fee_amount: number;
  total_amount: number;
}

export interface RefundRecord {
  reference: string;
  reason: string;
  actor: string;
  now: Date;
  /** Negative, D30. */
  amounts: RefundAmounts;
  items: (RefundAmounts & { item_id: number; ticket_id: number | null })[];
  feesRefunded: boolean;
  card: { paymentId: string; provider: string; refundRef: string } | null;
}

/**
 * Inserts the refund row of `order` (type 'refund', completed, the refunded items' amounts
 * negated), its `order_refunds` record and its `refund_items`, and touches the refunded order; the
 * refund row's id. An item refunded meanwhile fails the UNIQUE of refund_items (never twice).
 */
export async function insertRefund(tx: Db, order: RefundableOrder, refund: RefundRecord): Promise<number> {
  const orderId = Number(order.id);
  const { now, amounts: a } = refund;
  const [row] = await queryRows<{ id: string | number }>(
    tx,
    sql`INSERT INTO orders (order_token, reference, channel_id, type, status, lang, currency, base_amount,
          discount_amount, fee_amount, total_amount, customer_id, payment_method, refunded_order_id,
          created_at, updated_at, completed_at)
        VALUES (${crypto.randomUUID()}, ${refund.reference}, ${order.channel_id}, 'refund', 'completed', ${order.lang},
          ${order.currency}, ${a.base_amount}, ${a.discount_amount}, ${a.fee_amount}, ${a.total_amount},
          ${order.customer_id}, ${order.payment_method}, ${orderId}, ${now}, ${now}, ${now})
        RETURNING id`,
  );
  const refundId = Number(row!.id);
  const card = refund.card;
  await tx.execute(sql`
    INSERT INTO order_refunds (refund_order_id, refunded_order_id, reason, actor, created_at, payment_id, provider, provider_refund_ref, fees_refunded)
    VALUES (${refundId}, ${orderId}, ${refund.reason}, ${refund.actor}, ${now}, ${card?.paymentId ?? null}, ${card?.provider ?? null},
            ${card?.refundRef ?? null}, ${refund.feesRefunded})`);
  await tx.execute(sql`
    INSERT INTO refund_items (refund_order_id, order_item_id, ticket_id, base_amount, discount_amount, fee_amount, total_amount)
    VALUES ${sql.join(
      refund.items.map((i) => sql`(${refundId}, ${i.item_id}, ${i.ticket_id}, ${i.base_amount}, ${i.discount_amount}, ${i.fee_amount}, ${i.total_amount})`),
      sql`, `,
    )}`);
  await tx.execute(sql`UPDATE orders SET updated_at = ${now} WHERE id = ${orderId}`);
  return refundId;
}

/** Queues the buyer's refund e-mail (D58) in the refund's transaction; once per refund. */
export async function queueRefundEmail(tx: Db, refundOrderId: number, customerId: number, now: Date): Promise<boolean> {
  const rows = await queryRows(
    tx,
    sql`INSERT INTO email_outbox (kind, order_id, recipient, next_attempt_at, created_at)
        SELECT 'refund', ${refundOrderId}, c.email, ${now}, ${now} FROM customers c WHERE c.id = ${customerId} AND c.email IS NOT NULL AND c.email <> ''
        ON CONFLICT (order_id, kind) WHERE payment_id IS NULL DO NOTHING RETURNING 1`,
  );
  return rows.length === 1;
}

