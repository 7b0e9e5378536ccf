import type { Config } from '../../config.js';
import { formatDateTime, spokenLanguage } from '../../platform/i18n.js';
import { emailDocument, envelopeOf, type OutgoingEmail } from './email-layout.js';
import { orderPageUrl } from './tickets.email.js';
import { sessionPassedAt, signedOrderUrl } from './tickets.links.js';
import type { LookupOrder } from './tickets.repo.js';
import type { OutboxMessage } from './tickets.email.js';

/**
 * "Find my order" (D72): the links to the buyer's orders of one channel (order page, all tickets
 * in one PDF, calendar), signed like the ticket e-mail's. Null when the address has no order.
 */
export function composeOrderLookupEmail(config: Config, row: OutboxMessage, lang: string, orders: LookupOrder[], now: Date, replyTo: string | null): OutgoingEmail | null {
  if (orders.length === 0) return null;
  const es = spokenLanguage(lang) === 'es';
  const subject = es ? 'Tus pedidos' : 'Your orders';
  const intro = es ? 'Nos pediste los enlaces de tus pedidos con esta dirección:' : 'You asked for the links to your orders with this address:';
  const ignore = es ? 'Si no lo pediste tú, ignora este mensaje.' : 'If you did not ask for this, ignore this message.';
  const items = orders.map((o) => {
    const until = sessionPassedAt(o.sessionStart, o.sessionEnd);
    return {
      title: `${o.eventName}, ${formatDateTime(o.sessionStart, o.lang, config.timezone)} (${es ? 'pedido' : 'order'} ${o.reference})`,
      page: orderPageUrl(config, o),
      pdf: signedOrderUrl(config, o.orderToken, 'pdf', now, until),
      ics: signedOrderUrl(config, o.orderToken, 'ics', now, until),
    };
  });
  const labels = es ? { page: 'Ver pedido', pdf: 'Entradas (PDF)', ics: 'Añadir al calendario' } : { page: 'View order', pdf: 'Tickets (PDF)', ics: 'Add to calendar' };
  const text = [
    intro,
    '',
    ...items.flatMap((i) => [i.title, ...(i.page ? [`${labels.page}: ${i.page}`] : []), `${labels.pdf}: ${i.pdf}`, `${labels.ics}: ${i.ics}`, '']),
    ignore,
    '',
  ].join('\n');
  const html = emailDocument(
    lang,
    subject,
    <>
      <p>{intro}</p>
      <ul>
        {items.map((i) => (
          <li>
            <strong>{i.title}</strong>
            <br />
            {i.page && (
              <>
                <a href={i.page}>{labels.page}</a> ·{' '}
              </>
            )}
            <a href={i.pdf}>{labels.pdf}</a> · <a href={i.ics}>{labels.ics}</a>
          </li>
        ))}
      </ul>
      <p>{ignore}</p>
    </>,
  );
  return { ...envelopeOf(config, replyTo, row.messageKey), to: row.recipient, subject, text, html, attachments: [] };
}
