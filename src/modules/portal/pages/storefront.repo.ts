import { sql } from 'drizzle-orm';
import type { LayoutUnitRow } from '../../catalogue/catalogue.schemas.js';
import { queryRows, type Db } from '../../../db/client.js';
import { eventTextSql, rateNameSql } from '../../../platform/i18n.js';

/** Read-only queries of the storefront pages: what a channel sells, in the buyer's language. */

/**
 * What a buyer pays for one ticket of rate `r` in session `s` (D71: every price shown includes the
 * mandatory fees): the rate's price plus ticket_fee, the rule the hold itself charges.
 */
const allInPrice = sql`r.price + ticket_fee(r.price, s.event_id, s.id)`;

export interface StoreEvent {
  id: number;
  name: string;
  description: string | null;
  image_url: string | null;
  venue: string;
  city: string | null;
  first_session: Date | null;
  last_session: Date | null;
  /** The lowest all-in price (the rate plus its mandatory fees, D71) of the sessions on sale, in minor units; null without any. */
  from_price: number | null;
  /** The days of its sessions on sale, YYYY-MM-DD in the deployment's time zone (the date search). */
  days: string[];
}

export async function listEvents(db: Db, channelId: number, lang: string, now: Date, timezone: string): Promise<StoreEvent[]> {
  const at = now.toISOString();
  const onSale = sql`s.event_id = e.id AND s.status = 'on_sale' AND s.start_datetime > ${at}`;
  const rows = await queryRows<Omit<StoreEvent, 'first_session' | 'last_session'> & { first_session: string | null; last_session: string | null }>(
    db,
    sql`SELECT e.id, ${eventTextSql('name', sql`e.id`, lang, sql`e.default_lang`)} AS name,
               ${eventTextSql('description', sql`e.id`, lang, sql`e.default_lang`)} AS description,
               e.image_url, v.name AS venue, v.city,
               (SELECT min(s.start_datetime) FROM sessions s WHERE ${onSale}) AS first_session,
               (SELECT max(s.start_datetime) FROM sessions s WHERE ${onSale}) AS last_session,
               (SELECT min(${allInPrice})::int FROM rates r JOIN sessions s ON s.id = r.session_id WHERE ${onSale}) AS from_price,
               coalesce((SELECT array_agg(DISTINCT to_char(s.start_datetime AT TIME ZONE ${timezone}, 'YYYY-MM-DD')) FROM sessions s WHERE ${onSale}), '{}') AS days
          FROM events e
          JOIN channel_events ce ON ce.event_id = e.id AND ce.channel_id = ${channelId}
          JOIN venues v ON v.id = e.venue_id
         WHERE e.status = 'published'
         ORDER BY first_session NULLS LAST, e.id`,
  );
  return rows.map((r) => ({
    ...r,
    first_session: r.first_session ? new Date(r.first_session) : null,
    last_session: r.last_session ? new Date(r.last_session) : null,
  }));
}

export async function findEvent(db: Db, channelId: number, eventId: number, lang: string, now: Date, timezone: string): Promise<StoreEvent | null> {
  const events = await listEvents(db, channelId, lang, now, timezone);
  return events.find((e) => e.id === eventId) ?? null;
}

export interface StoreSession {
  id: number;
  start_datetime: Date;
  available: number;
  /** The session's lowest all-in price (D71), minor units; null without rates. */
  from_price: number | null;
}

export async function listSessions(db: Db, eventId: number, now: Date): Promise<StoreSession[]> {
  const rows = await queryRows<{ id: number; start_datetime: string; available: number; from_price: number | null }>(
    db,
    sql`SELECT s.id, s.start_datetime,
               (SELECT min(${allInPrice})::int FROM rates r WHERE r.session_id = s.id) AS from_price,
               (SELECT count(*)::int FROM session_seats ss WHERE ss.session_id = s.id
                  AND seat_is_free(ss.status, ss.hold_expires_at, ${now.toISOString()}::timestamptz)) AS available
          FROM sessions s
         WHERE s.event_id = ${eventId} AND s.status = 'on_sale' AND s.start_datetime > ${now.toISOString()}
         ORDER BY s.start_datetime, s.id`,
  );
  return rows.map((r) => ({ ...r, start_datetime: new Date(r.start_datetime) }));
}

interface StoreRate {
  id: number;
  name: string;
  /** The rate's price without fees, minor units. */
  price: number;
  /** Its mandatory fees per ticket (D71: shown included, and broken down), minor units. */
  fee: number;
  sector_id: number | null;
}

export interface StoreSector {
  id: number;
  name: string;
  numbered: boolean;
  capacity: number;
  available: number;
}

/** A numbered seat of the session's layout (catalogue.repo). */
type StoreSeat = LayoutUnitRow;

export interface StoreSessionDetail {
  sectors: StoreSector[];
  /**
   * The numbered seats by sector, then y, then x: the same array for every view of the session
   * while its layout is cached, so that what the page derives from the places alone is derived once.
   */
  seats: readonly StoreSeat[];
  /** Whether a seat (its session seat id) can be bought now. */
  free: (seatId: number) => boolean;
  rates: StoreRate[];
}

/** The session's sectors of `ids` in the venue's order (without their free counts, which come from the live inventory). */
export async function sessionSectors(db: Db, ids: number[]): Promise<Omit<StoreSector, 'available'>[]> {
  if (ids.length === 0) return [];
  return queryRows(db, sql`SELECT id, name, numbered, capacity FROM sectors WHERE id = ANY(${`{${ids.join(',')}}`}::int[]) ORDER BY sort_order, id`);
}

/** The session's rates in `lang`, with their mandatory fees (D71). */
export async function sessionRates(db: Db, sessionId: number, lang: string): Promise<StoreRate[]> {
  return queryRows<StoreRate>(
    db,
    sql`SELECT r.id, ${rateNameSql(sql`r.names`, sql`r.name`, lang, sql`e.default_lang`)} AS name, r.price,
               ticket_fee(r.price, s.event_id, s.id) AS fee, r.sector_id
          FROM rates r JOIN sessions s ON s.id = r.session_id JOIN events e ON e.id = s.event_id WHERE r.session_id = ${sessionId} ORDER BY r.sort_order, r.id`,
  );
}

export async function sessionOfEvent(db: Db, eventId: number, sessionId: number, now: Date): Promise<StoreSession | null> {
  return (await listSessions(db, eventId, now)).find((s) => s.id === sessionId) ?? null;
}
