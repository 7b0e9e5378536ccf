import { Value } from 'typebox/value';
import type { AppContext } from '../../app-context.js';
import { AppError } from '../../http/errors.js';
import { policyOf, type ModelPolicy } from '../../lib/integration-policy.js';
import { isLanguage } from '../../platform/i18n.js';
import type { ChannelRecord } from '../../db/channel-record.js';
import { findChannelById, getChannelBySlug } from '../channels/channels.service.js';
import type { LayoutUnitRow } from '../catalogue/catalogue.schemas.js';
import { liveSessionSeats } from '../catalogue/catalogue.service.js';
import { getOrder } from '../orders/orders.service.js';
import { OrderToken } from '../orders/orders.schemas.js';
import { refundsOfOrder } from '../orders/orders-admin.service.js';
import { orderLinks, orderTicketLinks } from '../tickets/tickets.service.js';
import * as store from './pages/storefront.repo.js';
import type { StoreSessionDetail } from './pages/storefront.repo.js';
import { attemptIsOpen, cancelPath, portalPageUrl } from './payments/payments.service.js';
import { sandboxRefundsOf, type SandboxRefund } from './payments/sandbox.repo.js';
import { findChannelOrder, findOrderById, findPayment, latestPaymentOfOrder, type PaymentRow, type PortalOrder } from './portal.repo.js';

// What the buyer-facing pages read: the channel and its catalogue as the storefront shows it, the
// buyer's order and its payment. The pages render; this module reads (route -> service -> repo).

export type { StoreEvent, StoreSession, StoreSessionDetail } from './pages/storefront.repo.js';
export type { PaymentRow };


/**
 * The channel a page of `slug` in `lang` serves, or null: the language must be one of the portal's
 * and the channel's integration policy must allow the page (D25, D26).
 */
export async function pageChannel(ctx: AppContext, slug: string, lang: string, serves: (policy: ModelPolicy) => boolean): Promise<ChannelRecord | null> {
  if (!isLanguage(lang)) return null;
  const channel = await getChannelBySlug(ctx, slug).catch((err: unknown) => {
    if (err instanceof AppError && err.status === 404) return null;
    throw err; // a database outage is not a missing page
  });
  return channel && serves(policyOf(channel.integrationMode)) ? channel : null;
}

/** What the storefront's search asks: words of the name, venue or city, and a day (YYYY-MM-DD). */
export interface EventSearch {
  q?: string;
  date?: string;
}

/** Lower case without accents: "Música" finds "musica" and the other way round. */
const fold = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/**
 * The published events the channel sells, in `lang`, with their next session and lowest price;
 * only those matching `search` (every word in the name, venue or city; a session on the day).
 * Also every day with a session on sale (for the search's list of dates). A channel sells tens of
 * events, not thousands: the filter runs on the list.
 */
export async function storeEvents(ctx: AppContext, channel: ChannelRecord, lang: string, search: EventSearch = {}) {
  const all = await store.listEvents(ctx.db, channel.id, lang, ctx.clock.now(), ctx.config.timezone);
  const words = fold(search.q ?? '').split(/\s+/).filter(Boolean);
  const day = /^\d{4}-\d{2}-\d{2}$/.test(search.date ?? '') ? search.date! : null;
  const events = all.filter((e) => {
    const text = fold(`${e.name} ${e.venue} ${e.city ?? ''}`);
    return words.every((w) => text.includes(w)) && (!day || e.days.includes(day));
  });
  return { events, days: [...new Set(all.flatMap((e) => e.days))].sort() };
}

/** One event of the channel with its upcoming sessions on sale, or null. */
export async function storeEvent(ctx: AppContext, channel: ChannelRecord, eventId: number, lang: string) {
  const now = ctx.clock.now();
  const event = await store.findEvent(ctx.db, channel.id, eventId, lang, now, ctx.config.timezone);
  return event ? { event, sessions: await store.listSessions(ctx.db, event.id, now) } : null;
}

/** One upcoming session of an event of the channel with its map, rates and live availability, or null. */
export async function storeSession(ctx: AppContext, channel: ChannelRecord, eventId: number, sessionId: number, lang: string) {
  const now = ctx.clock.now();
  const event = await store.findEvent(ctx.db, channel.id, eventId, lang, now, ctx.config.timezone);
  const session = event && (await store.sessionOfEvent(ctx.db, event.id, sessionId, now));
  if (!event || !session) return null;
  return { event, session, detail: await sessionDetail(ctx, session.id, lang, now) };
}

/**
 * Each cached layout's seats in the order of the seat page (by sector, then y, then x: the buttons'
 * reading and Tab order), sorted once per layout.
 */
const pageOrder = new WeakMap<readonly LayoutUnitRow[], readonly LayoutUnitRow[]>();

/**
 * A session's map with live availability (an expired hold counts as free, D15): the seats come from
 * the session's cached layout and only the taken ones from the database, so a view of a
 * 20,000-seat session reads a few hundred rows, not 20,000 (issue 29).
 */
