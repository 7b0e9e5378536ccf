/**
 * What the widget keeps in the browser (D32, D38): one random client id per browser, and the active
 * order per channel and session, so a reload finds the cart again while it is live.
 */

export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
  readonly length: number;
  key(index: number): string | null;
}

const PREFIX = 'taquilla:';
const CLIENT_ID_KEY = `${PREFIX}client_id`;

export interface StoredOrder {
  channelSlug: string;
  sessionId: number;
  orderToken: string;
  /** ISO timestamp or null while the order has no items (D13). */
  expiresAt: string | null;
}

/** An in-memory storage for browsers where localStorage is blocked (private mode, sandboxed frames). */
export function memoryStorage(): KeyValueStorage {
  const map = new Map<string, string>();
  return {
    getItem: (k) => map.get(k) ?? null,
    setItem: (k, v) => void map.set(k, String(v)),
    removeItem: (k) => void map.delete(k),
    get length() {
      return map.size;
    },
    key: (i) => [...map.keys()][i] ?? null,
  };
}

/** localStorage when usable, otherwise memory (the widget still works, it only forgets on reload). */
export function browserStorage(): KeyValueStorage {
  try {
    const s = window.localStorage;
    s.setItem(`${PREFIX}probe`, '1');
    s.removeItem(`${PREFIX}probe`);
    return s;
  } catch {
    return memoryStorage();
  }
}

function randomId(): string {
  const bytes = new Uint8Array(18);
  globalThis.crypto.getRandomValues(bytes);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  return Array.from(bytes, (b) => alphabet[b & 63]).join('');
}

/** The browser's client id (D38): created once, shared by every widget on every page of the origin. */
export function clientId(storage: KeyValueStorage): string {
  const existing = storage.getItem(CLIENT_ID_KEY);
  if (existing && /^[A-Za-z0-9_-]{1,64}$/.test(existing)) return existing;
  const id = `w_${randomId()}`;
  storage.setItem(CLIENT_ID_KEY, id);
  return id;
}

const orderKey = (channelSlug: string, sessionId: number) => `${PREFIX}order:${channelSlug}:${sessionId}`;

export function saveOrder(storage: KeyValueStorage, entry: StoredOrder): void {
  storage.setItem(orderKey(entry.channelSlug, entry.sessionId), JSON.stringify(entry));
}

export function forgetOrder(storage: KeyValueStorage, channelSlug: string, sessionId: number): void {
  storage.removeItem(orderKey(channelSlug, sessionId));
}

function parse(raw: string | null): StoredOrder | null {
  if (!raw) return null;
  try {
    const v = JSON.parse(raw) as StoredOrder;
    return typeof v.orderToken === 'string' && typeof v.sessionId === 'number' ? v : null;
  } catch {
    return null;
  }
}

/**
 * The stored order of this channel and session, whatever its expiry says: the widget asks the
 * service for it and judges the answer on the service's clock, since before the first answer the
 * device's clock is the only one there is, and a phone minutes fast would forget a live cart.
 */
export function loadOrder(storage: KeyValueStorage, channelSlug: string, sessionId: number): StoredOrder | null {
  return parse(storage.getItem(orderKey(channelSlug, sessionId)));
}

/** Stored orders of the same channel for other sessions (to cancel when the widget moves on). */
export function ordersOfOtherSessions(storage: KeyValueStorage, channelSlug: string, sessionId: number): StoredOrder[] {
  const out: StoredOrder[] = [];
  const prefix = `${PREFIX}order:${channelSlug}:`;
  for (let i = 0; i < storage.length; i++) {
    const key = storage.key(i);
    if (!key || !key.startsWith(prefix)) continue;
    const entry = parse(storage.getItem(key));
    if (entry && entry.channelSlug === channelSlug && entry.sessionId !== sessionId) out.push(entry);
  }
  return out;
}
