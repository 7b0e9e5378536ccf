import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';

/** A fixed-window counter: how many points this window holds and how long until it ends. */
export interface Count {
  count: number;
  ttlMs: number;
}

/**
 * Where the rate-limit counters live: this instance's memory, or Redis so that a fleet shares them
 * (D45). Besides the plugin's `incr`, the limits need to look at a counter without adding to it
 * (failure counters are checked before the attempt and counted only when it fails) and to add more
 * than one point (an unknown voucher costs more than a good one).
 */
export interface CounterStore {
  /** Adds `points` to `key`'s window, opening a window of `windowMs` if none is open. */
  hit(key: string, points: number, windowMs: number): Promise<Count>;
  /** The open window of `key`, without counting anything (count 0 when none is open). */
  peek(key: string): Promise<Count>;
  reset(key: string): Promise<void>;
}

interface Window {
  count: number;
  endsAt: number;
}

/**
 * One instance's counters. Bounded: the least recently used keys go first, so a flood of new keys
 * costs memory up to `maxKeys` and no more.
 */
export class MemoryCounterStore implements CounterStore {
  private readonly windows: LRUCache<string, Window>;

  constructor(maxKeys = 100_000) {
    this.windows = new LRUCache({ max: maxKeys });
  }

  private open(key: string, now: number): Window | undefined {
    const window = this.windows.get(key);
    return window && window.endsAt > now ? window : undefined;
  }

  async hit(key: string, points: number, windowMs: number): Promise<Count> {
    const now = Date.now();
    let window = this.open(key, now);
    if (window) window.count += points;
    else this.windows.set(key, (window = { count: points, endsAt: now + windowMs }));
    return { count: window.count, ttlMs: window.endsAt - now };
  }

  async peek(key: string): Promise<Count> {
    const now = Date.now();
    const window = this.open(key, now);
    return window ? { count: window.count, ttlMs: window.endsAt - now } : { count: 0, ttlMs: 0 };
  }

  async reset(key: string): Promise<void> {
    this.windows.delete(key);
  }
}

// INCRBY then PEXPIRE only when the key has no expiry yet: one atomic step, so instances hitting
// the same key at once open exactly one window.
const HIT_SCRIPT = `
local count = redis.call('INCRBY', KEYS[1], ARGV[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  ttl = tonumber(ARGV[2])
end
return {count, ttl}`;

type HitCommand = { taquillaRateHit(key: string, points: number, windowMs: number): Promise<[number, number]> };

/** Counters in Redis, shared by every instance using the same server and key prefix. */
export class RedisCounterStore implements CounterStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    redis.defineCommand('taquillaRateHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  }

  async hit(key: string, points: number, windowMs: number): Promise<Count> {
    const [count, ttlMs] = await (this.redis as unknown as HitCommand).taquillaRateHit(this.prefix + key, points, windowMs);
    return { count, ttlMs };
  }

  async peek(key: string): Promise<Count> {
    const results = await this.redis.multi().get(this.prefix + key).pttl(this.prefix + key).exec();
    const [[, count], [, ttl]] = results as [[Error | null, string | null], [Error | null, number]];
    return count === null || ttl <= 0 ? { count: 0, ttlMs: 0 } : { count: Number(count), ttlMs: ttl };
  }

  async reset(key: string): Promise<void> {
    await this.redis.del(this.prefix + key);
  }
}

type IncrCallback = (error: Error | null, result?: { current: number; ttl: number }) => void;

/**
 * The `store` option of @fastify/rate-limit over one of our stores. Every limiter shares it, with
 * the limit's name in each key, so that the plugin's checks and our failure counts add up in the
 * same counters (the plugin's own stores would key them per route).
 */
export function pluginStoreOver(store: CounterStore) {
  return class PluginStore {
    incr(key: string, callback: IncrCallback, timeWindow = 60_000): void {
      store.hit(key, 1, timeWindow).then(
        ({ count, ttlMs }) => callback(null, { current: count, ttl: ttlMs }),
        (err: Error) => callback(err),
      );
    }
    child(): PluginStore {
      return this;
    }
  };
}
