import { pgTable, bigint, integer, text, boolean, uuid, primaryKey } from 'drizzle-orm/pg-core';
import { ts, bigserialId, createdAt, organiserOwned } from './columns.js';

// Check-in (issue 18, migration 0100, docs/checkin.md).

export type ScanResult = 'valid' | 'already_used' | 'invalid' | 'wrong_list' | 'refunded' | 'not_yet_valid' | 'exited';
export type ScanDirection = 'entry' | 'exit';

/** Ed25519 key pairs that sign ticket secrets (D53); the one without retired_at signs new tickets. */
export const ticketSigningKeys = pgTable('ticket_signing_keys', {
  kid: text('kid').primaryKey(),
  publicKey: text('public_key').notNull(),
  privateKeyEnc: text('private_key_enc').notNull(),
  createdAt: createdAt(),
  retiredAt: ts('retired_at'),
  withdrawnAt: ts('withdrawn_at'),
});

export const checkinLists = pgTable('checkin_lists', {
  ...organiserOwned(),
  name: text('name').notNull(),
  allowReentry: boolean('allow_reentry').notNull().default(false),
  opensMinutesBefore: integer('opens_minutes_before').notNull().default(360),
  createdAt: createdAt(),
});

export const checkinListSessions = pgTable(
  'checkin_list_sessions',
  { listId: integer('list_id').notNull(), sessionId: integer('session_id').notNull() },
  (t) => [primaryKey({ columns: [t.listId, t.sessionId] })],
);

export const checkinListSectors = pgTable(
  'checkin_list_sectors',
  { listId: integer('list_id').notNull(), sectorId: integer('sector_id').notNull() },
  (t) => [primaryKey({ columns: [t.listId, t.sectorId] })],
);

export const checkinDevices = pgTable('checkin_devices', {
  ...organiserOwned(),
  name: text('name').notNull(),
  tokenHash: text('token_hash').notNull(),
  tokenLast4: text('token_last4').notNull(),
  createdAt: createdAt(),
  lastSeenAt: ts('last_seen_at'),
  revokedAt: ts('revoked_at'),
});

export const checkinDeviceLists = pgTable(
  'checkin_device_lists',
  { deviceId: integer('device_id').notNull(), listId: integer('list_id').notNull() },
  (t) => [primaryKey({ columns: [t.deviceId, t.listId] })],
);

export const checkinScans = pgTable('checkin_scans', {
  id: bigserialId(),
  listId: integer('list_id').notNull(),
  deviceId: integer('device_id').notNull(),
  ticketId: bigint('ticket_id', { mode: 'number' }),
  clientScanId: uuid('client_scan_id'),
  direction: text('direction').$type<ScanDirection>().notNull(),
  result: text('result').$type<ScanResult>().notNull(),
  offline: boolean('offline').notNull(),
  scannedAt: ts('scanned_at').notNull(),
  receivedAt: ts('received_at').notNull(),
});

export const checkinEntries = pgTable(
  'checkin_entries',
  {
    listId: integer('list_id').notNull(),
    ticketId: bigint('ticket_id', { mode: 'number' }).notNull(),
    firstScanId: bigint('first_scan_id', { mode: 'number' }).notNull(),
    firstScannedAt: ts('first_scanned_at').notNull(),
    firstDeviceId: integer('first_device_id').notNull(),
    inside: boolean('inside').notNull().default(true),
    entries: integer('entries').notNull().default(1),
    changeXid: bigint('change_xid', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.listId, t.ticketId] })],
);
