import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Db } from '../../db/client.js';
import type { ScanDirection, ScanResult } from '../../db/schema/index.js';
import { eventTextSql } from '../../platform/i18n.js';
import { itemPlaceJoins } from '../../db/ticket-place.js';
import type { DbTime } from '../../db/instants.js';

// SQL of the scan API (/api/checkin/v1): devices, the ticket behind a scan, the once-only claim,
// the list download and the counts. The admin side's SQL is checkin-admin.repo.ts.

export interface DeviceRow {
  id: number;
  name: string;
  organiser_id: number;
  list_ids: number[];
}

/** A live (not revoked) device by the sha256 of its token, with its lists. */
export async function liveDeviceByTokenHash(db: Db, tokenHash: string): Promise<DeviceRow | null> {
  const rows = await queryRows<DeviceRow>(
    db,
    sql`SELECT d.id, d.name, d.organiser_id,
          COALESCE((SELECT array_agg(dl.list_id ORDER BY dl.list_id) FROM checkin_device_lists dl WHERE dl.device_id = d.id), '{}') AS list_ids
        FROM checkin_devices d WHERE d.token_hash = ${tokenHash} AND d.revoked_at IS NULL`,
  );
  return rows[0] ?? null;
}

export async function touchDevice(db: Db, deviceId: number, at: Date): Promise<void> {
  await db.execute(sql`UPDATE checkin_devices SET last_seen_at = ${at} WHERE id = ${deviceId}`);
}

export interface ListRow {
  id: number;
  name: string;
  organiser_id: number;
  allow_reentry: boolean;
  opens_minutes_before: number;
}

export async function listById(db: Db, listId: number): Promise<ListRow | null> {
  const rows = await queryRows<ListRow>(db, sql`SELECT id, name, organiser_id, allow_reentry, opens_minutes_before FROM checkin_lists WHERE id = ${listId}`);
  return rows[0] ?? null;
}

export interface ListSessionRow {
  list_id: number;
  id: number;
  event_name: string;
  starts_at: DbTime;
  ends_at: DbTime | null;
}

/** The sessions of some lists, with their event's name in its default language. */
export function sessionsOfLists(db: Db, listIds: number[]) {
  return queryRows<ListSessionRow>(
    db,
    sql`SELECT ls.list_id, s.id, COALESCE(${eventTextSql('name', sql`e.id`, sql`e.default_lang`, sql`e.default_lang`)}, '') AS event_name,
          s.start_datetime AS starts_at, s.end_datetime AS ends_at
        FROM checkin_list_sessions ls JOIN sessions s ON s.id = ls.session_id JOIN events e ON e.id = s.event_id
        WHERE ls.list_id IN ${inList(listIds)} ORDER BY ls.list_id, s.start_datetime, s.id`,
  );
}

export function sectorsOfLists(db: Db, listIds: number[]) {
  return queryRows<{ list_id: number; sector_id: number }>(
    db,
    sql`SELECT list_id, sector_id FROM checkin_list_sectors WHERE list_id IN ${inList(listIds)} ORDER BY list_id, sector_id`,
  );
}

const inList = (ids: number[]) => sql`(${sql.join(ids.length ? ids.map((id) => sql`${id}`) : [sql`NULL`], sql`, `)})`;

/** Where a ticket sits and whose it is, as both the scan and the scanner's download read it. */
export interface TicketPlaceRow {
  sector: string;
  numbered: boolean;
  row: string | null;
  seat: string | null;
  rate: string;
  buyer_name: string | null;
}

/** A ticket as the door sees it, and where it stands against one list. */
export interface ScanTicketRow extends TicketPlaceRow {
  id: string | number;
  code: string;
  status: 'valid' | 'void';
  issue_version: number;
  secret_format: number;
  session_id: number;
  organiser_id: number;
  channel_id: number;
  starts_at: DbTime;
  event_name: string;
  in_list: boolean;
}

