import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { MIN_CHANGES } from '../../src/db/statistics-keeper.js';
import { buildTestApp, isPostgres, type TestApp } from '../helpers.js';

// The statistics job (src/db/statistics-keeper.ts): a table that has changed by more rows than its
// statistics say it holds, from MIN_CHANGES changes on, is analysed, so that the plans cached while
// it was empty (sequential scans) are made again. PostgreSQL only: its cumulative statistics.

let t: TestApp;
let client: pg.Client;

interface TableStats {
  analyses: number;
  rows: number;
  changed: number;
}

const statsOf = async (table: string): Promise<TableStats> => {
  const [r] = await queryRows<{ analyses: string; rows: number; changed: string }>(
    t.ctx.db,
    sql`SELECT s.analyze_count AS analyses, c.reltuples AS rows, s.n_mod_since_analyze AS changed
        FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid WHERE s.relname = ${table}`,
  );
  return { analyses: Number(r!.analyses), rows: Number(r!.rows), changed: Number(r!.changed) };
};

/** Writes by one connection reach the cumulative statistics when it reports them (at most a second later). */
async function untilChanged(table: string, atLeast: number): Promise<void> {
  await client.query('SELECT pg_stat_force_next_flush()');
  for (let i = 0; i < 100 && (await statsOf(table)).changed < atLeast; i++) {
    await client.query('SELECT pg_stat_force_next_flush()');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect((await statsOf(table)).changed).toBeGreaterThanOrEqual(atLeast);
}

describe.runIf(isPostgres)('the statistics job keeps fast-growing tables analysed (PostgreSQL)', () => {
  beforeAll(async () => {
    t = await buildTestApp({ poolSize: 2 });
    client = new pg.Client({ connectionString: t.db.url! });
    await client.connect();
    await client.query('CREATE TABLE keeper_probe (id serial PRIMARY KEY, v integer NOT NULL) WITH (autovacuum_enabled = false)');
    await client.query('CREATE TABLE keeper_still (id serial PRIMARY KEY, v integer NOT NULL) WITH (autovacuum_enabled = false)');
    await client.query('INSERT INTO keeper_still (v) SELECT g FROM generate_series(1, 2000) g');
    await untilChanged('keeper_still', 2000); // reported before the ANALYZE, or it would count as a change after it
    await client.query('ANALYZE keeper_probe, keeper_still');
  }, 120_000);
  afterAll(async () => {
    await client?.end();
    await t?.close();
  });

  it('a table analysed empty that then grew is analysed; one that barely changed is not', async () => {
    const still = await statsOf('keeper_still');
    expect(still.rows).toBe(2000);
    await client.query('INSERT INTO keeper_probe (v) SELECT g FROM generate_series(1, $1::int) g', [MIN_CHANGES + 100]);
    await client.query(`UPDATE keeper_still SET v = v + 1 WHERE id <= ${MIN_CHANGES + 100}`); // fewer changes than its rows
    await untilChanged('keeper_probe', MIN_CHANGES + 100);
    await untilChanged('keeper_still', MIN_CHANGES + 100);
    const before = await statsOf('keeper_probe');
    expect(before.rows).toBe(0);

    await t.app.scheduler.runOnce('statistics');

    const after = await statsOf('keeper_probe');
    expect(after.analyses).toBe(before.analyses + 1);
    expect(after.rows).toBe(MIN_CHANGES + 100);
    expect(after.changed).toBe(0);
    expect((await statsOf('keeper_still')).analyses).toBe(still.analyses);
  });

  it('below MIN_CHANGES nothing is analysed, even a table analysed empty', async () => {
    await client.query('CREATE TABLE keeper_small (id serial PRIMARY KEY) WITH (autovacuum_enabled = false)');
    await client.query('ANALYZE keeper_small');
    await client.query('INSERT INTO keeper_small SELECT FROM generate_series(1, $1::int)', [MIN_CHANGES - 1]);
    await untilChanged('keeper_small', MIN_CHANGES - 1);
    const before = await statsOf('keeper_small');
    await t.app.scheduler.runOnce('statistics');
    expect((await statsOf('keeper_small')).analyses).toBe(before.analyses);
  });

  it('a generic plan made while the table was empty reads it by its index after the job ran', async () => {
    // The foreign-key checks and PL/pgSQL statements keep such plans per connection (see the job).
    await client.query('CREATE TABLE keeper_grow (id serial PRIMARY KEY, v integer NOT NULL) WITH (autovacuum_enabled = false)');
    await client.query('ANALYZE keeper_grow');
    await client.query('SET plan_cache_mode = force_generic_plan');
    await client.query('PREPARE keeper_find(int) AS SELECT v FROM keeper_grow WHERE id = $1');
    const plan = async () => ((await client.query('EXPLAIN EXECUTE keeper_find(1)')).rows as { 'QUERY PLAN': string }[]).map((r) => r['QUERY PLAN']).join('\n');
    expect(await plan()).toMatch(/Seq Scan on keeper_grow/);
    await client.query('INSERT INTO keeper_grow (v) SELECT g FROM generate_series(1, 5000) g');
    await untilChanged('keeper_grow', 5000);
    expect(await plan()).toMatch(/Seq Scan on keeper_grow/); // the cached plan walks the grown table
    await t.app.scheduler.runOnce('statistics');
    expect(await plan()).toMatch(/Index Scan using keeper_grow_pkey/);
  });
});
