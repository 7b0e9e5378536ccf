import crypto from 'node:crypto';
import { Redis } from 'ioredis';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { LIMITS, type LimitName } from '../../src/http/rate-limits.js';
import { account, PASSWORD } from '../admin/admin-helpers.js';
import { DashboardClient } from '../admin/dashboard-client.js';
import { createOrder, demoSession, orderUrl, type DemoSession } from '../orders/cart-helpers.js';
import { bearer, buildTestApp, DEMO, TEST_RATE_LIMITS, tokenFor, type TestApp } from '../helpers.js';

const REDIS_URL = 'redis://127.0.0.1:6379';
const TOKEN_URL = '/api/sales-channel/v1/auth/token';

/** Small limits, so that each is reached in a few requests; every test uses addresses of its own. */
const LIMITS_ENV = {
  TOKEN_RATE_LIMIT_PER_MINUTE: '150',
  TOKEN_FAILURE_LIMIT_PER_MINUTE: '10',
  VOUCHER_RATE_LIMIT_PER_ORDER_PER_MINUTE: '12',
  VOUCHER_RATE_LIMIT_PER_CLIENT_PER_MINUTE: '30',
  VOUCHER_FAILURE_COST: '5',
  PORTAL_RATE_LIMIT_PER_MINUTE: '1000',
  ADMIN_LOGIN_WINDOW_SECONDS: '6',
  ADMIN_LOGIN_FAILURES_PER_ACCOUNT_ADDRESS: '3',
  ADMIN_LOGIN_FAILURES_PER_ACCOUNT: '6',
  ADMIN_LOGIN_FAILURES_PER_ADDRESS: '20',
};

/** "METHOD /url" of each route and the limits it declares (config.rateLimits), HEAD copies left out. */
function declaredLimits(app: FastifyInstance): Map<string, readonly LimitName[]> {
  return new Map(app.routePolicies.routes.filter((r) => r.method !== 'HEAD').map((r) => [`${r.method} ${r.url}`, r.rateLimits]));
}

let addressCount = 0;
/** A client address no other test uses, so that counters never carry over between tests. */
const freshAddress = () => `10.77.${Math.floor(++addressCount / 250)}.${(addressCount % 250) + 1}`;

const tokenRequest = (app: FastifyInstance, remoteAddress: string, key: string = DEMO.d.key, clientId?: string) =>
  app.inject({
    method: 'POST',
    url: TOKEN_URL,
    remoteAddress,
    payload: { sales_channel_slug: DEMO.d.slug, widget_key: key, ...(clientId ? { client_id: clientId } : {}) },
  });

/** The 429 of D45: Retry-After in seconds and the D4 envelope with code rate_limited. */
function expectRateLimited(res: { statusCode: number; headers: Record<string, unknown>; json(): unknown }, windowSeconds = 60) {
  expect(res.statusCode).toBe(429);
  const wait = Number(res.headers['retry-after']);
  expect(wait).toBeGreaterThanOrEqual(1);
  expect(wait).toBeLessThanOrEqual(windowSeconds);
  expect(res.json()).toMatchObject({ status: 429, success: false, code: 'rate_limited', message: expect.stringMatching(/Too many/) });
}

/** An app on the same database as `t` (another instance of the fleet), with its own settings. */
async function secondInstance(t: TestApp, env: Record<string, string>, logger: boolean | object = false): Promise<FastifyInstance> {
  const config = loadConfig({ APP_ENV: 'test', PUBLIC_BASE_URL: 'http://taquilla.test', ...env });
  const app = await buildApp({ config, database: t.db.database, clock: t.clock, logger });
  await app.ready();
  return app;
}

async function deleteRedisKeys(prefix: string) {
  const redis = new Redis(REDIS_URL);
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
}

