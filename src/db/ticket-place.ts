import { sql, type SQL } from 'drizzle-orm';

// The one join from an order item to what its ticket shows (issue 26): the check-in door
// (checkin.repo.ts), the ticket documents, e-mails and passes (tickets.repo.ts) and the box office's
// order page (orders-admin.repo.ts) all read an item's place through it, so a change of where a
// place is kept is made here once.

const EVENT = 'JOIN events e ON e.id = i.event_id';
const SESSION = 'JOIN sessions s ON s.id = i.session_id';
const VENUE = 'JOIN venues v ON v.id = s.venue_id';
const PLACE =
  'JOIN sectors sec ON sec.id = i.sector_id ' +
  'JOIN session_seats ss ON ss.id = i.session_seat_id ' +
  'LEFT JOIN seats st ON st.id = ss.seat_id ' +
  'JOIN rates r ON r.id = i.rate_id';

/**
 * The joins that follow an order item aliased `i` to its place: `sec` its sector, `ss` its session
 * seat, `st` the venue seat (NULL columns for a place in an unnumbered sector), `r` its rate; with
 * `event`, `e` its event; with `session`, `s` its session; with `venue` also `s` and `v`, the
 * session's venue. Every join follows a foreign key of the item, so none adds or drops a row.
 */
export function itemPlaceJoins(what: { event?: boolean; session?: boolean; venue?: boolean } = {}): SQL {
  const joins = [what.event ? EVENT : '', what.session || what.venue ? SESSION : '', what.venue ? VENUE : '', PLACE];
  return sql.raw(joins.filter(Boolean).join(' '));
}
