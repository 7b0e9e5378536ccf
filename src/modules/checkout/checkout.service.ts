import type { AppContext } from '../../app-context.js';
import { invalidData } from '../../http/errors.js';
import { toMinor } from '../../lib/money.js';
import { countConfirm } from '../../platform/metrics.js';
import type { ChannelRecord } from '../../db/channel-record.js';
import { orderTicketLinks, signTicketUrls, walletLinks } from '../tickets/tickets.service.js';
import type { ConfirmBody } from './checkout.schemas.js';
import { closeOrder } from './closing.service.js';
import { orderViewFromRows } from '../orders/orders.view.js';

/**
 * Confirm of an externally collected payment (SPEC "Payment confirmation", D19-D22): closes the
 * order, or returns the earlier result when it is completed already, with freshly signed links.
 * Which models and credentials may confirm is the route's `confirm` operation, checked by the B2B
 * guard against the integration policy before this runs (src/http/b2b-operation.ts).
 */
export async function confirmOrder(
  ctx: AppContext,
  channel: ChannelRecord,
  input: { lang: string; orderToken: string; body: ConfirmBody },
) {
  const { body } = input;
  const amount = toMinor(body.amount);
  if (amount === null) throw invalidData({ amount: ['must be a number with at most two decimals'] });
  // Another channel's order is not found either (D5): the token is looked up within the channel.
  const closed = await closeOrder(ctx, {
    orderRef: { orderToken: input.orderToken, channelId: channel.id },
    buyer: { name: body.name.trim(), surname: body.surname.trim(), email: body.email.trim(), phone: body.phone?.trim() || null },
    paymentMethod: body.payment_method ?? null,
    transactionId: body.transaction_id ?? null,
    expectedAmount: amount,
    withRows: true,
    lang: input.lang,
  });
  countConfirm(closed.alreadyCompleted ? 'already_completed' : 'completed');
  const view = await orderViewFromRows(ctx, closed.rows, input.lang);
  // The wallet links (D70) under the order page's rule: only the wallets the deployment offers, only
  // valid tickets. The items in id order are the order of the codes (close_order issues them so).
  // A fresh closing's tickets are all valid, so their links are signed from the codes close_order
  // returned; only a repeated confirm reads the tickets, whose refunds may have voided some (a
  // statement more per confirm on the hot path, bench:confirm).
  const itemIds = view.events
    .flatMap((e) => e.sessions.flatMap((s) => s.items.map((i) => i.id)))
    .sort((a, b) => a - b);
  const walletOffered = ctx.config.wallet.apple !== null || ctx.config.wallet.google !== null;
  const now = ctx.clock.now();
  const wallet = !walletOffered
    ? itemIds.map((id) => ({ item_id: id, apple: null, google: null }))
    : closed.alreadyCompleted
      ? (await orderTicketLinks(ctx, closed.orderId)).map((t) => ({ item_id: t.itemId, apple: t.appleWalletUrl, google: t.googleWalletUrl }))
      : itemIds.map((id, i) => ({ item_id: id, ...walletLinks(ctx, closed.ticketCodes[i]!, now) }));
  return {
    alreadyCompleted: closed.alreadyCompleted,
    data: { ...view, ticket_pdf_urls: signTicketUrls(ctx, closed.ticketCodes), ticket_wallet_urls: wallet },
  };
}
