import type { ParsedSecret } from './secret.js';
import type { CheckinList, Direction, FirstScan, ListTicket, ScanResult, TicketView } from './types.js';

// The offline answer at the door: what the device can decide from the signed secret, the
// downloaded list and its own scans. Online the server's answer replaces it (D54). Pure, so the
// unit tests and the bench run it as the scanner does.

/** Why the answer is what it is; the UI shows a text for each (i18n.ts). */
export type Reason =
  | 'entry'
  | 'reentry'
  | 'exit'
  | 'used'
  | 'unreadable'
  | 'forged'
  | 'unknown_key'
  | 'unknown_ticket'
  | 'other_session'
  | 'other_sector'
  | 'revoked'
  | 'reissued'
  | 'no_exit'
  | 'too_early'
  | 'server';

/** What this device knows of a ticket's entries beyond the list download. */
export interface LocalEntry {
  /** The first entry this device (or the server, learnt at a sync) knows of. */
  first_at: string;
  device_name?: string | null;
  /** Inside after the last scan (entry) or out (exit); only matters where re-entry is allowed. */
  inside: boolean;
}

export interface OfflineInput {
  secret: ParsedSecret | null;
  /** The Ed25519 check of a format-2 secret (ignored for format 1). */
  signatureOk: boolean;
  /** Whether the secret's kid is among the published keys. */
  keyKnown: boolean;
  list: CheckinList;
  /** The ticket in the downloaded list: by id (format 2) or by the hash of the code (format 1). */
  ticket: ListTicket | undefined;
  local: LocalEntry | undefined;
  direction: Direction;
  now: Date;
}

export interface OfflineAnswer {
  result: ScanResult;
  reason: Reason;
  ticket?: TicketView;
  first_scan?: FirstScan;
  /** The ticket id the answer is about, when the secret names one: the key of its local entry. */
  ticketId?: string;
}

const same = (a: number | string, b: number | string) => String(a) === String(b);

function viewOf(ticket: ListTicket, list: CheckinList): TicketView {
  const session = list.sessions.find((s) => same(s.id, ticket.session_id));
  return {
    id: ticket.id,
    event_name: session?.event_name ?? null,
    sector: ticket.sector ?? null,
    row: ticket.row ?? null,
    seat: ticket.seat ?? null,
    zone: ticket.zone ?? null,
    rate: ticket.rate ?? null,
    buyer_name: ticket.buyer_name ?? null,
  };
}

export function decideOffline(input: OfflineInput): OfflineAnswer {
  const { secret, list, ticket, local, direction } = input;
  if (!secret) return { result: 'invalid', reason: 'unreadable' };
  if (secret.format === 2) {
    if (!input.keyKnown) return { result: 'invalid', reason: 'unknown_key' };
    if (!input.signatureOk) return { result: 'invalid', reason: 'forged' };
  } else if (!ticket) {
    // A plain code proves nothing by itself: it must be in the list.
    return { result: 'invalid', reason: 'unknown_ticket' };
  }
  const ticketId = secret.format === 2 ? secret.ticketId : String(ticket!.id);
  const sessionId = secret.format === 2 ? secret.sessionId : String(ticket!.session_id);
  // The server's order of refusals (docs/checkin.md): an old secret, refunded, wrong list, too early.
  if (ticket && secret.format === 2 && secret.version < ticket.v) return { result: 'invalid', reason: 'reissued', ticket: viewOf(ticket, list), ticketId };
  if (ticket?.status === 'revoked') return { result: 'refunded', reason: 'revoked', ticket: viewOf(ticket, list), ticketId };
  const session = list.sessions.find((s) => same(s.id, sessionId));
  if (!session) return { result: 'wrong_list', reason: 'other_session', ticketId };
  if (ticket && list.sector_ids && ticket.sector_id != null && !list.sector_ids.some((s) => same(s, ticket.sector_id!))) {
    return { result: 'wrong_list', reason: 'other_sector', ticket: viewOf(ticket, list), ticketId };
  }
  // Signed for a session of this list but sold after the last sync: the signature is the proof,
  // unless the list is limited to sectors, which the secret does not name.
  if (!ticket && list.sector_ids) return { result: 'invalid', reason: 'unknown_ticket', ticketId };
  const opensAt = new Date(session.starts_at).getTime() - (list.opens_minutes_before ?? 0) * 60_000;
  if (input.now.getTime() < opensAt) return { result: 'not_yet_valid', reason: 'too_early', ticket: ticket ? viewOf(ticket, list) : undefined, ticketId };
  const view = ticket ? viewOf(ticket, list) : { id: ticketId, event_name: session.event_name };
  const firstAt = local?.first_at ?? ticket?.checked_in_at ?? null;
  const inside = local ? local.inside : !!firstAt;
  if (direction === 'exit') {
    // As the server: exits only where re-entry is allowed; an exit of someone not inside is recorded all the same.
    if (!list.allow_reentry) return { result: 'invalid', reason: 'no_exit', ticket: view, ticketId };
    return { result: 'exited', reason: 'exit', ticket: view, ticketId };
  }
  if (firstAt && (inside || !list.allow_reentry)) {
    return { result: 'already_used', reason: 'used', ticket: view, first_scan: { scanned_at: firstAt, device_name: local?.device_name ?? null }, ticketId };
  }
  return { result: 'valid', reason: firstAt ? 'reentry' : 'entry', ticket: view, ticketId };
}

/** The local entry after an answer (offline or the server's): null when the scan changed nothing. */
export function entryAfter(previous: LocalEntry | undefined, result: ScanResult, scannedAt: string, deviceName: string, first?: FirstScan): LocalEntry | null {
  if (result === 'valid') return { first_at: previous?.first_at ?? scannedAt, device_name: previous?.device_name ?? deviceName, inside: true };
  if (result === 'exited') return previous ? { ...previous, inside: false } : null;
  if (result === 'already_used' && first) return { first_at: first.scanned_at, device_name: first.device_name ?? null, inside: true };
  return null;
}
