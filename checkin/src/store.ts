import type { LocalEntry } from './decide.js';
import type { DeviceInfo, Direction, FirstScan, ListTicket, ScanResult } from './types.js';

// The scanner's IndexedDB: the device set-up, each list's tickets and sync cursor, this device's
// entries per ticket and every scan it made (the queue of those the server has not yet seen).
// Plain IndexedDB with promise helpers: the app keeps working with no network and across reloads.

const DB_NAME = 'taquilla-checkin';

export interface StoredTicket extends ListTicket {
  key: string;
  list_id: string;
}

export interface StoredScan {
  client_scan_id: string;
  list_id: string;
  secret: string;
  direction: Direction;
  scanned_at: string;
  /** 1 until the server has stored it (IndexedDB cannot index booleans). */
  pending: 0 | 1;
  /** The answer shown at the door. */
  result: ScanResult;
  offline: boolean;
  /** What the server said on upload, when it differs from what the door was shown. */
  server_result?: ScanResult;
  server_first_scan?: FirstScan;
}

interface Meta {
  token: string;
  device: DeviceInfo;
  listId: string;
  lang: string;
  direction: Direction;
  clockOffset: number;
}

const ticketKey = (listId: string, ticketId: number | string) => `${listId}:${ticketId}`;

function req<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

function done(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error('transaction aborted'));
  });
}

export class ScannerStore {
  private constructor(private readonly db: IDBDatabase) {}

  static async open(name = DB_NAME): Promise<ScannerStore> {
    const open = indexedDB.open(name, 1);
    open.onupgradeneeded = () => {
      const db = open.result;
      db.createObjectStore('meta');
      db.createObjectStore('tickets', { keyPath: 'key' }).createIndex('legacy', ['list_id', 'legacy_code_sha256']);
      db.createObjectStore('entries');
      const scans = db.createObjectStore('scans', { keyPath: 'client_scan_id' });
      scans.createIndex('pending', 'pending');
      scans.createIndex('list', 'list_id');
    };
    return new ScannerStore(await req(open));
  }

  async get<K extends keyof Meta>(key: K): Promise<Meta[K] | undefined> {
    return req(this.db.transaction('meta').objectStore('meta').get(key));
  }

  /** Where the list download continues, and when it last ran. */
  async syncPoint(listId: string): Promise<{ cursor?: string; syncedAt?: string }> {
    const meta = this.db.transaction('meta').objectStore('meta');
    const [cursor, syncedAt] = await Promise.all([req(meta.get(`cursor:${listId}`)), req(meta.get(`synced:${listId}`))]);
    return { cursor: cursor as string | undefined, syncedAt: syncedAt as string | undefined };
  }

  async set<K extends keyof Meta>(key: K, value: Meta[K]): Promise<void> {
    const tx = this.db.transaction('meta', 'readwrite');
    tx.objectStore('meta').put(value, key);
    await done(tx);
  }

  /** Forgets the device (a new set-up): every store emptied. */
  async reset(): Promise<void> {
    const names = ['meta', 'tickets', 'entries', 'scans'];
    const tx = this.db.transaction(names, 'readwrite');
    for (const n of names) tx.objectStore(n).clear();
    await done(tx);
  }

  /** One page of the list download and the cursor after it, in one transaction. */
  async putTickets(listId: string, tickets: ListTicket[], cursor: string, syncedAt: string): Promise<void> {
    const tx = this.db.transaction(['tickets', 'meta'], 'readwrite');
    const store = tx.objectStore('tickets');
    for (const t of tickets) store.put({ ...t, key: ticketKey(listId, t.id), list_id: listId });
    tx.objectStore('meta').put(cursor, `cursor:${listId}`);
    tx.objectStore('meta').put(syncedAt, `synced:${listId}`);
    await done(tx);
  }

  ticket(listId: string, ticketId: string): Promise<StoredTicket | undefined> {
    return req(this.db.transaction('tickets').objectStore('tickets').get(ticketKey(listId, ticketId)));
  }

  ticketByLegacyHash(listId: string, hash: string): Promise<StoredTicket | undefined> {
    return req(this.db.transaction('tickets').objectStore('tickets').index('legacy').get([listId, hash]));
  }

  ticketCount(listId: string): Promise<number> {
    const range = IDBKeyRange.bound(`${listId}:`, `${listId}:\uffff`);
    return req(this.db.transaction('tickets').objectStore('tickets').count(range));
  }

  entry(listId: string, ticketId: string): Promise<LocalEntry | undefined> {
    return req(this.db.transaction('entries').objectStore('entries').get(ticketKey(listId, ticketId)));
  }

  /** A scan and the ticket's entry after it, together: the door's answer is never half-recorded. */
  async recordScan(scan: StoredScan, ticketId: string | undefined, entry: LocalEntry | null): Promise<void> {
    const tx = this.db.transaction(['scans', 'entries'], 'readwrite');
    tx.objectStore('scans').put(scan);
    if (ticketId && entry) tx.objectStore('entries').put(entry, ticketKey(scan.list_id, ticketId));
    await done(tx);
  }

  async pendingScans(limit: number): Promise<StoredScan[]> {
    return req(this.db.transaction('scans').objectStore('scans').index('pending').getAll(1, limit));
  }

  async updateScans(scans: StoredScan[]): Promise<void> {
    const tx = this.db.transaction('scans', 'readwrite');
    for (const s of scans) tx.objectStore('scans').put(s);
    await done(tx);
  }

  async scans(listId: string): Promise<StoredScan[]> {
    return req(this.db.transaction('scans').objectStore('scans').index('list').getAll(listId));
  }
}
