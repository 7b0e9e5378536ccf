import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { MIGRATION_LOCK_KEY, MIGRATION_LOCK_WAIT } from './advisory-locks.js';
import { queryRows, type Database } from './client.js';

const here = path.dirname(fileURLToPath(import.meta.url));
export const MIGRATIONS_DIR = path.join(here, 'migrations');
/** One file per SQL function, its current body (docs/architecture.md "Migrations"). */
export const FUNCTIONS_DIR = path.join(here, 'functions');

/** The .sql files of a folder in name order (numbered, so that dependencies come first). */
export const sqlFiles = (dir: string): string[] =>
  fs
    .readdirSync(dir)
    .filter((f) => /^[0-9a-z_]+\.sql$/.test(f))
    .sort();

/**
 * Opens a migration transaction under the migrations' lock (src/db/advisory-locks.ts). An instance
 * waits for another one's migrations at most MIGRATION_LOCK_WAIT, then fails its start rather than
 * wait forever behind one that hangs; the bound covers that wait only, not the migrations' own.
 */
const BEGIN_UNDER_LOCK =
  `BEGIN;\nSET LOCAL lock_timeout = '${MIGRATION_LOCK_WAIT}';\nSELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY});\n` +
  'SET LOCAL lock_timeout TO DEFAULT;\n';

/**
 * The baselines of a folder (issue 26 item 5): `NNNN_baseline.sql` beside `NNNN_baseline.replaces`,
 * which lists the migrations the baseline squashed (one name per line; # starts a comment). A new
 * database applies the baseline; one that recorded every replaced migration is carried on as if it
 * had applied the baseline; one that recorded only some of them stopped part-way through the old
 * chain, which this version no longer has: its start fails and says which version finishes it.
 */
function baselines(dir: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.replaces')).sort()) {
    const names = fs
      .readFileSync(path.join(dir, file), 'utf8')
      .split('\n')
      .map((line) => line.replace(/#.*/, '').trim())
      .filter(Boolean);
    found.set(file.replace(/\.replaces$/, '.sql'), names);
  }
  return found;
}

/** Records a baseline as applied on a database that applied every migration it replaces. */
async function carryOn(database: Database, dir: string, done: Set<string>): Promise<void> {
  for (const [baseline, replaced] of baselines(dir)) {
    if (done.has(baseline)) continue;
    const recorded = replaced.filter((name) => done.has(name));
    if (recorded.length === 0) continue;
    if (recorded.length < replaced.length) {
      const missing = replaced.filter((name) => !done.has(name));
      throw new Error(
        `the database stopped part-way through the migrations that ${baseline} replaces (not applied: ${missing.join(', ')}); ` +
          'start the last version that still has them once (see src/db/migrations/' + baseline + '), then this one',
      );
    }
    await database.execScript(`${BEGIN_UNDER_LOCK}INSERT INTO schema_migrations (name) VALUES ('${baseline}') ON CONFLICT DO NOTHING;\nCOMMIT;`);
    done.add(baseline);
  }
}

async function appliedNames(database: Database): Promise<Set<string>> {
  const done = await queryRows<{ name: string }>(database.db, sql`SELECT name FROM schema_migrations`);
  return new Set(done.map((r) => r.name));
}

/**
 * Applies the committed SQL files of src/db/migrations in name order, each once, each in its own
 * transaction; then re-applies every function of src/db/functions (applyFunctions). Instances
 * starting together on one server serialise on an advisory lock, and the primary key of
 * schema_migrations makes a second application of the same file roll back. Returns the migrations
 * applied now. `dirs` points at other folders (tests).
 */
export async function migrate(
  database: Database,
  dirs: { migrations?: string; functions?: string } = {},
): Promise<string[]> {
  const migrationsDir = dirs.migrations ?? MIGRATIONS_DIR;
  const files = sqlFiles(migrationsDir);
  // Under the lock too: two instances running CREATE TABLE IF NOT EXISTS at once can both try to
  // create it, and one fails on a duplicate type (test/db/migrations.test.ts starts two at once).
  await database.execScript(
    BEGIN_UNDER_LOCK +
      'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());\nCOMMIT;',
  );
  const done = await appliedNames(database);
  await carryOn(database, migrationsDir, done);
  const applied: string[] = [];
  for (const file of files) {
    if (done.has(file)) continue;
    const body = fs.readFileSync(path.join(migrationsDir, file), 'utf8');
    try {
      // Multi-statement scripts need the simple query protocol, hence one script per file.
      await database.execScript(
        BEGIN_UNDER_LOCK +
          `INSERT INTO schema_migrations (name) VALUES ('${file}');\n${body}\n;COMMIT;`,
      );
      applied.push(file);
    } catch (err) {
      if (!(await appliedNames(database)).has(file)) {
        throw new Error(`migration ${file} failed: ${(err as Error).message}`, { cause: err });
      }
    }
  }
  // An instance older than the database (it lacks a migration the database has applied: a
  // previous version restarting during a rolling deploy) leaves the functions alone, so that it
  // cannot put back the bodies the newer version replaced.
  const known = new Set([...files, ...[...baselines(migrationsDir).values()].flat()]);
  const olderThanDatabase = [...(await appliedNames(database))].some((name) => !known.has(name));
  if (!olderThanDatabase) await applyFunctions(database, dirs.functions ?? FUNCTIONS_DIR);
  return applied;
}

/**
 * (Re)creates every function of `dir` with CREATE OR REPLACE, in name order, in ONE transaction
 * under the migration lock, on every start: the files are the current bodies, and the migrations
 * only their history. Idempotent; all or nothing. Under the lock because two concurrent CREATE OR
 * REPLACE of one function fail ("tuple concurrently updated") when instances start together.
 */
async function applyFunctions(database: Database, dir: string): Promise<void> {
  const bodies = sqlFiles(dir).map((file) => `-- ${file}\n${fs.readFileSync(path.join(dir, file), 'utf8')}\n;`);
  try {
    await database.execScript(`${BEGIN_UNDER_LOCK}${bodies.join('\n')}\nCOMMIT;`);
  } catch (err) {
    throw new Error(`SQL functions of ${path.basename(dir)}/ failed: ${(err as Error).message}`, { cause: err });
  }
}
