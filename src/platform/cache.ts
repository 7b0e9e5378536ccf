import { LRUCache } from 'lru-cache';
import { appSingleton, type AppContext } from '../app-context.js';

/** Any value but null and undefined: what lru-cache holds (it reads undefined as a miss). */
type Present = NonNullable<unknown>;

export interface NamedCacheOptions<K, V, C> {
  /** What the cache holds, `<module>.<what>` (logs and metrics name it so). */
  name: string;
  /** Most entries held; the least recently used goes first. */
  max: number;
  /** Milliseconds an entry is served after it was stored; none: kept until evicted or deleted. */
  ttl?: number;
  /**
   * Current time in milliseconds for `ttl` (the app's clock, so that tests move it by hand);
   * default: the monotonic `performance.now()`.
   */
  now?: () => number;
  /**
   * Loads a missing or expired entry for `cache.fetch(key, { context })`; concurrent fetches of one
   * key share one load (single flight). `undefined` is "nothing there" and is not stored. The
   * context carries per-call inputs (the caller's database handle), which a cache must not capture.
   * A load that a `delete` or `clear` overtook still answers its callers, but is not stored.
   */
  fetch?: (key: K, context: C) => Promise<V | undefined>;
}

/** An lru-cache with a name. */
export class NamedCache<K extends Present, V extends Present, C = unknown> extends LRUCache<K, V, C> {
  readonly name: string;

  constructor(opts: NamedCacheOptions<K, V, C>) {
    const { fetch, now } = opts;
    super({
      max: opts.max,
      ...(opts.ttl ? { ttl: opts.ttl } : {}),
      // Read the clock at every check: lru-cache otherwise reuses one reading for a millisecond,
      // which a test clock moved by hand within that millisecond would contradict.
      ttlResolution: 0,
      ...(now ? { perf: { now } } : {}),
      ...(fetch
        ? {
            fetchMethod: (key: K, _stale: V | undefined, { context }: { context: C }) => fetch(key, context),
            // Without this, lru-cache answers the callers of an overtaken load with undefined.
            ignoreFetchAbort: true,
          }
        : {}),
    });
    this.name = opts.name;
  }
}

/** A named cache on lru-cache (ttl, max, single-flight fetch): the one way this service caches. */
export function namedCache<K extends Present, V extends Present, C = unknown>(opts: NamedCacheOptions<K, V, C>): NamedCache<K, V, C> {
  return new NamedCache(opts);
}

/**
 * A named cache that each app holds once: the app singleton and the cache go by one name, and the
 * cache is made on first use from the app's context (`options`: everything but the name).
 */
export function appCache<K extends Present, V extends Present, C = unknown>(
  name: string,
  options: (ctx: AppContext) => Omit<NamedCacheOptions<K, V, C>, 'name'>,
): (ctx: AppContext) => NamedCache<K, V, C> {
  return appSingleton(name, (ctx) => namedCache({ name, ...options(ctx) }));
}
