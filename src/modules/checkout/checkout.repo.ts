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
  itemCount: number;
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
  item_count: number;
};

/** An order named by its id, or by its token within a channel (confirm). */
export type OrderRef = { orderId: number } | { orderToken: string; channelId: number };

/** The order row, locked until the transaction ends: concurrent closings of one order queue here. */
export async function lockOrder(db: Db, ref: OrderRef): Promise<LockedOrder | null> {
  const where = 'orderId' in ref ? sql`o.id = ${ref.orderId}` : sql`o.order_token = ${ref.orderToken} AND o.channel_id = ${ref.channelId}`;
  const [r] = await queryRows<OrderRow>(
    db,
    sql`SELECT o.id, o.channel_id, c.integration_mode, o.type, o.status, o.expires_at, o.total_amount,
          (SELECT count(*) FROM order_items i WHERE i.order_id = o.id)::int AS item_count
        FROM orders o JOIN sales_channels c ON c.id = o.channel_id
        WHERE ${where} FOR UPDATE OF o`,
  );
  if (!r) return null;
  return {
    id: Number(r.id),
    channelId: r.channel_id,
    integrationMode: r.integration_mode,
    type: r.type,
    status: r.status,
    expiresAt: r.expires_at === null ? null : new Date(r.expires_at),
    totalAmount: r.total_amount,
    itemCount: Number(r.item_count),
  };
}

export interface OrderItemRef {
  id: number;
  sessionId: number;
  sessionSeatId: number;
}

/**
 * Turns the order's held seats into sold ones and returns the order's items, each saying whether
 * its seat was sold. With `orFree`, a seat whose hold has lapsed or that was released is taken too,
 * if nobody else holds it (D15 claim rule). Rows are locked in id order, like every multi-seat
 * claim (D14). One round trip: the row lock of the order is held as briefly as possible.
 */
export async function sellOrderSeats(db: Db, orderId: number, now: Date, orFree: boolean): Promise<(OrderItemRef & { sold: boolean })[]> {
  const free = orFree
    ? sql` OR ss.status = 'available' OR (ss.status = 'held' AND ss.hold_expires_at <= ${now})`
    : sql``;
  const rows = await queryRows<{ id: string | number; session_id: number; session_seat_id: number; sold: boolean }>(
    db,
    sql`WITH sold AS (
          UPDATE session_seats SET status = 'sold', order_id = ${orderId}, hold_expires_at = NULL
          WHERE id IN (
            SELECT ss.id FROM session_seats ss JOIN order_items i ON i.session_seat_id = ss.id
            WHERE i.order_id = ${orderId} AND ((ss.status = 'held' AND ss.order_id = ${orderId})${free})
            ORDER BY ss.id FOR UPDATE OF ss)
          RETURNING id)
        SELECT i.id, i.session_id, i.session_seat_id, i.session_seat_id IN (SELECT id FROM sold) AS sold
        FROM order_items i WHERE i.order_id = ${orderId} ORDER BY i.id`,
  );
  return rows.map((r) => ({ id: Number(r.id), sessionId: r.session_id, sessionSeatId: r.session_seat_id, sold: r.sold }));
}

/**
 * The writes that complete a sold order, in one statement (one round trip under the order's lock):
 * the buyer record, one ticket per item, the order `completed`, and, when `emailTo` is given, the
 * ticket e-mail in the queue that processEmailQueue (tickets module) sends after commit.
 */
export async function writeCompletion(
  db: Db,
  o: {
    orderId: number;
    buyer: Buyer;
    tickets: { itemId: number; code: string }[];
    paymentMethod: string | null;
    transactionId: string | null;
    emailTo: string | null;
    at: Date;
  },
): Promise<void> {
  const ticketRows = sql.join(
    o.tickets.map((t) => sql`(${t.code}, ${o.orderId}::bigint, ${t.itemId}::bigint, ${o.at}::timestamptz)`),
    sql`, `,
  );
  const email = o.emailTo
    ? sql`, e AS (INSERT INTO email_outbox (kind, order_id, recipient, next_attempt_at, created_at)
                  VALUES ('tickets', ${o.orderId}, ${o.emailTo}, ${o.at}, ${o.at})
                  ON CONFLICT (order_id, kind) DO NOTHING RETURNING id)`
    : sql``;
  await db.execute(sql`
    WITH c AS (INSERT INTO customers (name, surname, email, phone)
               VALUES (${o.buyer.name}, ${o.buyer.surname}, ${o.buyer.email}, ${o.buyer.phone ?? null}) RETURNING id),
    t AS (INSERT INTO tickets (code, order_id, order_item_id, issued_at) VALUES ${ticketRows} RETURNING id),
    o AS (UPDATE orders SET status = 'completed', customer_id = (SELECT id FROM c), payment_method = ${o.paymentMethod},
            transaction_id = ${o.transactionId}, completed_at = ${o.at}, updated_at = ${o.at}, expires_at = NULL
          WHERE id = ${o.orderId} RETURNING id)${email}
    SELECT (SELECT count(*) FROM t) AS tickets`);
}
