import type { AppContext } from '../../app-context.js';
import type { ScanDirection, ScanResult } from '../../db/schema/index.js';
import { AppError, invalidData } from '../../http/errors.js';
import { isoWithOffset } from '../../lib/time.js';
import { publishedKeys, verifiedClaims } from '../tickets/ticket-keys.service.js';
import { legacyCodeHash } from '../tickets/ticket-secrets.js';
import { onTicketCheckedIn } from './checkin.events.js';
import * as repo from './checkin.repo.js';
import type { BatchInput, ScanInput } from './checkin.schemas.js';
import { dbIso } from '../../db/instants.js';

// The scan API's use cases (D54, docs/checkin.md): who the device is, a scan, an upload of offline
// scans, the list download since a cursor, the counts.

export interface Device {
  id: number;
  name: string;
  organiserId: number;
  listIds: number[];
}

/**
 * The device of `Authorization: Bearer <device token>`, given by the token's hash (`request.bearer`,
 * null without a bearer header); 401 when missing, unknown or revoked.
 */
export async function authenticateDevice(ctx: AppContext, tokenHash: string | null): Promise<Device> {
  if (tokenHash === null) throw new AppError('unauthenticated', 'A device token is required (Authorization: Bearer <token>)');
  // Looked up by its hash (a credential is never stored or compared in clear; equality of
  // 256-bit hashes through the unique index reveals nothing about the token).
  const row = await repo.liveDeviceByTokenHash(ctx.db, tokenHash);
  if (!row) throw new AppError('invalid_token', 'The device token is invalid or revoked');
  return { id: row.id, name: row.name, organiserId: row.organiser_id, listIds: row.list_ids.map(Number) };
}

/** The device, its lists (sessions, sectors, re-entry) and the public keys that verify tickets. */
export async function deviceInfo(ctx: AppContext, device: Device) {
  const [sessions, sectors, keys] = await Promise.all([
    repo.sessionsOfLists(ctx.db, device.listIds),
    repo.sectorsOfLists(ctx.db, device.listIds),
    publishedKeys(ctx),
  ]);
  const lists = [];
  for (const id of device.listIds) {
    const list = (await repo.listById(ctx.db, id))!;
    const sectorIds = sectors.filter((s) => s.list_id === id).map((s) => s.sector_id);
    lists.push({
      id,
      name: list.name,
      allow_reentry: list.allow_reentry,
      opens_minutes_before: list.opens_minutes_before,
      sessions: sessions
        .filter((s) => s.list_id === id)
        .map((s) => ({ id: s.id, event_name: s.event_name, starts_at: dbIso(s.starts_at), ...(s.ends_at ? { ends_at: dbIso(s.ends_at) } : {}) })),
      sector_ids: sectorIds.length ? sectorIds : null,
    });
  }
  await repo.touchDevice(ctx.db, device.id, ctx.clock.now());
  return { device: { id: device.id, name: device.name }, lists, public_keys: keys, server_time: isoWithOffset(ctx.clock.now())!, time_zone: ctx.config.timezone };
}

/** A list of the device; 404 for any other (another organiser's lists are not told apart from missing ones). */
async function listOf(ctx: AppContext, device: Device, listId: number): Promise<repo.ListRow> {
  const list = device.listIds.includes(listId) ? await repo.listById(ctx.db, listId) : null;
  if (!list) throw new AppError('not_found', 'Check-in list not found');
  return list;
}

// A ticket's code (24 base62 characters, tickets.service newTicketCode): the whole QR of a format-1
// ticket, and on every ticket the text printed under the QR, which a gate may type in (issue 31).
const TICKET_CODE = /^[0-9A-Za-z]{24}$/;

