import { Readable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { commands, io } from '../../src/cli/commands/admin.js';
import { usageOf } from '../../src/cli/command.js';
import { runCli } from '../../src/cli/index.js';
import { buildTestApp, type TestApp } from '../helpers.js';
import { ADMIN_API } from './admin-helpers.js';

let t: TestApp;
beforeAll(async () => {
  // No demo catalogue needed: one organiser is enough.
  t = await buildTestApp({ demo: false });
  await t.ctx.db.execute(sql`INSERT INTO organisers (id, name) VALUES (1, 'Uno')`);
}, 180_000);
afterAll(() => t.close());

/** Runs a command line (`--flag=value`, bare `--flag` for true) and returns its exit code and what it printed. */
async function run(name: string, flags: Record<string, string | boolean>) {
  const out: string[] = [];
  const err: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...a) => void out.push(a.join(' ')));
  const error = vi.spyOn(console, 'error').mockImplementation((...a) => void err.push(a.join(' ')));
  try {
    const argv = [name, ...Object.entries(flags).map(([flag, value]) => (value === true ? `--${flag}` : `--${flag}=${value}`))];
    const code = await runCli(argv, async () => ({ ctx: t.ctx, appliedNow: [], close: async () => {} }));
    return { code, out, err };
  } finally {
    log.mockRestore();
    error.mockRestore();
  }
}

describe('operator CLI: admin commands', () => {
  it('exports the three commands with usage lines', () => {
    expect(commands.map((c) => c.name)).toEqual(['admin:create', 'promoter:create', 'admin:token']);
    for (const c of commands) expect(usageOf(c)).toContain(c.name);
  });

  it('admin:create with --password-stdin, then admin:token prints a working token once', async () => {
    io.stdin = Readable.from(['a very secret passphrase\n']);
    const created = await run('admin:create', { email: 'First@Taquilla.test', 'password-stdin': true });
    expect(created).toMatchObject({ code: 0, out: [expect.stringContaining('admin first@taquilla.test created')] });

    const issued = await run('admin:token', { email: 'first@taquilla.test', name: 'ci' });
    expect(issued.code).toBe(0);
    const token = issued.out[0]!;
    expect(token).toMatch(/^at_[A-Za-z0-9]{44}$/);
    const me = await t.app.inject({ url: `${ADMIN_API}/me`, headers: { authorization: `Bearer ${token}` } });
    expect(me.json().data).toMatchObject({ email: 'first@taquilla.test', role: 'admin' });
  });

  it('refuses a weak password, a taken e-mail and missing flags', async () => {
    expect((await run('admin:create', { email: 'weak@taquilla.test', password: 'short' })).code).toBe(1);
    expect((await run('admin:create', { email: 'first@taquilla.test', password: 'another long password' })).code).toBe(1);
    expect((await run('admin:create', { password: 'another long password' })).code).toBe(2);
    expect((await run('admin:token', { email: 'nobody@taquilla.test', name: 'x' })).code).toBe(1);
  });

  it('promoter:create generates a password when none is given and needs an existing organiser', async () => {
    const res = await run('promoter:create', { email: 'promo@taquilla.test', 'organiser-id': '1' });
    expect(res.code).toBe(0);
    expect(res.out[1]).toMatch(/^password \(shown once\): [A-Za-z0-9]{20}$/);
    expect((await run('promoter:create', { email: 'promo2@taquilla.test', 'organiser-id': '999' })).code).toBe(1);
    expect((await run('promoter:create', { email: 'promo3@taquilla.test', 'organiser-id': 'abc' })).code).toBe(2);
  });

  it('the CLI\'s actions are in the audit log as the operator', async () => {
    const token = (await run('admin:token', { email: 'first@taquilla.test', name: 'audit' })).out[0]!;
    const log = await t.app.inject({ url: `${ADMIN_API}/audit-log`, headers: { authorization: `Bearer ${token}` } });
    const entries = log.json().data as { action: string; user_email: string }[];
    expect(entries.filter((e) => e.user_email === 'operator-cli').map((e) => e.action)).toEqual(
      expect.arrayContaining(['user.create', 'admin_token.create']),
    );
  });
});
