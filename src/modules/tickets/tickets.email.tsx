import { renderToString } from 'preact-render-to-string';
import type { Config } from '../../config.js';
import { spokenLanguage } from '../../platform/i18n.js';
import { signedTicketUrl } from './tickets.links.js';
import { formatSessionDate, renderTicketPdf } from './tickets.pdf.js';
import type { TicketDocument } from './tickets.repo.js';

export interface TicketEmail {
  messageId: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  attachments: { filename: string; content: Buffer; contentType: string }[];
}

const seatText = (t: TicketDocument, es: boolean) =>
  t.numbered && t.row !== null
    ? `${t.sectorName}, ${es ? 'fila' : 'row'} ${t.row}, ${es ? 'butaca' : 'seat'} ${t.seatNumber}`
    : `${t.sectorName} (${es ? 'sin numerar' : 'unnumbered'})`;

/**
 * The buyer's ticket e-mail: one PDF attachment per valid ticket plus the signed links. The
 * Message-ID is fixed per outbox row, so a mail client shows a repeated delivery as one message.
 */
export async function composeTicketEmail(
  config: Config,
  outboxId: number,
  recipient: string,
  tickets: Array<TicketDocument & { qr: string }>,
  now: Date,
): Promise<TicketEmail> {
  const first = tickets[0]!;
  const es = spokenLanguage(first.lang) === 'es';
  const when = formatSessionDate(first.sessionStart, first.lang, config.timezone);
  const subject = es
    ? `Tus entradas: ${first.eventName} (pedido ${first.orderReference})`
    : `Your tickets: ${first.eventName} (order ${first.orderReference})`;
  const lines = tickets.map((t) => ({ seat: seatText(t, es), url: signedTicketUrl(config, t.code, now), code: t.code }));
  const greeting = es ? `Hola ${first.buyerName ?? ''},` : `Hello ${first.buyerName ?? ''},`;
  const intro = es
    ? `Adjuntamos tus entradas para ${first.eventName}, ${when}, en ${first.venueName}.`
    : `Your tickets for ${first.eventName}, ${when}, at ${first.venueName} are attached.`;
  const linkNote = es ? 'También puedes descargarlas durante 7 días:' : 'You can also download them for 7 days:';
  const text = [greeting, '', intro, '', linkNote, ...lines.map((l) => `- ${l.seat}: ${l.url}`), ''].join('\n');
  const html = renderToString(
    <>
      <p>{greeting}</p>
      <p>{intro}</p>
      <p>{linkNote}</p>
      <ul>
        {lines.map((l) => (
          <li>
            <a href={l.url}>{l.seat}</a>
          </li>
        ))}
      </ul>
    </>,
  );
  const attachments = await Promise.all(
    tickets.map(async (t) => ({
      filename: `ticket-${t.code}.pdf`,
      content: await renderTicketPdf(t, config.timezone, t.qr),
      contentType: 'application/pdf',
    })),
  );
  const host = new URL(config.publicBaseUrl).hostname || 'taquilla';
  return { messageId: `<tickets-${outboxId}@${host}>`, from: config.mailFrom, to: recipient, subject, text, html, attachments };
}
