import crypto from 'node:crypto';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { namedCache, type NamedCache } from '../../platform/cache.js';

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

export type Encoding = 'br' | 'gzip';

/**
 * One serialised version of a payload: the JSON bytes, a weak ETag derived from them, and each
 * compressed form made at most once (on first demand, off the event loop) and then reused.
 */
export class PayloadVersion {
  readonly etag: string;
  private readonly encoded = new Map<Encoding, Promise<Buffer>>();
  /** Compressed forms already made, for the hot path to send without waiting on a promise. */
  private readonly ready = new Map<Encoding, Buffer>();

  constructor(
    readonly plain: Buffer,
    readonly fingerprint: string,
  ) {
    // Weak: the same tag names the plain and the compressed forms of the same JSON.
    this.etag = `W/"${crypto.createHash('sha256').update(plain).digest('base64url').slice(0, 32)}"`;
  }

  /** The compressed form if it has been made already. */
  compressed(encoding: Encoding): Buffer | undefined {
    return this.ready.get(encoding);
  }

  encode(encoding: Encoding): Promise<Buffer> {
    let pending = this.encoded.get(encoding);
    if (!pending) {
      pending =
        encoding === 'br'
          ? brotli(this.plain, {
              params: {
                // Quality 5 compresses a 5,000-seat map to within a few % of quality 11 in a fraction of the time.
                [zlib.constants.BROTLI_PARAM_QUALITY]: 5,
                [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
                [zlib.constants.BROTLI_PARAM_SIZE_HINT]: this.plain.length,
              },
            })
          : gzip(this.plain, { level: 6 });
      // zlib hands back a view into its own larger output chunk; an exact-size copy, made once,
      // is measurably cheaper to write to thousands of sockets.
      pending = pending.then((out) => {
        const exact = Buffer.from(out);
        this.ready.set(encoding, exact);
        return exact;
      });
      pending.catch(() => this.encoded.delete(encoding));
      this.encoded.set(encoding, pending);
    }
    return pending;
  }
}

/** What a builder returns: the payload, who may see it, and until when it stays true by itself. */
export interface BuiltPayload<Meta> {
  /** Equal fingerprints promise equal bytes: the previous version is reused without rendering. */
  fingerprint: string;
  /** The JSON text of the payload. */
  render: () => string;
  meta: Meta;
  /** Earliest moment the payload becomes wrong without any write (a hold expiring), or null. */
  validUntil: Date | null;
}

export interface CachedPayload<Meta> {
  version: PayloadVersion;
  meta: Meta;
  expiresAt: number;
}

/**
 * Serialised payloads per key (here: session and language), each dropped
 * - when its session's inventory changes in this process (`invalidate`),
 * - at its `validUntil` (an expired hold frees a seat without any write), and
 * - after `maxAgeMs` at most, which bounds staleness caused by writes on other instances.
 * Concurrent misses of one key share a single build; a build that raced an invalidation is served
 * to its own callers but not kept. A rebuild with the same fingerprint keeps the previous version (same
 * ETag, compressed forms reused), so a steady session costs one small query per `maxAgeMs`, and
 * neither a rendering nor a recompression.
 */
export class PayloadCache<Meta> {
  private readonly entries: NamedCache<string, CachedPayload<Meta> & { sessionId: number; refreshAt: number }>;
  private readonly pending = new Map<string, Promise<CachedPayload<Meta> | null>>();
  /** Versions dropped lately, kept to reuse their compressed bytes if the rebuild is identical. */
  private readonly previous: NamedCache<string, PayloadVersion>;
  private readonly generations = new Map<number, number>();

  /**
   * Entries expire by the `now` each call passes (the app's clock) and by their own `validUntil`,
   * which a cache-wide ttl cannot express; lru-cache bounds their number.
   */
  constructor(
    private readonly maxAgeMs: number,
    maxEntries = 500,
    name = 'catalogue.session-payloads',
  ) {
    this.entries = namedCache({ name, max: maxEntries });
    this.previous = namedCache({ name: `${name}.previous`, max: maxEntries });
  }

  /** The cached payload of `key`, building it on a miss; null when the builder finds nothing. */
  async get(
    key: string,
    sessionId: number,
    now: number,
    build: () => Promise<BuiltPayload<Meta> | null>,
  ): Promise<CachedPayload<Meta> | null> {
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > now) {
      // Refresh ahead: the last 15 % of the max age rebuilds in the background, so that a busy
      // key never makes its callers wait for a rebuild. The hit itself is still within its bounds.
      if (now >= hit.refreshAt && !this.pending.has(key)) this.startLoad(key, sessionId, now, build).catch(() => {});
      return hit;
    }
    if (hit) {
      this.entries.delete(key);
      this.remember(key, hit.version);
    }
    return this.pending.get(key) ?? this.startLoad(key, sessionId, now, build);
  }

  private startLoad(key: string, sessionId: number, now: number, build: () => Promise<BuiltPayload<Meta> | null>) {
    const pending: Promise<CachedPayload<Meta> | null> = this.load(key, sessionId, now, build).finally(() => {
      if (this.pending.get(key) === pending) this.pending.delete(key);
    });
    this.pending.set(key, pending);
    return pending;
  }

  /** Drops every cached payload of these sessions (their inventory changed). */
  invalidate(sessionIds: readonly number[]): void {
    const ids = new Set(sessionIds);
    for (const id of ids) this.generations.set(id, (this.generations.get(id) ?? 0) + 1);
    const dropped = [...this.entries.entries()].filter(([, entry]) => ids.has(entry.sessionId));
    for (const [key, entry] of dropped) {
      this.entries.delete(key);
      this.remember(key, entry.version);
    }
    for (const key of this.pending.keys()) if (ids.has(sessionOf(key))) this.pending.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  private async load(
    key: string,
    sessionId: number,
    now: number,
    build: () => Promise<BuiltPayload<Meta> | null>,
  ): Promise<CachedPayload<Meta> | null> {
    const generation = this.generations.get(sessionId) ?? 0;
    const built = await build();
    if (!built) return null;
    const before = this.entries.get(key)?.version ?? this.previous.get(key);
    const version =
      before && before.fingerprint === built.fingerprint ? before : new PayloadVersion(Buffer.from(built.render()), built.fingerprint);
    const validUntil = built.validUntil ? built.validUntil.getTime() : Infinity;
    const agedOut = now + this.maxAgeMs;
    const entry = {
      version,
      meta: built.meta,
      expiresAt: Math.min(agedOut, validUntil),
      refreshAt: agedOut <= validUntil ? now + this.maxAgeMs * 0.85 : Infinity,
      sessionId,
    };
    if ((this.generations.get(sessionId) ?? 0) === generation) {
      this.previous.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }

  private remember(key: string, version: PayloadVersion): void {
    this.previous.set(key, version);
  }
}

/** Keys start with the session id: "<sessionId>:<lang>". */
const sessionOf = (key: string) => Number(key.slice(0, key.indexOf(':')));
