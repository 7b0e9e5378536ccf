import { sql, type SQL } from 'drizzle-orm';
import { tryLockForTransaction } from '../../db/advisory-locks.js';
import { queryRows, type Db } from '../../db/client.js';
import type { WaitingListStatus } from '../../db/schema/index.js';
import { dbDate, type DbTime } from '../../db/instants.js';

// SQL of the waiting list (D69, migration 0220). The once-only rules are the table's: an entry moves
// from 'waiting' to 'offered' by one conditional UPDATE, its offer order is unique, one live entry
// per session and address. Seats are held by the orders module (cart_hold_seats), never here.

/**
 * An entry's status as the buyer and the organiser see it at `now`: an offer whose order completed
 * is converted, one whose order ended (or ran out, D15) has lapsed, even before the job settles it.
 */
const effectiveStatus = (now: Date): SQL => sql`CASE
  WHEN e.status = 'offered' AND o.status = 'completed' THEN 'converted'
  WHEN e.status = 'offered' AND (o.status IN ('cancelled', 'expired') OR o.expires_at <= ${now}::timestamptz) THEN 'lapsed'
  ELSE e.status END`;

/** The session as a channel may offer it a waiting list: null when the channel does not sell it. */
export async function sessionOfChannel(db: Db, channelId: number, sessionId: number, now: Date) {
  const [row] = await queryRows<{ id: number; on_sale: boolean; max_tickets_per_buyer: number | null }>(
    db,
    sql`SELECT s.id, session_is_on_sale(s.id, ${now}::timestamptz) AS on_sale, s.max_tickets_per_buyer
        FROM sessions s JOIN channel_events ce ON ce.event_id = s.event_id AND ce.channel_id = ${channelId}
        WHERE s.id = ${sessionId}`,
  );
  return row ? { id: row.id, onSale: row.on_sale, maxTicketsPerBuyer: row.max_tickets_per_buyer } : null;
}

/** A sector of the session's inventory, and whether its places are numbered seats; null when not the session's. */
export async function sectorOfSession(db: Db, sessionId: number, sectorId: number): Promise<{ numbered: boolean } | null> {
  const [row] = await queryRows<{ numbered: boolean | null }>(
    db,
    sql`SELECT bool_or(seat_id IS NOT NULL) AS numbered FROM session_seats WHERE session_id = ${sessionId} AND sector_id = ${sectorId}`,
  );
  return row?.numbered == null ? null : { numbered: row.numbered };
}

/** A rate of the session, with the sector it is limited to (null: every sector). */
export async function rateOfSession(db: Db, sessionId: number, rateId: number): Promise<{ sectorId: number | null } | null> {
  const [row] = await queryRows<{ sector_id: number | null }>(db, sql`SELECT sector_id FROM rates WHERE id = ${rateId} AND session_id = ${sessionId}`);
  return row ? { sectorId: row.sector_id } : null;
}

/**
 * Free places (D15) of the session that an entry with this sector and rate could be offered: without
 * a sector, its numbered seats; with one, that sector's places, numbered seats or an unnumbered zone's.
 */
export async function freeSeatsInScope(db: Db, sessionId: number, sectorId: number | null, rateId: number | null, now: Date): Promise<number> {
  const [row] = await queryRows<{ n: number | string }>(
    db,
    sql`SELECT count(*) AS n FROM session_seats ss
        WHERE ss.session_id = ${sessionId} AND seat_is_free(ss.status, ss.hold_expires_at, ${now}::timestamptz)
          AND (${sectorId}::integer IS NULL AND ss.seat_id IS NOT NULL OR ss.sector_id = ${sectorId}::integer)
          AND (${rateId}::integer IS NULL OR EXISTS (SELECT 1 FROM rates r WHERE r.id = ${rateId}::integer
                                                     AND rate_fits_seat(r.session_id, r.sector_id, ss.session_id, ss.sector_id)))`,
  );
  return Number(row?.n ?? 0);
}

/** What a visitor asks for when joining the list: shared by a new entry and a stored one. */
interface EntryRequest {
  channelId: number;
  sessionId: number;
  sectorId: number | null;
  rateId: number | null;
  quantity: number;
  email: string;
  name: string | null;
  lang: string;
}

export interface NewEntry extends EntryRequest {
  tokenHash: string;
  at: Date;
}

/** Inserts an entry at the end of the list; null when the address already has a live entry for the session. */
export async function insertEntry(db: Db, e: NewEntry): Promise<number | null> {
  const rows = await queryRows<{ id: string | number }>(
    db,
    sql`INSERT INTO waiting_list_entries (token_hash, channel_id, session_id, sector_id, rate_id, quantity, email, name, lang, created_at)
        VALUES (${e.tokenHash}, ${e.channelId}, ${e.sessionId}, ${e.sectorId}, ${e.rateId}, ${e.quantity}, ${e.email}, ${e.name}, ${e.lang}, ${e.at})
        ON CONFLICT (session_id, lower(email)) WHERE status IN ('waiting', 'offered') DO NOTHING
        RETURNING id`,
  );
  return rows[0] ? Number(rows[0].id) : null;
}

