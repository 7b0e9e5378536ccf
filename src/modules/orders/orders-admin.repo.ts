import { and, desc, eq, ilike, lt, or, sql, type SQL } from 'drizzle-orm';
import { queryRows, type Db } from '../../db/client.js';
import { eventTextSql } from '../../platform/i18n.js';
import { auditLog, customers, orders, payments, salesChannels, type OrderStatus, type OrderType } from '../../db/schema/index.js';
import { itemPlaceJoins } from '../../db/ticket-place.js';

/** Which orders the back office lists (orders-admin.service.ts). */
export interface OrderListQuery {
  /** Only channels of this organiser; null for all. */
  organiserId: number | null;
  channelId?: number;
  status?: OrderStatus;
  type?: OrderType;
  /** Keyset pagination: orders with a smaller id. */
  beforeId?: number;
  /** Free text: the order reference, or part of the buyer's e-mail or name (case-insensitive). */
  search?: string;
  limit: number;
}

/** `%text%` for LIKE with the text's own `%`, `_` and `\\` taken literally. */
const contains = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

function searchCondition(text: string): SQL {
  const pattern = contains(text.trim());
  return or(
    eq(orders.reference, text.trim().toUpperCase()),
    ilike(customers.email, pattern),
    ilike(sql`${customers.name} || ' ' || ${customers.surname}`, pattern),
  )!;
}

/** Orders with their channel's slug, newest first. */
export async function listOrders(db: Db, query: OrderListQuery) {
  const conditions: SQL[] = [];
  if (query.organiserId !== null) conditions.push(eq(salesChannels.organiserId, query.organiserId));
  if (query.channelId) conditions.push(eq(orders.channelId, query.channelId));
  if (query.status) conditions.push(eq(orders.status, query.status));
  if (query.type) conditions.push(eq(orders.type, query.type));
  if (query.beforeId) conditions.push(lt(orders.id, query.beforeId));
  if (query.search?.trim()) conditions.push(searchCondition(query.search));
  return db
    .select({ order: orders, slug: salesChannels.slug, buyerName: customers.name, buyerSurname: customers.surname, buyerEmail: customers.email })
    .from(orders)
    .innerJoin(salesChannels, eq(salesChannels.id, orders.channelId))
    .leftJoin(customers, eq(customers.id, orders.customerId))
    .where(conditions.length ? and(...conditions) : undefined)
    .orderBy(desc(orders.id))
    .limit(query.limit);
}

/** One order with its channel and buyer, if the organiser (null = any) may see it. */
export async function findOrderByReference(db: Db, reference: string, organiserId: number | null) {
  const conditions: SQL[] = [eq(orders.reference, reference)];
  if (organiserId !== null) conditions.push(eq(salesChannels.organiserId, organiserId));
  const [row] = await db
    .select({ order: orders, channel: salesChannels, customer: customers })
    .from(orders)
    .innerJoin(salesChannels, eq(salesChannels.id, orders.channelId))
    .leftJoin(customers, eq(customers.id, orders.customerId))
    .where(and(...conditions))
    .limit(1);
  return row ?? null;
}

export interface OrderItemRow {
  event_name: string;
  start_datetime: string | Date;
  venue_name: string;
  sector_name: string;
  row: string | null;
  number: string | null;
  rate_name: string;
  total_amount: number;
  ticket_code: string | null;
  ticket_status: string | null;
  ticket_id: string | number | null;
  fee_amount: number;
  /** The refund that covered the item (D58), if any. */
  refund_reference: string | null;
}

/** The order's items with what a box-office clerk reads from them: event, session, seat, rate and ticket. */
export async function itemsOfOrder(db: Db, orderId: number): Promise<OrderItemRow[]> {
  return queryRows<OrderItemRow>(
    db,
    sql`
      SELECT COALESCE(${eventTextSql('name', sql`e.id`, sql`e.default_lang`, sql`e.default_lang`)}, '') AS event_name, s.start_datetime, v.name AS venue_name,
        sec.name AS sector_name, st.row, st.number, r.name AS rate_name, i.total_amount,
        t.code AS ticket_code, t.status AS ticket_status, t.id AS ticket_id, i.fee_amount,
        (SELECT ro.reference FROM refund_items ri JOIN orders ro ON ro.id = ri.refund_order_id WHERE ri.order_item_id = i.id) AS refund_reference
      FROM order_items i
      ${itemPlaceJoins({ event: true, venue: true })}
      LEFT JOIN tickets t ON t.order_item_id = i.id
      WHERE i.order_id = ${orderId}
      ORDER BY i.id`,
  );
}

export interface OrderRefundRow {
  reference: string;
  created_at: string | Date;
  reason: string;
  actor: string;
  total_amount: number;
  fee_amount: number;
  fees_refunded: boolean;
  provider: string | null;
  provider_refund_ref: string | null;
  ticket_ids: (string | number)[] | null;
}

/** The refunds of an order (D58), oldest first, each with its tickets and the card provider's reference. */
export function refundsOfOrder(db: Db, orderId: number): Promise<OrderRefundRow[]> {
  return queryRows<OrderRefundRow>(
    db,
    sql`SELECT r.reference, r.created_at, rr.reason, rr.actor, r.total_amount, r.fee_amount, rr.fees_refunded, rr.provider, rr.provider_refund_ref,
               ARRAY(SELECT ri.ticket_id FROM refund_items ri WHERE ri.refund_order_id = r.id AND ri.ticket_id IS NOT NULL ORDER BY ri.order_item_id) AS ticket_ids
          FROM order_refunds rr JOIN orders r ON r.id = rr.refund_order_id
         WHERE rr.refunded_order_id = ${orderId}
         ORDER BY r.id`,
  );
}

/** The card payment attempts of an order, oldest first. */
export function paymentsOfOrder(db: Db, orderId: number) {
  return db.select().from(payments).where(eq(payments.orderId, orderId)).orderBy(payments.createdAt);
}

/** The audit entries about an order and its refund order (reference + "-R"), oldest first. */
export function auditOfOrder(db: Db, reference: string) {
  return db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.targetType, 'order'), or(eq(auditLog.targetId, reference), eq(auditLog.targetId, `${reference}-R`))))
    .orderBy(auditLog.id);
}
