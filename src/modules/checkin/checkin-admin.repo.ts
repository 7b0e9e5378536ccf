import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../../db/client.js';
import { ofOrganiserSql } from '../../platform/organisers.repo.js';
import { eventTextSql } from '../../platform/i18n.js';
import type { DbTime } from '../../db/instants.js';

// SQL of the back office's check-in pages and admin API: lists, devices, scans.

export interface AdminListRow {
  id: number;
  organiser_id: number;
  name: string;
  allow_reentry: boolean;
  opens_minutes_before: number;
  created_at: DbTime;
  session_ids: number[];
  sector_ids: number[];
}

const listColumns = sql`l.id, l.organiser_id, l.name, l.allow_reentry, l.opens_minutes_before, l.created_at,
  COALESCE((SELECT array_agg(session_id ORDER BY session_id) FROM checkin_list_sessions WHERE list_id = l.id), '{}') AS session_ids,
  COALESCE((SELECT array_agg(sector_id ORDER BY sector_id) FROM checkin_list_sectors WHERE list_id = l.id), '{}') AS sector_ids`;

export function lists(db: Db, organiserId: number | null) {
  const where = ofOrganiserSql(sql`l.organiser_id`, organiserId);
  return queryRows<AdminListRow>(db, sql`SELECT ${listColumns} FROM checkin_lists l WHERE ${where} ORDER BY l.id`);
}

export async function list(db: Db, id: number): Promise<AdminListRow | null> {
  const rows = await queryRows<AdminListRow>(db, sql`SELECT ${listColumns} FROM checkin_lists l WHERE l.id = ${id}`);
  return rows[0] ?? null;
}

export async function insertList(db: Db, l: { organiserId: number; name: string; allowReentry: boolean; opensMinutesBefore: number; at: Date }): Promise<number> {
  const rows = await queryRows<{ id: number }>(
    db,
    sql`INSERT INTO checkin_lists (organiser_id, name, allow_reentry, opens_minutes_before, created_at)
        VALUES (${l.organiserId}, ${l.name}, ${l.allowReentry}, ${l.opensMinutesBefore}, ${l.at}) RETURNING id`,
  );
  return rows[0]!.id;
}

export async function updateList(db: Db, id: number, l: { name: string; allowReentry: boolean; opensMinutesBefore: number }): Promise<void> {
  await db.execute(sql`UPDATE checkin_lists SET name = ${l.name}, allow_reentry = ${l.allowReentry}, opens_minutes_before = ${l.opensMinutesBefore} WHERE id = ${id}`);
}

export async function setListScope(db: Db, id: number, sessionIds: number[], sectorIds: number[]): Promise<void> {
  await db.execute(sql`DELETE FROM checkin_list_sessions WHERE list_id = ${id}`);
  await db.execute(sql`DELETE FROM checkin_list_sectors WHERE list_id = ${id}`);
  for (const s of sessionIds) await db.execute(sql`INSERT INTO checkin_list_sessions (list_id, session_id) VALUES (${id}, ${s})`);
  for (const s of sectorIds) await db.execute(sql`INSERT INTO checkin_list_sectors (list_id, sector_id) VALUES (${id}, ${s})`);
}

/** Of `ids`, the sessions of events of the organiser. */
export async function sessionsOfOrganiser(db: Db, organiserId: number, ids: number[]): Promise<number[]> {
  if (!ids.length) return [];
  const rows = await queryRows<{ id: number }>(
    db,
    sql`SELECT s.id FROM sessions s JOIN events e ON e.id = s.event_id WHERE e.organiser_id = ${organiserId} AND s.id IN (${sql.join(ids.map((i) => sql`${i}`), sql`, `)})`,
  );
  return rows.map((r) => r.id);
}

/** Of `ids`, the sectors of the venues of these sessions. */
export async function sectorsOfSessions(db: Db, sessionIds: number[], ids: number[]): Promise<number[]> {
  if (!ids.length || !sessionIds.length) return [];
  const rows = await queryRows<{ id: number }>(
    db,
    sql`SELECT DISTINCT sec.id FROM sectors sec JOIN sessions s ON s.venue_id = sec.venue_id
        WHERE s.id IN (${sql.join(sessionIds.map((i) => sql`${i}`), sql`, `)}) AND sec.id IN (${sql.join(ids.map((i) => sql`${i}`), sql`, `)})`,
  );
  return rows.map((r) => r.id);
}

