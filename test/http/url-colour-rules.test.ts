import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import { runCli } from '../../src/cli/index.js';
import type { CliContext } from '../../src/cli/context.js';
import { loadConfig } from '../../src/config.js';
import { queryRows } from '../../src/db/client.js';
import { buildTestApp, type TestApp } from '../helpers.js';
import { account, ADMIN_API } from '../admin/admin-helpers.js';
import { DashboardClient } from '../admin/dashboard-client.js';
import { oneShowDocument } from '../catalogue/one-show.js';

// One URL rule and one colour rule at every entry point (D50): the catalogue import, the admin API,
// the dashboard and the command line refuse the same values, in the same words. The production
// service shares the test database and differs only in APP_ENV (https only).

const PRODUCTION_ENV = {
  APP_ENV: 'production',
  SIGNING_SECRET: 'p'.repeat(40),
  STRIPE_SECRET_KEY: 'sk_test_x',
  STRIPE_WEBHOOK_SECRET: 'whsec_x',
  DEMO_DATA: 'false',
  PUBLIC_BASE_URL: 'https://taquilla.test',
};

let t: TestApp;
let production: FastifyInstance;
let token: string;
let dashboard: DashboardClient;
let prodDashboard: DashboardClient;
beforeAll(async () => {
  t = await buildTestApp();
  production = await buildApp({ config: loadConfig(PRODUCTION_ENV), database: t.db.database, logger: false });
  await production.ready();
  token = (await account(t.ctx, 'rules@taquilla.test')).token;
  dashboard = new DashboardClient(t.app);
  expect((await dashboard.login('rules@taquilla.test')).statusCode).toBe(303);
  prodDashboard = new DashboardClient(production);
  expect((await prodDashboard.login('rules@taquilla.test')).statusCode).toBe(303);
}, 180_000);
afterAll(async () => {
  await production?.close();
  await t?.close();
});

const BAD_URLS = [
  ['javascript:', 'javascript:alert(document.domain)//'],
  ['data:', 'data:text/html,<script>alert(1)</script>'],
  ['ftp:', 'ftp://files.example/logo.png'],
  ['no scheme', '//evil.example/x'],
] as const;
const HTTP_URL = 'http://shop.example/checkout';
const BAD_COLOURS = ['</style><script>alert(1)</script>', 'red', '#fff'] as const;
const URL_FIELDS = ['checkout_url', 'logo_url', 'image_url'] as const;
const COLOUR_FIELDS = ['primary_color', 'accent_color'] as const;
type Field = (typeof URL_FIELDS)[number] | (typeof COLOUR_FIELDS)[number];

const URL_MESSAGE = 'must be an http(s) URL';
const HTTPS_MESSAGE = 'must be an https URL (APP_ENV=production)';
const COLOUR_MESSAGE = 'must be a colour like #1f4fd1';

// ---- the import: a document with one channel (model B) and one event, the value in `field`

let importCount = 0;
function importDocument(field: Field, value: string) {
  const n = ++importCount;
  const channel: Record<string, unknown> = {
    organiser: 'o',
    slug: `rules-${n}`,
    name: 'Rules',
    integration_mode: 'portal_external_payment',
    checkout_url: field === 'checkout_url' ? value : 'https://shop.example/checkout',
    events: 'all',
  };
  if (field === 'logo_url' || field === 'primary_color' || field === 'accent_color') channel.branding = { [field]: value };
  const event = field === 'image_url' ? { image_url: value } : {};
  return { ...oneShowDocument({ organiser: 'o', organiserName: `Rules ${n}`, names: { en: 'Show' }, event }), channels: [channel] };
}

async function channelExists(slug: string) {
  const rows = await queryRows<{ n: number }>(t.ctx.db, sql`SELECT count(*)::int AS n FROM sales_channels WHERE slug = ${slug}`);
  return Number(rows[0]!.n) > 0;
}

async function importWith(app: FastifyInstance, field: Field, value: string) {
  const doc = importDocument(field, value);
  const res = await app.inject({ method: 'POST', url: `${ADMIN_API}/catalogue/import`, headers: { authorization: `Bearer ${token}` }, payload: doc });
  return { status: res.statusCode, body: res.json(), slug: doc.channels[0]!.slug as string };
}

// ---- the admin API: a model B channel create, or an event edit

async function adminApiWith(app: FastifyInstance, field: Field, value: string) {
  const headers = { authorization: `Bearer ${token}` };
  if (field === 'image_url') {
    const res = await app.inject({ method: 'PATCH', url: `${ADMIN_API}/events/1`, headers, payload: { image_url: value } });
    return { status: res.statusCode, body: res.json() };
  }
  const branding = field === 'checkout_url' ? {} : { branding: { [field]: value } };
  const payload = {
    organiser_id: 1,
    slug: `api-${++importCount}`,
    name: 'API',
    integration_mode: 'portal_external_payment',
    checkout_url: field === 'checkout_url' ? value : 'https://shop.example/checkout',
    ...branding,
  };
  const res = await app.inject({ method: 'POST', url: `${ADMIN_API}/channels`, headers, payload });
  return { status: res.statusCode, body: res.json() };
}

