import type { AppContext } from '../../app-context.js';
import { periodicJob, type Job } from '../../platform/scheduler.js';
import { offerFreedSeats } from './waitinglist.service.js';

/** How often freed seats are offered to the waiting lists (and ended offers passed on). */
const INTERVAL_MS = 10_000;

/** D69: offers freed seats to the head of each waiting list (run by the scheduler). */
export const waitingListJob = (ctx: AppContext): Job => periodicJob('waiting-list', INTERVAL_MS, () => offerFreedSeats(ctx));
