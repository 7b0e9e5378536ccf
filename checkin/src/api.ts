import type { DeviceInfo, Direction, FirstScan, ListTicket, ScanAnswer, ScanResult } from './types.js';

// The check-in API (/api/checkin/v1) with the device token. A call that gets no answer (no
// network, a timeout) throws Offline, so the scanner falls back to its own verification; an answer
// with an error envelope throws ApiError.

export class Offline extends Error {}
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface TicketPage {
  tickets: ListTicket[];
  next_cursor: string | null;
  has_more: boolean;
}

export interface ListStatus {
  sold: number;
  checked_in: number;
  inside?: number;
  per_device: { device_name: string; entries: number }[];
}

export interface BatchScan {
  client_scan_id: string;
  secret: string;
  direction: Direction;
  scanned_at: string;
}

export interface BatchResult {
  client_scan_id: string;
  result: ScanResult;
  first_scan?: FirstScan;
}

const BASE = '/api/checkin/v1';

export class CheckinApi {
  constructor(
    private readonly token: string,
    private readonly timeoutMs = 4000,
  ) {}

  private async call<T>(method: 'GET' | 'POST', path: string, body?: unknown, timeoutMs = this.timeoutMs): Promise<T> {
    let res: Response;
    try {
      res = await fetch(BASE + path, {
        method,
        headers: { authorization: `Bearer ${this.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
        cache: 'no-store',
      });
    } catch {
      throw new Offline('no answer from the server');
    }
    const json = (await res.json().catch(() => null)) as (T & { code?: string; message?: string }) | null;
    if (!res.ok || !json) {
      // A proxy's 502/504 page is the network failing, not the API answering.
      if (!json?.code && res.status >= 500) throw new Offline(`server answered ${res.status}`);
      throw new ApiError(res.status, json?.code ?? 'unknown', json?.message ?? res.statusText);
    }
    return json;
  }

  device(): Promise<DeviceInfo> {
    return this.call('GET', '/device');
  }

  scan(listId: string, body: { secret: string; direction: Direction; scanned_at: string }): Promise<ScanAnswer> {
    return this.call('POST', `/lists/${encodeURIComponent(listId)}/scans`, body);
  }

  tickets(listId: string, cursor: string | undefined, limit = 5000): Promise<TicketPage> {
    const q = new URLSearchParams({ limit: String(limit), ...(cursor ? { cursor } : {}) });
    return this.call('GET', `/lists/${encodeURIComponent(listId)}/tickets?${q}`, undefined, 30_000);
  }

  batch(listId: string, scans: BatchScan[]): Promise<{ results: BatchResult[] }> {
    return this.call('POST', `/lists/${encodeURIComponent(listId)}/scans/batch`, { scans }, 30_000);
  }

  status(listId: string): Promise<ListStatus> {
    return this.call('GET', `/lists/${encodeURIComponent(listId)}/status`);
  }
}
