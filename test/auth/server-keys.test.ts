import { sql } from 'drizzle-orm';
import { beforeAll, beforeEach, describe, expect, vi } from 'vitest';
import { runCli } from '../../src/cli/index.js';
import type { CliContext } from '../../src/cli/context.js';
import { queryRows } from '../../src/db/client.js';
import { importCatalogue } from '../../src/modules/catalogue/import.service.js';
import { sha256 } from '../../src/lib/secrets.js';
import { account, adminApiForFile, apiAs } from '../admin/admin-helpers.js';
import { DashboardClient } from '../admin/dashboard-client.js';
import { appTest, bearer, expectRefused, serverTokenFor, tokenFor } from '../helpers.js';

// Server keys (D39) are generated, listed and revoked like widget keys: admin API, dashboard and
// command line; the import takes fixed ones for demo and test data (D43).

const { it, app } = appTest();
const admin = adminApiForFile(app, 'keys-admin@taquilla.test');
let channelId: number;

beforeAll(async () => {
  const t = app();
  const [row] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM sales_channels WHERE slug = 'demo-d'`);
  channelId = row!.id;
}, 180_000);

const configUrl = '/api/sales-channel/v1/demo-d/config';
const reportUrl = '/api/sales-channel/v1/demo-d/es/reports/sales';
const status = async (url: string, token: string) => (await app().app.inject({ url, headers: bearer(token) })).statusCode;

/** The server_keys table never holds a plain key: only its hash and last four characters. */
async function expectStoredAsHashOnly(key: string) {
  const rows = await queryRows<{ row: string; key_hash: string }>(app().ctx.db, sql`SELECT s::text AS row, key_hash FROM server_keys s`);
  expect(rows.some((r) => r.key_hash === sha256(key))).toBe(true);
  for (const r of rows) expect(r.row).not.toContain(key);
}

describe('admin API: /channels/{id}/server-keys', () => {
  it('generates a server key (shown once), lists it by last four, revokes it: its tokens stop at once', async ({ t }) => {
    const gen = await admin.post(`/channels/${channelId}/server-keys`);
    expect(gen.status).toBe(201);
    expect(gen.body.message).toBe('Server key generated; it is shown only this once');
    const key: string = gen.body.data.server_key;
    expect(key).toMatch(/^sk_[A-Za-z0-9]{40}$/);
    expect(gen.body.data).toEqual({ id: expect.any(Number), server_key: key, last_four: key.slice(-4), created_at: expect.stringMatching(/\+00:00$/), revoked_at: null });
    await expectStoredAsHashOnly(key);

    const token = await serverTokenFor(t.app, 'demo-d', key, 'api-test');
    expect(await status(reportUrl, token)).toBe(200);
    const widget = await tokenFor(t.app, 'demo-d', 'wk_demo_d', 'api-test');
    expect(await status(reportUrl, widget)).toBe(403);

    const list = await admin.get(`/channels/${channelId}/server-keys`);
    expect(list.status).toBe(200);
    expect(list.body.data).toContainEqual({ id: gen.body.data.id, last_four: key.slice(-4), created_at: expect.stringMatching(/\+00:00$/), revoked_at: null });
    expect(JSON.stringify(list.body)).not.toContain(key);
    // the widget key list does not show server keys
    expect((await admin.get(`/channels/${channelId}/keys`)).body.data.map((k: { id: number }) => k.id)).not.toContain(gen.body.data.id);

    const revoked = await admin.del(`/channels/${channelId}/server-keys/${gen.body.data.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data.revoked_at).toMatch(/\+00:00$/);
    expect(await status(configUrl, token)).toBe(401);
    expect(await status(configUrl, widget)).toBe(200);
    expectRefused(await admin.del(`/channels/${channelId}/server-keys/${gen.body.data.id}`), 409, 'conflict');
    expectRefused(await admin.del(`/channels/${channelId}/server-keys/999999`), 404, 'not_found');

    const audit = (await admin.get('/audit-log?limit=200')).body.data as { action: string; target_id: string }[];
    const ofKey = audit.filter((e) => e.action.startsWith('server_key.') && e.target_id === String(gen.body.data.id));
    expect(ofKey.map((e) => e.action).sort()).toEqual(['server_key.generate', 'server_key.revoke']);
  });

  it('a promoter of another organiser reaches no server key of the channel (404)', async ({ t }) => {
    const [org] = await queryRows<{ id: number }>(t.ctx.db, sql`INSERT INTO organisers (name) VALUES ('Other') RETURNING id`);
    const other = await apiAs(t, 'other-promoter@taquilla.test', org!.id);
    expectRefused(await other.get(`/channels/${channelId}/server-keys`), 404, 'not_found');
    expectRefused(await other.post(`/channels/${channelId}/server-keys`), 404, 'not_found');
  });
});

