import type { ChannelRecord } from '../channels/channels.repo.js';

/** What a verified token stands for: its channel and the client_id it was issued for (D38). */
export interface TokenHolder {
  channel: ChannelRecord;
  clientId: string;
}

interface Entry {
  holder: TokenHolder;
  expiresAt: number;
  cachedUntil: number;
}

/**
 * Recently verified tokens, so that a hot read path (catalogue, seat map) does not pay a database
 * round trip per request. Entries live `ttlMs` at most; revocations made by this instance drop
 * theirs at once, revocations made by another instance take effect within `ttlMs`.
 */
export class TokenCache {
  private readonly entries = new Map<string, Entry>();
  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 50_000,
  ) {}

  get(tokenHash: string, now: number): TokenHolder | null {
    const entry = this.entries.get(tokenHash);
    if (!entry) return null;
    if (entry.cachedUntil <= now || entry.expiresAt <= now) {
      this.entries.delete(tokenHash);
      return null;
    }
    return entry.holder;
  }

  set(tokenHash: string, holder: TokenHolder, expiresAt: number, now: number): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size >= this.maxEntries) {
      // Drop the oldest insertion; Map iterates in insertion order.
      this.entries.delete(this.entries.keys().next().value!);
    }
    this.entries.set(tokenHash, { holder, expiresAt, cachedUntil: now + this.ttlMs });
  }

  drop(tokenHashes: Iterable<string>): void {
    for (const hash of tokenHashes) this.entries.delete(hash);
  }

  /** Forget every token of a channel (its settings changed). */
  dropChannel(channelId: number): void {
    for (const [hash, entry] of this.entries) if (entry.holder.channel.id === channelId) this.entries.delete(hash);
  }
}
