import { performance } from 'node:perf_hooks';
import { appSingleton, type AppContext } from '../../app-context.js';
import { inventoryChanged, onInventoryChanged } from '../../lib/inventory-events.js';
import type { TakenSeats } from './best-available.repo.js';

// Best available's view of a session's taken seats, kept between this instance's requests (D61).
// Reading every taken seat is most of a selection's cost late in a sale (18,000 ids at 90 % of a
// 20,000-seat session, for a choice of two), and an on-sale asks for it many times a second.
//
// The view follows this instance's own changes: a best-available claim adds its seats to it
// (seatsClaimed), and any other change of the session here (a click, a release, a sale, an expiry)
// drops it (inventory events); a view read while such a change was made is not kept. It ends when
// its first hold expires, and BEST_AVAILABLE_VIEW_MS (250 ms) after its read, by the wall clock and
// by the service's clock (so that a hold claimed since, which expires minutes later, cannot outlive
// it); a request that finds it past half that age reads it again in the background, so that a busy
// session's requests seldom wait for a read.
//
// A view can miss what another instance did for that long. A seat taken meanwhile is caught by the
// lock (lock_free_seats passes over it, and the request reads the session again), and a request
// that finds no seats in a kept view reads the session again before it answers 409; a seat freed
// elsewhere is offered from the next read on.

interface Kept {
  taken: Set<number>;
  /** performance.now() of the read. */
  readAt: number;
  /** The clock's time of the read: a clock set forward (tests, an injected clock) ends the view too. */
  readAtClockMs: number;
  /** When the first hold among the taken seats expires (the clock's ms), if one does. */
  expiresAtMs: number | null;
  refreshing: boolean;
}

const keptViews = appSingleton('orders.best-available-taken', (ctx) => {
  const state = { kept: new Map<number, Kept>(), changes: 0, claiming: null as number | null };
  onInventoryChanged(ctx, (sessionIds) => {
    for (const id of sessionIds) {
      if (id === state.claiming) continue;
      state.changes++;
      state.kept.delete(id);
    }
  });
  return state;
});

/** A mark to pass to keepTaken: a view is kept only if no other change was made since its read began. */
export const changeMark = (ctx: AppContext): number => keptViews(ctx).changes;

/** Keeps a view read from the database, unless the inventory changed here (other than by a claim) since `mark`. */
export function keepTaken(ctx: AppContext, sessionId: number, mark: number, taken: TakenSeats): void {
  const state = keptViews(ctx);
  if (state.changes !== mark) return;
  state.kept.set(sessionId, {
    taken: new Set(taken.ids),
    readAt: performance.now(),
    readAtClockMs: ctx.clock.now().getTime(),
    expiresAtMs: taken.firstExpiry?.getTime() ?? null,
    refreshing: false,
  });
}

/**
 * The kept view of the session's taken seats if it can serve a request at `now`, else null (read
 * it). A view past half its life still serves, and `read` refreshes it in the background, once.
 */
export function keptTaken(ctx: AppContext, sessionId: number, now: Date, read: () => Promise<TakenSeats>): Set<number> | null {
  const kept = keptViews(ctx).kept.get(sessionId);
  if (!kept || (kept.expiresAtMs !== null && now.getTime() >= kept.expiresAtMs)) return null;
  const maxAge = ctx.config.bestAvailableViewMs;
  const age = Math.max(performance.now() - kept.readAt, now.getTime() - kept.readAtClockMs);
  if (age >= maxAge) return null;
  if (age > maxAge / 2 && !kept.refreshing) {
    kept.refreshing = true;
    const mark = changeMark(ctx);
    read()
      .then((taken) => keepTaken(ctx, sessionId, mark, taken))
      .catch(() => undefined)
      .finally(() => (kept.refreshing = false));
  }
  return kept.taken;
}

/**
 * After a best-available claim committed: the inventory notice every cache gets, and the claimed
 * seats added to the kept view of their session instead of dropping it.
 */
export function seatsClaimed(ctx: AppContext, sessionIds: Iterable<number>, sessionId: number, seatIds: readonly number[]): void {
  const state = keptViews(ctx);
  state.claiming = sessionId;
  try {
    inventoryChanged(ctx, sessionIds);
  } finally {
    state.claiming = null;
  }
  const kept = state.kept.get(sessionId);
  if (kept) for (const id of seatIds) kept.taken.add(id);
}
