import underPressure from '@fastify/under-pressure';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/client.js';
import { AppError } from './errors.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Whether this instance refuses work now (/readyz says so too). */
    isOverloaded(): boolean;
  }
}
import type { OverloadConfig } from './operations.config.js';

/**
 * Routes answered even under pressure: liveness (a restart would not help), the metrics (the
 * operator must see the overload) and readiness, which reports it itself.
 */
const ALWAYS_ANSWERED = new Set(['/healthz', '/readyz', '/metrics']);

/** How often the pool's waiting queue is looked at (it changes with every query). */
const POOL_CHECK_MS = 250;
/** under-pressure's window: the event-loop delay is the mean over each such window. */
const SAMPLE_MS = 1_000;

/**
 * Overload protection (docs/operations.md "Overload protection"): past the configured mean
 * event-loop delay, or with more queries waiting for a connection than allowed, every request but
 * those above is refused at once with 503 `overloaded` and Retry-After, so that a surge turns into
 * quick refusals instead of timeouts, and /readyz answers 503 so that the load balancer sends
 * traffic to other instances until this one has caught up. Registered before the routes (its hook
 * runs first, before any work).
 */
export async function registerOverloadProtection(app: FastifyInstance, config: OverloadConfig, database: Database): Promise<void> {
  const watchPool = config.maxPoolWaiting > 0 && database.poolStats() !== null;
  let poolExhausted = false;
  // The start itself (modules loading, the database opening, routes compiling) holds the loop for
  // long stretches: the windows that saw it say nothing about requests. The delay counts from the
  // first window that begins once the app is ready.
  let delayCountsFrom = Infinity;
  app.addHook('onReady', async () => {
    delayCountsFrom = performance.now() + 2 * SAMPLE_MS;
  });
  await app.register(underPressure, {
    maxEventLoopDelay: config.maxEventLoopDelayMs,
    sampleInterval: SAMPLE_MS,
    retryAfter: config.retryAfterSeconds,
    ...(watchPool
      ? {
          healthCheck: async () => {
            poolExhausted = database.poolStats()!.waiting > config.maxPoolWaiting;
            return !poolExhausted;
          },
          healthCheckInterval: POOL_CHECK_MS,
        }
      : {}),
    pressureHandler: async (request, reply, type, value) => {
      if (ALWAYS_ANSWERED.has(request.routeOptions.url ?? '') || !app.isOverloaded()) return;
      request.log.warn({ type, value }, 'overloaded: request refused');
      reply.header('retry-after', String(config.retryAfterSeconds));
      throw new AppError('overloaded', 'The service is overloaded; retry shortly');
    },
  });
  app.decorate('isOverloaded', () => {
    // A window of the event-loop monitor without a single sample (under-pressure's Infinity) means
    // one task held the loop throughout, as the embedded database does while the service starts:
    // no queue of requests, nothing to shed; the next window measures again.
    const delay = app.memoryUsage().eventLoopDelay;
    const lagging =
      config.maxEventLoopDelayMs > 0 && performance.now() >= delayCountsFrom && Number.isFinite(delay) && delay > config.maxEventLoopDelayMs;
    return lagging || poolExhausted;
  });
}
