import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { AppContext } from '../../app-context.js';
import { queryRows, type Db } from '../../db/client.js';
import { AppError, invalidData, notFound, type FieldErrors } from '../../http/errors.js';
import { emailProblem } from '../../lib/email-address.js';
import { inventoryChanged } from '../../lib/inventory-events.js';
import { toAmount } from '../../lib/money.js';
import { findChannelBySlug } from '../channels/channels.service.js';
import { newReference } from '../orders/orders.service.js';
import { priceItems, sumAmounts } from '../orders/pricing.js';
import { signTicketUrls } from '../tickets/tickets.service.js';
import type { Buyer } from './checkout.repo.js';
import { completeOrder } from './closing.service.js';

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
 * rule (free, or held by a lapsed cart; ascending id order), prices them at their rates plus the
 * management fees, and completes it like a sale: buyer, tickets, e-mail (not in model D).
 */
export async function createReservation(ctx: AppContext, input: ReservationInput): Promise<ReservationResult> {
  validate(ctx, input);
  const channel = await findChannelBySlug(ctx, input.channelSlug);
  if (!channel) throw notFound('Sales channel');
  const now = ctx.clock.now();
  const lang = input.lang ?? channel.defaultLang;
  const wanted = [...input.items].sort((a, b) => a.session_seat_id - b.session_seat_id);
  const ids = sql.join(wanted.map((i) => sql`${i.session_seat_id}`), sql`, `);

  const result = await ctx.db.transaction(async (tx) => {
    const seats = await queryRows<{ id: number; session_id: number; sector_id: number; event_id: number }>(
      tx,
      sql`SELECT ss.id, ss.session_id, ss.sector_id, s.event_id FROM session_seats ss
          JOIN sessions s ON s.id = ss.session_id
          JOIN channel_events ce ON ce.event_id = s.event_id AND ce.channel_id = ${channel.id}
          WHERE ss.id IN (${ids})`,
    );
    const seatById = new Map(seats.map((s) => [s.id, s]));
    const missing = wanted.find((i) => !seatById.has(i.session_seat_id));
    if (missing) throw new AppError('not_found', `Seat ${missing.session_seat_id} not found`);
    const rates = await queryRows<{ id: number; session_id: number; sector_id: number | null; price: number }>(
      tx,
      sql`SELECT id, session_id, sector_id, price FROM rates WHERE id IN (${sql.join(wanted.map((i) => sql`${i.rate_id}`), sql`, `)})`,
    );
    const fees = await queryRows<{ event_id: number | null; session_id: number | null; kind: 'fixed' | 'percent'; amount: number }>(
      tx,
      sql`SELECT event_id, session_id, kind, amount FROM fees
          WHERE session_id IN (${sql.join(seats.map((s) => sql`${s.session_id}`), sql`, `)})
             OR event_id IN (${sql.join(seats.map((s) => sql`${s.event_id}`), sql`, `)})`,
    );
    const checked = wanted.map((item) => {
      const seat = seatById.get(item.session_seat_id)!;
      const rate = rates.find((r) => r.id === item.rate_id);
      if (!rate || rate.session_id !== seat.session_id || (rate.sector_id !== null && rate.sector_id !== seat.sector_id)) {
        const i = input.items.indexOf(item);
        throw invalidData({ [`items.${i}.rate_id`]: [`is not a rate of seat ${seat.id}`] });
      }
      return { seat, rate };
    });
    // The cart's pricing rules (rate price + management fees), without a voucher.
    const amounts = priceItems(
      checked.map(({ seat, rate }, i) => ({ id: i, eventId: seat.event_id, sessionId: seat.session_id, rateId: rate.id, price: rate.price })),
      fees.map((f) => ({ eventId: f.event_id, sessionId: f.session_id, kind: f.kind, amount: f.amount })),
      null,
    );
    const priced = checked.map(({ seat, rate }, i) => ({ seat, rateId: rate.id, ...amounts[i]! }));
    const totals = sumAmounts(amounts);

    const orderToken = crypto.randomUUID();
    const reference = newReference();
    const [order] = await queryRows<{ id: string | number }>(
      tx,
      sql`INSERT INTO orders (order_token, reference, channel_id, type, status, lang, currency, base_amount, fee_amount,
            total_amount, created_at, updated_at)
          VALUES (${orderToken}, ${reference}, ${channel.id}, 'reservation', 'pending', ${lang}, ${ctx.config.currency},
            ${totals.base}, ${totals.fee}, ${totals.total}, ${now}, ${now})
          RETURNING id`,
    );
    const orderId = Number(order!.id);
    const items = [];
    for (const p of priced) {
      // The claim rule of the cart (D14, D15), one seat at a time in ascending id order.
      const claimed = await queryRows<{ id: number }>(
        tx,
        sql`UPDATE session_seats SET status = 'sold', order_id = ${orderId}, hold_expires_at = NULL
            WHERE id = ${p.seat.id} AND (status = 'available' OR (status = 'held' AND hold_expires_at <= ${now}))
            RETURNING id`,
      );
      if (claimed.length !== 1) throw new AppError('seat_unavailable', `Seat ${p.seat.id} is not available`);
      const [item] = await queryRows<{ id: string | number }>(
        tx,
        sql`INSERT INTO order_items (order_id, event_id, session_id, sector_id, session_seat_id, rate_id, base_amount,
              fee_amount, total_amount, created_at)
            VALUES (${orderId}, ${p.seat.event_id}, ${p.seat.session_id}, ${p.seat.sector_id}, ${p.seat.id}, ${p.rateId},
              ${p.base}, ${p.fee}, ${p.total}, ${now})
            RETURNING id`,
      );
      items.push({ id: Number(item!.id), sessionId: p.seat.session_id, sessionSeatId: p.seat.id });
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
  return {
    order_id: result.orderId,
    order_token: result.orderToken,
    reference: result.reference,
    total_amount: toAmount(result.total),
    ticket_pdf_urls: signTicketUrls(ctx, result.codes),
  };
}
