import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase, queryRows } from '../../src/db/client.js';
import { loadDemoDataIfEmpty } from '../../src/demo/demo-data.js';
import { ManualClock } from '../../src/lib/clock.js';
import { INTEGRATION_POLICY } from '../../src/lib/integration-policy.js';
import { sweepExpiredOrders } from '../../src/modules/orders/orders.service.js';
import { recordIntegrationStep, recordTokenIssued, startIntegrationChecklist } from '../../src/platform/integration-checklist.js';
import { account } from '../admin/admin-helpers.js';
import { DashboardClient } from '../admin/dashboard-client.js';
import { buyer, createPendingOrder } from '../checkout/fixtures.js';
import { bearer, buildTestApp, createTestDatabase, DEMO, isPostgres, serverTokenFor, tokenFor, type TestApp, type TestDatabase } from '../helpers.js';

// The pre-production integration checklist (docs/preproduction.md): filled from each channel's own
// real calls, per its model; nothing recorded in production; each channel sees only its own.
let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp();
}, 180_000);
afterAll(async () => {
  await t?.close();
});

const B2B = '/api/sales-channel/v1';
type Checklist = { model: string; recording: boolean; ready_to_go_live: boolean; steps: { step: string; completed_at: string | null }[] };

async function channelId(slug: string): Promise<number> {
  const [row] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM sales_channels WHERE slug = ${slug}`);
  return row!.id;
}

function caller(app: FastifyInstance, slug: string) {
  return async (token: string, method: 'GET' | 'POST' | 'DELETE', path: string, payload?: object) => {
    const res = await app.inject({ method, url: `${B2B}/${slug}${path}`, headers: bearer(token), ...(payload ? { payload } : {}) });
    return { status: res.statusCode, body: res.json() };
  };
}

async function checklist(app: FastifyInstance, slug: string, token: string): Promise<Checklist> {
  const res = await caller(app, slug)(token, 'GET', '/integration-checklist');
  expect(res.status).toBe(200);
  return res.body.data as Checklist;
}

const done = (list: Checklist) => list.steps.filter((s) => s.completed_at).map((s) => s.step);
const open = (list: Checklist) => list.steps.filter((s) => !s.completed_at).map((s) => s.step);

/** A refused token, then a new one: the renewal a client makes after a 401. */
async function renewAfter401(app: FastifyInstance, slug: string, serverKey: string) {
  const stale = await serverTokenFor(app, slug, serverKey, 'checklist');
  const fresh = await serverTokenFor(app, slug, serverKey, 'checklist'); // revokes `stale` (D38)
  expect((await caller(app, slug)(stale, 'GET', '/config')).status).toBe(401);
  // The refusal alone is not the step: only a token issued after it.
  return { fresh, renewed: await serverTokenFor(app, slug, serverKey, 'checklist') };
}

/** The calls of every model: config, event list, session detail; answers the first session's free seats. */
async function readCatalogue(call: ReturnType<typeof caller>, token: string) {
  expect((await call(token, 'GET', '/config')).status).toBe(200);
  const events = await call(token, 'GET', '/es/events');
  expect(events.status).toBe(200);
  const event = events.body.data[0];
  const session = await call(token, 'GET', `/es/events/${event.id}/sessions/${event.sessions[0].id}`);
  expect(session.status).toBe(200);
  return (session.body.data.elements.seats as { id: number; status: string; rates: { id: number }[] }[]).filter((s) => s.status === 'available');
}

async function confirmSteps(call: ReturnType<typeof caller>, token: string, slug: string) {
  const order = await createPendingOrder(t.ctx, { channel: slug });
  const path = `/es/orders/${order.token}/confirm`;
  const wrong = await call(token, 'POST', path, { ...buyer, amount: order.total / 100 + 1 });
  expect([wrong.status, wrong.body.code]).toEqual([422, 'amount_mismatch']);
  expect((await call(token, 'POST', path, { ...buyer, amount: order.total / 100 })).body.message).toBe('Order confirmed');
  expect((await call(token, 'POST', path, { ...buyer, amount: order.total / 100 })).body.message).toBe('Order already confirmed');
}

describe('model D channel (demo-d)', () => {
  it('fills its checklist from its own calls; ready to go live once a webhook is verified', async () => {
    const call = caller(t.app, DEMO.d.slug);
    const server = await serverTokenFor(t.app, DEMO.d.slug, DEMO.d.serverKey, 'checklist-d');
    const before = await checklist(t.app, DEMO.d.slug, server);
    expect(before).toMatchObject({ model: 'D', recording: true, ready_to_go_live: false });
    expect(before.steps.map((s) => s.step)).toEqual(INTEGRATION_POLICY.widget_external_payment.checklist);
    expect(done(before)).toEqual([]);

    // The widget's calls (a widget-key token) count as the channel's own.
    const widget = await tokenFor(t.app, DEMO.d.slug, DEMO.d.key, 'buyer-1');
    const free = await readCatalogue(call, widget);
    const created = await call(widget, 'POST', '/es/orders', { session_seat_id: free[0]!.id, rate_id: free[0]!.rates[0]!.id });
    expect(created.status).toBe(201);
    const cart = `/es/orders/${created.body.data.order_token}`;
    expect((await call(widget, 'POST', `${cart}/apply-voucher`, { code: 'DEMO10' })).status).toBe(200);
    expect((await call(widget, 'DELETE', `${cart}/vouchers/DEMO10`)).status).toBe(200);
    const itemId = created.body.data.events[0].sessions[0].items[0].id;
    expect((await call(widget, 'DELETE', `${cart}/items/${itemId}`)).status).toBe(200);

    // A cart left to expire: the next change meets 409 order_expired.
    const late = await call(widget, 'POST', '/es/orders', { session_seat_id: free[1]!.id, rate_id: free[1]!.rates[0]!.id });
    t.clock.advance(16 * 60_000);
    const expired = await call(widget, 'POST', `/es/orders/${late.body.data.order_token}/items`, { session_seat_id: free[2]!.id, rate_id: free[2]!.rates[0]!.id });
    expect(expired.body.code).toBe('order_expired');

    await confirmSteps(call, server, DEMO.d.slug);
    expect((await call(server, 'GET', '/es/reports/sales')).status).toBe(200);
    const { renewed } = await renewAfter401(t.app, DEMO.d.slug, DEMO.d.serverKey);

    // Steps are written after the answer has gone.
    await expect.poll(async () => open(await checklist(t.app, DEMO.d.slug, renewed)), { timeout: 10_000 }).toEqual(['webhook_verified']);
    const first = await checklist(t.app, DEMO.d.slug, renewed);
    expect(first.ready_to_go_live).toBe(false);
    expect(first.steps[0]!.completed_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/); // D12

    // What the webhook delivery worker calls on a 2xx answer.
    const id = await channelId(DEMO.d.slug);
    await recordIntegrationStep(t.ctx.db, id, 'webhook_verified');
    const ready = await checklist(t.app, DEMO.d.slug, renewed);
    expect(ready.ready_to_go_live).toBe(true);

    // A step keeps the time of its first completion.
    t.clock.advance(60_000);
    expect((await call(renewed, 'GET', '/config')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 200));
    const again = await checklist(t.app, DEMO.d.slug, renewed);
    expect(again.steps.find((s) => s.step === 'config_read')).toEqual(first.steps.find((s) => s.step === 'config_read'));
    const [rows] = await queryRows<{ n: number }>(t.ctx.db, sql`SELECT count(*)::int AS n FROM channel_integration_steps WHERE channel_id = ${id}`);
    expect(rows!.n).toBe(INTEGRATION_POLICY.widget_external_payment.checklist.length + 1); // + token_rejected

    // The organiser sees it on the channel's page.
    await account(t.ctx, 'checklist@taquilla.test');
    const dashboard = new DashboardClient(t.app);
    expect((await dashboard.login('checklist@taquilla.test')).statusCode).toBe(303);
    const page = (await dashboard.get(`/admin/channels/${id}`)).body;
    expect(page).toContain('Pre-production checklist');
    expect(page).toContain('Ready to go live');
    expect(page).toMatch(/<tr data-step="confirm_repeated"><td><span aria-label="done">✓<\/span><\/td><td>Confirm repeated \(idempotent answer\)<\/td><td>\d{4}-\d\d-\d\d \d\d:\d\d [^<]+<\/td><\/tr>/);
  });
});

describe('model B channel (demo-b)', () => {
  it('has the steps of model B only, filled from its own calls', async () => {
    const call = caller(t.app, DEMO.b.slug);
    const token = await serverTokenFor(t.app, DEMO.b.slug, DEMO.b.serverKey, 'checklist-b');
    await readCatalogue(call, token);
    await confirmSteps(call, token, DEMO.b.slug);
    expect((await call(token, 'GET', '/es/reports/sales')).status).toBe(200);
    const { renewed } = await renewAfter401(t.app, DEMO.b.slug, DEMO.b.serverKey);

    await expect.poll(async () => open(await checklist(t.app, DEMO.b.slug, renewed)), { timeout: 10_000 }).toEqual(['webhook_verified']);
    const list = await checklist(t.app, DEMO.b.slug, renewed);
    expect(list.model).toBe('B');
    expect(list.steps.map((s) => s.step)).toEqual([
      'token_renewed',
      'config_read',
      'catalogue_read',
      'session_read',
      'confirm_exact_amount',
      'confirm_repeated',
      'wrong_amount_refused',
      'report_read',
      'webhook_verified',
    ]);
    // B builds no B2B cart: those steps are not asked of it.
    expect(list.steps.some((s) => s.step === 'cart_built')).toBe(false);
  });

  it('a 401 alone is not a renewal', async () => {
    const c = DEMO.c;
    const stale = await serverTokenFor(t.app, c.slug, c.serverKey, 'only-401');
    await serverTokenFor(t.app, c.slug, c.serverKey, 'only-401');
    expect((await caller(t.app, c.slug)(stale, 'GET', '/config')).status).toBe(401);
    const steps = await queryRows<{ step: string }>(t.ctx.db, sql`SELECT step FROM channel_integration_steps WHERE channel_id = ${await channelId(c.slug)}`);
    expect(steps.map((s) => s.step)).toEqual(['token_rejected']);
  });
});

describe('channel isolation', () => {
  it("a channel sees only its own checklist; another's calls tick nothing of it", async () => {
    const a = await serverTokenFor(t.app, DEMO.a.slug, DEMO.a.serverKey, 'iso');
    const ofA = await checklist(t.app, DEMO.a.slug, a);
    expect(ofA.model).toBe('A');
    expect(done(ofA)).toEqual([]); // demo-b and demo-d did all of these steps
    const other = await caller(t.app, DEMO.d.slug)(a, 'GET', '/integration-checklist');
    expect([other.status, other.body.code]).toEqual([403, 'unauthorized_sales_channel']);
  });

  it('the expiry sweep ticks "an order expired" for the channel of the cart only', async () => {
    await createPendingOrder(t.ctx, { channel: DEMO.c.slug, ttlMs: 1000 });
    t.clock.advance(5000);
    await sweepExpiredOrders(t.ctx);
    const rows = await queryRows<{ slug: string }>(
      t.ctx.db,
      sql`SELECT c.slug FROM channel_integration_steps s JOIN sales_channels c ON c.id = s.channel_id WHERE s.step = 'order_expired' ORDER BY c.slug`,
    );
    expect(rows.map((r) => r.slug)).toEqual(['demo-c', 'demo-d']);
  });
});

describe('production', () => {
  let db: TestDatabase;
  let production: FastifyInstance;
  const clock = new ManualClock(new Date());

  beforeAll(async () => {
    // Production has its own database (D3); the demo catalogue is loaded into it as a test would.
    db = await createTestDatabase();
    const config = loadConfig({ APP_ENV: 'production', SIGNING_SECRET: 'p'.repeat(40), STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_WEBHOOK_SECRET: 'whsec_x', DEMO_DATA: 'false', PUBLIC_BASE_URL: 'https://taquilla.test', ...{ TOKEN_RATE_LIMIT_PER_MINUTE: '100000' } });
    production = await buildApp({ config, database: db.database, clock, logger: false });
    await loadDemoDataIfEmpty({ ...production.ctx, config: t.config });
    await production.ready();
  }, 180_000);
  afterAll(async () => {
    await production?.close();
    await db?.drop();
  });

  it('records nothing, and says so', async () => {
    const call = caller(production, DEMO.d.slug);
    const server = await serverTokenFor(production, DEMO.d.slug, DEMO.d.serverKey, 'prod');
    await readCatalogue(call, server);
    expect((await call(server, 'GET', '/es/reports/sales')).status).toBe(200);
    await renewAfter401(production, DEMO.d.slug, DEMO.d.serverKey);
    await createPendingOrder(production.ctx, { channel: DEMO.d.slug, ttlMs: 1000 });
    clock.advance(5000);
    await sweepExpiredOrders(production.ctx);
    await recordIntegrationStep(production.ctx.db, 1, 'webhook_verified');
    await new Promise((r) => setTimeout(r, 300));
    const [rows] = await queryRows<{ n: number }>(production.ctx.db, sql`SELECT count(*)::int AS n FROM channel_integration_steps`);
    expect(rows!.n).toBe(0);
    const list = await checklist(production, DEMO.d.slug, server);
    expect(list).toMatchObject({ recording: false, ready_to_go_live: false });
    expect(done(list)).toEqual([]);
  });
});

describe.runIf(isPostgres)('a fleet on one PostgreSQL', () => {
  it('instances completing the same step at once write it once, with one of their times', async () => {
    const other = await openDatabase({ url: t.db.url!, poolSize: 10 });
    try {
      startIntegrationChecklist(other.db);
      const id = await channelId(DEMO.a.slug);
      const times = Array.from({ length: 20 }, (_, n) => new Date(Date.UTC(2026, 10, 24, 9, 0, n)));
      // Each call from its own handle's point of view is the first: both race to the database.
      await Promise.all(
        times.flatMap((at, n) => [
          recordIntegrationStep(n % 2 ? t.ctx.db : other.db, id, 'catalogue_read', at),
          recordIntegrationStep(n % 2 ? other.db : t.ctx.db, id, 'token_rejected', at),
        ]),
      );
      await Promise.all(times.map((at, n) => recordTokenIssued(n % 2 ? t.ctx.db : other.db, id, at)));
      const rows = await queryRows<{ step: string; completed_at: Date }>(
        t.ctx.db,
        sql`SELECT step, completed_at FROM channel_integration_steps WHERE channel_id = ${id} ORDER BY step`,
      );
      expect(rows.map((r) => r.step)).toEqual(['catalogue_read', 'token_rejected', 'token_renewed']);
      for (const r of rows) expect(times.map((d) => d.getTime())).toContain(new Date(r.completed_at).getTime());
    } finally {
      await other.close();
    }
  });
});
