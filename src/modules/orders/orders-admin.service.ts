import type { AppContext } from '../../app-context.js';
import type { OrderStatus, OrderType } from '../../db/schema/index.js';
import { toAmount } from '../../lib/money.js';
import { isoWithOffset } from '../../lib/time.js';
import { organiserScope, type Actor } from '../../platform/actor.js';
import * as repo from './orders-admin.repo.js';

// Read-only list of orders for the back office (issue 8): newest first, limited to the channels
// the actor may see. Writes to orders belong to the orders, checkout and refund use cases.

export interface OrderFilter {
  channelId?: number;
  status?: OrderStatus;
  type?: OrderType;
  /** Keyset pagination: orders with a smaller id. */
  beforeId?: number;
  limit?: number;
}

/** Orders of the channels the actor may see, newest first (at most 200 per call). */
export async function listOrdersFor(ctx: AppContext, actor: Actor, filter: OrderFilter = {}) {
  const rows = await repo.listOrders(ctx.db, { ...filter, organiserId: organiserScope(actor), limit: Math.min(filter.limit ?? 50, 200) });
  return rows.map(({ order: o, slug }) => ({
    id: o.id,
    reference: o.reference,
    channel_id: o.channelId,
    sales_channel_slug: slug,
    type: o.type,
    status: o.status,
    total_amount: toAmount(o.totalAmount),
    currency: o.currency,
    created_at: isoWithOffset(o.createdAt)!,
  }));
}
