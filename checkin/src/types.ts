// The shapes of /api/checkin/v1 (docs/checkin-scanner.md, the check-in contract) as the scanner uses them.

export type ScanResult = 'valid' | 'already_used' | 'invalid' | 'wrong_list' | 'refunded' | 'not_yet_valid' | 'exited';
export type Direction = 'entry' | 'exit';

interface ListSession {
  id: number | string;
  event_name: string;
  starts_at: string;
  ends_at?: string | null;
}

export interface CheckinList {
  id: number | string;
  name: string;
  allow_reentry: boolean;
  /** Admission opens this many minutes before a session starts (not_yet_valid before). */
  opens_minutes_before?: number;
  sessions: ListSession[];
  sector_ids: (number | string)[] | null;
}

export interface DeviceInfo {
  device: { id: number | string; name: string };
  lists: CheckinList[];
  public_keys: { kid: string; public_key: string }[];
  server_time: string;
  /** The deployment's IANA time zone (TIMEZONE): times on the screen are shown in it. Absent from a set-up stored by an older scanner. */
  time_zone?: string;
}

/** What the door shows of a ticket besides its event: its place (sector, row and seat, or zone), rate and buyer. */
interface TicketLabels {
  sector?: string | null;
  row?: string | null;
  seat?: string | null;
  zone?: string | null;
  rate?: string | null;
  buyer_name?: string | null;
}

/** One ticket of the list download. */
export interface ListTicket extends TicketLabels {
  id: number | string;
  kid?: string | null;
  v: number;
  legacy_code_sha256?: string | null;
  session_id: number | string;
  sector_id?: number | string | null;
  status: 'valid' | 'revoked';
  checked_in_at?: string | null;
}

/** What the door sees of a ticket: from the server's answer or the downloaded list. */
export interface TicketView extends TicketLabels {
  id: number | string;
  event_name?: string | null;
}

export interface FirstScan {
  scanned_at: string;
  device_name?: string | null;
}

export interface ScanAnswer {
  result: ScanResult;
  ticket?: TicketView;
  first_scan?: FirstScan;
}