describe('the limits table', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ demo: false });
  }, 120_000);
  afterAll(() => t.close());

  it('decides every write of the B2B and portal APIs: a limit or a stated reason for none', () => {
    const routes = t.app.routePolicies.routes;
    const writes = routes.filter((r) => /^(POST|PUT|PATCH|DELETE)$/.test(r.method) && /^\/api\/(sales-channel|portal)\//.test(r.url));
    expect(writes.length).toBeGreaterThan(20);
    const undecided = writes.filter((r) => r.rateLimits.length === 0 && !r.unlimitedBecause).map((r) => `${r.method} ${r.url}`);
    expect(undecided).toEqual([]);
    // The routes that say why they have none.
    expect(routes.filter((r) => r.unlimitedBecause).map((r) => `${r.method} ${r.url}`).sort()).toEqual([
      'POST /api/portal/payments/sandbox/notifications',
      'POST /api/portal/payments/stripe/webhook',
      'POST /api/sales-channel/v1/:salesChannelSlug/:lang/orders/:orderToken/confirm',
      'POST /api/sales-channel/v1/:salesChannelSlug/:lang/orders/:orderToken/confirm-payment',
    ]);
    // Every declared limit is one of the table's.
    expect(routes.flatMap((r) => r.rateLimits).filter((name) => !(name in LIMITS))).toEqual([]);
  });

  it('guards every cart write of both interfaces per buyer, and the token endpoint, vouchers and the admin login', () => {
    const limits = declaredLimits(t.app);
    const cartWrites = [...limits].filter(([, names]) => names.includes('cart_writes')).map(([r]) => r);
    // (each with the waiting-list join of D69 and best available of D61)
    expect(cartWrites.filter((r) => r.includes('/api/sales-channel/'))).toHaveLength(12);
    expect(cartWrites.filter((r) => r.includes('/api/portal/'))).toHaveLength(10);
    expect(limits.get('POST /api/sales-channel/v1/auth/token')).toEqual(['token', 'token_failures']);
    expect(limits.get('POST /admin/login')).toHaveLength(3);
    const vouchers = [...limits.keys()].filter((r) => r.endsWith('/apply-voucher'));
    expect(vouchers).toHaveLength(2);
    for (const route of vouchers) expect(limits.get(route)).toEqual(expect.arrayContaining(['voucher_per_order', 'voucher_per_client']));
    const checkin = [...limits].filter(([r]) => / \/api\/checkin\/v1\//.test(r));
    expect(checkin).toHaveLength(5);
    for (const [route, names] of checkin) expect(names, route).toEqual(['checkin_device']);
  });

  it('keeps the sales report free of any specific limit (SPEC)', () => {
    const limits = declaredLimits(t.app);
    expect(limits.get('GET /api/sales-channel/v1/:salesChannelSlug/:lang/reports/sales')).toEqual([]);
  });

  it('documents the 429 answer of every limited API route in OpenAPI', async () => {
    const spec = (await t.app.inject({ url: '/api/openapi.json' })).json() as { paths: Record<string, Record<string, { responses: object }>> };
    for (const [route, names] of declaredLimits(t.app)) {
      if (names.length === 0) continue;
      const [method, url] = route.split(' ') as [string, string];
      if (!url.startsWith('/api/')) continue;
      const path = url.replace(/:(\w+)/g, '{$1}');
      expect(Object.keys(spec.paths[path]![method.toLowerCase()]!.responses), route).toContain('429');
    }
  });

  it('never throttles the admin login for more than 15 minutes (D45)', () => {
    expect(LIMITS.admin_login_account.windowMs(t.config.rateLimits)).toBeLessThanOrEqual(15 * 60 * 1000);
    expect(() => loadConfig({ ADMIN_LOGIN_WINDOW_SECONDS: '901' })).toThrow(/ADMIN_LOGIN_WINDOW_SECONDS/);
  });
});

