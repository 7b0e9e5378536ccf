import { sql } from 'drizzle-orm';
import type { AppContext } from '../../app-context.js';
import { queryRows } from '../../db/client.js';
import { periodicJob, type Job } from '../../platform/scheduler.js';

/**
 * How often the orders completed since the last pass are added to the kept sales figures. The
 * overview counts them at once either way (sales_figures_current, migration 0342); the pass only
 * keeps the marked orders, which each read of the overview adds up again, few.
 */
export const SALES_FIGURES_INTERVAL_MS = 5_000;
/** Orders per statement: one pass takes as many batches as there are marked orders. */
const BATCH = 1_000;

/**
 * One pass: `apply` runs `sales_figures_apply_pending(batch)` and answers how many orders it added;
 * batches until one comes back short. Shared with bench:flash, whose pgbench part runs the pass
 * beside the replayed purchases as the service's scheduler does (docs/operations.md).
 */
export async function salesFiguresPass(apply: (batch: number) => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await apply(BATCH);
    total += n;
    if (n < BATCH) return total;
  }
}

/** Adds every order that complete_order marked `figures_pending` to the kept figures (sales_figures_apply_pending). */
export const applyPendingSalesFigures = (ctx: AppContext): Promise<number> =>
  salesFiguresPass(async (batch) => {
    const [row] = await queryRows<{ n: number }>(ctx.db, sql`SELECT sales_figures_apply_pending(${batch}) AS n`);
    return row!.n;
  });

/** D66: the kept sales figures catch up with the completed orders (run by the scheduler). */
export const salesFiguresJob = (ctx: AppContext): Job => periodicJob('sales-figures', SALES_FIGURES_INTERVAL_MS, () => applyPendingSalesFigures(ctx));
