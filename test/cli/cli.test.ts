import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { sql } from 'drizzle-orm';
import path from 'node:path';
import os from 'node:os';
import fs from 'node:fs';
import { runCli, COMMANDS } from '../../src/cli/index.js';
import type { CliContext } from '../../src/cli/context.js';
import { loadConfig } from '../../src/config.js';
import { queryRows } from '../../src/db/client.js';
import { bearer, buildTestApp, tokenFor, type TestApp } from '../helpers.js';

let t: TestApp;
let out: string[];
let err: string[];

beforeAll(async () => {
  t = await buildTestApp({ demo: false });
}, 180_000);
afterAll(() => t.close());

beforeEach(() => {
  out = [];
  err = [];
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void out.push(a.join(' ')));
  vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void err.push(a.join(' ')));
  return () => vi.restoreAllMocks();
});

/** Runs a command line against the test database (the same `run` functions the program uses); stdout() and stderr() then hold what it printed. */
function cli(line: string[], ctx = t.ctx): Promise<number> {
  out.length = 0;
  err.length = 0;
  const open = async (): Promise<CliContext> => ({ ctx, appliedNow: [], close: async () => {} });
  return runCli(line, open);
}
const stdout = () => out.join('\n');
const stderr = () => err.join('\n');
const configUrl = (slug: string) => `/api/sales-channel/v1/${slug}/config`;

describe('help and usage', () => {
  it('help lists every command and exits 0 without opening the database', async () => {
    const open = vi.fn();
    expect(await runCli(['help'], open)).toBe(0);
    expect(open).not.toHaveBeenCalled();
    for (const c of COMMANDS) expect(stdout()).toContain(c.name);
    for (const name of ['channels:list', 'channels:create', 'keys:generate', 'keys:list', 'keys:revoke', 'catalogue:import', 'demo:load', 'migrate']) {
      expect(COMMANDS.map((c) => c.name)).toContain(name);
    }
  });

  it('help <command> and --help show the command usage', async () => {
    expect(await cli(['help', 'keys:revoke'])).toBe(0);
    expect(stdout()).toContain('usage: taquilla keys:revoke --channel <slug> --key-id <id>');
    expect(await cli(['channels:create', '--help'])).toBe(0);
    expect(stdout()).toContain('--organiser-id');
  });

  it('an unknown command, a missing option or an unknown option exits 2', async () => {
    expect(await cli(['channels:delete'])).toBe(2);
    expect(stderr()).toContain('unknown command "channels:delete"');
    expect(await cli(['keys:generate'])).toBe(2);
    expect(stderr()).toContain('--channel is required');
    expect(stderr()).toContain('usage: taquilla keys:generate');
    expect(await cli(['channels:list', '--jsn'])).toBe(2);
    expect(stderr()).toContain('unknown option --jsn');
  });
});

describe('migrate and demo:load', () => {
  it('migrate lists the applied migrations', async () => {
    expect(await cli(['migrate'])).toBe(0);
    expect(stdout()).toContain('0340_baseline.sql');
    expect(stdout()).toMatch(/is up to date: \d+ migration/);
  });

  it('demo:load is refused in production and loads nothing', async () => {
    const config = loadConfig({ APP_ENV: 'production', SIGNING_SECRET: 'x'.repeat(40), STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_WEBHOOK_SECRET: 'whsec_x' });
    expect(await cli(['demo:load'], { ...t.ctx, config })).toBe(1);
    expect(stderr()).toContain('refused when APP_ENV=production');
    const [row] = await queryRows<{ n: number }>(t.ctx.db, sql`SELECT count(*)::int AS n FROM sales_channels`);
    expect(Number(row!.n)).toBe(0);
  });

  it('demo:load in pre-production needs DEMO_DATA=true (D49) and otherwise loads nothing', async () => {
    const config = loadConfig({ APP_ENV: 'preproduction', SIGNING_SECRET: 'x'.repeat(40) });
    expect(await cli(['demo:load'], { ...t.ctx, config })).toBe(1);
    expect(stderr()).toContain('demo:load needs DEMO_DATA=true when APP_ENV=preproduction');
    const [row] = await queryRows<{ n: number }>(t.ctx.db, sql`SELECT count(*)::int AS n FROM sales_channels`);
    expect(Number(row!.n)).toBe(0);
  });

  it('demo:load loads the demo channels once', async () => {
    expect(await cli(['demo:load'])).toBe(0);
    expect(stdout()).toContain('Demo catalogue loaded');
    expect(await cli(['demo:load'])).toBe(0);
    expect(stdout()).toContain('already has sales channels');
    expect(await cli(['channels:list', '--json'])).toBe(0);
    expect(JSON.parse(stdout()).map((c: { slug: string }) => c.slug)).toEqual(['demo-a', 'demo-b', 'demo-c', 'demo-d']);
    expect(await cli(['channels:list'])).toBe(0);
    expect(stdout()).toMatch(/demo-b\s+portal_external_payment\s+1\s+.*http:\/\/taquilla.test\/widget\/examples\/model-b\/checkout/);
  });
});

