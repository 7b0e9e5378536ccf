import crypto from 'node:crypto';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { AppError, invalidData, notFound, type FieldErrors } from '../../http/errors.js';
import { emailProblem } from '../../lib/email-address.js';
import { inventoryChanged } from '../../lib/inventory-events.js';
import { countOrderCompleted } from '../../platform/metrics.js';
import { toAmount } from '../../lib/money.js';
import { findChannelBySlug } from '../channels/channels.service.js';
import { newReference } from '../orders/orders.service.js';
import { signTicketUrls } from '../tickets/tickets.service.js';
import type { Buyer } from './checkout.repo.js';
import { completeOrder } from './closing.service.js';
import * as repo from './reservation.repo.js';

export interface ReservationInput {
  channelSlug: string;
  items: { session_seat_id: number; rate_id: number }[];
  buyer: Buyer;
  lang?: string;
  /** Run inside the reservation's transaction once the order is complete (e.g. the admin audit entry). */
  audit?: (tx: Db, order: { order_id: number; reference: string; total_amount: number; channel_id: number }) => Promise<void>;
}

export interface ReservationResult {
  order_id: number;
  order_token: string;
  reference: string;
  total_amount: number;
  ticket_pdf_urls: string[];
}

function validate(ctx: AppContext, input: ReservationInput): void {
  const errors: FieldErrors = {};
  if (!Array.isArray(input.items) || input.items.length === 0) errors.items = ['at least one item is required'];
  else if (input.items.length > ctx.config.maxItemsPerOrder) errors.items = [`at most ${ctx.config.maxItemsPerOrder} items`];
  else if (new Set(input.items.map((i) => i.session_seat_id)).size !== input.items.length) errors.items = ['a seat appears twice'];
  input.items?.forEach((item, i) => {
    if (!Number.isInteger(item.session_seat_id) || item.session_seat_id < 1) errors[`items.${i}.session_seat_id`] = ['must be a positive integer'];
    if (!Number.isInteger(item.rate_id) || item.rate_id < 1) errors[`items.${i}.rate_id`] = ['must be a positive integer'];
  });
  if (!input.buyer?.name?.trim()) errors.name = ['is required'];
  if (!input.buyer?.surname?.trim()) errors.surname = ['is required'];
  const badEmail = emailProblem(input.buyer?.email ?? '');
  if (badEmail) errors.email = [badEmail];
  if (Object.keys(errors).length) throw invalidData(errors);
}

/**
 * Issues an order without payment (type 'reservation'): claims the seats with the cart's claim
 * rule (seat_is_free: free, or held by a lapsed cart; ascending id order), prices them at their
 * rates plus the management fees (ticket_fee), and completes it like a sale: buyer, tickets,
 * e-mail (not in model D).
 */
export async function createReservation(ctx: AppContext, input: ReservationInput): Promise<ReservationResult> {
  validate(ctx, input);
  const channel = await findChannelBySlug(ctx, input.channelSlug);
  if (!channel) throw notFound('Sales channel');
  const now = ctx.clock.now();
  const lang = input.lang ?? channel.defaultLang;
  const wanted = [...input.items].sort((a, b) => a.session_seat_id - b.session_seat_id);

  const result = await ctx.db.transaction(async (tx) => {
    const lines = await repo.loadReservationLines(
      tx,
      channel.id,
      wanted.map((i) => ({ sessionSeatId: i.session_seat_id, rateId: i.rate_id })),
    );
    const missing = lines.find((l) => !l.seat);
    if (missing) throw new AppError('not_found.seat', { seat: missing.sessionSeatId });
    const misfit = lines.findIndex((l) => !l.rateFits);
    if (misfit >= 0) {
      const i = input.items.indexOf(wanted[misfit]!);
      throw invalidData({ [`items.${i}.rate_id`]: [`is not a rate of seat ${lines[misfit]!.seat!.id}`] });
    }
    // The cart's pricing rules (rate price + management fees, ticket_fee), without a voucher.
    const priced = lines.map((l) => ({ seat: l.seat!, rateId: l.rateId, base: l.price, fee: l.fee, total: l.price + l.fee }));
    const totals = priced.reduce((t, p) => ({ base: t.base + p.base, fee: t.fee + p.fee, total: t.total + p.total }), { base: 0, fee: 0, total: 0 });

    const orderToken = crypto.randomUUID();
    const reference = newReference();
    const orderId = await repo.insertReservationOrder(tx, {
      orderToken,
      reference,
      channelId: channel.id,
      lang,
      currency: ctx.config.currency,
      ...totals,
      now,
    });
    const items = [];
    for (const p of priced) {
      // The claim rule of the cart (D14, D15), one seat at a time in ascending id order.
      if (!(await repo.claimSeatSold(tx, orderId, p.seat.id, now))) throw new AppError('seat_unavailable.id', { seat: p.seat.id });
      const id = await repo.insertReservationItem(tx, {
        orderId,
        eventId: p.seat.eventId,
        sessionId: p.seat.sessionId,
        sectorId: p.seat.sectorId,
        sessionSeatId: p.seat.id,
        rateId: p.rateId,
        base: p.base,
        fee: p.fee,
        total: p.total,
        now,
      });
      items.push({ id, sessionId: p.seat.sessionId, sessionSeatId: p.seat.id });
    }
    const codes = await completeOrder(tx, {
      orderId,
      mode: channel.integrationMode,
      items,
      buyer: { ...input.buyer, name: input.buyer.name.trim(), surname: input.buyer.surname.trim() },
      paymentMethod: null,
      transactionId: null,
      at: now,
    });
    await input.audit?.(tx, { order_id: orderId, reference, total_amount: toAmount(totals.total), channel_id: channel.id });
    return { orderId, orderToken, reference, total: totals.total, codes, sessionIds: items.map((i) => i.sessionId) };
  });
  inventoryChanged(ctx, result.sessionIds);
  countOrderCompleted('reservation');
  return {
    order_id: result.orderId,
    order_token: result.orderToken,
    reference: result.reference,
    total_amount: toAmount(result.total),
    ticket_pdf_urls: signTicketUrls(ctx, result.codes),
  };
}
