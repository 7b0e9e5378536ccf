import { sql } from 'drizzle-orm';
import type { AppContext } from '../app-context.js';
import { periodicJob, type Job } from '../platform/scheduler.js';
import { queryRows } from './client.js';

/**
 * Keeps the planner's statistics up with tables that grow fast from (nearly) empty: the first
 * on-sale of a deployment, or any on-sale after statistics were taken with nothing sold.
 *
 * Each connection caches a generic plan for the statements of the PL/pgSQL functions and for the
 * foreign-key checks. Planned while a table was empty, such a plan reads the whole table (a
 * sequential scan is the cheapest way to read a page or two) and goes on doing so as the table
 * grows, until an ANALYZE of the table invalidates it. Autovacuum analyses a table once a tenth of
 * it has changed, but looks only once a minute: bench:flash, whose reset analyses empty tables,
 * read the orders table about 8,000 rows per purchase in 15 seconds (pg_stat_user_tables), and
 * order_items likewise. This job analyses every table that has changed by more rows than its
 * statistics say it holds (it has at least doubled, or was analysed empty), from MIN_CHANGES
 * changes on: a table's statistics are then at most one doubling behind, a few ANALYZEs in its
 * early life and none once it is large (autovacuum's tenth comes first). docs/operations.md.
 */
export const STATISTICS_INTERVAL_MS = 5_000;
/** Fewer changes than this never call for an ANALYZE (a table of a few pages is read whole anyway). */
export const MIN_CHANGES = 500;

/** Runs one SQL text and answers its rows: the app's database, or a bench's own pool. */
export type RunSql = (text: string) => Promise<Record<string, unknown>[]>;

/** The tables whose statistics are behind, as above (PostgreSQL's cumulative statistics). */
const TABLES_BEHIND = `SELECT format('%I.%I', s.schemaname, s.relname) AS name
  FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
  WHERE s.n_mod_since_analyze >= ${MIN_CHANGES} AND s.n_mod_since_analyze > GREATEST(c.reltuples, 0)
  ORDER BY s.n_mod_since_analyze DESC`;

/** Analyses the tables whose statistics are behind; answers their names. */
export async function analyseTablesBehind(run: RunSql): Promise<string[]> {
  const names = (await run(TABLES_BEHIND)).map((r) => String(r.name));
  // One table at a time: ANALYZE samples at most 30,000 rows, a few milliseconds for these tables.
  for (const name of names) await run(`ANALYZE ${name}`);
  return names;
}

/**
 * The job, on PostgreSQL only: PGlite is one connection in one process, with no autovacuum and no
 * concurrent on-sale to keep up with. Every instance of a fleet runs it; two ANALYZEs of one table
 * queue on its lock and the second finds little to do.
 */
export const statisticsJob = (ctx: AppContext): Job | null =>
  ctx.database.kind === 'postgres' ? periodicJob('statistics', STATISTICS_INTERVAL_MS, () => analyseTablesBehind((text) => queryRows(ctx.db, sql.raw(text)))) : null;