describe('channels:create', () => {
  it('creates a channel that sells the organiser\'s events, usable once it has a key', async () => {
    expect(await cli(['organisers:list', '--json'])).toBe(0);
    const [organiser] = JSON.parse(stdout()) as { id: number }[];
    const code = await cli([
      'channels:create', '--slug', 'partner-d', '--name', 'Partner D', '--mode', 'D',
      `--organiser-id=${organiser!.id}`, '--cart-ttl', '600', '--lang', 'en', '--events', 'all',
    ]);
    expect(stderr()).toBe('');
    expect(code).toBe(0);
    expect(stdout()).toContain('Created sales channel "partner-d"');
    expect(stdout()).toMatch(/It sells events \d+, \d+\./);

    expect(await cli(['keys:generate', '--channel', 'partner-d'])).toBe(0);
    const key = out[1]!;
    expect(key).toMatch(/^wk_[A-Za-z0-9]{40}$/);
    const token = await tokenFor(t.app, 'partner-d', key);
    const res = await t.app.inject({ url: configUrl('partner-d'), headers: bearer(token) });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ integration_mode: 'widget_external_payment', cart_ttl_seconds: 600, default_lang: 'en' });
  });

  it('refuses a duplicate slug, an unknown organiser and model B without checkout URL', async () => {
    expect(await cli(['channels:create', '--slug', 'demo-a', '--name', 'X', '--mode', 'A', '--organiser-id', '1'])).toBe(1);
    expect(stderr()).toContain('A sales channel with slug "demo-a" already exists');
    expect(await cli(['channels:create', '--slug', 'orphan', '--name', 'X', '--mode', 'A', '--organiser-id', '999'])).toBe(1);
    expect(stderr()).toContain('organiser_id: unknown organiser 999');
    expect(await cli(['channels:create', '--slug', 'bee', '--name', 'X', '--mode', 'portal_external_payment', '--organiser-id', '1'])).toBe(2);
    expect(stderr()).toContain('--checkout-url is required for model B');
    expect(await cli(['channels:create', '--slug', 'Bad Slug', '--name', 'X', '--mode', 'A', '--organiser-id', '1'])).toBe(2);
    expect(stderr()).toContain('--slug must be');
    expect(await cli(['channels:create', '--slug', 'ttl', '--name', 'X', '--mode', 'A', '--organiser-id', '1', '--cart-ttl', '10'])).toBe(2);
    expect(stderr()).toContain('--cart-ttl must be a whole number >= 60');
    expect(await cli(['channels:create', '--slug', 'evt', '--name', 'X', '--mode', 'A', '--organiser-id', '1', '--events', '1,99999'])).toBe(1);
    expect(stderr()).toContain('not events of organiser 1: 99999');
    const rows = await queryRows<{ slug: string }>(t.ctx.db, sql`SELECT slug FROM sales_channels WHERE slug IN ('orphan', 'bee', 'ttl', 'evt')`);
    expect(rows).toEqual([]);
  });
});

describe('widget keys', () => {
  it('keys:list shows only the last four characters; keys:revoke kills the key and its tokens', async () => {
    expect(await cli(['keys:generate', '--channel', 'demo-c', '--json'])).toBe(0);
    const generated = JSON.parse(stdout()) as { key_id: number; widget_key: string };
    const token = await tokenFor(t.app, 'demo-c', generated.widget_key);

    expect(await cli(['keys:list', '--channel', 'demo-c'])).toBe(0);
    expect(stdout()).toContain(`...${generated.widget_key.slice(-4)}`);
    expect(stdout()).not.toContain(generated.widget_key);

    expect(await cli(['keys:revoke', '--channel', 'demo-c', '--key-id', String(generated.key_id)])).toBe(0);
    expect((await t.app.inject({ url: configUrl('demo-c'), headers: bearer(token) })).statusCode).toBe(401);
    expect(await cli(['keys:list', '--channel', 'demo-c', '--json'])).toBe(0);
    const listed = (JSON.parse(stdout()) as { id: number; revoked_at: string | null }[]).find((k) => k.id === generated.key_id);
    expect(listed!.revoked_at).toMatch(/\+00:00$/);

    expect(await cli(['keys:revoke', '--channel', 'demo-c', '--key-id', String(generated.key_id)])).toBe(1);
    expect(stderr()).toContain('Widget key not found or already revoked');
  });

  it('a key of another channel cannot be revoked through this channel', async () => {
    expect(await cli(['keys:generate', '--channel', 'demo-b', '--json'])).toBe(0);
    const other = JSON.parse(stdout()) as { key_id: number; widget_key: string };
    expect(await cli(['keys:revoke', '--channel', 'demo-a', '--key-id', String(other.key_id)])).toBe(1);
    const token = await tokenFor(t.app, 'demo-b', other.widget_key);
    expect((await t.app.inject({ url: configUrl('demo-b'), headers: bearer(token) })).statusCode).toBe(200);
  });

  it('an unknown channel is exit 1 with its slug named', async () => {
    expect(await cli(['keys:list', '--channel', 'no-such'])).toBe(1);
    expect(stderr()).toContain('Sales channel "no-such" not found');
  });
});