export interface EntryRow extends EntryRequest {
  id: number;
  status: WaitingListStatus;
  /** 1 for the head of the list; null unless waiting. */
  position: number | null;
  createdAt: Date;
  offeredAt: Date | null;
  offerExpiresAt: Date | null;
  settledAt: Date | null;
  orderToken: string | null;
  orderReference: string | null;
}

/** The columns of an entry's request but its session, as the database answers them. */
interface RawRequest {
  channel_id: number;
  sector_id: number | null;
  rate_id: number | null;
  quantity: number;
  email: string;
  name: string | null;
  lang: string;
}

const requestOf = (r: RawRequest): Omit<EntryRequest, 'sessionId'> => ({
  channelId: r.channel_id,
  sectorId: r.sector_id,
  rateId: r.rate_id,
  quantity: r.quantity,
  email: r.email,
  name: r.name,
  lang: r.lang,
});

interface RawEntry extends RawRequest {
  id: string | number;
  session_id: number;
  status: WaitingListStatus;
  position: string | number | null;
  created_at: DbTime;
  offered_at: DbTime | null;
  offer_expires_at: DbTime | null;
  settled_at: DbTime | null;
  order_token: string | null;
  order_reference: string | null;
}

const entryRow = (r: RawEntry): EntryRow => ({
  id: Number(r.id),
  sessionId: r.session_id,
  ...requestOf(r),
  status: r.status,
  position: r.position === null ? null : Number(r.position),
  createdAt: dbDate(r.created_at),
  offeredAt: dbDate(r.offered_at),
  offerExpiresAt: dbDate(r.offer_expires_at),
  settledAt: dbDate(r.settled_at),
  orderToken: r.order_token,
  orderReference: r.order_reference,
});

const entryColumns = (now: Date) => sql`
  e.id, e.channel_id, e.session_id, e.sector_id, e.rate_id, e.quantity, e.email, e.name, e.lang, e.created_at,
  e.offered_at, e.offer_expires_at, e.settled_at, o.order_token, o.reference AS order_reference,
  ${effectiveStatus(now)} AS status,
  CASE WHEN e.status = 'waiting' THEN (SELECT count(*) FROM waiting_list_entries w
                                        WHERE w.session_id = e.session_id AND w.status = 'waiting' AND w.id <= e.id) END AS position`;

/** The entry of a channel named by the hash of its token. */
export async function entryByToken(db: Db, channelId: number, tokenHash: string, now: Date): Promise<EntryRow | null> {
  const rows = await queryRows<RawEntry>(
    db,
    sql`SELECT ${entryColumns(now)} FROM waiting_list_entries e LEFT JOIN orders o ON o.id = e.offer_order_id
        WHERE e.token_hash = ${tokenHash} AND e.channel_id = ${channelId}`,
  );
  return rows[0] ? entryRow(rows[0]) : null;
}

/** Every entry of a session in list order (the organiser's list). */
export async function entriesOfSession(db: Db, sessionId: number, now: Date, limit: number): Promise<EntryRow[]> {
  const rows = await queryRows<RawEntry>(
    db,
    sql`SELECT ${entryColumns(now)} FROM waiting_list_entries e LEFT JOIN orders o ON o.id = e.offer_order_id
        WHERE e.session_id = ${sessionId} ORDER BY e.id LIMIT ${limit}`,
  );
  return rows.map(entryRow);
}

export interface ListFigures {
  session_id: number;
  /** Entries waiting, and the tickets they ask for. */
  waiting: number;
  waiting_tickets: number;
  /** Offers open now (seats held for the buyer). */
  offered: number;
  converted: number;
  converted_tickets: number;
  lapsed: number;
  left: number;
}

/** The waiting-list figures of an event's sessions (or one of them), by effective status. */
export async function figuresOfEvent(db: Db, eventId: number, sessionId: number | null, now: Date): Promise<ListFigures[]> {
  const rows = await queryRows<Record<keyof ListFigures, number | string>>(
    db,
    sql`SELECT q.session_id,
               count(*) FILTER (WHERE q.st = 'waiting') AS waiting,
               COALESCE(sum(q.quantity) FILTER (WHERE q.st = 'waiting'), 0) AS waiting_tickets,
               count(*) FILTER (WHERE q.st = 'offered') AS offered,
               count(*) FILTER (WHERE q.st = 'converted') AS converted,
               COALESCE(sum(q.quantity) FILTER (WHERE q.st = 'converted'), 0) AS converted_tickets,
               count(*) FILTER (WHERE q.st = 'lapsed') AS lapsed,
               count(*) FILTER (WHERE q.st = 'left') AS left
        FROM (SELECT e.session_id, e.quantity, ${effectiveStatus(now)} AS st
              FROM waiting_list_entries e JOIN sessions s ON s.id = e.session_id
              LEFT JOIN orders o ON o.id = e.offer_order_id
              WHERE s.event_id = ${eventId} AND (${sessionId}::integer IS NULL OR e.session_id = ${sessionId}::integer)) q
        GROUP BY q.session_id ORDER BY q.session_id`,
  );
  return rows.map((r) => ({
    session_id: Number(r.session_id),
    waiting: Number(r.waiting),
    waiting_tickets: Number(r.waiting_tickets),
    offered: Number(r.offered),
    converted: Number(r.converted),
    converted_tickets: Number(r.converted_tickets),
    lapsed: Number(r.lapsed),
    left: Number(r.left),
  }));
}

