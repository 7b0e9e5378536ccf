import type { AppContext } from '../../app-context.js';
import { getChannelFor } from '../channels/channels-admin.service.js';
import { refundOrder, type RefundResult } from './refund.service.js';
import { createReservation, type ReservationResult } from './reservation.service.js';
import type { Buyer } from './closing.service.js';
import { organiserScope, type Actor } from '../../platform/actor.js';
import { recordAudit } from '../../platform/audit.js';
import { AppError } from '../../http/errors.js';
import { getOrderFor } from '../orders/orders-admin.service.js';
import { requeueTicketEmail } from '../tickets/email-queue.service.js';

/**
 * Refunds a completed order as a back-office user. A promoter reaches only orders of its
 * organiser's channels (another's is 404, as if it did not exist). The audit entry is written in
 * the refund's own transaction.
 */
export async function refundOrderAs(
  ctx: AppContext,
  actor: Actor,
  reference: string,
  reason: string,
  choice: { ticketIds?: number[]; allowUsed?: boolean } = {},
): Promise<RefundResult> {
  const scope = organiserScope(actor);
  return refundOrder(ctx, {
    reference,
    reason,
    ticketIds: choice.ticketIds,
    allowUsed: choice.allowUsed,
    actor: actor.email,
    organiserId: scope ?? undefined,
    audit: (tx, r) =>
      recordAudit(tx, {
        actor,
        action: 'order.refund',
        targetType: 'order',
        targetId: reference,
        organiserId: r.organiser_id,
        details: {
          reason: reason.trim(),
          refund_reference: r.refund_reference,
          total_amount: r.total_amount,
          ticket_ids: r.ticket_ids,
          ...(r.card_refund ? { card_refund: r.card_refund.reference } : {}),
        },
        at: ctx.clock.now(),
      }),
  });
}

export interface ReservationRequest {
  items: { session_seat_id: number; rate_id: number }[];
  buyer: Buyer;
  lang?: string;
}

/** Issues an order without payment (type reservation) on a channel the actor may see; audited in its transaction. */
export async function createReservationAs(ctx: AppContext, actor: Actor, channelId: number, input: ReservationRequest): Promise<ReservationResult> {
  const channel = await getChannelFor(ctx, actor, channelId);
  return createReservation(ctx, {
    channelSlug: channel.slug,
    items: input.items,
    buyer: input.buyer,
    lang: input.lang,
    audit: (tx, order) =>
      recordAudit(tx, {
        actor,
        action: 'order.reservation',
        targetType: 'order',
        targetId: order.reference,
        organiserId: channel.organiser_id,
        details: { channel_id: channel.id, seats: input.items.map((i) => i.session_seat_id), total_amount: order.total_amount },
        at: ctx.clock.now(),
      }),
  });
}

/**
 * Queues the order's ticket e-mail once more (the box office's "resend tickets"): the order's
 * outbox row is queued again and sent by the e-mail queue like the first time (two clicks before
 * it went out give one e-mail), with the audit entry in the same transaction. Only a completed order with valid tickets and a buyer's e-mail can be resent.
 */
export async function resendTicketsAs(ctx: AppContext, actor: Actor, reference: string): Promise<{ reference: string; recipient: string; email_id: number; resends: number }> {
  const order = await getOrderFor(ctx, actor, reference);
  if (order.type === 'refund' || order.status !== 'completed') throw new AppError('conflict.nothing_to_send', { reference, type: order.type, status: order.status });
  if (!order.items.some((i) => i.ticket_status === 'valid')) throw new AppError('conflict.no_valid_tickets', { reference });
  const recipient = order.buyer?.email;
  if (!recipient) throw new AppError('conflict.no_buyer_email', { reference });
  const organiserId = (await getChannelFor(ctx, actor, order.channel_id)).organiser_id;
  const at = ctx.clock.now();
  const queued = await ctx.db.transaction(async (tx) => {
    const row = await requeueTicketEmail(tx, order.id, recipient, at);
    await recordAudit(tx, {
      actor,
      action: 'order.resend_tickets',
      targetType: 'order',
      targetId: reference,
      organiserId,
      details: { recipient, email_id: row.id, resends: row.resends },
      at,
    });
    return row;
  });
  return { reference, recipient, email_id: queued.id, resends: queued.resends };
}