/** The ticket a secret stands for, if it is genuine and current, of the list's organiser. */
async function ticketOfSecret(ctx: AppContext, list: repo.ListRow, secret: string): Promise<repo.ScanTicketRow | null> {
  const text = secret.trim();
  let ticket: repo.ScanTicketRow | null;
  if (text.startsWith('tq2.')) {
    const claims = await verifiedClaims(ctx, text);
    if (!claims) return null;
    ticket = await repo.ticketForScan(ctx.db, list.id, { id: claims.ticketId });
    // A reissued ticket has a new version: the old secret is no longer this ticket.
    if (ticket && (ticket.issue_version !== claims.issueVersion || ticket.session_id !== claims.sessionId)) return null;
  } else {
    if (!TICKET_CODE.test(text)) return null;
    // The code is as unguessable as a secret (~142 random bits) and changes at a reissue; a void
    // (refunded) ticket is still found, so that the answer is `refunded` as for its signed secret.
    ticket = await repo.ticketForScan(ctx.db, list.id, { code: text });
  }
  return ticket && ticket.organiser_id === list.organiser_id ? ticket : null;
}

/** Where the ticket sits as the door shows it: row and seat of a numbered seat, else the zone (its sector). */
const placeView = (t: repo.TicketPlaceRow) => ({
  sector: t.sector,
  row: t.numbered ? t.row : null,
  seat: t.numbered ? t.seat : null,
  zone: t.numbered ? null : t.sector,
  rate: t.rate,
  buyer_name: t.buyer_name,
});

const ticketView = (t: repo.ScanTicketRow) => ({
  id: Number(t.id),
  session_id: t.session_id,
  event_name: t.event_name,
  starts_at: dbIso(t.starts_at),
  ...placeView(t),
});

interface ScanRequest {
  secret: string;
  direction: ScanDirection;
  scannedAt: Date;
  offline: boolean;
  clientScanId: string | null;
  /** A verdict known before looking at the ticket (an exit on a list without re-entry). */
  refused?: ScanResult;
}

interface ScanOutcome {
  result: ScanResult;
  ticket?: ReturnType<typeof ticketView>;
  first_scan?: { scanned_at: string; device_name: string };
}

/** A verdict that needs no claim, or null when the scan may let the holder in (or out). */
function refusal(ticket: repo.ScanTicketRow | null, list: repo.ListRow, at: Date): ScanResult | null {
  if (!ticket) return 'invalid';
  if (ticket.status === 'void') return 'refunded';
  if (!ticket.in_list) return 'wrong_list';
  const opens = new Date(ticket.starts_at).getTime() - list.opens_minutes_before * 60_000;
  if (at.getTime() < opens) return 'not_yet_valid';
  return null;
}

class AlreadyStored extends Error {}

async function recordScan(ctx: AppContext, device: Device, list: repo.ListRow, req: ScanRequest): Promise<ScanOutcome> {
  if (req.clientScanId) {
    const stored = await repo.scanByClientId(ctx.db, device.id, req.clientScanId);
    if (stored) return storedOutcome(ctx, list, stored);
  }
  const ticket = await ticketOfSecret(ctx, list, req.secret);
  const refused = req.refused ?? refusal(ticket, list, req.scannedAt);
  const ticketId = ticket ? Number(ticket.id) : null;
  let result: ScanResult;
  try {
    result = await ctx.db.transaction(async (tx) => {
      const scanId = await repo.nextScanId(tx);
      let verdict: ScanResult = refused ?? 'valid';
      let entered = false;
      // The status read above may be stale: a refund takes this same row lock (D58), so the status
      // read under it is final for this scan, and a ticket is never both admitted and refunded.
      if (!refused && (await repo.lockTicketForScan(tx, ticketId!)) === 'void') verdict = 'refunded';
      if (verdict === 'valid') {
        const claim = { listId: list.id, ticketId: ticketId!, scanId, deviceId: device.id, at: req.scannedAt };
        if (req.direction === 'exit') {
          await repo.recordExit(tx, list.id, ticketId!);
          verdict = 'exited';
        } else if (await repo.claimEntry(tx, claim, list.allow_reentry)) {
          entered = true;
        } else {
          // D54: the first scan by scanned_at wins. Only an offline scan can be earlier than the
          // recorded one; an online scan is never allowed to overtake, so that of parallel online
          // scans exactly one is valid.
          verdict = req.offline && !list.allow_reentry && (await repo.takeOverEntry(tx, claim)) ? 'valid' : 'already_used';
        }
      }
      const stored = await repo.insertScan(tx, {
        id: scanId,
        listId: list.id,
        deviceId: device.id,
        ticketId,
        clientScanId: req.clientScanId,
        direction: req.direction,
        result: verdict,
        offline: req.offline,
        scannedAt: req.scannedAt,
        receivedAt: ctx.clock.now(),
      });
      if (!stored) throw new AlreadyStored();
      // An offline scan that overtook the first entry is not a new check-in: no second event.
      if (entered) {
        await onTicketCheckedIn(tx, {
          ticketId: ticketId!,
          channelId: ticket!.channel_id,
          sessionId: ticket!.session_id,
          listId: list.id,
          deviceName: device.name,
          scannedAt: req.scannedAt,
        });
      }
      return verdict;
    });
  } catch (err) {
    // The same upload ran in parallel and stored this scan first: answer with what it stored.
    if (!(err instanceof AlreadyStored)) throw err;
    return storedOutcome(ctx, list, (await repo.scanByClientId(ctx.db, device.id, req.clientScanId!))!);
  }
  return outcome(ctx, list, result, ticket);
}

