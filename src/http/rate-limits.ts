import rateLimitPlugin from '@fastify/rate-limit';
import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { sha256 } from '../lib/secrets.js';
import { AppError } from './errors.js';
import { appendHook } from './route-hooks.js';
import type { RateLimitConfig } from './rate-limits.config.js';
import { MemoryCounterStore, RedisCounterStore, pluginStoreOver, type CounterStore } from './rate-limit-store.js';

/**
 * Every rate limit of the service (DECISIONS D45) in one place: what it counts, its key, its
 * maximum and window (from configuration). A route names the limits that guard it in its own
 * `config.rateLimits` (src/http/route-policy.ts); they are attached to it as it is declared. Counters live in memory, or in
 * Redis when REDIS_URL is set so that a fleet shares them. Over a limit: 429 `rate_limited` with
 * `Retry-After` (seconds) and the D4 envelope.
 *
 * Two kinds of counter. A request counter adds one point per request and refuses the request that
 * passes `max` (the plugin's `createRateLimit`). A failure counter adds points only when the guarded
 * attempt fails (wrong key, unknown voucher, wrong password) and refuses the next attempt once it
 * holds `max` points, so that thousands of real buyers behind one address, who mostly succeed, are
 * counted loosely and a guesser, who mostly fails, strictly.
 */

export type LimitName =
  | 'portal'
  | 'token'
  | 'token_failures'
  | 'cart_writes'
  | 'voucher_per_order'
  | 'voucher_per_client'
  | 'admin_login_account_address'
  | 'admin_login_account'
  | 'admin_login_address'
  | 'checkin_device'
  | 'order_lookup_address'
  | 'order_lookup_email';

interface Limit {
  max(config: RateLimitConfig): number;
  windowMs(config: RateLimitConfig): number;
  /** One point per request (request counter), or points only on failure (failure counter). */
  countsRequests: boolean;
  /** Points a failed attempt adds; 0 when failures cost nothing extra. */
  failureCost(config: RateLimitConfig): number;
  /** The error codes that count as a failed attempt. */
  failureCodes: readonly string[];
  /**
   * The counter a request falls in; `byRoute` when it depends on the route's declarations, resolved
   * once as the route is declared; undefined for limits whose key the route gives explicitly.
   */
  key?: KeyOf | { byRoute: (config: FastifyContextConfig) => KeyOf };
  /** The 429's message, before "; retry in N s". */
  message: string;
}

type KeyOf = (request: FastifyRequest) => string;

const MINUTE = 60_000;
const address = (request: FastifyRequest) => `addr:${request.ip}`;
/** A B2B buyer is their bearer token (one per widget `client_id`), hashed: the counters' store never holds a credential. */
const b2bBuyer = (request: FastifyRequest) => `token:${request.bearer?.hash ?? 'none'}`;
/** A check-in device is its bearer token (hashed, as a buyer's). */
const device = (request: FastifyRequest) => `device:${request.bearer?.hash ?? 'none'}`;
function order(request: FastifyRequest): string {
  const { salesChannelSlug, orderToken } = request.params as { salesChannelSlug?: string; orderToken?: string };
  return `order:${salesChannelSlug}:${orderToken}`;
}

/** "Find my order" (D72): e-mails per hour, per client address and per e-mail address asked for. */
const ORDER_LOOKUP_PER_ADDRESS_PER_HOUR = 20;
const ORDER_LOOKUP_PER_EMAIL_PER_HOUR = 3;

/**
 * A request counter: one point per request, nothing more for a failure. The window is a minute
 * unless given.
 */
const requestCounter = (max: Limit['max'], key: NonNullable<Limit['key']>, message: string, windowMs: Limit['windowMs'] = () => MINUTE): Limit => ({
  max,
  windowMs,
  countsRequests: true,
  failureCost: () => 0,
  failureCodes: [],
  key,
  message,
});

/** The voucher limits (per order, per client): request counters where an unknown code costs more. */
const voucherAttempts = (max: Limit['max'], key: KeyOf, message: string): Limit => ({
  ...requestCounter(max, key, message),
  failureCost: (c) => c.voucherFailureCost,
  failureCodes: ['voucher_invalid'],
});

/** The admin sign-in's failure limits: alike but for their maximum (per account and address, account, address). */
const adminLogin = (max: Limit['max']): Limit => ({
  max,
  windowMs: (c) => c.adminLoginWindowSeconds * 1000,
  countsRequests: false,
  failureCost: () => 1,
  failureCodes: ['invalid_credentials'],
  message: 'Too many failed sign-in attempts',
});

