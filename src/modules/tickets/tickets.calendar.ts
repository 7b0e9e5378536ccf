import type { TicketDocument } from './tickets.repo.js';

// "Add to calendar" (D72): an iCalendar file (RFC 5545) of an order's sessions, times in UTC so
// that no VTIMEZONE is needed and every calendar places the event at the same instant.

/** 20261231T193000Z */
const utc = (d: Date) => d.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

/** TEXT escaping of RFC 5545 3.3.11. */
const text = (s: string) => s.replace(/\\/g, '\\\\').replace(/;/g, '\\;').replace(/,/g, '\\,').replace(/\r?\n/g, '\\n');

/** Lines of at most 75 octets, continued with CRLF and a space (RFC 5545 3.1), never splitting a character. */
function fold(line: string): string {
  const out: string[] = [];
  let current = '';
  let octets = 0;
  for (const ch of line) {
    const size = Buffer.byteLength(ch);
    if (octets + size > (out.length ? 74 : 75)) {
      out.push(current);
      current = '';
      octets = 0;
    }
    current += ch;
    octets += size;
  }
  out.push(current);
  return out.join('\r\n ');
}

/** Without a known end, a session is taken to last two hours. */
const DEFAULT_LENGTH_MS = 2 * 3600_000;

/** The calendar of an order's tickets: one event per session, with the seats and the order page. */
export function orderCalendar(tickets: TicketDocument[], opts: { now: Date; domain: string; orderUrl: string | null }): string {
  const sessions = new Map<number, TicketDocument[]>();
  for (const t of tickets) sessions.set(t.sessionId, [...(sessions.get(t.sessionId) ?? []), t]);
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Taquilla//Tickets//EN', 'CALSCALE:GREGORIAN', 'METHOD:PUBLISH'];
  for (const [sessionId, group] of sessions) {
    const first = group[0]!;
    const end = first.sessionEnd ?? new Date(first.sessionStart.getTime() + DEFAULT_LENGTH_MS);
    const seats = group.map((t) => (t.numbered && t.row !== null ? `${t.sectorName} ${t.row}-${t.seatNumber}` : t.sectorName)).join(', ');
    const where = [first.venueName, first.venueAddress, first.venueCity].filter(Boolean).join(', ');
    lines.push(
      'BEGIN:VEVENT',
      `UID:${first.orderReference}-${sessionId}@${first.channelSlug}.${opts.domain}`,
      `DTSTAMP:${utc(opts.now)}`,
      `DTSTART:${utc(first.sessionStart)}`,
      `DTEND:${utc(end)}`,
      `SUMMARY:${text(first.eventName)}`,
      `LOCATION:${text(where)}`,
      `DESCRIPTION:${text(`${first.orderReference}: ${seats}`)}`,
      ...(opts.orderUrl ? [`URL:${opts.orderUrl}`] : []),
      'END:VEVENT',
    );
  }
  lines.push('END:VCALENDAR');
  return `${lines.map(fold).join('\r\n')}\r\n`;
}
