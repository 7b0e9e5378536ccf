import crypto from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryQueueStore, RedisQueueStore } from '../../src/modules/queue/queue.store.js';

// A waiting room's state is forgotten some time after its session (queue.store.ts): Redis keys
// expire, memory drops the queue, so that past on-sales take no room. The local Redis server is
// the one CI starts.

const KEEP_MS = 60_000;

describe('a queue\'s state is kept for the time its writes say, then forgotten', () => {
  const redis = new Redis('redis://127.0.0.1:6379');
  afterAll(() => redis.quit());

  it('Redis: every key a join, the draw and a pass write has a time to live', async () => {
    const prefix = `test-${crypto.randomUUID().slice(0, 8)}:`;
    const store = new RedisQueueStore(redis, prefix);
    const q = '42:abc';
    expect(await store.join(q, 'c1', 't1', true, 1, KEEP_MS)).toEqual({ ticketId: 't1', number: null });
    expect(await store.join(q, 'c2', 't2', true, 1, KEEP_MS)).toEqual({ ticketId: 't2', number: null });
    expect(await store.commitDraw(q, ['t2', 't1'], KEEP_MS)).toBe(true);
    expect(await store.join(q, 'c3', 't3', false, 1, KEEP_MS)).toEqual({ ticketId: 't3', number: 3 });
    expect(await store.passIssuedAt(q, 't2', 1000, KEEP_MS)).toBe(1000);
    expect(await store.usePass(q, 't2', 2, KEEP_MS)).toBe(true);
    const keys = await redis.keys(`${prefix}*`);
    expect(keys.map((k) => k.slice(prefix.length)).sort()).toEqual(
      ['clients', 'meta', 'numbers', 'order', 'passes', 'pre', 'uses:t2'].map((part) => `queue:{${q}}:${part}`).sort(),
    );
    for (const key of keys) {
      const ttl = await redis.pttl(key);
      expect(ttl, key).toBeGreaterThan(0);
      expect(ttl, key).toBeLessThanOrEqual(KEEP_MS);
    }
    await redis.del(...keys);
  });

  it('memory: a queue past its time is dropped when another queue starts', async () => {
    const store = new MemoryQueueStore();
    await store.join('1:a', 'c1', 't1', true, 1, 1);
    await store.join('2:b', 'c1', 't9', true, 1, KEEP_MS);
    await new Promise((r) => setTimeout(r, 5));
    await store.join('3:c', 'c1', 't5', true, 1, KEEP_MS);
    expect(await store.ticketOf('1:a', 'c1')).toBeNull();
    expect(await store.ticketOf('2:b', 'c1')).toBe('t9');
  });
});
