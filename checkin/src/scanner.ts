import { ApiError, CheckinApi, Offline, type ListStatus } from './api.js';
import { decideOffline, entryAfter, type OfflineAnswer } from './decide.js';
import { importPublicKeys, legacyCodeHash, parseSecret, verifySignature } from './secret.js';
import { ScannerStore, type StoredScan } from './store.js';
import type { CheckinList, DeviceInfo, Direction } from './types.js';

// The scanner's use cases, without the UI: set-up from the device token, scanning (the server's
// answer when it can be reached, the device's own otherwise), and sync (offline scans up, list
// changes down, counts). The UI renders `state` and calls these methods.

export interface Answer extends OfflineAnswer {
  /** Decided by this device (no answer from the server). */
  offline: boolean;
  scanned_at: string;
}

export type Problem = 'setup_failed' | 'device_revoked' | 'sync_failed' | 'server_error';

export interface ScannerState {
  phase: 'loading' | 'setup' | 'ready';
  device?: DeviceInfo;
  listId?: string;
  online: boolean;
  syncing: boolean;
  lastSync?: string;
  tickets: number;
  pending: number;
  /** Entries this device admitted on the current list. */
  entries: number;
  status?: ListStatus;
  /** Offline scans the server answered differently on upload. */
  conflicts: StoredScan[];
  answer?: Answer;
  problem?: Problem;
  direction: Direction;
}

/** The token of a set-up link (`…/checkin/#setup=<token>`) or a bare token. */
export function setupToken(text: string): string | null {
  const trimmed = text.trim();
  const at = trimmed.indexOf('#setup=');
  const token = at >= 0 ? decodeURIComponent(trimmed.slice(at + 7).split('&')[0]!) : trimmed;
  return /^[A-Za-z0-9_-]{16,200}$/.test(token) ? token : null;
}

const BATCH = 500;

export class Scanner {
  state: ScannerState = { phase: 'loading', online: navigator.onLine, syncing: false, tickets: 0, pending: 0, entries: 0, conflicts: [], direction: 'entry' };
  private api: CheckinApi | null = null;
  private keys = new Map<string, CryptoKey>();
  private listeners = new Set<() => void>();
  private syncRunning: Promise<void> | null = null;
  /** Server time minus this device's, from the last /device answer: scan times are the server's clock. */
  private clockOffset = 0;

  constructor(readonly store: ScannerStore) {}

