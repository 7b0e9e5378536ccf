import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.js';
import { MIGRATIONS_DIR, migrate } from '../../src/db/migrate.js';
import { serverUrl, TEST_PG_URL } from '../global-setup.js';
import { isPostgres } from '../helpers.js';

// Issue 26 item 5: the migrations 0001-0340 squashed into 0340_baseline.sql. A database migrated
// through the old chain (its files read from the git history) and carried on by this version, and
// a database started from the baseline, have the same schema, dump for dump. A database that
// stopped part-way through the old chain is refused with a message that says what to do.
// PostgreSQL only: pg_dump is the judge.

const BASELINE = '0340_baseline.sql';
const REPLACED = fs
  .readFileSync(path.join(MIGRATIONS_DIR, '0340_baseline.replaces'), 'utf8')
  .split('\n')
  .map((l) => l.replace(/#.*/, '').trim())
  .filter(Boolean);
/** The commit that last had the old chain, as the baseline's header names it. */
const OLD_CHAIN_COMMIT = fs.readFileSync(path.join(MIGRATIONS_DIR, BASELINE), 'utf8').match(/last at commit ([0-9a-f]{40})/)![1]!;
const ROOT = path.resolve(import.meta.dirname, '../..');

const admin = new pg.Client({ connectionString: TEST_PG_URL });
const made: string[] = [];
const opened: Database[] = [];
let oldChainDir: string;

async function emptyDatabase(): Promise<{ name: string; db: Database }> {
  const name = `taquilla_base_${crypto.randomBytes(5).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${name}`);
  made.push(name);
  const db = await openDatabase({ url: serverUrl(name), poolSize: 1 });
  opened.push(db);
  return { name, db };
}

/** The schema as pg_dump prints it, without the dump's random \restrict key lines. */
const schemaDump = (name: string) =>
  execFileSync('pg_dump', ['--schema-only', '--no-owner', '--no-privileges', serverUrl(name)], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => !line.startsWith('\\'))
    .join('\n');

/** The old chain's files up to `count`, from the git history, in a folder of their own. */
function oldChain(count = REPLACED.length): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taquilla-old-chain-'));
  for (const name of REPLACED.slice(0, count)) {
    fs.writeFileSync(path.join(dir, name), execFileSync('git', ['show', `${OLD_CHAIN_COMMIT}:src/db/migrations/${name}`], { cwd: ROOT }));
  }
  return dir;
}

/**
 * The SQL functions as they were at that commit: an old deployment ran the old chain with its own
 * function bodies. Today's bodies may use columns that came later (a `LANGUAGE sql` function is
 * checked when it is created), so they cannot stand on the old chain's schema.
 */
function oldFunctions(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taquilla-old-functions-'));
  const names = execFileSync('git', ['ls-tree', '--name-only', `${OLD_CHAIN_COMMIT}:src/db/functions`], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter((n) => n.endsWith('.sql'));
  for (const name of names) fs.writeFileSync(path.join(dir, name), execFileSync('git', ['show', `${OLD_CHAIN_COMMIT}:src/db/functions/${name}`], { cwd: ROOT }));
  return dir;
}

describe.runIf(isPostgres)('the baseline migration (issue 26 item 5)', () => {
  let oldFunctionsDir: string;
  beforeAll(async () => {
    await admin.connect();
    oldChainDir = oldChain();
    oldFunctionsDir = oldFunctions();
  });
  afterAll(async () => {
    for (const db of opened) await db.close().catch(() => {});
    for (const name of made) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
    fs.rmSync(oldChainDir, { recursive: true, force: true });
    fs.rmSync(oldFunctionsDir, { recursive: true, force: true });
  });

  it('lists the migrations it replaces, which git still has', () => {
    expect(REPLACED.length).toBeGreaterThan(40);
    expect(REPLACED[0]).toBe('0001_foundation.sql');
    expect(REPLACED.at(-1)).toBe('0340_wallet_development_signers.sql');
    for (const name of REPLACED) expect(fs.existsSync(path.join(MIGRATIONS_DIR, name)), name).toBe(false);
  });

  it('a database of the old chain is carried on, and has the schema of a database started from the baseline', async () => {
    const old = await emptyDatabase();
    expect(await migrate(old.db, { migrations: oldChainDir, functions: oldFunctionsDir })).toEqual(REPLACED);
    const now = await migrate(old.db);
    expect(now).not.toContain(BASELINE);
    const fresh = await emptyDatabase();
    expect(await migrate(fresh.db)).toContain(BASELINE);

    const [a, b] = [schemaDump(old.name), schemaDump(fresh.name)];
    expect(a.length).toBeGreaterThan(10_000);
    expect(a).toEqual(b);
    // The carried-on database recorded the baseline, so a later start applies nothing.
    expect(await migrate(old.db)).toEqual([]);
  }, 180_000);

  it('a database that stopped part-way through the old chain is refused, nothing applied', async () => {
    const partial = await emptyDatabase();
    const dir = oldChain(REPLACED.length - 1);
    try {
      await migrate(partial.db, { migrations: dir, functions: oldFunctionsDir });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const before = schemaDump(partial.name);
    await expect(migrate(partial.db)).rejects.toThrow(`stopped part-way through the migrations that ${BASELINE} replaces (not applied: ${REPLACED.at(-1)})`);
    expect(schemaDump(partial.name)).toEqual(before);
  }, 180_000);
});
