import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../../db/client.js';
import { itemPlaceJoins } from '../../db/ticket-place.js';

/** One valid ticket of a session with the person who holds it (D67). */
export interface AttendeeRow {
  ticket_id: number;
  ticket_code: string;
  holder_name: string | null;
  holder_surname: string | null;
  email: string | null;
  phone: string | null;
  lang: string;
  sector: string;
  row: string | null;
  seat: string | null;
  rate: string;
  channel: string;
  order_reference: string;
  /** Minor units. */
  total_amount: number;
  purchased_at: Date;
  checked_in_at: Date | null;
}

interface RawAttendee extends Omit<AttendeeRow, 'ticket_id' | 'purchased_at' | 'checked_in_at'> {
  ticket_id: string | number;
  purchased_at: string | Date;
  checked_in_at: string | Date | null;
}

export interface AttendeePage {
  sessionId: number;
  /** Keyset cursor: only tickets with a larger id. */
  afterId: number;
  limit: number;
  /** Case-insensitive text that the holder's name, e-mail, order reference or ticket code contains. */
  search: string | null;
}

/**
 * One page of a session's valid tickets, by ticket id (a keyset, so that an export of 20,000 rows
 * reads page after page without holding them all). "Checked in" is the first entry on any list.
 */
export async function attendeesPage(db: Db, page: AttendeePage): Promise<AttendeeRow[]> {
  const like = page.search ? `%${page.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
  const rows = await queryRows<RawAttendee>(
    db,
    sql`
    SELECT t.id AS ticket_id, t.code AS ticket_code, c.name AS holder_name, c.surname AS holder_surname, c.email, c.phone,
           o.lang, sec.name AS sector, st.row, st.number AS seat, r.name AS rate, ch.name AS channel,
           o.reference AS order_reference, i.total_amount, COALESCE(o.completed_at, o.created_at) AS purchased_at,
           (SELECT min(ce.first_scanned_at) FROM checkin_entries ce WHERE ce.ticket_id = t.id) AS checked_in_at
    FROM order_items i
    JOIN tickets t ON t.order_item_id = i.id AND t.status = 'valid'
    JOIN orders o ON o.id = i.order_id
    JOIN sales_channels ch ON ch.id = o.channel_id
    ${itemPlaceJoins()}
    LEFT JOIN customers c ON c.id = o.customer_id
    WHERE i.session_id = ${page.sessionId} AND t.id > ${page.afterId}
      AND (${like}::text IS NULL OR concat_ws(' ', c.name, c.surname, c.email, o.reference, t.code) ILIKE ${like}::text)
    ORDER BY t.id
    LIMIT ${page.limit}`,
  );
  return rows.map((r) => ({
    ...r,
    ticket_id: Number(r.ticket_id),
    total_amount: Number(r.total_amount),
    purchased_at: new Date(r.purchased_at),
    checked_in_at: r.checked_in_at === null ? null : new Date(r.checked_in_at),
  }));
}