// ---- the dashboard: the channel edit form of demo-b (id 2), or the event edit form

async function dashboardWith(client: DashboardClient, field: Field, value: string) {
  if (field === 'image_url') {
    await client.get('/admin/events/1');
    return client.post('/admin/events/1', { 'name_es': 'Concierto', 'name_en': 'Concert', image_url: value });
  }
  await client.get('/admin/channels/2');
  return client.post('/admin/channels/2', {
    name: 'Demo B',
    integration_mode: 'portal_external_payment',
    checkout_url: field === 'checkout_url' ? value : 'https://shop.example/checkout',
    default_lang: 'es',
    ...(field === 'checkout_url' ? {} : { [`branding_${field}`]: value }),
    event_ids: ['1', '2'],
  });
}

async function storedValues() {
  const [channel] = await queryRows<{ checkout_url: string | null; branding: unknown }>(t.ctx.db, sql`SELECT checkout_url, branding FROM sales_channels WHERE id = 2`);
  const [event] = await queryRows<{ image_url: string | null }>(t.ctx.db, sql`SELECT image_url FROM events WHERE id = 1`);
  return JSON.stringify({ channel, event });
}

const refusals = [
  ...BAD_URLS.flatMap(([label, value]) => URL_FIELDS.map((field) => ({ label, field, value, app: 'test' as const, message: URL_MESSAGE }))),
  ...URL_FIELDS.map((field) => ({ label: 'http: in production', field, value: HTTP_URL, app: 'production' as const, message: HTTPS_MESSAGE })),
  ...BAD_COLOURS.flatMap((value) => COLOUR_FIELDS.map((field) => ({ label: value, field, value, app: 'test' as const, message: COLOUR_MESSAGE }))),
];

describe.each(refusals)('$field = $label ($app)', ({ field, value, app, message }) => {
  const service = () => (app === 'production' ? production : t.app);
  const messagesOf = (body: { errors?: Record<string, string[]> }) => Object.entries(body.errors ?? {}).filter(([key]) => key.endsWith(field));

  it('the catalogue import refuses it and imports nothing', async () => {
    const res = await importWith(service(), field, value);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation_failed');
    expect(messagesOf(res.body).length).toBeGreaterThan(0);
    expect(await channelExists(res.slug)).toBe(false);
  });

  it('the admin API refuses it', async () => {
    const res = await adminApiWith(service(), field, value);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('validation_failed');
    expect(messagesOf(res.body).length).toBeGreaterThan(0);
  });

  it('the dashboard refuses it, saying why, and saves nothing', async () => {
    const before = await storedValues();
    const res = await dashboardWith(app === 'production' ? prodDashboard : dashboard, field, value);
    expect(res.statusCode).toBe(422);
    expect(res.body).toContain(message);
    expect(await storedValues()).toBe(before);
  });
});

describe('the same values pass everywhere when they are right', () => {
  it.each([
    ['test', 'checkout_url', HTTP_URL],
    ['production', 'checkout_url', 'https://shop.example/checkout'],
    ['test', 'logo_url', 'http://cdn.example/logo.png'],
    ['production', 'image_url', 'https://cdn.example/show.jpg'],
    ['test', 'primary_color', '#7a1f5c'],
  ] as const)('%s: %s = %s', async (app, field, value) => {
    const service = app === 'production' ? production : t.app;
    expect((await importWith(service, field, value)).status).toBe(201);
    expect((await adminApiWith(service, field, value)).status).toBe(field === 'image_url' ? 200 : 201);
    expect((await dashboardWith(app === 'production' ? prodDashboard : dashboard, field, value)).statusCode).toBe(303);
  });
});

describe('the command line (channels:create --checkout-url)', () => {
  let err: string[];
  beforeEach(() => {
    err = [];
    vi.spyOn(console, 'log').mockImplementation(() => {});
    vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
    return () => vi.restoreAllMocks();
  });
  const cli = (checkoutUrl: string, ctx = t.ctx) =>
    runCli(['channels:create', '--slug', `cli-${++importCount}`, '--name', 'CLI', '--mode', 'B', '--organiser-id', '1', '--checkout-url', checkoutUrl], async (): Promise<CliContext> => ({
      ctx,
      appliedNow: [],
      close: async () => {},
    }));

  it.each(BAD_URLS)('refuses %s with exit 2', async (_label, value) => {
    expect(await cli(value)).toBe(2);
    expect(err.join('\n')).toContain(`--checkout-url ${URL_MESSAGE}`);
  });

  it('refuses http: in production and takes https:', async () => {
    const ctx = { ...t.ctx, config: loadConfig(PRODUCTION_ENV) };
    expect(await cli(HTTP_URL, ctx)).toBe(2);
    expect(err.join('\n')).toContain(`--checkout-url ${HTTPS_MESSAGE}`);
    expect(await cli('https://shop.example/checkout', ctx)).toBe(0);
  });
});
