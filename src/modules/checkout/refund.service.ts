import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { AppError, invalidData, notFound } from '../../http/errors.js';
import { inventoryChanged } from '../../lib/inventory-events.js';
import { policyOf } from '../../lib/integration-policy.js';
import { toAmount } from '../../lib/money.js';
import { orderCardRefunder } from '../../platform/card-refunds.js';
import { countRefund } from '../../platform/metrics.js';
import type { IntegrationMode } from '../../db/schema/index.js';
import { voidTickets } from '../tickets/tickets.service.js';
import * as repo from './refund.repo.js';

export interface RefundInput {
  /** When given, only an order of this channel can be refunded (admin API of a channel). */
  channelId?: number;
  /** order_reference of the completed order. */
  reference: string;
  reason: string;
  /** When given, only an order of a channel of this organiser can be refunded (a promoter). */
  organiserId?: number;
  /** Who refunds: an admin user, `cli:<user>`, ... */
  actor: string;
  /** Only these tickets (D58); every ticket not refunded yet when absent. */
  ticketIds?: number[];
  /**
   * Only the items of this session not refunded yet, chosen under the order's lock (a cancelled
   * session, D74: the order's tickets of other sessions stay valid). Not with `ticketIds`.
   */
  sessionId?: number;
  /** Refund checked-in tickets too (D58); without it a checked-in ticket is 409 `ticket_used`. */
  allowUsed?: boolean;
  /**
   * Runs inside the refund's transaction after the refund is recorded (e.g. the admin audit
   * entry), so that both commit or roll back together. Gets the organiser of the order's channel.
   */
  audit?: (tx: Db, result: RefundResult & { organiser_id: number }) => Promise<void>;
}

export interface RefundResult {
  refund_order_id: number;
  refund_reference: string;
  refunded_order_reference: string;
  /** Negative, like every amount of the refund row (D30). */
  total_amount: number;
  /** Negative fees given back; 0 when the organiser keeps the fees (`refund_fees: false`). */
  fee_amount: number;
  fees_refunded: boolean;
  released_seats: number;
  voided_tickets: number;
  /** The tickets this refund covered. */
  ticket_ids: number[];
  /** What went back to the card (models A and C), with the provider's reference; null otherwise. */
  card_refund: { provider: string; payment_id: string; reference: string; amount: number } | null;
  /** Whether the buyer's refund e-mail was queued (models A, B and C). */
  email_queued: boolean;
}

const sum = (items: repo.RefundAmounts[], key: keyof repo.RefundAmounts) => items.reduce((n, i) => n + i[key], 0);

/** The refunded items of a selection: all still refundable, or the chosen tickets (checked here). */
function chooseItems(items: repo.RefundableItem[], input: RefundInput, reference: string): repo.RefundableItem[] {
  if (input.ticketIds === undefined) {
    const open = items.filter((i) => !i.refunded && (input.sessionId === undefined || i.session_id === input.sessionId));
    if (open.length === 0) {
      throw input.sessionId === undefined
        ? new AppError('order_already_refunded.order', { reference })
        : new AppError('order_already_refunded.session', { reference, session: input.sessionId });
    }
    return open;
  }
  const wanted = [...new Set(input.ticketIds)];
  if (wanted.length === 0) throw invalidData({ ticket_ids: ['must name at least one ticket'] });
  const byTicket = new Map(items.filter((i) => i.ticket_id !== null).map((i) => [i.ticket_id!, i]));
  const strangers = wanted.filter((id) => !byTicket.has(id));
  if (strangers.length) throw invalidData({ ticket_ids: [`not tickets of order ${reference}: ${strangers.join(', ')}`] });
  const chosen = wanted.map((id) => byTicket.get(id)!);
  const again = chosen.filter((i) => i.refunded);
  if (again.length) {
    throw new AppError('ticket_already_refunded', { tickets: again.map((i) => i.ticket_id).join(', '), reference });
  }
  return chosen.sort((a, b) => a.item_id - b.item_id);
}

/**
 * Refunds a completed purchase or reservation, whole or some of its tickets (D58), in one
 * transaction: the chosen tickets' seats become available, the tickets void at once (D53), a
 * refund order row (type 'refund', the refunded items' amounts negated, D30) records the money,
 * fees included unless the organiser keeps them (`refund_fees`). An order paid by card through
 * this service (models A and C) gets the money back from the provider in the same transaction: a
 * refusal rolls everything back (502 `payment_provider_refused`). The buyer's e-mail (models A-C)
 * and `order.refunded` (every model, D51) are queued in the same transaction.
 *
 * Refund and check-in lock the same ticket rows: a checked-in ticket needs `allowUsed` (else 409
 * `ticket_used`), and a ticket is never both admitted and refunded. A ticket is refunded once
 * (409 `ticket_already_refunded`; the whole order again: 409 `order_already_refunded`).
 */
