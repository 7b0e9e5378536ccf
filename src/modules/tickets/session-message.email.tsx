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
 * The organiser's message to a ticket holder of a session (D67): the organiser's subject and text,
 * under a line that says which session it is about (event, date and venue in the holder's
 * language), and the organiser's box office as Reply-To. Null when the message is gone.
 */
export async function composeSessionMessageEmail(ctx: AppContext, row: OutboxRow): Promise<TicketEmail | null> {
  if (row.sessionMessageId === null) return null;
  const [m] = await queryRows<SessionEmailFacts & { subject: string; body: string; start_datetime: DbTime; organiser_name: string }>(
    ctx.db,
    sql`SELECT m.subject, m.body, s.start_datetime, org.name AS organiser_name, ${sessionEmailColumns}
        FROM session_messages m JOIN sessions s ON s.id = m.session_id ${sessionEmailJoins}
        WHERE m.id = ${row.sessionMessageId}`,
  );
  if (!m) return null;
  const { lang, es, eventName } = readerOf(m, row.lang);
  const when = formatDateTime(new Date(m.start_datetime), lang, ctx.config.timezone);
  const venue = m.venue_name ? `, ${m.venue_name}` : '';
  const about = es
    ? `Mensaje de ${m.organiser_name} para quienes tienen entradas de ${eventName} (${when}${venue}):`
    : `A message from ${m.organiser_name} to ticket holders of ${eventName} (${when}${venue}):`;
  const paragraphs = m.body.split(/\r?\n\s*\r?\n/).map((p) => p.trim()).filter(Boolean);
  const text = [about, '', ...paragraphs.flatMap((p) => [p, '']), ''].join('\n');
  const html = emailDocument(
    lang,
    m.subject,
    <>
      <p style="color:#555">{about}</p>
      {paragraphs.map((p) => (
        <p>
          {p.split(/\r?\n/).flatMap((line, i) => (i === 0 ? [line] : [<br />, line]))}
        </p>
      ))}
    </>,
  );
  return { ...envelopeOf(ctx.config, m.reply_to, row.messageKey), to: row.recipient, subject: m.subject, text, html, attachments: [] };
}