async function sessionDetail(ctx: AppContext, sessionId: number, lang: string, now: Date): Promise<StoreSessionDetail> {
  const live = await liveSessionSeats(ctx, sessionId, now);
  let ordered = pageOrder.get(live.seats);
  if (!ordered) {
    ordered = live.seats.map((s) => ({ ...s, id: Number(s.id), sector_id: Number(s.sector_id), x: Number(s.x), y: Number(s.y) })).sort((a, b) => a.sector_id - b.sector_id || a.y - b.y || a.x - b.x);
    pageOrder.set(live.seats, ordered);
  }
  const sectors = await store.sessionSectors(ctx.db, [...live.unitsPerSector.keys()]);
  return {
    sectors: sectors.map((s) => ({ ...s, available: Math.max(0, (live.unitsPerSector.get(s.id) ?? 0) - (live.takenPerSector.get(s.id) ?? 0)) })),
    seats: ordered,
    free: (seatId) => !live.taken.has(seatId),
    rates: await store.sessionRates(ctx.db, sessionId, lang),
  };
}

/** The channel's purchase order of this token (with `reservations`, a reservation too), or null (also for a malformed token: D5). */
export async function channelOrder(ctx: AppContext, channel: ChannelRecord, orderToken: string, opts: { reservations?: boolean } = {}): Promise<PortalOrder | null> {
  return Value.Check(OrderToken, orderToken) ? findChannelOrder(ctx.db, channel.id, orderToken, opts) : null;
}

/** The order as every interface shows it (D35). */
export type OrderView = Awaited<ReturnType<typeof getOrder>>;

/** A refund of the order as its buyer sees it (D58): when, how much, which tickets, the card's reference. */
export interface BuyerRefund {
  reference: string;
  at: Date;
  /** Minor units, positive: what went back. */
  amount: number;
  ticketIds: number[];
  /** The card provider's reference of the refund (models A and C), else null. */
  providerRef: string | null;
}

/**
 * What the order page shows: the D35 view, the latest payment, and once paid its tickets (a valid
 * one with its link, a refunded one marked void) and its refunds (D58).
 */
export async function orderPage(ctx: AppContext, channel: ChannelRecord, order: PortalOrder, lang: string) {
  const view = await getOrder(ctx, channel, order.orderToken, lang);
  const payment: PaymentRow | null = await latestPaymentOfOrder(ctx.db, order.id);
  const completed = view.status === 'completed';
  const tickets = completed ? await orderTicketLinks(ctx, order.id) : [];
  const refunds: BuyerRefund[] = completed
    ? (await refundsOfOrder(ctx, order.id)).map((r) => ({
        reference: r.reference,
        at: new Date(r.created_at),
        amount: -Number(r.total_amount),
        ticketIds: (r.ticket_ids ?? []).map(Number),
        providerRef: r.provider_refund_ref,
      }))
    : [];
  // All tickets in one PDF and the calendar file (D72): only while a ticket is still valid.
  const links = completed ? await orderLinks(ctx, order.id) : null;
  return { view, payment, tickets, refunds, orderLinks: links };
}

/** Who the buyer said they were at the order's latest payment (a declined card keeps them), or null. */
export async function lastBuyerOf(ctx: AppContext, order: PortalOrder): Promise<BuyerDetails | null> {
  const payment = await latestPaymentOfOrder(ctx.db, order.id);
  return payment ? { name: payment.buyerName, surname: payment.buyerSurname, email: payment.buyerEmail, phone: payment.buyerPhone ?? '' } : null;
}

export interface BuyerDetails {
  name: string;
  surname: string;
  email: string;
  phone: string;
}

/**
 * A sandbox payment with the channel that takes it (D27), the sandbox's refunds of it (D58), or
 * null; `open` while its attempt takes cards (D73: pending and its cart live), and the portal
 * address that abandons it.
 */
export async function sandboxPayment(
  ctx: AppContext,
  paymentId: string,
): Promise<{ payment: PaymentRow; channel: ChannelRecord | null; refunds: SandboxRefund[]; open: boolean; cancelUrl: string | null } | null> {
  const payment = await findPayment(ctx.db, paymentId);
  if (!payment) return null;
  const order = await findOrderById(ctx.db, payment.orderId);
  const channel = await findChannelById(ctx, payment.channelId);
  const open = order !== null && attemptIsOpen(payment, order, ctx.clock.now());
  const cancelUrl = open && order && channel ? portalPageUrl(ctx, channel.slug, payment.lang, cancelPath(order.orderToken, payment.id)) : null;
  return { payment, channel, refunds: await sandboxRefundsOf(ctx.db, paymentId), open, cancelUrl };
}

/** The order of a payment and its channel, or null. */
export async function orderOfPayment(ctx: AppContext, payment: PaymentRow) {
  const order = await findOrderById(ctx.db, payment.orderId);
  const channel = order && (await findChannelById(ctx, order.channelId));
  return order && channel ? { order, channel } : null;
}
