import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, queryRows, type Database } from '../../src/db/client.js';
import { FUNCTIONS_DIR, migrate, sqlFiles } from '../../src/db/migrate.js';
import { serverUrl, TEST_PG_URL } from '../global-setup.js';
import { isPostgres } from '../helpers.js';

// src/db/functions holds the current body of every SQL function, one file each, re-applied after
// the migrations on every start (docs/architecture.md "Migrations"). On an empty database, on both
// drivers: what the database runs is what the files say, every function has its file, a second
// start changes nothing, and an edited file takes effect on the next start.

interface FunctionFile {
  file: string;
  name: string;
  /** The text between the dollar quotes, which PostgreSQL keeps as prosrc. */
  body: string;
}

function readFunctionFile(dir: string, file: string): FunctionFile {
  const text = fs.readFileSync(path.join(dir, file), 'utf8');
  const created = [...text.matchAll(/CREATE OR REPLACE FUNCTION (\w+)\(/g)].map((m) => m[1]!);
  const body = /AS \$\$([\s\S]*?)\$\$;/.exec(text)?.[1];
  if (created.length !== 1 || body === undefined) throw new Error(`${file}: expected one CREATE OR REPLACE FUNCTION ... AS $$...$$;`);
  return { file, name: created[0]!, body };
}

const FILES = sqlFiles(FUNCTIONS_DIR).map((f) => readFunctionFile(FUNCTIONS_DIR, f));

async function emptyDatabase(kind: 'pglite' | 'postgres'): Promise<{ database: Database; drop(): Promise<void> }> {
  if (kind === 'pglite') {
    const database = await openDatabase({ pgliteDir: 'memory://' });
    return { database, drop: () => database.close() };
  }
  const name = `taquilla_fn_${crypto.randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const database = await openDatabase({ url: serverUrl(name), poolSize: 2 });
  return {
    database,
    async drop() {
      await database.close().catch(() => {});
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/** Every function of the public schema: name, identity arguments, body and full definition. */
async function functionsInDatabase(database: Database) {
  return queryRows<{ name: string; args: string; body: string; def: string }>(
    database.db,
    sql`SELECT p.proname AS name, pg_get_function_identity_arguments(p.oid) AS args, p.prosrc AS body,
               pg_get_functiondef(p.oid) AS def
        FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
        WHERE n.nspname = 'public' AND p.prokind = 'f'
        ORDER BY p.proname, args`,
  );
}

const kinds: ('pglite' | 'postgres')[] = isPostgres ? ['pglite', 'postgres'] : ['pglite'];

describe.each(kinds)('SQL function files on %s', (kind) => {
  let empty: Awaited<ReturnType<typeof emptyDatabase>>;
  let database: Database;
  beforeAll(async () => {
    empty = await emptyDatabase(kind);
    database = empty.database;
    await migrate(database);
  }, 120_000);
  afterAll(() => empty?.drop());

  it('one function per file, named after it, numbered', () => {
    expect(FILES.length).toBeGreaterThan(0);
    for (const f of FILES) expect(f.file).toBe(`${f.file.slice(0, 3)}_${f.name}.sql`);
    expect(new Set(FILES.map((f) => f.name)).size).toBe(FILES.length);
  });

  it("the database's functions are exactly the files: each body as written, none without a file, no overloads", async () => {
    const inDb = await functionsInDatabase(database);
    // A function that only a migration defines (or an old signature left behind) has no home.
    expect(inDb.map((f) => f.name).sort()).toEqual(FILES.map((f) => f.name).sort());
    for (const f of FILES) expect(inDb.find((d) => d.name === f.name)!.body, f.file).toBe(f.body);
  });

  it('the named rules are inlined by the planner: the claim is planned as the expression written out', async () => {
    // A non-inlined SQL function is a call per row, planned on every call on PostgreSQL 15; the hold
    // path is benchmarked. EXPLAIN VERBOSE shows the expression the executor runs.
    const plan = async (query: ReturnType<typeof sql>) =>
      (await queryRows<{ 'QUERY PLAN': string }>(database.db, sql`EXPLAIN (VERBOSE, COSTS OFF) ${query}`)).map((r) => r['QUERY PLAN']).join('\n');
    const claim = await plan(
      sql`UPDATE session_seats SET status = 'held' WHERE id = 1 AND seat_is_free(status, hold_expires_at, ${new Date()}::timestamptz)`,
    );
    expect(claim).toMatch(/status = 'available'::text\) OR \(.*status = 'held'::text\) AND \(.*hold_expires_at <= /);
    expect(claim).not.toContain('seat_is_free');
    const rate = await plan(sql`SELECT id FROM rates WHERE id = 1 AND rate_fits_seat(session_id, sector_id, 2, 3)`);
    expect(rate).not.toContain('rate_fits_seat');
    const fee = await plan(sql`SELECT fee_of_rule(price, 'percent', 100) FROM rates`);
    expect(fee).not.toContain('fee_of_rule');
    // The sale lock's key (D74): close_order takes a one-session order's lock with it on every
    // closing; declared IMMUTABLE over a stable `text || integer` it ran as a function, planned per call.
    const key = await plan(sql`SELECT session_sale_key(id) FROM sessions`);
    expect(key).not.toContain('session_sale_key');
    expect(key).toContain('hashtextextended');
    const [same] = await queryRows<{ v: boolean }>(database.db, sql`SELECT session_sale_key(12) = hashtextextended('session-sale:' || 12, 74) AS v`);
    expect(same!.v).toBe(true);
  });

  it('a second start re-applies the files and changes nothing', async () => {
    const before = await functionsInDatabase(database);
    expect(await migrate(database)).toEqual([]);
    expect(await functionsInDatabase(database)).toEqual(before);
  });

  it("an edited file's body takes effect on the next start; the committed one comes back after", async () => {
    const [before] = await queryRows<{ fee: number }>(database.db, sql`SELECT fee_of_rule(1000, 'percent', 1250) AS fee`);
    expect(before!.fee).toBe(125);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taquilla-functions-'));
    try {
      for (const f of sqlFiles(FUNCTIONS_DIR)) fs.copyFileSync(path.join(FUNCTIONS_DIR, f), path.join(dir, f));
      const file = path.join(dir, '012_fee_of_rule.sql');
      const edited = fs.readFileSync(file, 'utf8').replace('ELSE (sign(p_price)', 'ELSE 1 + (sign(p_price)');
      expect(edited).not.toBe(fs.readFileSync(file, 'utf8'));
      fs.writeFileSync(file, edited);
      expect(await migrate(database, { functions: dir })).toEqual([]);
      const [after] = await queryRows<{ fee: number }>(database.db, sql`SELECT fee_of_rule(1000, 'percent', 1250) AS fee`);
      expect(after!.fee).toBe(126);
      // The function that calls it sees the new body too (no stale copy anywhere).
      const [viaCaller] = await queryRows<{ fee: number }>(database.db, sql`SELECT ticket_fee(1000, NULL, NULL) AS fee`);
      expect(viaCaller!.fee).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    await migrate(database);
    const [restored] = await queryRows<{ fee: number }>(database.db, sql`SELECT fee_of_rule(1000, 'percent', 1250) AS fee`);
    expect(restored!.fee).toBe(125);
  });

  it('an instance older than the database (a migration it does not know) leaves the functions alone', async () => {
    const before = await functionsInDatabase(database);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taquilla-functions-'));
    await database.db.execute(sql`INSERT INTO schema_migrations (name) VALUES ('9999_from_a_newer_version.sql')`);
    try {
      for (const f of sqlFiles(FUNCTIONS_DIR)) fs.copyFileSync(path.join(FUNCTIONS_DIR, f), path.join(dir, f));
      const file = path.join(dir, '012_fee_of_rule.sql');
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('ELSE (sign(p_price)', 'ELSE 1 + (sign(p_price)'));
      expect(await migrate(database, { functions: dir })).toEqual([]);
      expect(await functionsInDatabase(database)).toEqual(before);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      await database.db.execute(sql`DELETE FROM schema_migrations WHERE name = '9999_from_a_newer_version.sql'`);
    }
  });

  it('a file that fails rolls every function back and names the folder', async () => {
    const before = await functionsInDatabase(database);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taquilla-functions-'));
    try {
      for (const f of sqlFiles(FUNCTIONS_DIR)) fs.copyFileSync(path.join(FUNCTIONS_DIR, f), path.join(dir, f));
      fs.writeFileSync(path.join(dir, '012_fee_of_rule.sql'), fs.readFileSync(path.join(dir, '012_fee_of_rule.sql'), 'utf8').replace('ELSE (sign', 'ELSE 1 + (sign'));
      fs.writeFileSync(path.join(dir, '999_broken.sql'), 'CREATE OR REPLACE FUNCTION broken() RETURNS int LANGUAGE sql AS $$ SELECT no_such_column FROM orders $$;');
      await expect(migrate(database, { functions: dir })).rejects.toThrow(/SQL functions of taquilla-functions-\w+\/ failed/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    expect(await functionsInDatabase(database)).toEqual(before);
  });
});
