import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../../db/client.js';

// Devices registered for updates of Apple Wallet passes (D70, migration 0240).

const PASS_VERSION = sql`COALESCE(t.pass_updated_at, t.issued_at)`;

/** Registers a device for a ticket's pass; true when new, false when it was already (its push token refreshed). */
export async function register(db: Db, r: { device: string; passTypeId: string; serial: string; ticketId: number; pushToken: string; at: Date }): Promise<boolean> {
  // xmax = 0 on the returned row: it was inserted, not updated by the conflict clause.
  const rows = await queryRows<{ inserted: boolean }>(
    db,
    sql`INSERT INTO wallet_registrations (device_library_id, pass_type_id, serial_number, ticket_id, push_token, created_at, pushed_until)
        SELECT ${r.device}, ${r.passTypeId}, ${r.serial}, t.id, ${r.pushToken}, ${r.at}, ${PASS_VERSION} FROM tickets t WHERE t.id = ${r.ticketId}
        ON CONFLICT (device_library_id, pass_type_id, serial_number) DO UPDATE SET push_token = EXCLUDED.push_token
        RETURNING (xmax = 0) AS inserted`,
  );
  return rows[0]?.inserted ?? false;
}

/** Removes a registration; false when there was none. */
export async function unregister(db: Db, device: string, passTypeId: string, serial: string): Promise<boolean> {
  const rows = await queryRows<{ serial_number: string }>(
    db,
    sql`DELETE FROM wallet_registrations WHERE device_library_id = ${device} AND pass_type_id = ${passTypeId} AND serial_number = ${serial} RETURNING serial_number`,
  );
  return rows.length > 0;
}

/** The oldest transaction still running: every ticket change not yet visible has an id at least this. */
export async function snapshotFloor(db: Db): Promise<number> {
  const rows = await queryRows<{ xmin: string }>(db, sql`SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin`);
  return Number(rows[0]!.xmin);
}

/**
 * Serial numbers a device registered for this pass type, only those whose ticket changed in a
 * transaction numbered `since` or later when given (the tag of an earlier listing).
 */
export async function registeredSerials(db: Db, device: string, passTypeId: string, since: number | null): Promise<string[]> {
  const changed = since === null ? sql`` : sql`AND t.change_xid >= ${since}`;
  const rows = await queryRows<{ serial_number: string }>(
    db,
    sql`SELECT r.serial_number FROM wallet_registrations r JOIN tickets t ON t.id = r.ticket_id
        WHERE r.device_library_id = ${device} AND r.pass_type_id = ${passTypeId} ${changed}
        ORDER BY r.serial_number`,
  );
  return rows.map((r) => r.serial_number);
}

export interface PendingPush {
  pushToken: string;
  passTypeId: string;
  /** The newest change the push tells of. */
  until: Date;
}

/** Push tokens of devices holding a pass that changed since they were last told (at most `limit`). */
export async function pendingPushes(db: Db, limit: number): Promise<PendingPush[]> {
  const rows = await queryRows<{ push_token: string; pass_type_id: string; until: string | Date }>(
    db,
    sql`SELECT r.push_token, r.pass_type_id, max(${PASS_VERSION}) AS until FROM wallet_registrations r JOIN tickets t ON t.id = r.ticket_id
        WHERE ${PASS_VERSION} > r.pushed_until
        GROUP BY r.push_token, r.pass_type_id ORDER BY r.push_token, r.pass_type_id LIMIT ${limit}`,
  );
  return rows.map((r) => ({ pushToken: r.push_token, passTypeId: r.pass_type_id, until: new Date(r.until) }));
}

/**
 * After a push: the device has been told of the changes up to `until`. A change made after the
 * pending list was read is newer than `until` and stays pending for the next pass.
 */
export async function markPushed(db: Db, p: PendingPush): Promise<void> {
  await db.execute(sql`
    UPDATE wallet_registrations r SET pushed_until = ${PASS_VERSION} FROM tickets t
    WHERE t.id = r.ticket_id AND r.push_token = ${p.pushToken} AND r.pass_type_id = ${p.passTypeId}
      AND ${PASS_VERSION} > r.pushed_until AND ${PASS_VERSION} <= ${p.until}`);
}

/** APNs said the token is no longer valid (410): the device's registrations go. */
export async function forgetPushToken(db: Db, pushToken: string): Promise<number> {
  const rows = await queryRows<{ serial_number: string }>(db, sql`DELETE FROM wallet_registrations WHERE push_token = ${pushToken} RETURNING serial_number`);
  return rows.length;
}
