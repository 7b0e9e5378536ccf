import { and, desc, eq, lt, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { orders, salesChannels, type OrderStatus, type OrderType } from '../../db/schema/index.js';

/** Which orders the back office lists (orders-admin.service.ts). */
export interface OrderListQuery {
  /** Only channels of this organiser; null for all. */
  organiserId: number | null;
  channelId?: number;
  status?: OrderStatus;
  type?: OrderType;
  /** Keyset pagination: orders with a smaller id. */
  beforeId?: number;
  limit: number;
}

/** Orders with their channel's slug, newest first. */
export async function listOrders(db: Db, query: OrderListQuery) {
  const conditions: SQL[] = [];
  if (query.organiserId !== null) conditions.push(eq(salesChannels.organiserId, query.organiserId));
  if (query.channelId) conditions.push(eq(orders.channelId, query.channelId));
  if (query.status) conditions.push(eq(orders.status, query.status));
  if (query.type) conditions.push(eq(orders.type, query.type));
  if (query.beforeId) conditions.push(lt(orders.id, query.beforeId));
  return db
    .select({ order: orders, slug: salesChannels.slug })
    .from(orders)
    .innerJoin(salesChannels, eq(salesChannels.id, orders.channelId))
    .where(conditions.length ? and(...conditions) : undefined)
    .orderBy(desc(orders.id))
    .limit(query.limit);
}
