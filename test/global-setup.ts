import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';

declare module 'vitest' {
  export interface ProvidedContext {
    pgTemplate: string | null;
  }
}

export const TEST_PG_URL = process.env.TEST_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

export function serverUrl(database: string): string {
  const url = new URL(TEST_PG_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

/** On PostgreSQL: one migrated template database per run; each test file clones it. */
export default async function setup(project: TestProject) {
  if (process.env.TEST_DB !== 'postgres') {
    project.provide('pgTemplate', null);
    return;
  }
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
