import type { Config } from '../../config.js';
import { spokenLanguage } from '../../platform/i18n.js';
import { INTEGRATION_POLICY } from '../../lib/integration-policy.js';
import { formatMoney, formatDateTime } from '../../platform/i18n.js';
import { buyerTexts } from '../../../ui/texts.js';
import { emailDocument, envelopeOf, type OutgoingEmail } from './email-layout.js';
import { sessionPassedAt, signedOrderUrl, signedTicketUrl, signedWalletUrl, type WalletProvider } from './tickets.links.js';
import { formatSessionDate, renderTicketPdf } from './tickets.pdf.js';
import type { RefundMail } from './email.repo.js';
import type { TicketDocument } from './tickets.repo.js';

export type TicketEmail = OutgoingEmail;

const seatText = (t: TicketDocument, es: boolean) =>
  t.numbered && t.row !== null
    ? `${t.sectorName}, ${es ? 'fila' : 'row'} ${t.row}, ${es ? 'butaca' : 'seat'} ${t.seatNumber}`
    : `${t.sectorName} (${es ? 'sin numerar' : 'unnumbered'})`;

/** The outbox row an e-mail is composed for. */
export interface OutboxMessage {
  id: number;
  recipient: string;
  /** How often the box office queued it again: a resend is a new message for the mail client. */
  resends: number;
  /** The row's random Message-ID key (new at each resend); absent: a fresh random one. */
  messageKey?: string;
}

/** The buyer's order page on the portal, or null when the channel's model has none (D). */
export function orderPageUrl(config: Config, t: Pick<TicketDocument, 'integrationMode' | 'channelSlug' | 'lang' | 'orderToken'>): string | null {
  const policy = INTEGRATION_POLICY[t.integrationMode as keyof typeof INTEGRATION_POLICY];
  if (!policy || policy.portalCheckout === null) return null;
  return `${config.publicBaseUrl}/${t.channelSlug}/${t.lang.slice(0, 2)}/orders/${encodeURIComponent(t.orderToken)}`;
}

/**
 * The buyer's ticket e-mail: one PDF attachment per valid ticket, the order's total, a link to the
 * order page and the signed links, valid until the session has passed (at least 7 days). The
 * Message-ID is the outbox row's random key, so a mail client shows a repeated delivery as one
 * message but a resend by the box office (a new key) as a new one.
 */
export async function composeTicketEmail(config: Config, row: OutboxMessage, tickets: Array<TicketDocument & { qr: string }>, now: Date): Promise<TicketEmail> {
  const first = tickets[0]!;
  const es = spokenLanguage(first.lang) === 'es';
  const when = formatSessionDate(first.sessionStart, first.lang, config.timezone);
  const subject = es
    ? `Tus entradas: ${first.eventName} (pedido ${first.orderReference})`
    : `Your tickets: ${first.eventName} (order ${first.orderReference})`;
  const validUntil = sessionPassedAt(first.sessionStart, first.sessionEnd);
  // Wallet passes (D70) where the deployment offers them: the order page's signed links, valid as long as the PDFs'.
  const words = buyerTexts[es ? 'es' : 'en'];
  const walletLabels: Record<WalletProvider, string> = { apple: words.addToAppleWallet, google: words.addToGoogleWallet };
  const wallets = (code: string) =>
    (['apple', 'google'] as const).filter((p) => config.wallet[p] !== null).map((p) => ({ label: walletLabels[p], url: signedWalletUrl(config, p, code, now, validUntil) }));
  const lines = tickets.map((t) => ({ seat: seatText(t, es), url: signedTicketUrl(config, t.code, now, validUntil), code: t.code, wallets: wallets(t.code) }));
  const total = formatMoney(first.orderTotal, first.currency, first.lang);
  const totalLine = es ? `Total del pedido ${first.orderReference}: ${total}` : `Order ${first.orderReference} total: ${total}`;
  const orderUrl = orderPageUrl(config, first);
  const orderNote = es ? 'Tu pedido:' : 'Your order:';
  const until = formatDateTime(validUntil, first.lang, config.timezone);
  const greeting = es ? `Hola ${first.buyerName ?? ''},` : `Hello ${first.buyerName ?? ''},`;
  const intro = es
    ? `Adjuntamos tus entradas para ${first.eventName}, ${when}, en ${first.venueName}.`
    : `Your tickets for ${first.eventName}, ${when}, at ${first.venueName} are attached.`;
  const linkNote = es ? `También puedes descargarlas hasta el ${until}:` : `You can also download them until ${until}:`;
  const allUrl = signedOrderUrl(config, first.orderToken, 'pdf', now, validUntil);
  const icsUrl = signedOrderUrl(config, first.orderToken, 'ics', now, validUntil);
  const allNote = es ? 'Todas las entradas en un PDF' : 'All tickets in one PDF';
  const icsNote = es ? 'Añadir al calendario' : 'Add to calendar';
  const text = [
    greeting,
    '',
    intro,
    totalLine,
    ...(orderUrl ? ['', `${orderNote} ${orderUrl}`] : []),
    '',
    linkNote,
    ...lines.flatMap((l) => [`- ${l.seat}: ${l.url}`, ...l.wallets.map((w) => `  ${w.label}: ${w.url}`)]),
    `- ${allNote}: ${allUrl}`,
    '',
    `${icsNote}: ${icsUrl}`,
    '',
  ].join('\n');
  const html = emailDocument(
    first.lang,
    subject,
    <>
      <p>{greeting}</p>
      <p>{intro}</p>
      <p>
        <strong>{totalLine}</strong>
      </p>
      {orderUrl && (
        <p>
          {orderNote} <a href={orderUrl}>{orderUrl}</a>
        </p>
      )}
      <p>{linkNote}</p>
      <ul>
        {lines.map((l) => (
          <li>
            <a href={l.url}>{l.seat}</a>
            {l.wallets.map((w) => (
              <>
                {' · '}
                <a href={w.url}>{w.label}</a>
              </>
            ))}
          </li>
        ))}
        <li>
          <a href={allUrl}>{allNote}</a>
        </li>
      </ul>
      <p>
        <a href={icsUrl}>{icsNote}</a>
      </p>
    </>,
  );
  const attachments = await Promise.all(
    tickets.map(async (t) => ({
      filename: `ticket-${t.code}.pdf`,
      content: await renderTicketPdf(t, config.timezone, t.qr),
      contentType: 'application/pdf',
    })),
  );
  return { ...envelopeOf(config, first.replyTo, row.messageKey), to: row.recipient, subject, text, html, attachments };
}

