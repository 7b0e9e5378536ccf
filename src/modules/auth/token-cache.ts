import type { AppContext } from '../../app-context.js';
import type { Database } from '../../db/client.js';
import type { CredentialScope } from '../../lib/integration-policy.js';
import type { ChannelRecord } from '../../db/channel-record.js';

/** What a live token grants: its channel, and the scope and client group of its credential (D38, D39). */
export interface LiveToken {
  channel: ChannelRecord;
  credential: { scope: CredentialScope; clientId: string };
}

interface Entry {
  token: LiveToken;
  expiresAt: number;
  cachedUntil: number;
}

/**
 * Recently verified tokens, so that a hot read path (catalogue, seat map) does not pay a database
 * round trip per request. Every revocation, made by any instance, drops its tokens at once through
 * a database notification (revocations.ts, D42); entries live `ttlMs` at most, which bounds a
 * stale entry only if notifications were lost.
 */
export class TokenCache {
  private readonly entries = new Map<string, Entry>();
  /**
   * Bumped by every drop. A request that read a token from the database while a revocation was
   * being applied must not cache what it read (it may predate the revocation): it passes the
   * epoch it saw before reading, and `set` ignores it when a drop happened in between.
   */
  private dropEpoch = 0;
  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 50_000,
  ) {}

  get(tokenHash: string, now: number): LiveToken | null {
    const entry = this.entries.get(tokenHash);
    if (!entry) return null;
    if (entry.cachedUntil <= now || entry.expiresAt <= now) {
      this.entries.delete(tokenHash);
      return null;
    }
    return entry.token;
  }

  /** Pass to `set` what this was before reading the token from the database. */
  get epoch(): number {
    return this.dropEpoch;
  }

  set(tokenHash: string, token: LiveToken, expiresAt: number, now: number, epochBeforeRead: number): void {
    if (this.ttlMs <= 0 || epochBeforeRead !== this.dropEpoch) return;
    if (this.entries.size >= this.maxEntries) {
      // Drop the oldest insertion; Map iterates in insertion order.
      this.entries.delete(this.entries.keys().next().value!);
    }
    this.entries.set(tokenHash, { token, expiresAt, cachedUntil: now + this.ttlMs });
  }

  drop(tokenHashes: Iterable<string>): void {
    this.dropEpoch++;
    for (const hash of tokenHashes) this.entries.delete(hash);
  }

  /** Forget every token of a channel (its settings changed, a key was revoked). */
  dropChannel(channelId: number): void {
    this.dropEpoch++;
    for (const [hash, entry] of this.entries) if (entry.token.channel.id === channelId) this.entries.delete(hash);
  }

  /** Forget everything (revocations may have been missed). */
  clear(): void {
    this.dropEpoch++;
    this.entries.clear();
  }
}

const caches = new WeakMap<Database, TokenCache>();

/**
 * The token cache of one app instance. Keyed by its database handle rather than by the context
 * object, because services pass copies of the context (`{ ...ctx, db: tx }`) into transactions.
 */
export function tokenCache(ctx: AppContext): TokenCache {
  let cache = caches.get(ctx.database);
  if (!cache) caches.set(ctx.database, (cache = new TokenCache(ctx.config.authCacheMs)));
  return cache;
}