export const LIMITS: Record<LimitName, Limit> = {
  order_lookup_address: requestCounter(() => ORDER_LOOKUP_PER_ADDRESS_PER_HOUR, address, 'Too many order look-ups from this address', () => 60 * MINUTE),
  // Keyed by the (hashed) e-mail of the body: the route counts it itself (portal.routes.ts).
  order_lookup_email: {
    max: () => ORDER_LOOKUP_PER_EMAIL_PER_HOUR,
    windowMs: () => 60 * MINUTE,
    countsRequests: false,
    failureCost: () => 1,
    failureCodes: [],
    message: 'Too many order look-ups for this e-mail address',
  },
  portal: requestCounter((c) => c.portalPerMinute, address, 'Too many requests from this address'),
  token: requestCounter((c) => c.tokenPerMinute, address, 'Too many token requests from this address'),
  token_failures: {
    max: (c) => c.tokenFailuresPerMinute,
    windowMs: () => MINUTE,
    countsRequests: false,
    failureCost: () => 1,
    failureCodes: ['invalid_credentials'],
    key: address,
    message: 'Too many failed token requests from this address',
  },
  // A B2B buyer (a route of the channel scope, which declares its operation) is their token; a
  // portal buyer their address.
  cart_writes: requestCounter((c) => c.cartWritesPerMinute, { byRoute: (config) => (config.b2bOperation ? b2bBuyer : address) }, 'Too many cart changes'),
  voucher_per_order: voucherAttempts((c) => c.voucherPerOrderPerMinute, order, 'Too many voucher attempts on this order'),
  voucher_per_client: voucherAttempts((c) => c.voucherPerClientPerMinute, address, 'Too many voucher attempts from this address'),
  admin_login_account_address: adminLogin((c) => c.adminLoginFailuresPerAccountAddress),
  admin_login_account: adminLogin((c) => c.adminLoginFailuresPerAccount),
  admin_login_address: adminLogin((c) => c.adminLoginFailuresPerAddress),
  // A gate scans a person every second or two; 600 a minute leaves room for a hardware scanner
  // and the offline catch-up, and stops a runaway client.
  checkin_device: requestCounter((c) => c.checkinPerDevicePerMinute, device, 'Too many requests from this check-in device'),
};

/** A counter the caller names itself (routes whose key is not in the request line). */
export interface Counter {
  limit: LimitName;
  key: string;
}

/** The admin sign-in counters (docs/admin.md): the account is hashed so that Redis holds no e-mail. */
export function adminLoginCounters(email: string, ip: string): Counter[] {
  const account = `account:${sha256(email)}`;
  return [
    { limit: 'admin_login_account_address', key: `${account}:addr:${ip}` },
    { limit: 'admin_login_account', key: account },
    { limit: 'admin_login_address', key: `addr:${ip}` },
  ];
}

/** The "find my order" counter of an e-mail address (hashed: the store never holds an address). */
export const orderLookupCounter = (email: string): Counter => ({ limit: 'order_lookup_email', key: `email:${sha256(email.trim().toLowerCase())}` });

/** A limit of one route, its key resolved when the route was declared. */
interface RouteLimit {
  name: LimitName;
  key: KeyOf;
  /** The plugin's request counter (request counters only). */
  count: ReturnType<FastifyInstance['createRateLimit']> | null;
}

/** A limit's key on a route declaring `config`; undefined when the route names its counters itself. */
function keyFor(limit: Limit, config: FastifyContextConfig): KeyOf | undefined {
  return typeof limit.key === 'object' ? limit.key.byRoute(config) : limit.key;
}

/** The limits of one app: checks and failure counts against its store. */
class RateLimits {
  /** One plugin counter per limit and key, shared by the routes that resolve to it. */
  private readonly requestCounters = new Map<LimitName, Map<KeyOf, ReturnType<FastifyInstance['createRateLimit']>>>();

  constructor(
    private readonly app: FastifyInstance,
    private readonly config: RateLimitConfig,
    private readonly store: CounterStore,
  ) {}

  private counter(name: LimitName, key: KeyOf) {
    const byKey = this.requestCounters.get(name) ?? new Map<KeyOf, ReturnType<FastifyInstance['createRateLimit']>>();
    this.requestCounters.set(name, byKey);
    let counter = byKey.get(key);
    if (!counter) {
      const limit = LIMITS[name];
      counter = this.app.createRateLimit({ max: limit.max(this.config), timeWindow: limit.windowMs(this.config), keyGenerator: (request) => `${name}:${key(request)}` });
      byKey.set(key, counter);
    }
    return counter;
  }

  /** The limits a route declares that this hook can key, resolved once (at declaration). */
  resolve(names: readonly LimitName[], config: FastifyContextConfig): RouteLimit[] {
    return names.flatMap((name) => {
      const key = keyFor(LIMITS[name], config);
      return key ? [{ name, key, count: LIMITS[name].countsRequests ? this.counter(name, key) : null }] : [];
    });
  }

  /** Counts the request against each request counter and checks each failure counter; 429 when over. */
  async enforce(request: FastifyRequest, reply: FastifyReply, limits: readonly RouteLimit[]): Promise<void> {
    for (const { name, key, count } of limits) {
      if (count) {
        const result = await count(request);
        if (!result.isAllowed && result.isExceeded) refuse(reply, name, result.ttl);
      } else {
        await this.assertAllowed(reply, [{ limit: name, key: key(request) }]);
      }
    }
  }

  /** 429 when any of these failure counters is full (nothing is counted). */
  async assertAllowed(reply: FastifyReply, counters: readonly Counter[]): Promise<void> {
    for (const { limit, key } of counters) {
      const seen = await this.safely(() => this.store.peek(`${limit}:${key}`), { count: 0, ttlMs: 0 });
      if (seen.count >= LIMITS[limit].max(this.config)) refuse(reply, limit, seen.ttlMs);
    }
  }

