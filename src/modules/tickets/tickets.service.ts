import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { AppError } from '../../http/errors.js';
import { randomBase62 } from '../../lib/secrets.js';
import { signedTicketUrl, verifyTicketLink } from './tickets.links.js';
import { qrSecretOf } from './ticket-keys.service.js';
import { renderTicketPdf } from './tickets.pdf.js';
import * as repo from './tickets.repo.js';

/** A new ticket code: 24 base62 characters (~142 random bits), so codes cannot be guessed. */
export const newTicketCode = () => randomBase62(24);

/** Signed PDF links of an order's tickets, in item order, freshly signed now (D22, D23). */
export async function ticketPdfUrls(ctx: AppContext, orderId: number, db: Db = ctx.db): Promise<string[]> {
  const codes = await repo.ticketCodesOfOrder(db, orderId);
  return signTicketUrls(ctx, codes);
}

export function signTicketUrls(ctx: AppContext, codes: string[]): string[] {
  const now = ctx.clock.now();
  return codes.map((code) => signedTicketUrl(ctx.config, code, now));
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
  if (ticket.status === 'void') throw new AppError('ticket_void', 'This ticket was voided (the order was refunded)');
  return renderTicketPdf(ticket, ctx.config.timezone, await qrSecretOf(ctx, ticket));
}

/** Voids the tickets of an order inside the caller's transaction (a refund); how many were voided. */
export const voidTicketsOfOrder = (tx: Db, orderId: number, now: Date) => repo.voidTicketsOfOrder(tx, orderId, now);

/** Voids the given tickets inside the caller's transaction (a refund of chosen tickets); how many were voided. */
export const voidTickets = (tx: Db, ticketIds: number[], now: Date) => repo.voidTickets(tx, ticketIds, now);
