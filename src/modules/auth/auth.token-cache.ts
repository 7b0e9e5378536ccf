import type { AppContext } from '../../app-context.js';
import type { Database } from '../../db/client.js';
import type { CredentialScope } from '../../lib/integration-policy.js';
import { namedCache, type NamedCache } from '../../platform/cache.js';
import type { ChannelRecord } from '../../db/channel-record.js';

/** What a live token grants: its channel, and the scope and client group of its credential (D38, D39). */
export interface LiveToken {
  channel: ChannelRecord;
  credential: { scope: CredentialScope; clientId: string };
}

interface Entry {
  token: LiveToken;
  /** Until when the entry vouches for the token: its cache window or the token's expiry, the earlier. */
  until: number;
}

/**
 * Recently verified tokens, so that a hot read path (catalogue, seat map) does not pay a database
 * round trip per request. Every revocation, made by any instance, drops its tokens at once through
 * a database notification (auth.revocations.ts, D42); entries live `ttlMs` at most, which bounds a
 * stale entry only if notifications were lost.
 */
export class TokenCache {
  private readonly entries: NamedCache<string, Entry>;
  /**
   * Bumped by every drop. A request that read a token from the database while a revocation was
   * being applied must not cache what it read (it may predate the revocation): it passes the
   * epoch it saw before reading, and `set` ignores it when a drop happened in between.
   */
  private dropEpoch = 0;
  constructor(
    private readonly ttlMs: number,
    /** The app's clock in milliseconds: token expiry is measured on it. */
    now: () => number,
    maxEntries = 50_000,
  ) {
    this.entries = namedCache({ name: 'auth.tokens', max: maxEntries, now });
  }

  get(tokenHash: string, now: number): LiveToken | null {
    const entry = this.entries.get(tokenHash);
    if (!entry) return null;
    // A token is dead at its expiry instant; lru-cache's ttl would still serve it then.
    if (entry.until <= now) {
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
    const until = Math.min(now + this.ttlMs, expiresAt);
    if (until <= now) return;
    this.entries.set(tokenHash, { token, until }, { ttl: until - now });
  }

  drop(tokenHashes: Iterable<string>): void {
    this.dropEpoch++;
    for (const hash of tokenHashes) this.entries.delete(hash);
  }

  /** Forget every token of a channel (its settings changed, a key was revoked). */
  dropChannel(channelId: number): void {
    this.dropEpoch++;
    const ofChannel = [...this.entries.entries()].filter(([, entry]) => entry.token.channel.id === channelId);
    for (const [hash] of ofChannel) this.entries.delete(hash);
  }

  /** Forget everything (revocations may have been missed). */
  clear(): void {
    this.dropEpoch++;
    this.entries.clear();
  }
}

const caches = new WeakMap<Database, TokenCache>();

/**
 * The token cache of one app instance, kept per database handle rather than among the app's
 * singletons (app-context.ts): what empties it is the revocation listener, and each database handle
 * has its own (a context that names another handle stands for another instance).
 */
export function tokenCache(ctx: AppContext): TokenCache {
  let cache = caches.get(ctx.database);
  if (!cache) {
    const { clock } = ctx;
    caches.set(ctx.database, (cache = new TokenCache(ctx.config.authCacheMs, () => clock.now().getTime())));
  }
  return cache;
}
