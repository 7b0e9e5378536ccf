import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { queryRows, type Database } from './client.js';

export const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

// Any constant works; it only has to be the same for every instance of the service.
const MIGRATION_LOCK_KEY = 7_260_421;

async function appliedNames(database: Database): Promise<Set<string>> {
  const done = await queryRows<{ name: string }>(database.db, sql`SELECT name FROM schema_migrations`);
  return new Set(done.map((r) => r.name));
}

/**
 * Applies the committed SQL files of src/db/migrations in name order, each once, each in its own
 * transaction. Instances starting together on one server serialise on an advisory lock, and the
 * primary key of schema_migrations makes a second application of the same file roll back.
 */
export async function migrate(database: Database): Promise<string[]> {
  const files = fs
    .readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^[0-9a-z_]+\.sql$/.test(f))
    .sort();
  // Under the lock too: two instances running CREATE TABLE IF NOT EXISTS at once can both try to
  // create it, and one fails on a duplicate type (test/db/migrations.test.ts starts two at once).
  await database.execScript(
    `BEGIN;\nSELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY});\n` +
      'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());\nCOMMIT;',
  );
  const done = await appliedNames(database);
  const applied: string[] = [];
  for (const file of files) {
    if (done.has(file)) continue;
    const body = fs.readFileSync(path.join(MIGRATIONS_DIR, file), 'utf8');
    try {
      // Multi-statement scripts need the simple query protocol, hence one script per file.
      await database.execScript(
        `BEGIN;\nSELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY});\n` +
          `INSERT INTO schema_migrations (name) VALUES ('${file}');\n${body}\n;COMMIT;`,
      );
      applied.push(file);
    } catch (err) {
      if (!(await appliedNames(database)).has(file)) {
        throw new Error(`migration ${file} failed: ${(err as Error).message}`, { cause: err });
      }
    }
  }
  return applied;
}
