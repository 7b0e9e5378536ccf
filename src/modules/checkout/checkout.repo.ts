import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../../db/client.js';
import type { IntegrationMode, OrderStatus, OrderType } from '../../db/schema/index.js';

export interface LockedOrder {
  id: number;
  channelId: number;
  integrationMode: IntegrationMode;
  type: OrderType;
  status: OrderStatus;
  expiresAt: Date | null;
  totalAmount: number;
}

export interface Buyer {
  name: string;
  surname: string;
  email: string;
  phone?: string | null;
}

type OrderRow = {
  id: string | number;
  channel_id: number;
  integration_mode: IntegrationMode;
  type: OrderType;
  status: OrderStatus;
  expires_at: string | Date | null;
  total_amount: number;
};

const toLocked = (r: OrderRow): LockedOrder => ({
  id: Number(r.id),
  channelId: r.channel_id,
  integrationMode: r.integration_mode,
  type: r.type,
  status: r.status,
  expiresAt: r.expires_at === null ? null : new Date(r.expires_at),
  totalAmount: r.total_amount,
});

/** The order row, locked until the transaction ends: concurrent closings of one order queue here. */
export async function lockOrder(db: Db, orderId: number): Promise<LockedOrder | null> {
  const rows = await queryRows<OrderRow>(
    db,
    sql`SELECT o.id, o.channel_id, c.integration_mode, o.type, o.status, o.expires_at, o.total_amount
        FROM orders o JOIN sales_channels c ON c.id = o.channel_id
        WHERE o.id = ${orderId} FOR UPDATE OF o`,
  );
  return rows[0] ? toLocked(rows[0]) : null;
}

export async function findOrderIdByToken(db: Db, channelId: number, orderToken: string) {
  const rows = await queryRows<{ id: string | number; type: OrderType }>(
    db,
    sql`SELECT id, type FROM orders WHERE order_token = ${orderToken} AND channel_id = ${channelId}`,
  );
  return rows[0] ? { id: Number(rows[0].id), type: rows[0].type } : null;
}

export interface OrderItemRef {
  id: number;
  sessionId: number;
  sessionSeatId: number;
}

export async function itemsOfOrder(db: Db, orderId: number): Promise<OrderItemRef[]> {
  const rows = await queryRows<{ id: string | number; session_id: number; session_seat_id: number }>(
    db,
    sql`SELECT id, session_id, session_seat_id FROM order_items WHERE order_id = ${orderId} ORDER BY id`,
  );
  return rows.map((r) => ({ id: Number(r.id), sessionId: r.session_id, sessionSeatId: r.session_seat_id }));
}

/**
 * Turns the order's held seats into sold ones; returns the ids it changed. With `orFree`, a seat
 * whose hold has lapsed or that was released is taken too, if nobody else holds it (D15 claim
 * rule). Rows are locked in id order, like every multi-seat claim (D14).
 */
export async function sellOrderSeats(db: Db, orderId: number, now: Date, orFree: boolean): Promise<number[]> {
  const free = orFree
    ? sql` OR ss.status = 'available' OR (ss.status = 'held' AND ss.hold_expires_at <= ${now})`
    : sql``;
  const rows = await queryRows<{ id: number }>(
    db,
    sql`UPDATE session_seats SET status = 'sold', order_id = ${orderId}, hold_expires_at = NULL
        WHERE id IN (
          SELECT ss.id FROM session_seats ss JOIN order_items i ON i.session_seat_id = ss.id
          WHERE i.order_id = ${orderId} AND ((ss.status = 'held' AND ss.order_id = ${orderId})${free})
          ORDER BY ss.id FOR UPDATE OF ss)
        RETURNING id`,
  );
  return rows.map((r) => r.id);
}

export async function insertCustomer(db: Db, buyer: Buyer): Promise<number> {
  const [row] = await queryRows<{ id: number }>(
    db,
    sql`INSERT INTO customers (name, surname, email, phone)
        VALUES (${buyer.name}, ${buyer.surname}, ${buyer.email}, ${buyer.phone ?? null}) RETURNING id`,
  );
  return row!.id;
}

export async function markOrderCompleted(
  db: Db,
  orderId: number,
  fields: { customerId: number; paymentMethod: string | null; transactionId: string | null; at: Date },
): Promise<void> {
  await db.execute(sql`
    UPDATE orders SET status = 'completed', customer_id = ${fields.customerId}, payment_method = ${fields.paymentMethod},
      transaction_id = ${fields.transactionId}, completed_at = ${fields.at}, updated_at = ${fields.at}, expires_at = NULL
    WHERE id = ${orderId}`);
}

export async function orderReferences(db: Db, orderIds: number[]) {
  if (orderIds.length === 0) return [];
  const rows = await queryRows<{ id: string | number; reference: string }>(
    db,
    sql`SELECT id, reference FROM orders WHERE id IN (${sql.join(orderIds.map((id) => sql`${id}`), sql`, `)})`,
  );
  return rows.map((r) => ({ id: Number(r.id), reference: r.reference }));
}