describe.each(['memory', 'redis'] as const)('limits with counters in %s', (store) => {
  const prefix = `taquilla-test-${crypto.randomBytes(6).toString('hex')}:`;
  const storeEnv: Record<string, string> = store === 'redis' ? { REDIS_URL, REDIS_KEY_PREFIX: prefix } : {};
  let t: TestApp;
  let session: DemoSession;
  let nextSeat = 0;
  const seat = () => session.seats[nextSeat++]!.id;

  /** A fresh buyer (own client_id, own token) with an order of one seat on demo-d. */
  async function buyerWithOrder() {
    const token = await tokenFor(t.app, DEMO.d.slug, DEMO.d.key, crypto.randomUUID());
    const order = await createOrder(t.app, token, DEMO.d.slug, { session_seat_id: seat(), rate_id: session.rates.general });
    return { token, orderToken: order.order_token };
  }

  beforeAll(async () => {
    t = await buildTestApp({ env: { ...LIMITS_ENV, ...storeEnv } });
    session = await demoSession(t, 0);
    await account(t.ctx, 'owner@taquilla.test');
  }, 180_000);
  afterAll(async () => {
    await t.close();
    if (store === 'redis') await deleteRedisKeys(prefix);
  });

  it('counts failed token requests strictly and successful ones loosely, per client address', async () => {
    const [campus, guesser, other] = [freshAddress(), freshAddress(), freshAddress()];
    // 100 buyers behind one address all get their token (the loose limit is 150).
    for (let i = 0; i < 100; i++) expect((await tokenRequest(t.app, campus, DEMO.d.key, `buyer-${i}`)).statusCode).toBe(200);
    // 10 wrong keys (or unknown channels) are answered 401; then the address waits, even with the right key.
    for (let i = 0; i < 10; i++) expect((await tokenRequest(t.app, guesser, `wk_wrong${i}`)).statusCode).toBe(401);
    expectRateLimited(await tokenRequest(t.app, guesser));
    expectRateLimited(await tokenRequest(t.app, guesser, 'wk_wrong'));
    // The buyers' address was never touched by the guesser's failures.
    expect((await tokenRequest(t.app, campus)).statusCode).toBe(200);
    // The loose limit holds too: every request counts, whatever it answers.
    for (let i = 0; i < 150; i++) await t.app.inject({ method: 'POST', url: TOKEN_URL, remoteAddress: other, payload: {} });
    expectRateLimited(await tokenRequest(t.app, other));
  });

  it('limits every cart write per buyer: a bearer token on the B2B interface, an address on the portal', async () => {
    const max = 4;
    const app = await secondInstance(t, { ...TEST_RATE_LIMITS, ...storeEnv, CART_WRITE_RATE_LIMIT_PER_MINUTE: String(max) });
    try {
      await everyCartWriteIsLimited(app, max);
    } finally {
      await app.close();
    }
  });

  async function everyCartWriteIsLimited(app: FastifyInstance, max: number) {
    const cartRoutes = [...declaredLimits(app)].filter(([, limits]) => limits.includes('cart_writes')).map(([r]) => r);
    for (const route of cartRoutes) {
      const [method, pattern] = route.split(' ') as ['POST' | 'PUT' | 'DELETE', string];
      const isB2b = pattern.startsWith('/api/sales-channel/');
      const url = pattern
        .replace(':salesChannelSlug', isB2b ? DEMO.d.slug : DEMO.a.slug)
        .replace(':lang', 'en')
        .replace(':orderToken', 'no-such-order-token')
        .replace(':itemId', '1')
        .replace(':voucherCode', 'NOPE');
      const headers = isB2b ? bearer(await tokenFor(app, DEMO.d.slug, DEMO.d.key, crypto.randomUUID())) : {};
      const remoteAddress = freshAddress();
      // Whatever the answer (an unknown order, an invalid body), each attempt counts.
      for (let i = 0; i < max; i++) expect((await app.inject({ method, url, headers, remoteAddress, payload: {} })).statusCode, route).not.toBe(429);
      expectRateLimited(await app.inject({ method, url, headers, remoteAddress, payload: {} }));
      if (isB2b) {
        // Another buyer from the same address is not held back.
        const another = bearer(await tokenFor(app, DEMO.d.slug, DEMO.d.key, crypto.randomUUID()));
        expect((await app.inject({ method, url, headers: another, remoteAddress, payload: {} })).statusCode, route).not.toBe(429);
      }
    }
  }

  it('counts unknown voucher codes more than good ones, per order', async () => {
    const voucherAddress = freshAddress();
    const apply = (token: string, orderToken: string, code: string, remoteAddress = voucherAddress) =>
      t.app.inject({ method: 'POST', url: orderUrl(DEMO.d.slug, orderToken, '/apply-voucher'), headers: bearer(token), remoteAddress, payload: { code } });
    // A good code costs 1 point of 12: a buyer may change their mind many times.
    const honest = await buyerWithOrder();
    for (let i = 0; i < 12; i++) expect((await apply(honest.token, honest.orderToken, i % 2 ? 'DEMO10' : 'DEMO5', freshAddress())).statusCode).toBe(200);
    expectRateLimited(await apply(honest.token, honest.orderToken, 'DEMO10', freshAddress()));
    // An unknown code costs 1 + 5: two guesses fill the order's window, and even a good code waits.
    const guesser = await buyerWithOrder();
    expect((await apply(guesser.token, guesser.orderToken, 'GUESS1')).json()).toMatchObject({ code: 'voucher_invalid' });
    expect((await apply(guesser.token, guesser.orderToken, 'GUESS2')).statusCode).toBe(422);
    expectRateLimited(await apply(guesser.token, guesser.orderToken, 'DEMO10', freshAddress()));
  });

  it('limits voucher guesses per client address across orders', async () => {
    const address = freshAddress();
    // 30 points per address: five unknown codes on five orders (one per order stays under the order's limit).
    for (let i = 0; i < 5; i++) {
      const buyer = await buyerWithOrder();
      const res = await t.app.inject({ method: 'POST', url: orderUrl(DEMO.d.slug, buyer.orderToken, '/apply-voucher'), headers: bearer(buyer.token), remoteAddress: address, payload: { code: `GUESS${i}` } });
      expect(res.statusCode).toBe(422);
    }
    const next = await buyerWithOrder();
    expectRateLimited(await t.app.inject({ method: 'POST', url: orderUrl(DEMO.d.slug, next.orderToken, '/apply-voucher'), headers: bearer(next.token), remoteAddress: address, payload: { code: 'DEMO10' } }));
  });

  it('answers the portal limit per address with the same envelope', async () => {
    const app = await secondInstance(t, { ...TEST_RATE_LIMITS, ...storeEnv, PORTAL_RATE_LIMIT_PER_MINUTE: '3' });
    try {
      const address = freshAddress();
      const url = `/api/portal/${DEMO.a.slug}/en/orders/unknown-token-123`;
      for (let i = 0; i < 3; i++) expect((await app.inject({ url, remoteAddress: address })).statusCode).toBe(404);
      expectRateLimited(await app.inject({ url, remoteAddress: address }));
    } finally {
      await app.close();
    }
  });

  /** A wrong password for `email` from `ip`, through the dashboard's form; the status answered. */
  async function wrongPassword(email: string, ip: string) {
    const c = new DashboardClient(t.app, ip);
    await c.get('/admin/login');
    return (await c.post('/admin/login', { email, password: 'not-the-password' })).statusCode;
  }

  it('throttles an admin account from the guessing address only: the owner signs in from theirs', async () => {
    const email = 'owner@taquilla.test';
    const attacker = freshAddress();
    expect(await Promise.all([1, 2, 3].map(() => wrongPassword(email, attacker)))).toEqual([401, 401, 401]);
    const blocked = await new DashboardClient(t.app, attacker).login(email);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.body).toContain('Too many failed sign-in attempts');
    expect(Number(blocked.headers['retry-after'])).toBeLessThanOrEqual(Number(LIMITS_ENV.ADMIN_LOGIN_WINDOW_SECONDS));
    expect((await new DashboardClient(t.app, freshAddress()).login(email, PASSWORD)).statusCode).toBe(303);
  });

  it('throttles an account attacked from many addresses for one window at most, then the password works', async () => {
    const email = 'owner-b@taquilla.test';
    await account(t.ctx, email);
    const window = Number(LIMITS_ENV.ADMIN_LOGIN_WINDOW_SECONDS);
    // Six addresses, one failure each: the account's own, looser counter (6) is full...
    const guessers = Array.from({ length: 6 }, freshAddress);
    expect(await Promise.all(guessers.map((ip) => wrongPassword(email, ip)))).toEqual(Array(6).fill(401));
    const owner = await new DashboardClient(t.app, freshAddress()).login(email);
    expect(owner.statusCode).toBe(429);
    const wait = Number(owner.headers['retry-after']);
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(window);
    // ...but no longer than the owner was told: once the window passes the correct password works,
    // from a new address and from a guessing one alike.
    // The limiter counts on the app's clock: moved past the window instead of waited out.
    t.clock.advance(wait * 1000 + 100);
    expect((await new DashboardClient(t.app, freshAddress()).login(email)).statusCode).toBe(303);
    expect((await new DashboardClient(t.app, guessers[0]!).login(email)).statusCode).toBe(303);
  });

  it('counts per instance in memory, and across instances in Redis', async () => {
    const other = await secondInstance(t, { ...LIMITS_ENV, ...storeEnv });
    try {
      const address = freshAddress();
      // Ten failures, alternating between the two instances.
      for (let i = 0; i < 10; i++) expect((await tokenRequest(i % 2 ? other : t.app, address, 'wk_wrong')).statusCode).toBe(401);
      const [first, second] = [await tokenRequest(t.app, address, 'wk_wrong'), await tokenRequest(other, address, 'wk_wrong')];
      if (store === 'redis') {
        expectRateLimited(first);
        expectRateLimited(second);
      } else {
        // Each instance saw five: a fleet without Redis allows N times the limit (hence the warning).
        expect([first.statusCode, second.statusCode]).toEqual([401, 401]);
      }
    } finally {
      await other.close();
    }
  });
});

