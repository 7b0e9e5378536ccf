import { sql } from 'drizzle-orm';
import type { AppContext } from '../../app-context.js';
import { queryRows, type Db } from '../../db/client.js';
import { eventTextSql, formatDateTime, formatMoney, spokenLanguage } from '../../platform/i18n.js';
import type { OutboxRow } from './email.repo.js';
import { actionMessage, envelopeOf, type OutgoingEmail } from './email-layout.js';
import { replyToOfChannel } from './tickets.repo.js';
import type { DbTime } from '../../db/instants.js';

// D69: "seats are waiting for you". The waiting-list job holds seats for the head of a session's
// list as a pending order and queues this e-mail in the same transaction (kind waitinglist_offer,
// one row per offer order: the outbox's unique (order_id, kind) makes it once-only). The link opens
// the portal's checkout of that order; the offer lapses when the order's hold runs out.

/** Queues the offer e-mail of a waiting-list offer (same transaction as the offer); once per offer order. */
export async function queueWaitingListOfferEmail(tx: Db, offer: { orderId: number; recipient: string; channelId: number; lang: string; at: Date }): Promise<void> {
  await tx.execute(sql`
    INSERT INTO email_outbox (kind, order_id, channel_id, lang, recipient, next_attempt_at, created_at)
    VALUES ('waitinglist_offer', ${offer.orderId}, ${offer.channelId}, ${offer.lang}, ${offer.recipient}, ${offer.at}, ${offer.at})
    ON CONFLICT (order_id, kind) WHERE payment_id IS NULL DO NOTHING`);
}

/** The portal checkout of an offer's order (D26; models A, B and C). */
export const offerCheckoutUrl = (baseUrl: string, slug: string, lang: string, orderToken: string) =>
  `${baseUrl}/${slug}/${lang.slice(0, 2)}/checkout?order_token=${encodeURIComponent(orderToken)}`;

/**
 * The offer e-mail of an outbox row, or null when there is nothing left to offer (the order was
 * paid, cancelled or ran out before the e-mail could go).
 */
export async function composeWaitingListOfferEmail(ctx: AppContext, row: OutboxRow): Promise<OutgoingEmail | null> {
  if (row.orderId === null) return null;
  const now = ctx.clock.now();
  const [o] = await queryRows<{
    order_token: string;
    status: string;
    expires_at: DbTime | null;
    total_amount: number;
    currency: string;
    lang: string;
    slug: string;
    channel_id: number;
    tickets: number | string;
    event_name: string | null;
    start_datetime: DbTime;
  }>(
    ctx.db,
    sql`SELECT o.order_token, o.status, o.expires_at, o.total_amount, o.currency, o.lang, ch.slug, ch.id AS channel_id,
               (SELECT count(*) FROM order_items i WHERE i.order_id = o.id) AS tickets,
               ${eventTextSql('name', sql`e.id`, sql`o.lang`, sql`e.default_lang`)} AS event_name, s.start_datetime
        FROM orders o JOIN sales_channels ch ON ch.id = o.channel_id
        JOIN order_items fi ON fi.id = (SELECT min(id) FROM order_items WHERE order_id = o.id)
        JOIN sessions s ON s.id = fi.session_id JOIN events e ON e.id = s.event_id
        WHERE o.id = ${row.orderId}`,
  );
  if (!o || o.status !== 'pending' || o.expires_at === null || new Date(o.expires_at) <= now) return null;
  const lang = row.lang ?? o.lang;
  const es = spokenLanguage(lang) === 'es';
  const tz = ctx.config.timezone;
  const until = formatDateTime(new Date(o.expires_at), lang, tz);
  const when = formatDateTime(new Date(o.start_datetime), lang, tz);
  const event = o.event_name ?? '';
  const count = Number(o.tickets);
  const total = formatMoney(o.total_amount, o.currency, lang);
  const link = offerCheckoutUrl(ctx.config.portalCheckoutBaseUrl, o.slug, lang, o.order_token);
  const subject = es ? `Tienes entradas reservadas: ${event}` : `Tickets are waiting for you: ${event}`;
  const lines = es
    ? [
        'Hola,',
        `Se han liberado entradas de la sesión para la que estabas en lista de espera: ${event}, ${when}.`,
        `Te hemos reservado ${count} ${count === 1 ? 'entrada' : 'entradas'} (${total}) hasta el ${until}. Pasado ese momento pasarán a la siguiente persona de la lista.`,
      ]
    : [
        'Hello,',
        `Tickets have come free for the session whose waiting list you joined: ${event}, ${when}.`,
        `We are holding ${count} ${count === 1 ? 'ticket' : 'tickets'} (${total}) for you until ${until}. After that they go to the next person on the list.`,
      ];
  const action = es ? 'Completar la compra' : 'Complete your purchase';
  const ignore = es ? 'Si ya no las quieres, no hagas nada: las liberaremos a esa hora.' : 'If you no longer want them, do nothing: they are released at that time.';
  const { text, html } = actionMessage({ lang, subject, lines, action, link, closing: ignore });
  const replyTo = await replyToOfChannel(ctx.db, o.channel_id);
  return { ...envelopeOf(ctx.config, replyTo, row.messageKey), to: row.recipient, subject, text, html, attachments: [] };
}
