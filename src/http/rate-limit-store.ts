import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../lib/clock.js';

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

  /** `clock`: the app's (tests move a ManualClock past a window instead of waiting it out). */
  constructor(
    private readonly clock: Clock,
    maxKeys = 100_000,
  ) {
    this.windows = new LRUCache({ max: maxKeys });
  }

  private open(key: string, now: number): Window | undefined {
    const window = this.windows.get(key);
    return window && window.endsAt > now ? window : undefined;
  }

  async hit(key: string, points: number, windowMs: number): Promise<Count> {
    const now = this.clock.now().getTime();
    let window = this.open(key, now);
    if (window) window.count += points;
    else this.windows.set(key, (window = { count: points, endsAt: now + windowMs }));
    return { count: window.count, ttlMs: window.endsAt - now };
  }

  async peek(key: string): Promise<Count> {
    const now = this.clock.now().getTime();
    const window = this.open(key, now);
    return window ? { count: window.count, ttlMs: window.endsAt - now } : { count: 0, ttlMs: 0 };
  }

  async reset(key: string): Promise<void> {
    this.windows.delete(key);
  }
}

// A window is a hash {c: points, e: end in ms of the app's clock}. One atomic step: a window whose
// end has passed (by the caller's clock) is opened anew, so instances hitting the same key at once
// open exactly one window. The key's own expiry only frees Redis of old windows; the end decides.
const HIT_SCRIPT = `
local now = tonumber(ARGV[3])
local ends = tonumber(redis.call('HGET', KEYS[1], 'e'))
local count
if ends == nil or ends <= now then
  count = tonumber(ARGV[1])
  ends = now + tonumber(ARGV[2])
  redis.call('HSET', KEYS[1], 'c', count, 'e', ends)
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
else
  count = redis.call('HINCRBY', KEYS[1], 'c', ARGV[1])
end
return {count, ends - now}`;

type HitCommand = { taquillaRateHit(key: string, points: number, windowMs: number, now: number): Promise<[number, number]> };

/**
 * Counters in Redis, shared by every instance using the same server and key prefix. Windows end by
 * the app's clock (the injectable one of AppContext, so that tests move it instead of sleeping);
 * instances of a fleet keep their clocks in step (NTP), and a skew of a few milliseconds moves a
 * window's end by as much. The windows live under `<prefix>w:` (the earlier layout was a plain
 * counter with a Redis expiry; the two never share a key during a rolling deploy).
 */
export class RedisCounterStore implements CounterStore {
  private readonly prefix: string;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly clock: Clock,
  ) {
    this.prefix = `${prefix}w:`;
    redis.defineCommand('taquillaRateHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  }

  async hit(key: string, points: number, windowMs: number): Promise<Count> {
    const [count, ttlMs] = await (this.redis as unknown as HitCommand).taquillaRateHit(this.prefix + key, points, windowMs, this.clock.now().getTime());
    return { count, ttlMs };
  }

  async peek(key: string): Promise<Count> {
    const [count, ends] = await this.redis.hmget(this.prefix + key, 'c', 'e');
    const ttlMs = ends === null ? 0 : Number(ends) - this.clock.now().getTime();
    return count === null || ttlMs <= 0 ? { count: 0, ttlMs: 0 } : { count: Number(count), ttlMs };
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
