import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { beforeAll, expect } from 'vitest';
import type { AppContext } from '../../src/app-context.js';
import { queryRows } from '../../src/db/client.js';
import { CLI_ACTOR } from '../../src/platform/actor.js';
import { createApiToken, createUser } from '../../src/modules/admin/accounts.service.js';

export const ADMIN_API = '/api/admin/v1';
export const PASSWORD = 'correct horse battery staple';

/** Signs `email` (an account made with PASSWORD) in to the dashboard at `base` in the browser; ends on the first page. */
export async function signInToDashboard(page: Page, base: string, email: string): Promise<void> {
  await page.goto(`${base}/admin/login`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${base}/admin/channels`);
}

/** On an event's page, fills the series form (at 21:00 Madrid, rates copied from `ratesFrom`) and previews it. */
export async function previewSeries(page: Page, base: string, series: { eventId: number; firstDay: string; count: number; ratesFrom: number }): Promise<void> {
  await page.goto(`${base}/admin/events/${series.eventId}`);
  await page.getByLabel('First day').fill(series.firstDay);
  await page.getByLabel('Time (Europe/Madrid)').fill('21:00');
  await page.getByLabel('How many sessions').fill(String(series.count));
  await page.locator('form[action$="/series"] select[name=rates_from_session_id]').selectOption(String(series.ratesFrom));
  await page.getByRole('button', { name: 'Preview dates' }).click();
  await expect.poll(() => page.getByText(`${series.count} sessions would be created`).count()).toBe(1);
}

/** An account and an admin API token for it, made the way the operator CLI makes them. */
export async function account(ctx: AppContext, email: string, organiserId?: number) {
  const user = await createUser(ctx, CLI_ACTOR, {
    email,
    password: PASSWORD,
    role: organiserId ? 'promoter' : 'admin',
    organiserId: organiserId ?? null,
  });
  const { token } = await createApiToken(ctx, CLI_ACTOR, { email, name: 'tests' });
  return { id: user.id, email, token };
}

/** The admin API as a new account: an admin, or with `organiserId` a promoter of that organiser. */
export async function apiAs(t: { ctx: AppContext; app: FastifyInstance }, email: string, organiserId?: number) {
  return api(t.app, (await account(t.ctx, email, organiserId)).token);
}

/** A new organiser of that name and a promoter account of it (with its API token), for tests without the demo catalogue. */
export async function promoterOfNewOrganiser(ctx: AppContext, email: string, organiserName: string) {
  const [organiser] = await queryRows<{ id: number }>(ctx.db, sql`INSERT INTO organisers (name) VALUES (${organiserName}) RETURNING id`);
  return account(ctx, email, organiser!.id);
}

/** A second organiser with a venue, an event, a session, a rate, a fee, a voucher and a channel. */
export const otherOrganiserDocument = {
  organisers: [{ key: 'b', name: 'Producciones B' }],
  venues: [
    {
      key: 'sala-b',
      organiser: 'b',
      name: 'Sala B',
      sectors: [
        { key: 'main', name: 'Main', numbered: true, rows: [{ row: 'A', seats: 10, x: 0, y: 0 }] },
        { key: 'floor', name: 'Floor', numbered: false, capacity: 5 },
      ],
    },
  ],
  events: [
    {
      key: 'show-b',
      organiser: 'b',
      venue: 'sala-b',
      names: { es: 'Espectáculo B', en: 'Show B' },
      fees: [{ name: 'Gestión', kind: 'fixed', amount: 1 }],
      sessions: [{ key: 's1', start_datetime: '2030-01-01T19:00:00Z', rates: [{ key: 'g', name: 'General', price: 10 }] }],
    },
  ],
  vouchers: [{ organiser: 'b', code: 'BONLY', kind: 'percent', value: 15 }],
  channels: [{ organiser: 'b', slug: 'channel-b', name: 'Channel B', integration_mode: 'widget_external_payment', events: 'all', widget_keys: ['wk_channel_b_fixed'] }],
};

export function api(app: FastifyInstance, token: string) {
  const call = async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) => {
    const res = await app.inject({ method, url: `${ADMIN_API}${url}`, headers: { authorization: `Bearer ${token}` }, payload: payload as object });
    return { status: res.statusCode, body: res.json() };
  };
  return {
    get: (url: string) => call('GET', url),
    post: (url: string, payload?: unknown) => call('POST', url, payload ?? {}),
    patch: (url: string, payload: unknown) => call('PATCH', url, payload),
    del: (url: string) => call('DELETE', url),
  };
}

/** The admin API's calls, as api() makes them. */
export type AdminApi = ReturnType<typeof api>;

/**
 * The admin API as a new account `email` (an admin; with `organiserId` a promoter of it) for a test
 * file: the account is made in a beforeAll registered here, so call this after the file's app is
 * registered (appTest); the calls work in the file's later hooks and in its tests.
 */
export function adminApiForFile(app: () => { ctx: AppContext; app: FastifyInstance }, email: string, organiserId?: number): AdminApi {
  let admin: AdminApi | undefined;
  beforeAll(async () => {
    admin = await apiAs(app(), email, organiserId);
  });
  const started = () => {
    if (!admin) throw new Error(`no admin API for ${email} yet: it is made in beforeAll`);
    return admin;
  };
  return {
    get: (url) => started().get(url),
    post: (url, payload) => started().post(url, payload),
    patch: (url, payload) => started().patch(url, payload),
    del: (url) => started().del(url),
  };
}

/** An admin, root@taquilla.test, imports otherOrganiserDocument: the admin's API and organiser B's id. */
export async function adminWithOrganiserB(ctx: AppContext, app: FastifyInstance) {
  const admin = await apiAs({ ctx, app }, 'root@taquilla.test');
  expect((await admin.post('/catalogue/import', otherOrganiserDocument)).status).toBe(201);
  const [org] = await queryRows<{ id: number }>(ctx.db, sql`SELECT id FROM organisers WHERE name = 'Producciones B'`);
  return { admin, organiserB: org!.id };
}

/**
 * Organiser B for the isolation tests: imports otherOrganiserDocument as `admin`, makes B's
 * promoter, and reads back through B's own API the ids of B's records, which promoters of other
 * organisers must never reach.
 */
export async function setUpOtherOrganiser(ctx: AppContext, app: FastifyInstance, admin: ReturnType<typeof api>) {
  expect((await admin.post('/catalogue/import', otherOrganiserDocument)).status).toBe(201);
  const [org] = await queryRows<{ id: number }>(ctx.db, sql`SELECT id FROM organisers WHERE name = 'Producciones B'`);
  const promoterB = await apiAs({ ctx, app }, 'promoter-b@taquilla.test', org!.id);
  const channel = (await promoterB.get('/channels')).body.data[0].id as number;
  const event = (await promoterB.get('/events')).body.data[0].id as number;
  const detail = (await promoterB.get(`/events/${event}`)).body.data;
  const session = detail.sessions[0].id as number;
  const ids = {
    organiser: org!.id,
    channel,
    key: (await promoterB.get(`/channels/${channel}/keys`)).body.data[0].id as number,
    event,
    session,
    fee: detail.fees[0].id as number,
    rate: (await promoterB.get(`/sessions/${session}`)).body.data.rates[0].id as number,
    voucher: (await promoterB.get('/vouchers')).body.data[0].id as number,
    venue: (await promoterB.get('/venues')).body.data[0].id as number,
  };
  return { ids, promoterB };
}