/** Sessions (with event names) and sectors an organiser may put on a list: for the dashboard's form. */
export function organiserSessions(db: Db, organiserId: number | null) {
  const where = ofOrganiserSql(sql`e.organiser_id`, organiserId);
  return queryRows<{ id: number; organiser_id: number; event_name: string; starts_at: DbTime; venue_id: number }>(
    db,
    sql`SELECT s.id, e.organiser_id, COALESCE(${eventTextSql('name', sql`e.id`, sql`e.default_lang`, sql`e.default_lang`)}, '') AS event_name,
          s.start_datetime AS starts_at, s.venue_id
        FROM sessions s JOIN events e ON e.id = s.event_id WHERE ${where} AND s.status <> 'cancelled'
        ORDER BY s.start_datetime DESC, s.id LIMIT 500`,
  );
}

export function sectorsOfVenues(db: Db, venueIds: number[]) {
  if (!venueIds.length) return Promise.resolve([]);
  return queryRows<{ id: number; venue_id: number; name: string }>(
    db,
    sql`SELECT id, venue_id, name FROM sectors WHERE venue_id IN (${sql.join(venueIds.map((i) => sql`${i}`), sql`, `)}) ORDER BY venue_id, sort_order, id`,
  );
}

// ---- devices

export interface AdminDeviceRow {
  id: number;
  organiser_id: number;
  name: string;
  token_last4: string;
  created_at: DbTime;
  last_seen_at: DbTime | null;
  revoked_at: DbTime | null;
  list_ids: number[];
}

const deviceColumns = sql`d.id, d.organiser_id, d.name, d.token_last4, d.created_at, d.last_seen_at, d.revoked_at,
  COALESCE((SELECT array_agg(list_id ORDER BY list_id) FROM checkin_device_lists WHERE device_id = d.id), '{}') AS list_ids`;

export function devices(db: Db, organiserId: number | null) {
  const where = ofOrganiserSql(sql`d.organiser_id`, organiserId);
  return queryRows<AdminDeviceRow>(db, sql`SELECT ${deviceColumns} FROM checkin_devices d WHERE ${where} ORDER BY d.revoked_at IS NOT NULL, d.id`);
}

export async function device(db: Db, id: number): Promise<AdminDeviceRow | null> {
  const rows = await queryRows<AdminDeviceRow>(db, sql`SELECT ${deviceColumns} FROM checkin_devices d WHERE d.id = ${id}`);
  return rows[0] ?? null;
}

export async function insertDevice(db: Db, d: { organiserId: number; name: string; tokenHash: string; last4: string; listIds: number[]; at: Date }): Promise<number> {
  const rows = await queryRows<{ id: number }>(
    db,
    sql`INSERT INTO checkin_devices (organiser_id, name, token_hash, token_last4, created_at)
        VALUES (${d.organiserId}, ${d.name}, ${d.tokenHash}, ${d.last4}, ${d.at}) RETURNING id`,
  );
  const id = rows[0]!.id;
  for (const l of d.listIds) await db.execute(sql`INSERT INTO checkin_device_lists (device_id, list_id) VALUES (${id}, ${l})`);
  return id;
}

export async function revokeDevice(db: Db, id: number, at: Date): Promise<void> {
  await db.execute(sql`UPDATE checkin_devices SET revoked_at = COALESCE(revoked_at, ${at}) WHERE id = ${id}`);
}

// ---- scans (dashboard)

export interface ScanLogRow {
  id: string | number;
  scanned_at: DbTime;
  received_at: DbTime;
  device_name: string;
  direction: string;
  result: string;
  offline: boolean;
  ticket_id: string | number | null;
  ticket_code: string | null;
  buyer_name: string | null;
  first_scanned_at: DbTime | null;
  first_device_name: string | null;
}

/** Scans of a list, newest first; only already_used ones (who tried to enter twice) with `twice`. */
export function scans(db: Db, listId: number, opts: { twice: boolean; beforeId?: number; limit: number }) {
  return queryRows<ScanLogRow>(
    db,
    sql`SELECT s.id, s.scanned_at, s.received_at, d.name AS device_name, s.direction, s.result, s.offline, s.ticket_id,
          t.code AS ticket_code, NULLIF(trim(concat_ws(' ', c.name, c.surname)), '') AS buyer_name,
          e.first_scanned_at, fd.name AS first_device_name
        FROM checkin_scans s
        JOIN checkin_devices d ON d.id = s.device_id
        LEFT JOIN tickets t ON t.id = s.ticket_id
        LEFT JOIN orders o ON o.id = t.order_id
        LEFT JOIN customers c ON c.id = o.customer_id
        LEFT JOIN checkin_entries e ON e.list_id = s.list_id AND e.ticket_id = s.ticket_id
        LEFT JOIN checkin_devices fd ON fd.id = e.first_device_id
        WHERE s.list_id = ${listId} ${opts.twice ? sql`AND s.result = 'already_used'` : sql``}
          ${opts.beforeId ? sql`AND s.id < ${opts.beforeId}` : sql``}
        ORDER BY s.id DESC LIMIT ${opts.limit}`,
  );
}
