import net from 'node:net';

/**
 * Settings of the rate limits (DECISIONS D45), read from the environment by `loadConfig`
 * (src/config.ts) so that a bad value stops the start like every other variable. What each limit
 * counts lives in src/http/rate-limits.ts; which routes it guards, in each route's `config.rateLimits`.
 */
export interface RateLimitConfig {
  /** Redis server shared by a fleet; unset = counters in this instance's memory. */
  redisUrl: string | undefined;
  /** Prefix of every Redis key of the limits (several deployments, or test runs, on one Redis). */
  redisKeyPrefix: string;
  /** Requests per minute and client address on the public portal API (D25). */
  portalPerMinute: number;
  /** Token requests per minute and client address, successful or not. */
  tokenPerMinute: number;
  /** Failed token requests (wrong key, unknown channel) per minute and client address. */
  tokenFailuresPerMinute: number;
  /** Cart writes per minute and buyer (B2B: the bearer token; portal: the client address). */
  cartWritesPerMinute: number;
  /** Voucher points per minute and order: an attempt costs 1, an unknown code `voucherFailureCost` more. */
  voucherPerOrderPerMinute: number;
  /** Voucher points per minute and client address, counted like `voucherPerOrderPerMinute`. */
  voucherPerClientPerMinute: number;
  voucherFailureCost: number;
  /** Admin sign-in throttle window; at most 15 minutes (D45). */
  adminLoginWindowSeconds: number;
  /** Failed sign-ins per window for one account from one address. */
  adminLoginFailuresPerAccountAddress: number;
  /** Failed sign-ins per window for one account from all addresses together. */
  adminLoginFailuresPerAccount: number;
  /** Failed sign-ins per window from one address, all accounts together. */
  adminLoginFailuresPerAddress: number;
  /** Scan API requests per minute and check-in device (issue 18). */
  checkinPerDevicePerMinute: number;
}

/** Fastify's `trustProxy`: false, true, a number of hops, or a list of proxy addresses / CIDRs. */
export type TrustProxy = boolean | number | string[];

type Env = Record<string, string | undefined>;
type Fail = (message: string) => never;

/** D45: the admin throttle never exceeds 15 minutes. */
const MAX_ADMIN_LOGIN_WINDOW_SECONDS = 15 * 60;

function count(env: Env, name: string, fallback: number, fail: Fail, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > max) {
    fail(`${name} must be a whole number from 1 to ${max} (got "${raw}")`);
  }
  return Number(raw);
}

export function loadRateLimitConfig(env: Env, fail: Fail): RateLimitConfig {
  const redisUrl = env.REDIS_URL || undefined;
  if (redisUrl && !/^rediss?:\/\//.test(redisUrl)) fail('REDIS_URL must start with redis:// or rediss://');
  const redisKeyPrefix = env.REDIS_KEY_PREFIX ?? 'taquilla:';
  if (!/^[\w:.-]{1,64}$/.test(redisKeyPrefix)) {
    fail(`REDIS_KEY_PREFIX must be 1 to 64 letters, digits or _:.- (got "${redisKeyPrefix}")`);
  }
  return {
    redisUrl,
    redisKeyPrefix,
    portalPerMinute: count(env, 'PORTAL_RATE_LIMIT_PER_MINUTE', 120, fail),
    tokenPerMinute: count(env, 'TOKEN_RATE_LIMIT_PER_MINUTE', 600, fail),
    tokenFailuresPerMinute: count(env, 'TOKEN_FAILURE_LIMIT_PER_MINUTE', 10, fail),
    cartWritesPerMinute: count(env, 'CART_WRITE_RATE_LIMIT_PER_MINUTE', 120, fail),
    voucherPerOrderPerMinute: count(env, 'VOUCHER_RATE_LIMIT_PER_ORDER_PER_MINUTE', 30, fail),
    voucherPerClientPerMinute: count(env, 'VOUCHER_RATE_LIMIT_PER_CLIENT_PER_MINUTE', 120, fail),
    voucherFailureCost: count(env, 'VOUCHER_FAILURE_COST', 5, fail),
    adminLoginWindowSeconds: count(env, 'ADMIN_LOGIN_WINDOW_SECONDS', MAX_ADMIN_LOGIN_WINDOW_SECONDS, fail, MAX_ADMIN_LOGIN_WINDOW_SECONDS),
    adminLoginFailuresPerAccountAddress: count(env, 'ADMIN_LOGIN_FAILURES_PER_ACCOUNT_ADDRESS', 5, fail),
    adminLoginFailuresPerAccount: count(env, 'ADMIN_LOGIN_FAILURES_PER_ACCOUNT', 50, fail),
    adminLoginFailuresPerAddress: count(env, 'ADMIN_LOGIN_FAILURES_PER_ADDRESS', 20, fail),
    checkinPerDevicePerMinute: count(env, 'CHECKIN_RATE_LIMIT_PER_DEVICE_PER_MINUTE', 600, fail),
  };
}

/**
 * TRUST_PROXY: unset or `false` = the TCP peer is the client; `true` = trust every X-Forwarded-For
 * hop; a number = trust that many hops; otherwise a comma-separated list of proxy addresses or CIDRs.
 */
export function loadTrustProxy(env: Env, fail: Fail): TrustProxy {
  const raw = (env.TRUST_PROXY ?? '').trim();
  if (raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  const entries = raw.split(',').map((s) => s.trim());
  for (const entry of entries) {
    const [address, bits, extra] = entry.split('/');
    const family = net.isIP(address ?? '');
    const bitsOk = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if (!family || !bitsOk || extra !== undefined) {
      fail(`TRUST_PROXY must be true, false, a number of hops or a comma-separated list of addresses/CIDRs (got "${raw}")`);
    }
  }
  return entries;
}

/** Fastify's types take hops as a function (its runtime also takes the number). */
export function fastifyTrustProxy(trust: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof trust === 'number' ? (_address, hop) => hop < trust : trust;
}
