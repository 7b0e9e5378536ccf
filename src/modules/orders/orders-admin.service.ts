import type { AppContext } from '../../app-context.js';
import { AppError } from '../../http/errors.js';
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
  /** The order reference, or part of the buyer's e-mail or name. */
  search?: string;
  limit?: number;
}

/** Orders of the channels the actor may see, newest first (at most 200 per call). */
export async function listOrdersFor(ctx: AppContext, actor: Actor, filter: OrderFilter = {}) {
  const rows = await repo.listOrders(ctx.db, { ...filter, organiserId: organiserScope(actor), limit: Math.min(filter.limit ?? 50, 200) });
  return rows.map(({ order: o, slug, buyerName, buyerSurname, buyerEmail }) => ({
    id: o.id,
    reference: o.reference,
    channel_id: o.channelId,
    sales_channel_slug: slug,
    type: o.type,
    status: o.status,
    total_amount: toAmount(o.totalAmount),
    currency: o.currency,
    created_at: isoWithOffset(o.createdAt)!,
    buyer_name: buyerName === null ? null : `${buyerName} ${buyerSurname ?? ''}`.trim(),
    buyer_email: buyerEmail,
  }));
}

/**
 * One order as the box office's order page shows it: buyer, items with their tickets, payment
 * attempts and its history from the audit log. Another organiser's order is 404, as if it did not exist.
 */
export async function getOrderFor(ctx: AppContext, actor: Actor, reference: string) {
  const found = await repo.findOrderByReference(ctx.db, reference, organiserScope(actor));
  if (!found) throw new AppError('not_found.order', { reference });
  const { order: o, channel, customer } = found;
  const [items, payments, history, refund, refunds] = await Promise.all([
    repo.itemsOfOrder(ctx.db, o.id),
    repo.paymentsOfOrder(ctx.db, o.id),
    repo.auditOfOrder(ctx.db, o.reference),
    o.type === 'purchase' ? repo.findOrderByReference(ctx.db, `${o.reference}-R`, null) : Promise.resolve(null),
    repo.refundsOfOrder(ctx.db, o.id),
  ]);
  return {
    id: o.id,
    reference: o.reference,
    channel_id: channel.id,
    sales_channel_slug: channel.slug,
    type: o.type,
    status: o.status,
    lang: o.lang,
    total_amount: toAmount(o.totalAmount),
    currency: o.currency,
    payment_method: o.paymentMethod,
    created_at: isoWithOffset(o.createdAt)!,
    completed_at: isoWithOffset(o.completedAt),
    refund_reference: refund ? refund.order.reference : null,
    buyer: customer ? { name: customer.name, surname: customer.surname, email: customer.email, phone: customer.phone } : null,
    items: items.map((i) => ({
      event_name: i.event_name,
      session_start: isoWithOffset(new Date(i.start_datetime))!,
      venue_name: i.venue_name,
      sector_name: i.sector_name,
      row: i.row,
      seat: i.number,
      rate_name: i.rate_name,
      total_amount: toAmount(i.total_amount),
      ticket_code: i.ticket_code,
      ticket_status: i.ticket_status,
      ticket_id: i.ticket_id === null ? null : Number(i.ticket_id),
      fee_amount: toAmount(i.fee_amount),
      refund_reference: i.refund_reference,
    })),
    // D58: every refund (whole or some tickets) with what went back and the card provider's reference.
    refunds: refunds.map((r) => ({
      reference: r.reference,
      created_at: isoWithOffset(new Date(r.created_at))!,
      reason: r.reason,
      actor: r.actor,
      total_amount: toAmount(r.total_amount),
      fee_amount: toAmount(r.fee_amount),
      fees_refunded: r.fees_refunded,
      ticket_ids: (r.ticket_ids ?? []).map(Number),
      provider: r.provider,
      provider_refund_reference: r.provider_refund_ref,
    })),
    payments: payments.map((p) => ({
      id: p.id,
      provider: p.provider,
      status: p.status,
      amount: toAmount(p.amount),
      currency: p.currency,
      failure_reason: p.failureReason,
      created_at: isoWithOffset(p.createdAt)!,
    })),
    history: history.map((h) => ({
      action: h.action,
      user_email: h.userEmail,
      target_id: h.targetId,
      details: h.details,
      created_at: isoWithOffset(h.createdAt)!,
    })),
  };
}

export type OrderDetail = Awaited<ReturnType<typeof getOrderFor>>;

/** An order's refunds, newest first (the buyer's order page shows them, D58). */
export function refundsOfOrder(ctx: AppContext, orderId: number) {
  return repo.refundsOfOrder(ctx.db, orderId);
}