/**
 * The buyer's refund e-mail (D58), in the order's language: what was refunded (tickets, amount,
 * fees), where the money goes (the card, with the provider's reference), and that the refunded
 * tickets no longer admit. One per refund: the Message-ID is fixed per outbox row.
 */
export function composeRefundEmail(config: Config, row: OutboxMessage, refund: RefundMail, tickets: TicketDocument[]): TicketEmail {
  const lang = refund.lang;
  const es = spokenLanguage(lang) === 'es';
  const money = (minor: number) => formatMoney(minor, refund.currency, lang);
  const amount = money(-refund.totalAmount);
  const subject = es ? `Devolución de tu pedido ${refund.orderReference}` : `Refund of your order ${refund.orderReference}`;
  const greeting = es ? `Hola ${refund.buyerName ?? ''},` : `Hello ${refund.buyerName ?? ''},`;
  const intro = es
    ? `Hemos devuelto ${amount} de tu pedido ${refund.orderReference} (devolución ${refund.refundReference}).`
    : `We have refunded ${amount} of your order ${refund.orderReference} (refund ${refund.refundReference}).`;
  const byId = new Map(tickets.map((t) => [t.id, t]));
  const lines = refund.tickets.map((r) => {
    const t = byId.get(r.id);
    const what = t ? `${t.eventName}: ${seatText(t, es)}` : `#${r.id}`;
    return `${what} (${money(-r.totalAmount)})`;
  });
  const ticketsTitle = es ? 'Entradas devueltas (ya no son válidas para entrar):' : 'Refunded tickets (no longer valid for entry):';
  const feesNote = refund.feesRefunded
    ? refund.feeAmount !== 0
      ? es
        ? `Incluye ${money(-refund.feeAmount)} de gastos de gestión.`
        : `This includes ${money(-refund.feeAmount)} of booking fees.`
      : null
    : es
      ? 'Los gastos de gestión no se devuelven.'
      : 'Booking fees are not refunded.';
  const cardNote = refund.providerRefundRef
    ? es
      ? `El importe vuelve a la tarjeta con la que pagaste (referencia de la devolución: ${refund.providerRefundRef}). Puede tardar unos días en aparecer.`
      : `The amount goes back to the card you paid with (refund reference: ${refund.providerRefundRef}). It may take a few days to show.`
    : null;
  const paragraphs = [intro, ...(feesNote ? [feesNote] : []), ...(cardNote ? [cardNote] : [])];
  const text = [greeting, '', ...paragraphs, '', ticketsTitle, ...lines.map((l) => `- ${l}`), ''].join('\n');
  const html = emailDocument(
    lang,
    subject,
    <>
      <p>{greeting}</p>
      {paragraphs.map((p) => (
        <p>{p}</p>
      ))}
      <p>{ticketsTitle}</p>
      <ul>
        {lines.map((l) => (
          <li>{l}</li>
        ))}
      </ul>
    </>,
  );
  // The Reply-To is the organiser's box office, as on the tickets e-mail (the refunded tickets name it).
  return { ...envelopeOf(config, tickets[0]?.replyTo, row.messageKey), to: row.recipient, subject, text, html, attachments: [] };
}