export async function ticketForScan(db: Db, listId: number, by: { id: number } | { code: string }): Promise<ScanTicketRow | null> {
  const where = 'id' in by ? sql`t.id = ${by.id}` : sql`t.code = ${by.code}`;
  const rows = await queryRows<ScanTicketRow>(
    db,
    sql`SELECT t.id, t.code, t.status, t.issue_version, t.secret_format, i.session_id, e.organiser_id, o.channel_id,
          s.start_datetime AS starts_at,
          COALESCE(${eventTextSql('name', sql`e.id`, sql`e.default_lang`, sql`e.default_lang`)}, '') AS event_name,
          sec.name AS sector, sec.numbered, st.row, st.number AS seat, r.name AS rate,
          NULLIF(trim(concat_ws(' ', c.name, c.surname)), '') AS buyer_name,
          (EXISTS (SELECT 1 FROM checkin_list_sessions ls WHERE ls.list_id = ${listId} AND ls.session_id = i.session_id)
            AND (NOT EXISTS (SELECT 1 FROM checkin_list_sectors lx WHERE lx.list_id = ${listId})
              OR EXISTS (SELECT 1 FROM checkin_list_sectors lx WHERE lx.list_id = ${listId} AND lx.sector_id = i.sector_id))) AS in_list
        FROM tickets t
        JOIN order_items i ON i.id = t.order_item_id
        JOIN orders o ON o.id = t.order_id
        ${itemPlaceJoins({ event: true, session: true })}
        LEFT JOIN customers c ON c.id = o.customer_id
        WHERE ${where}`,
  );
  return rows[0] ?? null;
}

export async function scanByClientId(db: Db, deviceId: number, clientScanId: string) {
  const rows = await queryRows<{ id: string | number; ticket_id: string | number | null; result: ScanResult }>(
    db,
    sql`SELECT id, ticket_id, result FROM checkin_scans WHERE device_id = ${deviceId} AND client_scan_id = ${clientScanId}`,
  );
  return rows[0] ?? null;
}

export async function nextScanId(db: Db): Promise<number> {
  const rows = await queryRows<{ id: string }>(db, sql`SELECT nextval(pg_get_serial_sequence('checkin_scans', 'id')) AS id`);
  return Number(rows[0]!.id);
}

export interface Claim {
  listId: number;
  ticketId: number;
  scanId: number;
  deviceId: number;
  at: Date;
}

const CHANGE_XID = sql`pg_current_xact_id()::text::bigint`;

/**
 * The once-only entry (D54): inserts the ticket's entry row unless one exists; with re-entry, an
 * existing row whose holder went out comes back in. True when this scan let the holder in. The
 * primary key decides between parallel scans: the losers wait for the winner's commit and find its row.
 */
/**
 * Locks a ticket row for a scan (FOR SHARE: parallel scans of one ticket do not wait for each
 * other, a refund's FOR UPDATE does, refund.repo lockItems) and reads its status under the lock.
 */
export async function lockTicketForScan(tx: Db, ticketId: number): Promise<'valid' | 'void' | null> {
  const [row] = await queryRows<{ status: 'valid' | 'void' }>(tx, sql`SELECT status FROM tickets WHERE id = ${ticketId} FOR SHARE`);
  return row?.status ?? null;
}

export async function claimEntry(tx: Db, c: Claim, reentry: boolean): Promise<boolean> {
  const onConflict = reentry
    ? sql`DO UPDATE SET inside = true, entries = e.entries + 1, change_xid = EXCLUDED.change_xid WHERE NOT e.inside`
    : sql`DO NOTHING`;
  const rows = await queryRows(
    tx,
    sql`INSERT INTO checkin_entries AS e (list_id, ticket_id, first_scan_id, first_scanned_at, first_device_id, change_xid)
        VALUES (${c.listId}, ${c.ticketId}, ${c.scanId}, ${c.at}, ${c.deviceId}, ${CHANGE_XID})
        ON CONFLICT (list_id, ticket_id) ${onConflict} RETURNING 1`,
  );
  return rows.length === 1;
}

