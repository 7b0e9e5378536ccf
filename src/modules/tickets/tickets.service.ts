import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { AppError } from '../../http/errors.js';
import { randomBase62 } from '../../lib/secrets.js';
import { orderPageUrl } from './tickets.email.js';
import { orderCalendar } from './tickets.calendar.js';
import { sessionPassedAt, signedOrderUrl, signedTicketUrl, signedWalletUrl, verifyOrderLink, verifyTicketLink, type OrderFile } from './tickets.links.js';
import { qrSecretOf } from './ticket-keys.service.js';
import { renderTicketPdf, renderTicketsPdf } from './tickets.pdf.js';
import * as repo from './tickets.repo.js';
import { queueOrderLookup as queueLookupRow } from './email.repo.js';

/** A new ticket code: 24 base62 characters (~142 random bits), so codes cannot be guessed. */
export const newTicketCode = () => randomBase62(24);

/**
 * An order's tickets for its page, in item order: a valid ticket with its signed PDF link, freshly
 * signed now (D22, D23); a ticket voided by a refund with no link (it would answer 410, D58).
 */
export async function orderTicketLinks(
  ctx: AppContext,
  orderId: number,
  db: Db = ctx.db,
): Promise<(repo.OrderTicketRow & { url: string | null; appleWalletUrl: string | null; googleWalletUrl: string | null })[]> {
  const tickets = await repo.ticketsOfOrderItems(db, orderId);
  const now = ctx.clock.now();
  return tickets.map((t) => {
    const wallet = t.status === 'valid' ? walletLinks(ctx, t.code, now) : { apple: null, google: null };
    return { ...t, url: t.status === 'valid' ? signedTicketUrl(ctx.config, t.code, now) : null, appleWalletUrl: wallet.apple, googleWalletUrl: wallet.google };
  });
}

/** A valid ticket's wallet links (D70): only for the wallets the deployment offers, null for the others. */
export function walletLinks(ctx: AppContext, code: string, now: Date): { apple: string | null; google: string | null } {
  const { wallet } = ctx.config;
  return {
    apple: wallet.apple !== null ? signedWalletUrl(ctx.config, 'apple', code, now) : null,
    google: wallet.google !== null ? signedWalletUrl(ctx.config, 'google', code, now) : null,
  };
}

export function signTicketUrls(ctx: AppContext, codes: string[]): string[] {
  const now = ctx.clock.now();
  return codes.map((code) => signedTicketUrl(ctx.config, code, now));
}

/** 410 `ticket_void`, with what the buyer's page says: the order's language and reference. */
export class TicketVoidError extends AppError {
  constructor(
    readonly lang: string,
    readonly orderReference: string,
  ) {
    super('ticket_void', 'This ticket was voided (the order was refunded)');
  }
}

/**
 * The PDF behind a signed link. A tampered or expired link is 403 `invalid_signature`; a link of a
 * ticket voided by a refund is 410 `ticket_void` (the link was genuine, the ticket is gone).
 */
export async function ticketPdfFromLink(
  ctx: AppContext,
  link: { code: string; expires: unknown; signature: unknown },
): Promise<Buffer> {
  if (!verifyTicketLink(ctx.config, link.code, link.expires, link.signature, ctx.clock.now())) {
    throw new AppError('invalid_signature', 'The ticket link is invalid or has expired');
  }
  const ticket = await repo.ticketByCode(ctx.db, link.code);
  if (!ticket) throw new AppError('not_found', 'Ticket not found');
  if (ticket.status === 'void') throw new TicketVoidError(ticket.lang, ticket.orderReference);
  return renderTicketPdf(ticket, ctx.config.timezone, await qrSecretOf(ctx, ticket));
}

/** Voids the given tickets inside the caller's transaction (a refund of chosen tickets); how many were voided. */
export const voidTickets = (tx: Db, ticketIds: number[], now: Date) => repo.voidTickets(tx, ticketIds, now);

/** The signed order-level links of a completed order (D72): all tickets as one PDF, and the .ics. */
export async function orderLinks(ctx: AppContext, orderId: number, db: Db = ctx.db): Promise<{ all_tickets_pdf_url: string; calendar_url: string } | null> {
  const tickets = (await repo.ticketsOfOrder(db, orderId)).filter((t) => t.status === 'valid');
  const first = tickets[0];
  if (!first) return null;
  const now = ctx.clock.now();
  const until = sessionPassedAt(first.sessionStart, first.sessionEnd);
  return {
    all_tickets_pdf_url: signedOrderUrl(ctx.config, first.orderToken, 'pdf', now, until),
    calendar_url: signedOrderUrl(ctx.config, first.orderToken, 'ics', now, until),
  };
}

/**
 * An order file behind a signed link: every valid ticket in one PDF (one page each), or the
 * calendar of its sessions. 403 for a bad link, 410 `ticket_void` when no ticket is left.
 */
export async function orderFileFromLink(
  ctx: AppContext,
  link: { orderToken: string; kind: OrderFile; expires: unknown; signature: unknown },
): Promise<Buffer | string> {
  if (!verifyOrderLink(ctx.config, link.orderToken, link.kind, link.expires, link.signature, ctx.clock.now())) {
    throw new AppError('invalid_signature', 'The ticket link is invalid or has expired');
  }
  const orderId = await repo.orderIdByToken(ctx.db, link.orderToken);
  if (orderId === null) throw new AppError('not_found', 'Order not found');
  const tickets = (await repo.ticketsOfOrder(ctx.db, orderId)).filter((t) => t.status === 'valid');
  if (tickets.length === 0) throw new AppError('ticket_void', 'This ticket was voided (the order was refunded)');
  if (link.kind === 'ics') {
    const domain = new URL(ctx.config.publicBaseUrl).hostname || 'taquilla';
    return orderCalendar(tickets, { now: ctx.clock.now(), domain, orderUrl: orderPageUrl(ctx.config, tickets[0]!) });
  }
  const withQr = await Promise.all(tickets.map(async (t) => ({ ...t, qr: await qrSecretOf(ctx, t) })));
  return renderTicketsPdf(withQr, ctx.config.timezone);
}

/** Queues the "find my order" e-mail when the address bought on the channel; false when it did not. */
export async function queueOrderLookup(ctx: AppContext, channelId: number, lang: string, email: string): Promise<boolean> {
  const orders = await repo.ordersOfBuyer(ctx.db, channelId, email, 1);
  if (orders.length === 0) return false;
  await queueLookupRow(ctx.db, channelId, lang, email, ctx.clock.now());
  return true;
}
