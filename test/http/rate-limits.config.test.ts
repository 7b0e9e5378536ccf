import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { itStopsOnEach, type BadValue } from '../config/bad-values.js';
import { fastifyTrustProxy } from '../../src/http/rate-limits.config.js';

describe('rate-limit configuration (D45)', () => {
  it('has production defaults: counters in memory, no proxy trusted', () => {
    expect(loadConfig({})).toMatchObject({
      trustProxy: false,
      rateLimits: {
        redisUrl: undefined,
        redisKeyPrefix: 'taquilla:',
        portalPerMinute: 120,
        tokenPerMinute: 600,
        tokenFailuresPerMinute: 10,
        cartWritesPerMinute: 120,
        voucherPerOrderPerMinute: 30,
        voucherPerClientPerMinute: 120,
        voucherFailureCost: 5,
        adminLoginWindowSeconds: 900,
        adminLoginFailuresPerAccountAddress: 5,
        adminLoginFailuresPerAccount: 50,
        adminLoginFailuresPerAddress: 20,
      },
    });
  });

  it('reads every variable', () => {
    const c = loadConfig({
      REDIS_URL: 'redis://cache:6379/2',
      REDIS_KEY_PREFIX: 'pre:',
      PORTAL_RATE_LIMIT_PER_MINUTE: '1',
      TOKEN_RATE_LIMIT_PER_MINUTE: '2',
      TOKEN_FAILURE_LIMIT_PER_MINUTE: '3',
      CART_WRITE_RATE_LIMIT_PER_MINUTE: '4',
      VOUCHER_RATE_LIMIT_PER_ORDER_PER_MINUTE: '5',
      VOUCHER_RATE_LIMIT_PER_CLIENT_PER_MINUTE: '6',
      VOUCHER_FAILURE_COST: '7',
      ADMIN_LOGIN_WINDOW_SECONDS: '60',
      ADMIN_LOGIN_FAILURES_PER_ACCOUNT_ADDRESS: '8',
      ADMIN_LOGIN_FAILURES_PER_ACCOUNT: '9',
      ADMIN_LOGIN_FAILURES_PER_ADDRESS: '10',
      CHECKIN_RATE_LIMIT_PER_DEVICE_PER_MINUTE: '11',
      TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1',
    });
    expect(c.rateLimits).toEqual({
      redisUrl: 'redis://cache:6379/2',
      redisKeyPrefix: 'pre:',
      portalPerMinute: 1,
      tokenPerMinute: 2,
      tokenFailuresPerMinute: 3,
      cartWritesPerMinute: 4,
      voucherPerOrderPerMinute: 5,
      voucherPerClientPerMinute: 6,
      voucherFailureCost: 7,
      adminLoginWindowSeconds: 60,
      adminLoginFailuresPerAccountAddress: 8,
      adminLoginFailuresPerAccount: 9,
      adminLoginFailuresPerAddress: 10,
      checkinPerDevicePerMinute: 11,
    });
    expect(c.trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1', '::1']);
  });

  it('TRUST_PROXY takes true, false, a number of hops or addresses', () => {
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    const hops = fastifyTrustProxy(2) as (address: string, hop: number) => boolean;
    expect([hops('x', 0), hops('x', 1), hops('x', 2)]).toEqual([true, true, false]);
  });

  const bad: BadValue[] = [
    ['REDIS_URL', { REDIS_URL: 'localhost:6379' }],
    ['REDIS_KEY_PREFIX', { REDIS_KEY_PREFIX: 'has space' }],
    ['PORTAL_RATE_LIMIT_PER_MINUTE', { PORTAL_RATE_LIMIT_PER_MINUTE: '0' }],
    ['TOKEN_RATE_LIMIT_PER_MINUTE', { TOKEN_RATE_LIMIT_PER_MINUTE: 'many' }],
    ['TOKEN_FAILURE_LIMIT_PER_MINUTE', { TOKEN_FAILURE_LIMIT_PER_MINUTE: '-1' }],
    ['CART_WRITE_RATE_LIMIT_PER_MINUTE', { CART_WRITE_RATE_LIMIT_PER_MINUTE: '1.5' }],
    ['VOUCHER_RATE_LIMIT_PER_ORDER_PER_MINUTE', { VOUCHER_RATE_LIMIT_PER_ORDER_PER_MINUTE: '0' }],
    ['VOUCHER_RATE_LIMIT_PER_CLIENT_PER_MINUTE', { VOUCHER_RATE_LIMIT_PER_CLIENT_PER_MINUTE: 'x' }],
    ['VOUCHER_FAILURE_COST', { VOUCHER_FAILURE_COST: 'a' }],
    // D45: the admin throttle never exceeds 15 minutes.
    ['ADMIN_LOGIN_WINDOW_SECONDS', { ADMIN_LOGIN_WINDOW_SECONDS: '901' }],
    ['ADMIN_LOGIN_FAILURES_PER_ACCOUNT_ADDRESS', { ADMIN_LOGIN_FAILURES_PER_ACCOUNT_ADDRESS: '0' }],
    ['ADMIN_LOGIN_FAILURES_PER_ACCOUNT', { ADMIN_LOGIN_FAILURES_PER_ACCOUNT: 'none' }],
    ['ADMIN_LOGIN_FAILURES_PER_ADDRESS', { ADMIN_LOGIN_FAILURES_PER_ADDRESS: '2.0' }],
    ['TRUST_PROXY', { TRUST_PROXY: 'yes' }],
    ['TRUST_PROXY', { TRUST_PROXY: '10.0.0.0/33' }],
    ['TRUST_PROXY', { TRUST_PROXY: '10.0.0.1,proxy.local' }],
  ];
  itStopsOnEach(bad);
});
