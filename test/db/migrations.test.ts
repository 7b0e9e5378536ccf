import crypto from 'node:crypto';
import fs from 'node:fs';
import pg from 'pg';
import { is, sql } from 'drizzle-orm';
import { PgTable, getTableConfig } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, queryRows, type Database } from '../../src/db/client.js';
import { MIGRATIONS_DIR, migrate } from '../../src/db/migrate.js';
import * as schema from '../../src/db/schema/index.js';
import { serverUrl, TEST_PG_URL } from '../global-setup.js';
import { isPostgres } from '../helpers.js';

// Every migration from an empty database, on both drivers; then the Drizzle schema (what the code
// queries) against the columns the migrations created. This guards every branch's migrations.

const MIGRATION_FILES = fs.readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql')).sort();
const TABLES: PgTable[] = (Object.values(schema) as unknown[]).filter((value): value is PgTable => is(value, PgTable));

interface EmptyDatabase {
  open(): Promise<Database>;
  drop(): Promise<void>;
}

/** An empty database (not the suite's migrated template). */
async function emptyDatabase(kind: 'pglite' | 'postgres'): Promise<EmptyDatabase> {
  if (kind === 'pglite') {
    let db: Database | undefined;
    return { open: async () => (db ??= await openDatabase({ pgliteDir: 'memory://' })), drop: async () => db?.close() };
  }
  const name = `taquilla_mig_${crypto.randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_PG_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const opened: Database[] = [];
  return {
    async open() {
      const db = await openDatabase({ url: serverUrl(name), poolSize: 2 });
      opened.push(db);
      return db;
    },
    async drop() {
      for (const db of opened) await db.close().catch(() => {});
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

// Drizzle's SQL type names for what PostgreSQL's format_type() reports.
const normaliseType = (type: string) =>
  type
    .replace(/^serial$/, 'integer')
    .replace(/^bigserial$/, 'bigint')
    .replace(/^smallserial$/, 'smallint')
    .replace(/^varchar/, 'character varying')
    .replace(/\s+\(/g, '(');

interface DbColumn {
  table_name: string;
  column_name: string;
  is_nullable: 'YES' | 'NO';
  type: string;
}

const kinds: ('pglite' | 'postgres')[] = isPostgres ? ['pglite', 'postgres'] : ['pglite'];

describe.each(kinds)('migrations on %s', (kind) => {
  let empty: EmptyDatabase;
  let database: Database;
  let firstRun: string[];
  beforeAll(async () => {
    empty = await emptyDatabase(kind);
    database = await empty.open();
    firstRun = await migrate(database);
  }, 120_000);
  afterAll(() => empty?.drop());

  it('apply every file once from empty; a second run applies nothing', async () => {
    expect(firstRun).toEqual(MIGRATION_FILES);
    expect(await migrate(database)).toEqual([]);
    const rows = await queryRows<{ name: string }>(database.db, sql`SELECT name FROM schema_migrations ORDER BY name`);
    expect(rows.map((r) => r.name)).toEqual(MIGRATION_FILES);
  });

  it.runIf(kind === 'postgres')('two instances migrating at once apply each file exactly once', async () => {
    const other = await emptyDatabase(kind);
    try {
      const [a, b] = [await other.open(), await other.open()];
      const [appliedA, appliedB] = await Promise.all([migrate(a), migrate(b)]);
      expect([...appliedA, ...appliedB].sort()).toEqual(MIGRATION_FILES);
      expect(await migrate(a)).toEqual([]);
    } finally {
      await other.drop();
    }
  }, 60_000);

  it('no index repeats another of its table (same columns, expressions and predicate): each costs every write', async () => {
    const repeats = await queryRows<{ kept: string; repeated: string }>(
      database.db,
      sql`SELECT a.indexrelid::regclass::text AS kept, b.indexrelid::regclass::text AS repeated
          FROM pg_index a JOIN pg_index b ON a.indrelid = b.indrelid AND a.indexrelid < b.indexrelid
          JOIN pg_class c ON c.oid = a.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = 'public'
          WHERE a.indkey::text = b.indkey::text AND a.indclass::text = b.indclass::text
            AND coalesce(pg_get_expr(a.indexprs, a.indrelid), '') = coalesce(pg_get_expr(b.indexprs, b.indrelid), '')
            AND coalesce(pg_get_expr(a.indpred, a.indrelid), '') = coalesce(pg_get_expr(b.indpred, b.indrelid), '')
            AND a.indisunique = b.indisunique`,
    );
    expect(repeats.map((r) => `${r.repeated} repeats ${r.kept}`)).toEqual([]);
  });

  it('the Drizzle schema in src/db/schema matches the migrated tables: columns, nullability, types', async () => {
    const columns = await queryRows<DbColumn>(
      database.db,
      sql`SELECT c.table_name, c.column_name, c.is_nullable,
                 format_type(a.atttypid, a.atttypmod) AS type
          FROM information_schema.columns c
          JOIN pg_attribute a ON a.attrelid = (quote_ident(c.table_schema) || '.' || quote_ident(c.table_name))::regclass
                             AND a.attname = c.column_name
          WHERE c.table_schema = 'public'`,
    );
    const inDb = new Map<string, Map<string, DbColumn>>();
    for (const c of columns) {
      if (!inDb.has(c.table_name)) inDb.set(c.table_name, new Map());
      inDb.get(c.table_name)!.set(c.column_name, c);
    }

    const problems: string[] = [];
    const mirrored = new Set<string>();
    for (const table of TABLES) {
      const config = getTableConfig(table);
      mirrored.add(config.name);
      const dbColumns = inDb.get(config.name);
      if (!dbColumns) {
        problems.push(`table ${config.name}: in src/db/schema but no migration creates it`);
        continue;
      }
      const drizzleNames = new Set(config.columns.map((c) => c.name));
      for (const column of config.columns) {
        const where = `${config.name}.${column.name}`;
        const db = dbColumns.get(column.name);
        if (!db) {
          problems.push(`${where}: in src/db/schema but not in the database`);
          continue;
        }
        if (column.notNull !== (db.is_nullable === 'NO')) {
          problems.push(`${where}: schema says ${column.notNull ? 'NOT NULL' : 'nullable'}, database says ${db.is_nullable === 'NO' ? 'NOT NULL' : 'nullable'}`);
        }
        if (normaliseType(column.getSQLType()) !== normaliseType(db.type)) {
          problems.push(`${where}: schema type ${column.getSQLType()}, database type ${db.type}`);
        }
      }
      for (const name of dbColumns.keys()) {
        if (!drizzleNames.has(name)) problems.push(`${config.name}.${name}: in the database but not in src/db/schema`);
      }
    }
    for (const name of inDb.keys()) {
      if (name !== 'schema_migrations' && !mirrored.has(name)) problems.push(`table ${name}: created by a migration but not in src/db/schema`);
    }
    expect(problems).toEqual([]);
    expect(TABLES.length).toBeGreaterThan(10);
  });
});
