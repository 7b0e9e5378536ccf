import { sql } from 'drizzle-orm';
import { pickByLanguage, spokenLanguage } from '../../platform/i18n.js';

// What the e-mails about a session (its change of date, D74; the organiser's message, D67) read of
// it alike: the event's names in every language, the venue and the organiser's box office.

/** The columns a session e-mail reads besides its own: `e` the event, `v` the venue, `org` the organiser. */
export interface SessionEmailFacts {
  default_lang: string;
  venue_name: string | null;
  reply_to: string | null;
  names: { lang: string; name: string }[] | string;
}

/** The select list of SessionEmailFacts. */
export const sessionEmailColumns = sql`e.default_lang, v.name AS venue_name, org.reply_to_email AS reply_to,
               (SELECT coalesce(json_agg(json_build_object('lang', tr.lang, 'name', tr.name)), '[]'::json)
                  FROM event_translations tr WHERE tr.event_id = e.id) AS names`;

/** From the session `s` to its event `e`, organiser `org` and venue `v` (if any). */
export const sessionEmailJoins = sql`JOIN events e ON e.id = s.event_id
        JOIN organisers org ON org.id = e.organiser_id
        LEFT JOIN venues v ON v.id = s.venue_id`;

/** The reader's language (the outbox row's, else the event's), whether it is Spanish, and the event's name in it. */
export function readerOf(facts: SessionEmailFacts, rowLang: string | null): { lang: string; es: boolean; eventName: string } {
  const lang = rowLang ?? facts.default_lang;
  const names = typeof facts.names === 'string' ? (JSON.parse(facts.names) as { lang: string; name: string }[]) : facts.names;
  const eventName = pickByLanguage(new Map(names.map((n) => [n.lang, n.name])), [lang.slice(0, 2), facts.default_lang]) ?? '';
  return { lang, es: spokenLanguage(lang) === 'es', eventName };
}