async function outcome(ctx: AppContext, list: repo.ListRow, result: ScanResult, ticket: repo.ScanTicketRow | null): Promise<ScanOutcome> {
  const answer: ScanOutcome = { result };
  if (ticket && result !== 'invalid') answer.ticket = ticketView(ticket);
  if (ticket && result === 'already_used') {
    const first = await repo.firstScan(ctx.db, list.id, Number(ticket.id));
    if (first) answer.first_scan = { scanned_at: dbIso(first.scanned_at), device_name: first.device_name };
  }
  return answer;
}

async function storedOutcome(ctx: AppContext, list: repo.ListRow, stored: { ticket_id: string | number | null; result: ScanResult }) {
  const ticket = stored.ticket_id === null ? null : await repo.ticketForScan(ctx.db, list.id, { id: Number(stored.ticket_id) });
  return outcome(ctx, list, stored.result, ticket);
}

/** A time a device sends: never in the future of the server (a wrong clock must not win "first scan"). */
function scanTime(ctx: AppContext, value: string | undefined, field: string): Date {
  const now = ctx.clock.now();
  if (value === undefined) return now;
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) throw invalidData({ [field]: ['must be a date and time (ISO 8601)'] });
  return at > now ? now : at;
}

/** One online scan (D54). */
export async function scanTicket(ctx: AppContext, device: Device, listId: number, input: ScanInput): Promise<ScanOutcome> {
  const list = await listOf(ctx, device, listId);
  const direction = input.direction ?? 'entry';
  if (direction === 'exit' && !list.allow_reentry) throw invalidData({ direction: ['exit scans need a list that allows re-entry'] });
  return recordScan(ctx, device, list, { secret: input.secret, direction, scannedAt: scanTime(ctx, input.scanned_at, 'scanned_at'), offline: false, clientScanId: null });
}

/**
 * Scans made offline, uploaded later: each stored once per client_scan_id (a re-upload answers the
 * same), applied in scanned_at order; the first scan by scanned_at wins.
 */
export async function uploadScans(ctx: AppContext, device: Device, listId: number, input: BatchInput) {
  const list = await listOf(ctx, device, listId);
  const scans = input.scans.map((s, i) => ({ ...s, at: scanTime(ctx, s.scanned_at, `scans.${i}.scanned_at`) }));
  const order = scans.map((_, i) => i).sort((a, b) => scans[a]!.at.getTime() - scans[b]!.at.getTime() || a - b);
  const results = new Array<{ client_scan_id: string; result: ScanResult; first_scan?: ScanOutcome['first_scan'] }>(scans.length);
  for (const i of order) {
    const s = scans[i]!;
    // An exit on a list without re-entry is stored as invalid here (it is a 422 online).
    const direction = s.direction ?? 'entry';
    const refused = direction === 'exit' && !list.allow_reentry ? ('invalid' as const) : undefined;
    const o = await recordScan(ctx, device, list, { secret: s.secret, direction, scannedAt: s.at, offline: true, clientScanId: s.client_scan_id.toLowerCase(), refused });
    results[i] = { client_scan_id: s.client_scan_id, result: o.result, ...(o.first_scan ? { first_scan: o.first_scan } : {}) };
  }
  return { results };
}