/**
 * An offline scan earlier than the recorded first scan becomes the first (D54: the first scan by
 * scanned_at wins); the overtaken scan is marked already_used. True when it took over.
 */
export async function takeOverEntry(tx: Db, c: Claim): Promise<boolean> {
  const rows = await queryRows<{ first_scan_id: string | number; first_scanned_at: DbTime }>(
    tx,
    sql`SELECT first_scan_id, first_scanned_at FROM checkin_entries WHERE list_id = ${c.listId} AND ticket_id = ${c.ticketId} FOR UPDATE`,
  );
  const current = rows[0];
  if (!current || new Date(current.first_scanned_at).getTime() <= c.at.getTime()) return false;
  await tx.execute(sql`
    UPDATE checkin_entries SET first_scan_id = ${c.scanId}, first_scanned_at = ${c.at}, first_device_id = ${c.deviceId}, change_xid = ${CHANGE_XID}
    WHERE list_id = ${c.listId} AND ticket_id = ${c.ticketId}`);
  await tx.execute(sql`UPDATE checkin_scans SET result = 'already_used' WHERE id = ${Number(current.first_scan_id)}`);
  return true;
}

/** An exit (re-entry lists): the holder is out. */
export async function recordExit(tx: Db, listId: number, ticketId: number): Promise<void> {
  await tx.execute(sql`UPDATE checkin_entries SET inside = false, change_xid = ${CHANGE_XID} WHERE list_id = ${listId} AND ticket_id = ${ticketId} AND inside`);
}

export interface ScanInsert {
  id: number;
  listId: number;
  deviceId: number;
  ticketId: number | null;
  clientScanId: string | null;
  direction: ScanDirection;
  result: ScanResult;
  offline: boolean;
  scannedAt: Date;
  receivedAt: Date;
}

/** Stores a scan; false when its client_scan_id was stored already (a parallel re-upload). */
export async function insertScan(tx: Db, s: ScanInsert): Promise<boolean> {
  const rows = await queryRows(
    tx,
    sql`INSERT INTO checkin_scans (id, list_id, device_id, ticket_id, client_scan_id, direction, result, offline, scanned_at, received_at)
        VALUES (${s.id}, ${s.listId}, ${s.deviceId}, ${s.ticketId}, ${s.clientScanId}, ${s.direction}, ${s.result}, ${s.offline}, ${s.scannedAt}, ${s.receivedAt})
        ON CONFLICT (device_id, client_scan_id) DO NOTHING RETURNING 1`,
  );
  return rows.length === 1;
}

export async function firstScan(db: Db, listId: number, ticketId: number) {
  const rows = await queryRows<{ scanned_at: DbTime; device_name: string }>(
    db,
    sql`SELECT e.first_scanned_at AS scanned_at, d.name AS device_name
        FROM checkin_entries e JOIN checkin_devices d ON d.id = e.first_device_id
        WHERE e.list_id = ${listId} AND e.ticket_id = ${ticketId}`,
  );
  return rows[0] ?? null;
}

// ---- the list download

/** The oldest transaction still running: every change not yet visible has an id at least this. */
export async function snapshotFloor(db: Db): Promise<number> {
  const rows = await queryRows<{ xmin: string }>(db, sql`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`);
  return Number(rows[0]!.xmin);
}

export interface ListTicketRow extends TicketPlaceRow {
  id: string | number;
  kid: string | null;
  v: number;
  secret_format: number;
  code: string;
  session_id: number;
  status: 'valid' | 'void';
  first_scanned_at: DbTime | null;
  inside: boolean | null;
}

