import type { AppContext } from '../../app-context.js';
import { periodicJob, type Job } from '../../platform/scheduler.js';
import { sweepExpiredOrders } from './orders.service.js';

/** How often each instance sweeps expired carts (the claims never wait for it, D15). */
const SWEEP_INTERVAL_MS = 30_000;

/** Marks expired carts `expired` and frees their holds, in batches (run by the scheduler). */
export const expirySweepJob = (ctx: AppContext): Job => periodicJob('expiry-sweep', SWEEP_INTERVAL_MS, () => sweepExpiredOrders(ctx));
