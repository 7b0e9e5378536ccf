import { describe, expect, it } from 'vitest';
import { namedCache } from '../../src/platform/cache.js';

/** A promise and its resolve, to hold a load open. */
function gate<T>() {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

/** A cache of up to 10 entries whose fetch counts its loads and answers `answer(n)` on the n-th. */
function countingCache(name: string, answer: (load: number) => number | undefined | Promise<number>) {
  let loads = 0;
  const cache = namedCache<string, number, null>({ name, max: 10, fetch: async () => answer(++loads) });
  return { cache, loads: () => loads };
}

describe('namedCache', () => {
  it('carries its name', () => {
    expect(namedCache<string, number>({ name: 'test.things', max: 1 }).name).toBe('test.things');
  });

  it('holds at most max entries, evicting the least recently used', () => {
    const cache = namedCache<string, number>({ name: 'test.max', max: 2 });
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1); // a is now the most recently used
    cache.set('c', 3);
    expect(cache.size).toBe(2);
    expect(cache.has('b')).toBe(false);
    expect([cache.get('a'), cache.get('c')]).toEqual([1, 3]);
  });

  it('expires entries after ttl on the clock it is given', () => {
    let now = 1_000_000;
    const cache = namedCache<string, number>({ name: 'test.ttl', max: 10, ttl: 500, now: () => now });
    cache.set('a', 1);
    now += 500;
    expect(cache.get('a')).toBe(1); // served for its whole ttl
    now += 1;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('reads the clock at every check (a clock moved twice within a millisecond)', () => {
    let now = 1_000_000;
    const cache = namedCache<string, number>({ name: 'test.resolution', max: 10, ttl: 10, now: () => now });
    cache.set('a', 1);
    expect(cache.get('a')).toBe(1);
    now += 11; // no real time passes between the two reads
    expect(cache.get('a')).toBeUndefined();
  });

  it('single flight: concurrent fetches of one key run the load once, with the caller context', async () => {
    const held = gate<number>();
    const contexts: string[] = [];
    const cache = namedCache<string, number, string>({
      name: 'test.fetch',
      max: 10,
      fetch: async (key, context) => {
        contexts.push(`${key}@${context}`);
        return held.promise;
      },
    });
    const both = Promise.all([cache.fetch('a', { context: 'db1' }), cache.fetch('a', { context: 'db2' })]);
    held.open(42);
    expect(await both).toEqual([42, 42]);
    expect(contexts).toEqual(['a@db1']);
    expect(await cache.fetch('a', { context: 'db3' })).toBe(42); // stored: no second load
    expect(contexts).toHaveLength(1);
  });

  it('a fetch that finds nothing is not stored', async () => {
    const { cache, loads } = countingCache('test.nothing', () => undefined);
    expect(await cache.fetch('a', { context: null })).toBeUndefined();
    expect(await cache.fetch('a', { context: null })).toBeUndefined();
    expect(loads()).toBe(2);
  });

  it('a load overtaken by delete answers its callers but is not stored', async () => {
    const held = gate<number>();
    const { cache } = countingCache('test.overtaken', (load) => (load === 1 ? held.promise : 2));
    const first = cache.fetch('a', { context: null });
    cache.delete('a'); // an invalidation while the load reads
    held.open(1);
    expect(await first).toBe(1);
    expect(cache.has('a')).toBe(false);
    expect(await cache.fetch('a', { context: null })).toBe(2);
  });
});