describe('Redis outage, client address and start-up warning', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ demo: true, env: LIMITS_ENV });
  }, 180_000);
  afterAll(() => t.close());

  it('lets every request through while Redis is unreachable: the sale goes on', async () => {
    const app = await secondInstance(t, { ...LIMITS_ENV, REDIS_URL: 'redis://127.0.0.1:1' });
    try {
      const address = freshAddress();
      const started = Date.now();
      for (let i = 0; i < 15; i++) expect((await tokenRequest(app, address, 'wk_wrong')).statusCode).toBe(401);
      expect((await tokenRequest(app, address)).statusCode).toBe(200);
      // No request waits for the absent store.
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await app.close();
    }
  });

  it('takes the client address from X-Forwarded-For only behind a trusted proxy (TRUST_PROXY)', async () => {
    const proxy = freshAddress();
    const failFrom = (app: FastifyInstance, client: string) =>
      app.inject({ method: 'POST', url: TOKEN_URL, remoteAddress: proxy, headers: { 'x-forwarded-for': client }, payload: { sales_channel_slug: DEMO.d.slug, widget_key: 'wk_wrong' } });
    // Without TRUST_PROXY the header is ignored: every buyer behind the proxy is the proxy.
    for (let i = 0; i < 10; i++) await failFrom(t.app, `203.0.113.${i}`);
    expectRateLimited(await failFrom(t.app, '203.0.113.200'));
    const trusting = await secondInstance(t, { ...LIMITS_ENV, TRUST_PROXY: proxy });
    try {
      for (let i = 0; i < 10; i++) expect((await failFrom(trusting, '198.51.100.1')).statusCode).toBe(401);
      expectRateLimited(await failFrom(trusting, '198.51.100.1'));
      // Another buyer behind the same proxy is counted apart.
      expect((await failFrom(trusting, '198.51.100.2')).statusCode).toBe(401);
    } finally {
      await trusting.close();
    }
  });

  it('warns at a production start on a PostgreSQL server without REDIS_URL', async () => {
    const production = {
      APP_ENV: 'production',
      SIGNING_SECRET: 'x'.repeat(40),
      STRIPE_SECRET_KEY: 'sk_test_x',
      STRIPE_WEBHOOK_SECRET: 'whsec_x',
      DATABASE_URL: 'postgres://db.example/taquilla',
    };
    const logged = async (env: Record<string, string>) => {
      const lines: string[] = [];
      const app = await secondInstance(t, env, { level: 'warn', stream: { write: (line: string) => lines.push(line) } });
      await app.close();
      return lines.join('');
    };
    expect(await logged(production)).toMatch(/REDIS_URL is not set/);
    expect(await logged({ ...production, REDIS_URL })).not.toMatch(/REDIS_URL is not set/);
    expect(await logged({ ...production, DATABASE_URL: '' })).not.toMatch(/REDIS_URL is not set/);
  });
});