/**
 * Tickets of the given sessions (and sectors; none = all) with id > afterId changed since `floor`
 * (0: all), in id order. The page's ids come first, walking tickets in id order and stopping at
 * `limit` (the session ids are values, not a join, so the planner can see how many tickets they
 * hold); only the page's rows are then joined to their seat, rate and buyer.
 */
export function listTickets(db: Db, scope: { listId: number; sessionIds: number[]; sectorIds: number[] }, floor: number, afterId: number, limit: number) {
  const changed: SQL = floor > 0 ? sql`AND (t.change_xid >= ${floor} OR e.change_xid >= ${floor})` : sql``;
  const sectors: SQL = scope.sectorIds.length ? sql`AND i.sector_id IN ${inList(scope.sectorIds)}` : sql``;
  return queryRows<ListTicketRow>(
    db,
    sql`WITH page AS MATERIALIZED (
          SELECT t.id, t.order_item_id, e.first_scanned_at, e.inside
          FROM tickets t
          JOIN order_items i ON i.id = t.order_item_id
          LEFT JOIN checkin_entries e ON e.list_id = ${scope.listId} AND e.ticket_id = t.id
          WHERE t.id > ${afterId} AND i.session_id IN ${inList(scope.sessionIds)} ${sectors} ${changed}
          ORDER BY t.id LIMIT ${limit})
        SELECT t.id, t.signing_kid AS kid, t.issue_version AS v, t.secret_format,
          t.code, i.session_id,
          sec.name AS sector, sec.numbered, st.row, st.number AS seat, r.name AS rate,
          NULLIF(trim(concat_ws(' ', c.name, c.surname)), '') AS buyer_name, t.status,
          page.first_scanned_at, page.inside
        FROM page
        JOIN tickets t ON t.id = page.id
        JOIN order_items i ON i.id = page.order_item_id
        JOIN orders o ON o.id = t.order_id
        ${itemPlaceJoins()}
        LEFT JOIN customers c ON c.id = o.customer_id
        ORDER BY t.id`,
  );
}

// ---- counts

const listTicketsCte = (listId: number) => sql`
  lt AS (
    SELECT t.id, i.session_id FROM checkin_list_sessions ls
    JOIN order_items i ON i.session_id = ls.session_id
    JOIN tickets t ON t.order_item_id = i.id AND t.status = 'valid'
    WHERE ls.list_id = ${listId}
      AND (NOT EXISTS (SELECT 1 FROM checkin_list_sectors lx WHERE lx.list_id = ${listId})
        OR i.sector_id IN (SELECT lx.sector_id FROM checkin_list_sectors lx WHERE lx.list_id = ${listId})))`;

/** Sold and checked-in (and inside) valid tickets of a list, per session. */
export function countsPerSession(db: Db, listId: number) {
  return queryRows<{ session_id: number; sold: string | number; checked_in: string | number; inside: string | number }>(
    db,
    sql`WITH ${listTicketsCte(listId)}
        SELECT lt.session_id, count(*) AS sold, count(e.ticket_id) AS checked_in, count(e.ticket_id) FILTER (WHERE e.inside) AS inside
        FROM lt LEFT JOIN checkin_entries e ON e.list_id = ${listId} AND e.ticket_id = lt.id
        GROUP BY lt.session_id ORDER BY lt.session_id`,
  );
}

/** Entries let in per device (gate) on a list. */
export function entriesPerDevice(db: Db, listId: number) {
  return queryRows<{ device_id: number; device_name: string; entries: string | number; refused: string | number }>(
    db,
    sql`SELECT d.id AS device_id, d.name AS device_name,
          count(*) FILTER (WHERE s.result = 'valid') AS entries,
          count(*) FILTER (WHERE s.result NOT IN ('valid', 'exited')) AS refused
        FROM checkin_scans s JOIN checkin_devices d ON d.id = s.device_id
        WHERE s.list_id = ${listId}
        GROUP BY d.id, d.name ORDER BY d.name, d.id`,
  );
}
