import { emailDocument, envelopeOf } from './email-layout.js';
import type { Config } from '../../config.js';
import type { PaymentRefundFacts } from './email.repo.js';
import { formatMoney, spokenLanguage } from '../../platform/i18n.js';
import type { OutboxMessage, TicketEmail } from './tickets.email.js';

/** Why the payment completed no order, by its failure reason: [Spanish, English]. */
const WHY = new Map<string | null, [es: string, en: string]>([
  ['order_already_paid', ['el pedido ya estaba pagado con otro pago', 'the order had already been paid by another payment']],
  ['amount_mismatch', ['el importe pagado no coincidía con el total del pedido', 'the amount paid did not match the order total']],
  ['seats_unavailable', ['las entradas ya no estaban disponibles', 'the tickets were no longer available']],
  ['order_cancelled', ['el pedido se había cancelado o cerrado', 'the order had been cancelled or closed']],
  ['attempt_cancelled', ['el pedido se había cancelado o cerrado', 'the order had been cancelled or closed']],
  ['order_expired', ['la reserva había caducado', 'the reservation had expired']],
  ['attempt_superseded', ['se había iniciado otro pago del mismo pedido', 'another payment of the same order had been started']],
]);
/** Any other reason (or none). */
const ANY_OTHER: [es: string, en: string] = ['el pago no pudo completar el pedido', 'the payment could not complete the order'];

const why = (reason: string | null, es: boolean): string => (WHY.get(reason) ?? ANY_OTHER)[es ? 0 : 1];

/** The payment refund e-mail in the buyer's language: no order was completed with it, the money goes back. */
export function composePaymentRefundEmail(config: Config, row: OutboxMessage, f: PaymentRefundFacts): TicketEmail {
  const es = spokenLanguage(f.lang) === 'es';
  const amount = formatMoney(f.amount, f.currency, f.lang);
  const subject = es ? `Devolución de tu pago (pedido ${f.orderReference})` : `Your payment has been refunded (order ${f.orderReference})`;
  const greeting = es ? `Hola ${f.buyerName},` : `Hello ${f.buyerName},`;
  const body = es
    ? `Hemos devuelto tu pago de ${amount} a la tarjeta con la que pagaste: ${why(f.reason, true)}, así que ese pago no ha completado ninguna compra.`
    : `We have refunded your payment of ${amount} to the card you paid with: ${why(f.reason, false)}, so that payment completed no purchase.`;
  const note = es
    ? 'Según tu banco, el importe puede tardar unos días en aparecer en tu cuenta.'
    : 'Depending on your bank, the amount may take a few days to show on your account.';
  const ref = f.refundRef ? (es ? `Referencia de la devolución: ${f.refundRef}` : `Refund reference: ${f.refundRef}`) : null;
  const text = [greeting, '', body, note, ...(ref ? ['', ref] : []), ''].join('\n');
  const html = emailDocument(
    f.lang,
    subject,
    <>
      <p>{greeting}</p>
      <p>{body}</p>
      <p>{note}</p>
      {ref && <p>{ref}</p>}
    </>,
  );
  return { ...envelopeOf(config, null, row.messageKey), to: row.recipient, subject, text, html, attachments: [] };
}
