import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { itStopsOnEach, type BadValue } from './bad-values.js';

const PRODUCTION = { APP_ENV: 'production', SIGNING_SECRET: 's'.repeat(32), STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_WEBHOOK_SECRET: 'whsec_x' };

describe('loadConfig', () => {
  it('has working defaults for development', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      appEnv: 'development',
      port: 3000,
      host: '0.0.0.0',
      publicBaseUrl: 'http://localhost:3000',
      widgetUrl: 'http://localhost:3000/widget',
      portalCheckoutBaseUrl: 'http://localhost:3000',
      databaseUrl: undefined,
      dataDir: path.resolve('./data'),
      loadDemoData: true,
      tokenTtlSeconds: 86_400,
      maxLiveTokensPerChannel: 10_000,
      cartTtlSeconds: 900,
      maxItemsPerOrder: 20,
      maxLiveOrdersPerBuyer: 2,
      currency: 'EUR',
      timezone: 'Europe/Madrid',
      authCacheMs: 2000,
      dbPoolSize: 10,
      logLevel: 'info',
    });
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('NODE_ENV=test means APP_ENV=test with silent logs; production refuses demo data by default', () => {
    expect(loadConfig({ NODE_ENV: 'test' })).toMatchObject({ appEnv: 'test', logLevel: 'silent' });
    expect(loadConfig(PRODUCTION)).toMatchObject({ appEnv: 'production', loadDemoData: false });
  });

  describe('environments (D49)', () => {
    const SECRET = { SIGNING_SECRET: 'p'.repeat(32) };
    it.each(['preproduction', 'production'])('APP_ENV=%s requires SIGNING_SECRET of 32+ characters', (appEnv) => {
      const extra = appEnv === 'production' ? PRODUCTION : {};
      for (const secret of [undefined, '', 'x'.repeat(31)]) {
        expect(() => loadConfig({ ...extra, APP_ENV: appEnv, SIGNING_SECRET: secret })).toThrow(
          `SIGNING_SECRET must be set to at least 32 characters when APP_ENV=${appEnv}`,
        );
      }
      expect(loadConfig({ ...extra, APP_ENV: appEnv, ...SECRET }).signingSecret).toBe('p'.repeat(32));
    });

    it.each(['development', 'test'])('APP_ENV=%s runs on the built-in development secret and loads demo data by default', (appEnv) => {
      expect(loadConfig({ APP_ENV: appEnv })).toMatchObject({ signingSecret: 'dev-only-signing-secret-change-me-in-production', loadDemoData: true });
      expect(loadConfig({ APP_ENV: appEnv, DEMO_DATA: 'false' }).loadDemoData).toBe(false);
    });

    it('pre-production loads demo data only with DEMO_DATA=true; production never', () => {
      expect(loadConfig({ APP_ENV: 'preproduction', ...SECRET }).loadDemoData).toBe(false);
      expect(loadConfig({ APP_ENV: 'preproduction', ...SECRET, DEMO_DATA: '' }).loadDemoData).toBe(false);
      expect(loadConfig({ APP_ENV: 'preproduction', ...SECRET, DEMO_DATA: 'false' }).loadDemoData).toBe(false);
      expect(loadConfig({ APP_ENV: 'preproduction', ...SECRET, DEMO_DATA: 'true' }).loadDemoData).toBe(true);
      expect(loadConfig(PRODUCTION).loadDemoData).toBe(false);
      expect(() => loadConfig({ ...PRODUCTION, DEMO_DATA: 'true' })).toThrow('DEMO_DATA cannot be true when APP_ENV=production');
    });
  });

  it('reads every variable', () => {
    const c = loadConfig({
      APP_ENV: 'preproduction',
      PORT: '8080',
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: 'https://pre.example.com/',
      WIDGET_URL: 'https://cdn.example.com/widget',
      PORTAL_CHECKOUT_BASE_URL: 'https://shop.example.com',
      DATABASE_URL: 'postgresql://u@db/taquilla',
      DATA_DIR: '/var/lib/taquilla',
      DEMO_DATA: 'false',
      TOKEN_TTL_SECONDS: '3600',
      MAX_LIVE_TOKENS_PER_CHANNEL: '50',
      CART_TTL_SECONDS: '600',
      MAX_ITEMS_PER_ORDER: '8',
      MAX_LIVE_ORDERS_PER_BUYER: '5',
      CURRENCY: 'GBP',
      TIMEZONE: 'Europe/London',
      SIGNING_SECRET: 'k'.repeat(40),
      SMTP_URL: 'smtps://mail.example.com',
      MAIL_FROM: 'Tickets <t@example.com>',
      LOG_LEVEL: 'warn',
      AUTH_CACHE_MS: '0',
      DB_POOL_SIZE: '4',
    });
    expect(c).toMatchObject({
      appEnv: 'preproduction',
      port: 8080,
      host: '127.0.0.1',
      publicBaseUrl: 'https://pre.example.com',
      widgetUrl: 'https://cdn.example.com/widget',
      portalCheckoutBaseUrl: 'https://shop.example.com',
      databaseUrl: 'postgresql://u@db/taquilla',
      dataDir: '/var/lib/taquilla',
      loadDemoData: false,
      tokenTtlSeconds: 3600,
      maxLiveTokensPerChannel: 50,
      cartTtlSeconds: 600,
      maxItemsPerOrder: 8,
      maxLiveOrdersPerBuyer: 5,
      currency: 'GBP',
      timezone: 'Europe/London',
      signingSecret: 'k'.repeat(40),
      smtpUrl: 'smtps://mail.example.com',
      mailFrom: 'Tickets <t@example.com>',
      logLevel: 'warn',
      authCacheMs: 0,
      dbPoolSize: 4,
    });
  });

  // Each bad value must stop the start with a message that names the variable.
  const bad: BadValue[] = [
    ['APP_ENV', { APP_ENV: 'staging' }],
    ['PORT', { PORT: 'abc' }],
    ['PORT', { PORT: '70000' }],
    ['PORT', { PORT: '-1' }],
    ['PUBLIC_BASE_URL', { PUBLIC_BASE_URL: 'not a url' }],
    ['PUBLIC_BASE_URL', { PUBLIC_BASE_URL: 'ftp://example.com' }],
    ['WIDGET_URL', { WIDGET_URL: 'cdn.example.com/widget' }],
    ['PORTAL_CHECKOUT_BASE_URL', { PORTAL_CHECKOUT_BASE_URL: 'javascript:alert(1)' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://localhost/db' }],
    ['DEMO_DATA', { DEMO_DATA: 'yes' }],
    ['DEMO_DATA', { ...PRODUCTION, DEMO_DATA: 'true' }],
    ['TOKEN_TTL_SECONDS', { TOKEN_TTL_SECONDS: '0' }],
    ['TOKEN_TTL_SECONDS', { TOKEN_TTL_SECONDS: '1.5' }],
    ['MAX_LIVE_TOKENS_PER_CHANNEL', { MAX_LIVE_TOKENS_PER_CHANNEL: 'lots' }],
    ['CART_TTL_SECONDS', { CART_TTL_SECONDS: '15m' }],
    ['MAX_ITEMS_PER_ORDER', { MAX_ITEMS_PER_ORDER: '0' }],
    ['MAX_LIVE_ORDERS_PER_BUYER', { MAX_LIVE_ORDERS_PER_BUYER: '0' }],
    ['MAX_LIVE_ORDERS_PER_BUYER', { MAX_LIVE_ORDERS_PER_BUYER: 'two' }],
    ['CURRENCY', { CURRENCY: 'euro' }],
    ['TIMEZONE', { TIMEZONE: 'Mars/Olympus' }],
    ['SIGNING_SECRET', { APP_ENV: 'production' }],
    ['SIGNING_SECRET', { APP_ENV: 'production', SIGNING_SECRET: 'too-short' }],
    ['SIGNING_SECRET', { APP_ENV: 'preproduction' }],
    ['SMTP_URL', { SMTP_URL: 'mail.example.com:25' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    ['AUTH_CACHE_MS', { AUTH_CACHE_MS: '-5' }],
    ['DB_POOL_SIZE', { DB_POOL_SIZE: '0' }],
    ['METRICS_PORT', { METRICS_PORT: '70000' }],
    ['METRICS_TOKEN', { METRICS_TOKEN: 'short' }],
    ['OVERLOAD_MAX_EVENT_LOOP_DELAY_MS', { OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: '-1' }],
    ['OVERLOAD_MAX_POOL_WAITING', { OVERLOAD_MAX_POOL_WAITING: 'many' }],
    ['OVERLOAD_RETRY_AFTER_SECONDS', { OVERLOAD_RETRY_AFTER_SECONDS: '0' }],
  ];
  itStopsOnEach(bad);

  it('unchecked free-text variables (HOST, DATA_DIR) are taken as given; MAIL_FROM is checked (issue 16)', () => {
    expect(loadConfig({ HOST: '::', DATA_DIR: 'relative/dir', MAIL_FROM: 'Teatro <entradas@teatro.example>' })).toMatchObject({
      host: '::',
      dataDir: path.resolve('relative/dir'),
      mailFrom: 'Teatro <entradas@teatro.example>',
    });
    expect(() => loadConfig({ MAIL_FROM: 'x' })).toThrow(/MAIL_FROM/);
  });

  it('metrics are off, overload protection on (off in test) and logs JSON unless asked (issue 19)', () => {
    expect(loadConfig({})).toMatchObject({
      metrics: { port: null, host: '127.0.0.1', token: undefined },
      overload: { maxEventLoopDelayMs: 200, maxPoolWaiting: 0, retryAfterSeconds: 5 },
    });
    expect(loadConfig({ APP_ENV: 'test' }).overload.maxEventLoopDelayMs).toBe(0);
    expect(loadConfig({ LOG_PRETTY: '1' }).logPretty).toBe(true);
    expect(loadConfig({ ...PRODUCTION, LOG_PRETTY: '1' }).logPretty).toBe(false);
    expect(loadConfig({ APP_ENV: 'test', LOG_PRETTY: '1' }).logPretty).toBe(false);
    expect(loadConfig({ METRICS_PORT: '9464', METRICS_HOST: '10.0.0.5', METRICS_TOKEN: 't'.repeat(16) }).metrics).toEqual({
      port: 9464,
      host: '10.0.0.5',
      token: 't'.repeat(16),
    });
  });
});
