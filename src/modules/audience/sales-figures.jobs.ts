import { sql } from 'drizzle-orm';
import type { AppContext } from '../../app-context.js';
import { queryRows } from '../../db/client.js';
import { periodicJob, type Job } from '../../platform/scheduler.js';

/**
 * How often the orders completed since the last pass are added to the kept sales figures. The
 * overview counts them at once either way (sales_figures_current, migration 0342); the pass only
 * keeps the marked orders, which each read of the overview adds up again, few.
 */
const INTERVAL_MS = 5_000;
/** Orders per statement: one pass takes as many batches as there are marked orders. */
const BATCH = 1_000;

/** Adds every order that complete_order marked `figures_pending` to the kept figures (sales_figures_apply_pending). */
export async function applyPendingSalesFigures(ctx: AppContext): Promise<number> {
  let total = 0;
  for (;;) {
    const [row] = await queryRows<{ n: number }>(ctx.db, sql`SELECT sales_figures_apply_pending(${BATCH}) AS n`);
    total += row!.n;
    if (row!.n < BATCH) return total;
  }
}

/** D66: the kept sales figures catch up with the completed orders (run by the scheduler). */
export const salesFiguresJob = (ctx: AppContext): Job => periodicJob('sales-figures', INTERVAL_MS, () => applyPendingSalesFigures(ctx));