// ---- the list download

interface Cursor {
  /** Changes of transactions from this id on are sent (0: everything). */
  f: number;
  /** The last ticket id sent in this pass. */
  a: number;
  /** The floor of the next pass, taken when this pass began. */
  n: number;
}

const encodeCursor = (c: Cursor) => Buffer.from(JSON.stringify(c)).toString('base64url');

function decodeCursor(text: string | undefined): Cursor | null {
  if (!text) return null;
  try {
    const c = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Cursor;
    if ([c.f, c.a, c.n].every((v) => Number.isSafeInteger(v) && v >= 0)) return { f: c.f, a: c.a, n: c.n };
  } catch {
    // Not ours: refused below.
  }
  throw invalidData({ cursor: ['is not a cursor of this list download'] });
}

/**
 * The list's tickets changed since the cursor (all of them without one), in id order, `limit` per
 * page. Every change of a transaction not yet visible when a pass began has a transaction id at
 * least that pass's snapshot floor, so the next pass, which starts from that floor, cannot miss it
 * (it may send a ticket twice; a device keeps the last copy).
 */
export async function downloadTickets(ctx: AppContext, device: Device, listId: number, cursorText: string | undefined, limit: number) {
  const list = await listOf(ctx, device, listId);
  const cursor = decodeCursor(cursorText) ?? { f: 0, a: 0, n: -1 };
  if (cursor.a === 0 && cursor.n <= 0) cursor.n = await repo.snapshotFloor(ctx.db);
  const [sessions, sectors] = await Promise.all([repo.sessionsOfLists(ctx.db, [list.id]), repo.sectorsOfLists(ctx.db, [list.id])]);
  const scope = { listId: list.id, sessionIds: sessions.map((s) => s.id), sectorIds: sectors.map((s) => s.sector_id) };
  const rows = await repo.listTickets(ctx.db, scope, cursor.f, cursor.a, limit + 1);
  const hasMore = rows.length > limit;
  const page = hasMore ? rows.slice(0, limit) : rows;
  const tickets = page.map((r) => ({
    id: Number(r.id),
    ...(r.kid && r.secret_format === 2 ? { kid: r.kid } : {}),
    v: r.v,
    // Every ticket: the code printed under its QR scans offline by this hash (format 1: the QR itself).
    legacy_code_sha256: legacyCodeHash(r.code),
    session_id: r.session_id,
    ...placeView(r),
    status: r.status === 'void' ? ('revoked' as const) : ('valid' as const),
    // With re-entry, only a holder who is inside counts as checked in for an offline device.
    ...(r.first_scanned_at && (r.inside || !list.allow_reentry) ? { checked_in_at: dbIso(r.first_scanned_at) } : {}),
  }));
  const next: Cursor = hasMore ? { f: cursor.f, a: Number(page[page.length - 1]!.id), n: cursor.n } : { f: cursor.n, a: 0, n: 0 };
  return { tickets, next_cursor: encodeCursor(next), has_more: hasMore };
}

/** Sold and checked-in tickets of the list, those inside (re-entry lists), entries per gate. */
export async function listStatus(ctx: AppContext, device: Device, listId: number) {
  const list = await listOf(ctx, device, listId);
  const [sessions, devices] = await Promise.all([repo.countsPerSession(ctx.db, list.id), repo.entriesPerDevice(ctx.db, list.id)]);
  const sum = (key: 'sold' | 'checked_in' | 'inside') => sessions.reduce((n, s) => n + Number(s[key]), 0);
  return {
    sold: sum('sold'),
    checked_in: sum('checked_in'),
    ...(list.allow_reentry ? { inside: sum('inside') } : {}),
    per_device: devices.map((d) => ({ device_name: d.device_name, entries: Number(d.entries) })),
  };
}