describe('catalogue:import', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'taquilla-cli-'));
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('a missing file, bad JSON and an invalid document exit 1 and import nothing', async () => {
    expect(await cli(['catalogue:import', path.join(tmp, 'absent.json')])).toBe(1);
    expect(stderr()).toContain('ENOENT');
    fs.writeFileSync(path.join(tmp, 'bad.json'), '{"organisers": [');
    expect(await cli(['catalogue:import', path.join(tmp, 'bad.json')])).toBe(1);
    expect(stderr()).toContain('is not valid JSON');
    const doc = {
      organisers: [{ key: 'o', name: 'O' }],
      venues: [{ key: 'v', organiser: 'o', name: 'V', sectors: [{ key: 'z', name: 'Z', numbered: false, capacity: 10 }] }],
      events: [{ key: 'e', organiser: 'o', venue: 'nowhere', names: { es: 'E' }, sessions: [] }],
    };
    fs.writeFileSync(path.join(tmp, 'invalid.json'), JSON.stringify(doc));
    expect(await cli(['catalogue:import', path.join(tmp, 'invalid.json')])).toBe(1);
    expect(stderr()).toContain('events.venue: unknown key "nowhere"');
    const rows = await queryRows<{ n: number }>(t.ctx.db, sql`SELECT count(*)::int AS n FROM organisers WHERE name = 'O'`);
    expect(Number(rows[0]!.n)).toBe(0);
    expect(await cli(['catalogue:import'])).toBe(2);
  });

  it('a document that breaks the schema exits 1 naming each field by its path', async () => {
    const doc = {
      organisers: [{ key: 'o', name: 'O' }],
      venues: [{ key: 'v', organiser: 'o', name: 'V', sectors: [{ key: 'z', name: 'Z', numbered: false, capacity: 'ten' }] }],
      events: [{ key: 'e', organiser: 'o', venue: 'v', names: { es: 'E' }, sessions: [], colour: 'red' }],
    };
    fs.writeFileSync(path.join(tmp, 'schema.json'), JSON.stringify(doc));
    expect(await cli(['catalogue:import', path.join(tmp, 'schema.json')])).toBe(1);
    expect(stderr()).toContain('error: The given data was invalid');
    expect(stderr()).toContain('venues.0.sectors.0.capacity: must be integer');
    expect(stderr()).toContain('events.0.colour: is not allowed');
  });

  it('catalogue:import --json file.json reads the file and prints the summary as JSON', async () => {
    const doc = {
      organisers: [{ key: 'o', name: 'Json Flag Org' }],
      venues: [{ key: 'v', organiser: 'o', name: 'V', sectors: [{ key: 'z', name: 'Z', numbered: false, capacity: 10 }] }],
      events: [{ key: 'e', organiser: 'o', venue: 'v', names: { es: 'E' }, sessions: [] }],
    };
    const file = path.join(tmp, 'file.json');
    fs.writeFileSync(file, JSON.stringify(doc));
    expect(await cli(['catalogue:import', '--json', file])).toBe(0);
    expect(stderr()).toBe('');
    expect(JSON.parse(stdout())).toMatchObject({ organisers: 1, venues: 1, seats: 0, events: 1, sessions: 0, rates: 0, vouchers: 0, channels: 0 });
    expect(JSON.parse(stdout()).changes.created).toMatchObject({ organisers: 1, venues: 1, events: 1 });
    const rows = await queryRows<{ n: number }>(t.ctx.db, sql`SELECT count(*)::int AS n FROM organisers WHERE name = 'Json Flag Org'`);
    expect(Number(rows[0]!.n)).toBe(1);
  });

  it('a document with an import_key imported twice: the second run prints what it left unchanged and updated (issue 29)', async () => {
    const doc = {
      import_key: 'cli-rerun',
      organisers: [{ key: 'o', name: 'Rerun Org' }],
      venues: [{ key: 'v', organiser: 'o', name: 'V', sectors: [{ key: 'z', name: 'Z', numbered: false, capacity: 10 }] }],
      events: [{ key: 'e', organiser: 'o', venue: 'v', names: { es: 'E' }, sessions: [] }],
    };
    const file = path.join(tmp, 'rerun.json');
    fs.writeFileSync(file, JSON.stringify(doc));
    expect(await cli(['catalogue:import', file])).toBe(0);
    fs.writeFileSync(file, JSON.stringify({ ...doc, organisers: [{ key: 'o', name: 'Rerun Org, renamed' }] }));
    expect(await cli(['catalogue:import', file])).toBe(0);
    expect(stdout()).toMatch(/what\s+count\s+created\s+updated\s+unchanged/);
    expect(stdout()).toMatch(/organisers\s+1\s+0\s+1\s+0/);
    expect(stdout()).toMatch(/venues\s+1\s+0\s+0\s+1/);
    const rows = await queryRows<{ n: number }>(t.ctx.db, sql`SELECT count(*)::int AS n FROM organisers WHERE name LIKE 'Rerun Org%'`);
    expect(Number(rows[0]!.n)).toBe(1);
  });
});