  subscribe(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private update(patch: Partial<ScannerState>) {
    this.state = { ...this.state, ...patch };
    for (const fn of this.listeners) fn();
  }

  list(): CheckinList | undefined {
    return this.state.device?.lists.find((l) => String(l.id) === this.state.listId);
  }

  /** Loads the stored set-up; a `#setup=` in the address replaces it. */
  async init(hash: string): Promise<void> {
    const token = hash.includes('setup=') ? setupToken(hash) : null;
    if (token) {
      await this.setup(token);
      return;
    }
    const [stored, device, listId, direction, offset] = await Promise.all([
      this.store.get('token'),
      this.store.get('device'),
      this.store.get('listId'),
      this.store.get('direction'),
      this.store.get('clockOffset'),
    ]);
    this.clockOffset = offset ?? 0;
    if (!stored || !device) {
      this.update({ phase: 'setup' });
      return;
    }
    this.api = new CheckinApi(stored);
    this.keys = await importPublicKeys(device.public_keys);
    this.update({ phase: 'ready', device, listId: listId ?? String(device.lists[0]?.id ?? ''), direction: direction ?? 'entry' });
    await this.refreshCounts();
    void this.sync();
  }

  /** Sets the device up with a token (or a set-up link): asks the server who it is, then downloads the list. */
  async setup(text: string): Promise<boolean> {
    const token = setupToken(text);
    if (!token) {
      this.update({ problem: 'setup_failed' });
      return false;
    }
    const api = new CheckinApi(token);
    let device: DeviceInfo;
    const askedAt = Date.now();
    try {
      device = await api.device();
    } catch {
      this.update({ problem: 'setup_failed', phase: this.state.phase === 'loading' ? 'setup' : this.state.phase });
      return false;
    }
    // Scans not yet uploaded go up with the old token before the store is emptied.
    if (this.api) await this.upload().catch(() => undefined);
    await this.store.reset();
    await this.store.set('token', token);
    await this.learnDevice(device, askedAt, Date.now());
    const listId = String(device.lists[0]?.id ?? '');
    await this.store.set('listId', listId);
    this.api = api;
    this.update({ phase: 'ready', device, listId, problem: undefined, conflicts: [], status: undefined, answer: undefined });
    await this.sync();
    return true;
  }

  async selectList(listId: string): Promise<void> {
    await this.store.set('listId', listId);
    this.update({ listId, status: undefined, conflicts: [] });
    await this.refreshCounts();
    await this.sync();
  }

  async setDirection(direction: Direction): Promise<void> {
    await this.store.set('direction', direction);
    this.update({ direction });
  }

  private now(): Date {
    return new Date(Date.now() + this.clockOffset);
  }

  /** Stores the device's set-up and keys; `askedAt`/`receivedAt` bracket the server's clock reading. */
  private async learnDevice(device: DeviceInfo, askedAt: number, receivedAt: number): Promise<void> {
    const serverTime = new Date(device.server_time).getTime();
    if (Number.isFinite(serverTime)) {
      this.clockOffset = Math.round(serverTime - (askedAt + receivedAt) / 2);
      await this.store.set('clockOffset', this.clockOffset);
    }
    await this.store.set('device', device);
    this.keys = await importPublicKeys(device.public_keys);
  }

  dismiss(): void {
    this.update({ answer: undefined });
  }

  setOnline(online: boolean): void {
    this.update({ online });
    if (online) void this.sync();
  }

  /** What the device alone can say of a code. */
  async verifyOffline(text: string, list: CheckinList, direction: Direction): Promise<OfflineAnswer> {
    const listId = String(list.id);
    const secret = parseSecret(text);
    let signatureOk = false;
    let ticket;
    if (secret?.format === 2) {
      signatureOk = await verifySignature(secret, this.keys);
      if (signatureOk) ticket = await this.store.ticket(listId, secret.ticketId);
    } else if (secret) {
      ticket = await this.store.ticketByLegacyHash(listId, await legacyCodeHash(secret.code));
    }
    const ticketId = secret?.format === 2 ? secret.ticketId : ticket ? String(ticket.id) : undefined;
    const local = ticketId && (signatureOk || secret?.format === 1) ? await this.store.entry(listId, ticketId) : undefined;
    return decideOffline({ secret, signatureOk, keyKnown: secret?.format === 2 && this.keys.has(secret.kid), list, ticket, local, direction, now: this.now() });
  }

  /** One scan at the door: the answer is shown, recorded, and queued for the server when it was decided offline. */
  async scan(raw: string): Promise<Answer | undefined> {
    const text = raw.trim();
    if (!text) return undefined;
    if (text.includes('#setup=')) {
      await this.setup(text);
      return undefined;
    }
    const list = this.list();
    if (!list || !this.api) return undefined;
    const listId = String(list.id);
    const direction = this.state.direction;
    const scannedAt = this.now().toISOString();
    const own = await this.verifyOffline(text, list, direction);
    let answer: Answer = { ...own, offline: true, scanned_at: scannedAt };
    if (navigator.onLine) {
      try {
        const server = await this.api.scan(listId, { secret: text, direction, scanned_at: scannedAt });
        answer = {
          result: server.result,
          reason: server.result === own.result ? own.reason : 'server',
          ticket: server.ticket ?? own.ticket,
          first_scan: server.first_scan,
          ticketId: server.ticket ? String(server.ticket.id) : own.ticketId,
          offline: false,
          scanned_at: scannedAt,
        };
      } catch (err) {
        if (err instanceof ApiError) {
          if (err.status === 401 || err.status === 403) this.update({ problem: 'device_revoked' });
          else if (err.status === 422 || err.status === 400) answer = { result: 'invalid', reason: 'unreadable', offline: false, scanned_at: scannedAt };
          else this.update({ problem: 'server_error' });
        } else if (!(err instanceof Offline)) throw err;
      }
    }
    // Offline answers about a real ticket go up later; the server re-decides them (first scan wins).
    const queue = answer.offline && !!answer.ticketId;
    const entry = answer.ticketId ? entryAfter(await this.store.entry(listId, answer.ticketId), answer.result, scannedAt, this.state.device!.device.name, answer.first_scan) : null;
    await this.store.recordScan(
      { client_scan_id: crypto.randomUUID(), list_id: listId, secret: text, direction, scanned_at: scannedAt, pending: queue ? 1 : 0, result: answer.result, offline: answer.offline },
      answer.ticketId,
      entry,
    );
    this.update({ answer });
    await this.refreshCounts();
    return answer;
  }

  private async refreshCounts(): Promise<void> {
    const listId = this.state.listId;
    if (!listId) return;
    const scans = await this.store.scans(listId);
    this.update({
      tickets: await this.store.ticketCount(listId),
      pending: scans.filter((s) => s.pending === 1).length,
      entries: scans.filter((s) => s.direction === 'entry' && (s.server_result ?? s.result) === 'valid').length,
      // What matters at the door: someone let in offline whom the server refuses (used at another gate first, refunded).
      conflicts: scans.filter((s) => s.result === 'valid' && s.server_result && s.server_result !== 'valid').sort((a, b) => (a.scanned_at < b.scanned_at ? 1 : -1)),
      lastSync: (await this.store.syncPoint(listId)).syncedAt,
    });
  }

  /** Uploads queued scans, refreshes the set-up and keys, downloads list changes, reads the counts. One at a time. */
  sync(): Promise<void> {
    this.syncRunning ??= this.runSync().finally(() => {
      this.syncRunning = null;
    });
    return this.syncRunning;
  }

  private async runSync(): Promise<void> {
    if (!this.api || !navigator.onLine) return;
    this.update({ syncing: true });
    try {
      await this.upload();
      const askedAt = Date.now();
      const device = await this.api.device();
      await this.learnDevice(device, askedAt, Date.now());
      const listId = device.lists.some((l) => String(l.id) === this.state.listId) ? this.state.listId! : String(device.lists[0]?.id ?? '');
      this.update({ device, listId });
      if (listId) {
        await this.download(listId);
        this.update({ status: await this.api.status(listId), problem: undefined });
      }
    } catch (err) {
      if (err instanceof ApiError && (err.status === 401 || err.status === 403)) this.update({ problem: 'device_revoked' });
      else this.update({ problem: err instanceof Offline ? undefined : 'sync_failed' });
    } finally {
      await this.refreshCounts();
      this.update({ syncing: false });
    }
  }

  private async download(listId: string): Promise<void> {
    let { cursor } = await this.store.syncPoint(listId);
    for (;;) {
      const page = await this.api!.tickets(listId, cursor);
      cursor = page.next_cursor ?? cursor ?? '';
      await this.store.putTickets(listId, page.tickets, cursor, this.now().toISOString());
      if (!page.has_more) break;
    }
  }

  private async upload(): Promise<void> {
    for (;;) {
      const pending = await this.store.pendingScans(BATCH);
      if (pending.length === 0) return;
      const listId = pending[0]!.list_id;
      // In the order they happened: the server takes the first by scanned_at, and keeps the order of equal times.
      const batch = pending.filter((s) => s.list_id === listId).sort((a, b) => (a.scanned_at < b.scanned_at ? -1 : a.scanned_at > b.scanned_at ? 1 : 0));
      const { results } = await this.api!.batch(
        listId,
        batch.map((s) => ({ client_scan_id: s.client_scan_id, secret: s.secret, direction: s.direction, scanned_at: s.scanned_at })),
      );
      const byId = new Map(results.map((r) => [r.client_scan_id, r]));
      const done: StoredScan[] = [];
      for (const scan of batch) {
        const r = byId.get(scan.client_scan_id);
        if (!r) continue;
        done.push({ ...scan, pending: 0, server_result: r.result, server_first_scan: r.first_scan });
      }
      if (done.length === 0) return; // the server answered none of them: try again at the next sync
      await this.store.updateScans(done);
    }
  }
}
