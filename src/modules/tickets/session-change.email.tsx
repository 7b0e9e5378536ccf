import { sql } from 'drizzle-orm';
import type { AppContext } from '../../app-context.js';
import { queryRows } from '../../db/client.js';
import { formatDateTime } from '../../platform/i18n.js';
import { emailDocument, envelopeOf } from './email-layout.js';
import type { OutboxRow } from './email.repo.js';
import { readerOf, sessionEmailColumns, sessionEmailJoins, type SessionEmailFacts } from './session-email.js';
import type { TicketEmail } from './tickets.email.js';
import type { DbTime } from '../../db/instants.js';

/**
 * The e-mail to a ticket holder whose session has moved (D74), in the holder's language: the event,
 * the old and the new start in the deployment's time zone, and that the tickets stay valid (their
 * PDFs show the new time). Like every buyer e-mail (email-layout): a whole HTML document, the
 * organiser's box office as Reply-To, and the outbox row's Message-ID. Null when the change is gone.
 */
export async function composeSessionChangeEmail(ctx: AppContext, row: OutboxRow): Promise<TicketEmail | null> {
  if (row.sessionChangeId === null) return null;
  const [change] = await queryRows<SessionEmailFacts & { old_start: DbTime; new_start: DbTime }>(
    ctx.db,
    sql`SELECT c.old_start, c.new_start, ${sessionEmailColumns}
        FROM session_changes c JOIN sessions s ON s.id = c.session_id ${sessionEmailJoins}
        WHERE c.id = ${row.sessionChangeId}`,
  );
  if (!change) return null;
  const { lang, es, eventName } = readerOf(change, row.lang);
  const tz = ctx.config.timezone;
  const before = formatDateTime(new Date(change.old_start), lang, tz);
  const after = formatDateTime(new Date(change.new_start), lang, tz);
  const venue = change.venue_name ? (es ? ` en ${change.venue_name}` : ` at ${change.venue_name}`) : '';
  const subject = es ? `Cambio de fecha: ${eventName}` : `New date and time: ${eventName}`;
  const greeting = es ? 'Hola,' : 'Hello,';
  const intro = es
    ? `La sesión de ${eventName}${venue} para la que tienes entradas cambia de fecha y hora.`
    : `The session of ${eventName}${venue} you have tickets for has a new date and time.`;
  const was = es ? `Antes: ${before}` : `Was: ${before}`;
  const now = es ? `Ahora: ${after}` : `Now: ${after}`;
  const valid = es
    ? 'Tus entradas siguen siendo válidas para la nueva fecha; al descargarlas de nuevo verás la hora nueva.'
    : 'Your tickets remain valid for the new time; downloading them again shows it.';
  const text = [greeting, '', intro, was, now, '', valid, ''].join('\n');
  const html = emailDocument(
    lang,
    subject,
    <>
      <p>{greeting}</p>
      <p>{intro}</p>
      <p>
        {was}
        <br />
        <strong>{now}</strong>
      </p>
      <p>{valid}</p>
    </>,
  );
  return { ...envelopeOf(ctx.config, change.reply_to, row.messageKey), to: row.recipient, subject, text, html, attachments: [] };
}