describe('dashboard: server keys beside widget keys', () => {
  it('generates a server key shown once, lists it, revokes it, and its token is refused', async ({ t }) => {
    await account(t.ctx, 'keys-dash@taquilla.test');
    const client = new DashboardClient(t.app);
    expect((await client.login('keys-dash@taquilla.test')).statusCode).toBe(303);
    const before = await client.get(`/admin/channels/${channelId}`);
    expect(before.body).toContain('Server keys');
    expect(before.body).toContain('Widget keys');
    const gen = await client.post(`/admin/channels/${channelId}/server-keys`);
    expect(gen.statusCode).toBe(201);
    const key = /id="new-key" readonly value="(sk_[A-Za-z0-9]+)"/.exec(gen.body)![1]!;
    expect(gen.body).toContain('never in a web page');
    await expectStoredAsHashOnly(key);
    const token = await serverTokenFor(t.app, 'demo-d', key, 'dashboard-test');
    expect(await status(reportUrl, token)).toBe(200);

    const page = await client.get(`/admin/channels/${channelId}`);
    expect(page.body).toContain(`…${key.slice(-4)}`);
    expect(page.body).not.toContain(key);
    // keys are listed oldest first: the new one is the last revoke button of the server keys
    const keyId = [...page.body.matchAll(/\/server-keys\/(\d+)\/revoke/g)].map((m) => m[1]!).at(-1)!;
    expect((await client.post(`/admin/channels/${channelId}/server-keys/${keyId}/revoke`)).statusCode).toBe(303);
    expect(await status(configUrl, token)).toBe(401);
    const [row] = await queryRows<{ revoked: boolean }>(t.ctx.db, sql`SELECT revoked_at IS NOT NULL AS revoked FROM server_keys WHERE id = ${Number(keyId)}`);
    expect(row!.revoked).toBe(true);
  });
});

describe('command line: keys:* --server', () => {
  let out: string[];
  beforeEach(() => {
    out = [];
    vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
    vi.spyOn(console, 'error').mockImplementation(() => {});
    return () => vi.restoreAllMocks();
  });
  const cli = (line: string[]) => runCli(line, async (): Promise<CliContext> => ({ ctx: app().ctx, appliedNow: [], close: async () => {} }));

  it('generates, lists and revokes a server key; the plain key is printed once', async ({ t }) => {
    expect(await cli(['keys:generate', '--channel', 'demo-d', '--server', '--json'])).toBe(0);
    const generated = JSON.parse(out.join('\n')) as { key_id: number; server_key: string };
    expect(generated.server_key).toMatch(/^sk_[A-Za-z0-9]{40}$/);
    await expectStoredAsHashOnly(generated.server_key);
    const token = await serverTokenFor(t.app, 'demo-d', generated.server_key, 'cli-test');
    expect(await status(reportUrl, token)).toBe(200);

    out.length = 0;
    expect(await cli(['keys:list', '--channel', 'demo-d', '--server'])).toBe(0);
    expect(out.join('\n')).toContain(`...${generated.server_key.slice(-4)}`);
    expect(out.join('\n')).not.toContain(generated.server_key);

    out.length = 0;
    expect(await cli(['keys:revoke', '--channel', 'demo-d', '--key-id', String(generated.key_id), '--server'])).toBe(0);
    expect(out.join('\n')).toContain(`Revoked server key ${generated.key_id} of "demo-d"`);
    expect(await status(configUrl, token)).toBe(401);
    // the same id as a widget key is another key: not found, nothing revoked there
    expect(await cli(['keys:revoke', '--channel', 'demo-d', '--key-id', String(generated.key_id)])).not.toBe(0);
  });

  it('--server takes no value', async () => {
    expect(await cli(['keys:generate', '--channel', 'demo-d', '--server', 'yes'])).toBe(2);
  });
});

describe('catalogue import: fixed server_keys (D43)', () => {
  const doc = (keys: object) => ({
    organisers: [{ key: 'imp', name: 'Import org' }],
    venues: [],
    events: [],
    channels: [{ organiser: 'imp', slug: 'import-d', name: 'Import D', integration_mode: 'widget_external_payment', events: [], ...keys }],
  });

  it('imports fixed server keys, stored hashed, whose tokens are server-scope', async ({ t }) => {
    await importCatalogue(t.ctx, doc({ widget_keys: ['wk_import_d'], server_keys: ['sk_import_d'] }));
    await expectStoredAsHashOnly('sk_import_d');
    const res = await t.app.inject({ method: 'POST', url: '/api/sales-channel/v1/auth/token', payload: { sales_channel_slug: 'import-d', server_key: 'sk_import_d' } });
    expect(res.json().data.scope).toBe('server');
  });

  it('rejects a server key without the sk_ prefix, and fixed keys in production', async ({ t }) => {
    await expect(importCatalogue(t.ctx, doc({ server_keys: ['wk_not_a_server_key'] }))).rejects.toMatchObject({ code: 'validation_failed' });
    const config = t.ctx.config;
    (t.ctx as { config: typeof config }).config = { ...config, appEnv: 'production' };
    try {
      const refused = importCatalogue(t.ctx, { ...doc({ server_keys: ['sk_prod_d'] }), channels: [{ ...doc({}).channels[0], slug: 'prod-d', server_keys: ['sk_prod_d'] }] });
      await expect(refused).rejects.toMatchObject({ code: 'validation_failed', fields: { 'channels.prod-d.server_keys': [expect.stringContaining('refused')] } });
    } finally {
      (t.ctx as { config: typeof config }).config = config;
    }
  });

  it('the demo channels have server keys sk_demo_a..sk_demo_d', async ({ t }) => {
    for (const slug of ['demo-a', 'demo-b', 'demo-c', 'demo-d']) {
      expect(await serverTokenFor(t.app, slug, `sk_${slug.replace('-', '_')}`)).toMatch(/^tk_/);
    }
  });
});