  /** Adds a failed attempt's points to each counter. */
  async recordFailure(counters: readonly Counter[]): Promise<void> {
    await Promise.all(
      counters.map(({ limit, key }) => {
        const cost = LIMITS[limit].failureCost(this.config);
        return cost > 0 && this.safely(() => this.store.hit(`${limit}:${key}`, cost, LIMITS[limit].windowMs(this.config)), null);
      }),
    );
  }

  async reset(counter: Counter): Promise<void> {
    await this.safely(() => this.store.reset(`${counter.limit}:${counter.key}`), undefined);
  }

  /** A failure of the store lets the request through (like the plugin's `skipOnError`): an
   * unreachable Redis must not stop the sale. */
  private async safely<T>(work: () => Promise<T>, fallback: T): Promise<T> {
    try {
      return await work();
    } catch (err) {
      this.app.log.warn({ err }, 'rate-limit store unavailable; request let through');
      return fallback;
    }
  }

  /** Route hooks for the limits of one route, resolved as it is declared. */
  hooksFor(limits: readonly RouteLimit[]) {
    const failing = limits.filter(({ name }) => LIMITS[name].failureCodes.length > 0 && LIMITS[name].failureCost(this.config) > 0);
    return {
      onRequest: async (request: FastifyRequest, reply: FastifyReply) => this.enforce(request, reply, limits),
      onError: async (request: FastifyRequest, _reply: FastifyReply, error: Error) => {
        const code = (error as { code?: string }).code ?? '';
        const counters = failing.filter(({ name }) => LIMITS[name].failureCodes.includes(code)).map(({ name, key }) => ({ limit: name, key: key(request) }));
        if (counters.length) await this.recordFailure(counters);
      },
    };
  }
}

function refuse(reply: FastifyReply, name: LimitName, ttlMs: number): never {
  const seconds = Math.max(1, Math.ceil(ttlMs / 1000));
  reply.header('retry-after', String(seconds));
  throw new AppError('rate_limited', { limit: LIMITS[name].message, seconds });
}

declare module 'fastify' {
  interface FastifyInstance {
    rateLimits: RateLimits;
  }
}

/** Adds the 429 answer to a route's documented responses (OpenAPI). */
function document429(route: RouteOptions): void {
  const schema = route.schema as { response?: Record<string, unknown>; hide?: boolean } | undefined;
  if (schema?.response && !schema.response['429']) schema.response['429'] = { $ref: 'ErrorEnvelope' };
}

/**
 * Registers @fastify/rate-limit over the configured store and attaches each route's limits as it is
 * declared: call before declaring the routes. One Redis client per app, closed with it.
 */
export async function registerRateLimits(app: FastifyInstance): Promise<void> {
  const config = app.ctx.config;
  const settings = config.rateLimits;
  let store: CounterStore;
  if (settings.redisUrl) {
    // Fail fast while Redis is away (no offline queue, one retry) so that requests are let through
    // at once instead of waiting; the client reconnects by itself.
    // Loaded only for a fleet (REDIS_URL): a single instance starts without it.
    const { Redis } = await import('ioredis');
    const redis = new Redis(settings.redisUrl, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 1000 });
    redis.on('error', (err) => app.log.warn({ err: err.message }, 'rate-limit Redis error'));
    await redis.connect().catch((err: Error) => app.log.warn({ err: err.message }, 'rate-limit Redis unreachable at start; counting resumes when it is back'));
    app.addHook('onClose', async () => {
      redis.disconnect();
    });
    store = new RedisCounterStore(redis, settings.redisKeyPrefix, app.ctx.clock);
  } else {
    if (config.appEnv === 'production' && config.databaseUrl) {
      app.log.warn('REDIS_URL is not set: each instance counts rate limits on its own, so a fleet of N instances allows N times each limit');
    }
    store = new MemoryCounterStore(app.ctx.clock);
  }

  await app.register(rateLimitPlugin, { global: false, skipOnError: true, store: pluginStoreOver(store) });
  const limits = new RateLimits(app, settings, store);
  app.decorate('rateLimits', limits);

  // Each route's declared limits, read once: the route gets the hooks that enforce them, the others
  // nothing. Which routes must declare (the writes of the B2B and portal APIs) their scopes say
  // (requireRoutePolicy, src/app.ts).
  app.addHook('onRoute', (route) => {
    const config = route.config ?? {};
    const names = Array.isArray(config.rateLimits) ? (config.rateLimits as readonly LimitName[]) : [];
    for (const name of names) if (!(name in LIMITS)) throw new Error(`${String(route.method)} ${route.url} declares an unknown rate limit "${name}" (src/http/rate-limits.ts)`);
    const resolved = limits.resolve(names, config);
    if (!resolved.length) return;
    const hooks = limits.hooksFor(resolved);
    appendHook(route, 'onRequest', hooks.onRequest);
    appendHook(route, 'onError', hooks.onError);
    document429(route);
  });
}