// ---- the offer job

/** Sessions with someone waiting or an offer open: the only ones a pass looks at. */
export async function sessionsWithEntries(db: Db): Promise<number[]> {
  const rows = await queryRows<{ session_id: number }>(
    db,
    sql`SELECT DISTINCT session_id FROM waiting_list_entries WHERE status IN ('waiting', 'offered') ORDER BY session_id`,
  );
  return rows.map((r) => r.session_id);
}

/**
 * One pass per session at a time across every instance: a transaction-scoped advisory lock on the
 * session (the waitingList keyspace). False when another instance holds it (its pass does the work).
 */
export function tryLockSession(tx: Db, sessionId: number): Promise<boolean> {
  return tryLockForTransaction(tx, 'waitingList', sessionId);
}

/** Settles the session's open offers whose order completed (converted) or ended (lapsed: the offer passes on). */
export async function settleOffers(tx: Db, sessionId: number, now: Date): Promise<void> {
  await tx.execute(sql`
    UPDATE waiting_list_entries e
    SET status = CASE WHEN o.status = 'completed' THEN 'converted' ELSE 'lapsed' END, settled_at = ${now}
    FROM orders o
    WHERE o.id = e.offer_order_id AND e.session_id = ${sessionId} AND e.status = 'offered'
      AND (o.status IN ('completed', 'cancelled', 'expired') OR o.expires_at <= ${now}::timestamptz)`);
}

export interface WaitingEntry extends Omit<EntryRequest, 'sessionId'> {
  id: number;
  channelSlug: string;
  integrationMode: string;
}

/** The waiting entries of a session, head first. */
export async function waitingEntries(tx: Db, sessionId: number, limit: number): Promise<WaitingEntry[]> {
  const rows = await queryRows<RawRequest & { id: string | number; slug: string; integration_mode: string }>(
    tx,
    sql`SELECT e.id, e.channel_id, ch.slug, ch.integration_mode, e.sector_id, e.rate_id, e.quantity, e.email, e.name, e.lang
        FROM waiting_list_entries e JOIN sales_channels ch ON ch.id = e.channel_id
        WHERE e.session_id = ${sessionId} AND e.status = 'waiting' ORDER BY e.id LIMIT ${limit}`,
  );
  return rows.map((r) => ({ id: Number(r.id), channelSlug: r.slug, integrationMode: r.integration_mode, ...requestOf(r) }));
}

export interface FreeSeat {
  id: number;
  sectorId: number;
  /** A place of an unnumbered zone (no row, no number): offered only to entries of its zone. */
  zone: boolean;
  row: string;
  number: string;
}

/** The session's free places (D15), numbered seats and zone places, and whether the session is on sale now. */
export async function freeSeatsOf(tx: Db, sessionId: number, now: Date): Promise<{ onSale: boolean; seats: FreeSeat[] }> {
  const [sale] = await queryRows<{ on_sale: boolean }>(tx, sql`SELECT session_is_on_sale(${sessionId}::integer, ${now}::timestamptz) AS on_sale`);
  if (!sale?.on_sale) return { onSale: false, seats: [] };
  const rows = await queryRows<{ id: number; sector_id: number; zone: boolean; row: string | null; number: string | null }>(
    tx,
    sql`SELECT ss.id, ss.sector_id, ss.seat_id IS NULL AS zone, st.row, st.number FROM session_seats ss LEFT JOIN seats st ON st.id = ss.seat_id
        WHERE ss.session_id = ${sessionId} AND seat_is_free(ss.status, ss.hold_expires_at, ${now}::timestamptz)
        ORDER BY ss.id`,
  );
  return {
    onSale: true,
    seats: rows.map((r) => ({ id: r.id, sectorId: r.sector_id, zone: r.zone, row: r.row ?? '', number: r.number ?? '' })),
  };
}

/** The session's rates in the catalogue's order, each with the sector it is limited to. */
export async function ratesOf(tx: Db, sessionId: number): Promise<{ id: number; sectorId: number | null }[]> {
  const rows = await queryRows<{ id: number; sector_id: number | null }>(tx, sql`SELECT id, sector_id FROM rates WHERE session_id = ${sessionId} ORDER BY sort_order, id`);
  return rows.map((r) => ({ id: r.id, sectorId: r.sector_id }));
}

/** Waiting -> offered with its held order; false when the entry is no longer waiting (nothing written). */
export async function markOffered(tx: Db, entryId: number, orderId: number, at: Date, until: Date): Promise<boolean> {
  const rows = await queryRows<{ id: string | number }>(
    tx,
    sql`UPDATE waiting_list_entries SET status = 'offered', offer_order_id = ${orderId}, offered_at = ${at}, offer_expires_at = ${until}
        WHERE id = ${entryId} AND status = 'waiting' AND offer_order_id IS NULL RETURNING id`,
  );
  return rows.length === 1;
}
