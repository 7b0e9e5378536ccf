import type { FastifyInstance } from 'fastify';
import { installQueueStore } from './queue.service.js';
import { RedisQueueStore } from './queue.store.js';

/**
 * With REDIS_URL (the fleet's Redis, as for the rate limits, D45) every instance keeps the waiting
 * rooms there, so that a fleet serves one queue per session; without it, each instance's memory.
 * One Redis client per app, closed with it.
 */
export async function registerQueueStore(app: FastifyInstance): Promise<void> {
  const { redisUrl, redisKeyPrefix } = app.ctx.config.rateLimits;
  if (!redisUrl) return;
  // Loaded only for a fleet: a single instance starts without it.
  const { Redis } = await import('ioredis');
  // Fail fast while Redis is away (an error answer at once, not a wait); the client reconnects by itself.
  const redis = new Redis(redisUrl, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 1000 });
  redis.on('error', (err) => app.log.warn({ err: err.message }, 'queue Redis error'));
  await redis.connect().catch((err: Error) => app.log.warn({ err: err.message }, 'queue Redis unreachable at start'));
  app.addHook('onClose', async () => {
    redis.disconnect();
  });
  installQueueStore(app.ctx, new RedisQueueStore(redis, redisKeyPrefix));
}
