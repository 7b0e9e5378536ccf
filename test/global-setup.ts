import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { dumpMigratedPglite } from '../src/db/pglite-template.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgTemplate: string | null;
    /** Path of the tarball (`dumpDataDir`) of one migrated PGlite data folder (PGlite runs only). */
    pgliteTemplate: string | null;
  }
}

export const TEST_PG_URL = process.env.TEST_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

export function serverUrl(database: string): string {
  const url = new URL(TEST_PG_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

/**
 * One migrated database per run, which every test database starts from: migrating a fresh database
 * for each test app costs seconds, copying a migrated one a fraction of that. On PostgreSQL a
 * template database that each test file clones; on PGlite the dump of a migrated data folder, which
 * each in-memory test database loads (test/db/migrations.test.ts still migrates empty databases).
 */
export default async function setup(project: TestProject) {
  if (process.env.TEST_DB !== 'postgres') {
    project.provide('pgTemplate', null);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taquilla-pglite-'));
    const tarball = path.join(dir, 'migrated.tar');
    await dumpMigratedPglite(tarball);
    project.provide('pgliteTemplate', tarball);
    return () => fs.rmSync(dir, { recursive: true, force: true });
  }
  project.provide('pgliteTemplate', null);
  const template = `taquilla_tpl_${process.pid}`;
  const admin = new pg.Client({ connectionString: TEST_PG_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${template}`);
  await admin.query(`CREATE DATABASE ${template}`);
  const database = await openDatabase({ url: serverUrl(template), poolSize: 1 });
  await migrate(database);
  await database.close();
  project.provide('pgTemplate', template);

  return async () => {
    // Drop the template and any database a crashed test file left behind.
    const left = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE 'taquilla_t\\_${process.pid}\\_%' OR datname = '${template}'`,
    );
    for (const { datname } of left.rows) await admin.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
    await admin.end();
  };
}