export async function refundOrder(ctx: AppContext, input: RefundInput): Promise<RefundResult> {
  const reason = input.reason?.trim();
  const actor = input.actor?.trim();
  if (!reason || !actor) {
    throw invalidData({ ...(reason ? {} : { reason: ['is required'] }), ...(actor ? {} : { actor: ['is required'] }) });
  }
  const now = ctx.clock.now();
  let sessionIds: number[] = [];
  const result = await ctx.db.transaction(async (tx) => {
    const order = await repo.lockOrderByReference(tx, input.reference, { channelId: input.channelId, organiserId: input.organiserId });
    if (!order) throw notFound('Order');
    const orderId = Number(order.id);
    if (order.type === 'refund') throw new AppError('conflict', 'A refund cannot be refunded');
    if (order.status !== 'completed') throw new AppError('conflict', 'Only a completed order can be refunded');

    const items = await repo.lockItems(tx, orderId);
    const chosen = chooseItems(items, input, order.reference);
    const used = chosen.filter((i) => i.used);
    if (used.length && !input.allowUsed) {
      throw new AppError('ticket_used', { tickets: used.map((i) => i.ticket_id).join(', ') });
    }
    const settings = await repo.channelSettings(tx, order.channel_id);
    const feesRefunded = settings.refund_fees;
    const lines = chosen.map((i) => {
      const fee = feesRefunded ? i.fee_amount : 0;
      return {
        item_id: i.item_id,
        ticket_id: i.ticket_id,
        base_amount: -i.base_amount,
        discount_amount: -i.discount_amount,
        fee_amount: -fee,
        total_amount: -(i.base_amount + i.discount_amount + fee),
      };
    });
    const amounts = {
      base_amount: sum(lines, 'base_amount'),
      discount_amount: sum(lines, 'discount_amount'),
      fee_amount: sum(lines, 'fee_amount'),
      total_amount: sum(lines, 'total_amount'),
    };

    // The card first, under the locks: a refusal leaves nothing to undo. The key names exactly
    // these items, so a retry of the same refund gets the provider's same refund back.
    let card: repo.RefundRecord['card'] = null;
    if (order.payment_method === 'card' && -amounts.total_amount > 0) {
      const refunder = orderCardRefunder(ctx);
      if (!refunder) throw new Error('no card refunder is plugged into this context (src/platform/card-refunds.ts)');
      card = await refunder(ctx, { orderId, amount: -amounts.total_amount, reason, key: `order-${orderId}-items-${chosen.map((i) => i.item_id).join('.')}` }, tx);
    }

    const previous = await repo.refundCount(tx, orderId);
    const refundReference = previous === 0 ? `${order.reference}-R` : `${order.reference}-R${previous + 1}`;
    sessionIds = await repo.releaseSoldSeats(tx, orderId, chosen.map((i) => i.session_seat_id));
    const ticketIds = chosen.flatMap((i) => (i.ticket_id === null ? [] : [i.ticket_id]));
    const voided = await voidTickets(tx, ticketIds, now);
    const refundId = await repo.insertRefund(tx, order, { reference: refundReference, reason, actor, now, amounts, items: lines, feesRefunded, card });
    const sendsEmail = policyOf(settings.integration_mode as IntegrationMode).sendsTicketEmail;
    const emailQueued = sendsEmail && order.customer_id !== null ? await repo.queueRefundEmail(tx, refundId, order.customer_id, now) : false;
    const done: RefundResult = {
      refund_order_id: refundId,
      refund_reference: refundReference,
      refunded_order_reference: order.reference,
      total_amount: toAmount(amounts.total_amount),
      fee_amount: toAmount(amounts.fee_amount),
      fees_refunded: feesRefunded,
      released_seats: sessionIds.length,
      voided_tickets: voided,
      ticket_ids: ticketIds,
      card_refund: card ? { provider: card.provider, payment_id: card.paymentId, reference: card.refundRef, amount: toAmount(-amounts.total_amount) } : null,
      email_queued: emailQueued,
    };
    if (input.audit) await input.audit(tx, { ...done, organiser_id: settings.organiser_id });
    return done;
  });
  inventoryChanged(ctx, sessionIds);
  countRefund();
  return result;
}
