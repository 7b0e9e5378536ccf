import { setTimeout as delay } from 'node:timers/promises';
import { appSingleton, type AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { AppError, invalidData } from '../../http/errors.js';
import { appCache } from '../../platform/cache.js';
import { countHolds } from '../../platform/metrics.js';
import { notOnSaleError } from '../../platform/sale-state.js';
import { chooseSeats, prepareLayout, type Choice, type ChoiceRequest, type PreparedLayout } from './best-available.js';
import * as repo from './best-available.repo.js';
import { changeMark, keepTaken, keptTaken, seatsClaimed } from './best-available.taken.js';
import { holdLimitReached } from './hold-caps.service.js';
import { lockBuyer } from './hold-caps.repo.js';
import type { BuyerKey, CartChannel } from './orders.buyer.js';
import type { OrderRow } from './orders.repo.js';
import { changeCart, holdInTransaction } from './orders.service.js';
import { buildOrderView, orderViewFromRows, type OrderView } from './orders.view.js';

// Best available (D61): the service chooses the seats (best-available.ts) and holds them through
// the one hold, cart_hold_seats, in ONE transaction. Parallel requests never share a seat and never
// answer 409 while enough seats remain: parallel requests of one instance never choose the same
// seats (the in-flight reservations below); the choice is locked without waiting (lock_free_seats,
// SKIP LOCKED), and seats another instance or a click has locked or taken meanwhile are passed over
// and the choice is made again; when only such seats were left, the free seats are read again once
// those claims have ended (each holds its seats for a few milliseconds).

export interface BestAvailableInput {
  session_id: number;
  quantity: number;
  rate_id?: number;
  sector_id?: number;
  order_token?: string;
  together?: boolean;
  accessible?: number;
}

export type BestAvailableOrder = OrderView & { next_to_each_other: boolean };

/**
 * Layouts by session and layout version: a new version that moves the session (D64) changes its
 * layout_id, which findSellableSession reads in the request's transaction, and so the key; the old
 * version's entry is never read again and ages out. Otherwise a layout does not change.
 */
const LAYOUT_MAX_AGE_MS = 5 * 60_000;
const LAYOUT_MAX_ENTRIES = 50;
const layouts = appCache<string, PreparedLayout, { db: Db; sessionId: number }>('orders.best-available-layouts', (ctx) => ({
  max: LAYOUT_MAX_ENTRIES,
  ttl: LAYOUT_MAX_AGE_MS,
  now: () => ctx.clock.now().getTime(),
  fetch: async (_key, { db, sessionId }) => {
    const { seats, sectors } = await repo.sessionLayout(db, sessionId);
    return prepareLayout(seats, sectors);
  },
}));

/**
 * How often a request tries again, at most, when only seats locked by other instances' claims are
 * left (each try after 5-15 ms: a claim holds its locks for milliseconds).
 */
const MAX_FOREIGN_WAITS = 200;

const noSeats = (req: ChoiceRequest) =>
  req.accessible > 0
    ? new AppError('no_seats_together.accessible', { accessible: req.accessible, companions: req.quantity - req.accessible })
    : req.together
      ? new AppError('no_seats_together.together', { quantity: req.quantity })
      : new AppError('no_seats_together.any', { quantity: req.quantity });

/**
 * The rate of each sector the request may take seats in: `rate_id` where it fits, else the first
 * rate of the session that fits the sector (the catalogue's order, the rate a click on the map
 * takes: the widget and the portal offer a seat's first rate). Validates `sector_id` and `rate_id`.
 */
function ratesBySector(session: repo.BestAvailableSession, input: BestAvailableInput): Map<number, number> {
  const { sectors, rates } = session;
  const rate = input.rate_id === undefined ? undefined : rates.find((r) => r.id === input.rate_id);
  if (input.rate_id !== undefined && !rate) throw invalidData({ rate_id: [`is not a rate of session ${session.id}`] });
  let numbered = sectors.filter((s) => s.numbered);
  if (input.sector_id !== undefined) {
    const sector = sectors.find((s) => s.id === input.sector_id);
    if (!sector) throw new AppError('not_found.sector', { sector: input.sector_id });
    if (!sector.numbered) throw invalidData({ sector_id: ['is an unnumbered zone; add its places with items/sector'] });
    if (rate && rate.sectorId !== null && rate.sectorId !== sector.id) throw invalidData({ rate_id: ['is not a rate of this sector'] });
    numbered = [sector];
  }
  const out = new Map<number, number>();
  for (const sector of numbered) {
    const fits = (r: { sectorId: number | null }) => r.sectorId === null || r.sectorId === sector.id;
    const fitting = rate ? (fits(rate) ? rate : undefined) : rates.find(fits);
    if (fitting) out.set(sector.id, fitting.id);
  }
  return out;
}

/**
 * Seats that best-available requests of this instance have chosen and not yet committed or given
 * up, per session. A choice is made and reserved here in one synchronous step, so parallel
 * requests of one instance never choose the same seats (without it, every request of an on-sale
 * burst would lock the same "best" block, and all but one would choose again, and again). Other
 * instances' choices are caught by the lock (SKIP LOCKED) instead.
 */
const inFlight = appSingleton('orders.best-available-in-flight', () => ({
  seats: new Map<number, Set<number>>(),
  /** Requests waiting for a claim of the session to end (WaitForClaims), woken by release. */
  waiters: new Map<number, (() => void)[]>(),
}));

function reserve(ctx: AppContext, sessionId: number, ids: readonly number[]): void {
  const { seats } = inFlight(ctx);
  let set = seats.get(sessionId);
  if (!set) seats.set(sessionId, (set = new Set()));
  for (const id of ids) set.add(id);
}

function release(ctx: AppContext, sessionId: number, ids: readonly number[]): void {
  const { seats, waiters } = inFlight(ctx);
  const set = seats.get(sessionId);
  if (!set || ids.length === 0) return;
  for (const id of ids) set.delete(id);
  if (set.size === 0) seats.delete(sessionId);
  const waiting = waiters.get(sessionId);
  waiters.delete(sessionId);
  for (const wake of waiting ?? []) wake();
}

/** Until a claim of the session in this instance ends, or `ms` at most. */
function claimEnded(ctx: AppContext, sessionId: number, ms: number): Promise<void> {
  const { waiters } = inFlight(ctx);
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    const list = waiters.get(sessionId) ?? [];
    list.push(() => {
      clearTimeout(timer);
      resolve();
    });
    waiters.set(sessionId, list);
  });
}

/**
 * Only seats that claims in flight hold are left: try again once one has ended (outside the
 * transaction, so that the wait holds no connection). `local`: some are claims of this instance,
 * which end with their transactions; otherwise only another instance's locks are in the way.
 */
class WaitForClaims extends Error {
  constructor(readonly local: boolean) {
    super('best available: waiting for claims in flight');
  }
}

/**
 * Chooses seats and locks them for the transaction (see the header); the choice is reserved and
 * added to `mine`, to be released once the caller's transaction has ended. Throws 409
 * no_seats_together when the free seats cannot meet the request, and WaitForClaims when they
 * might once the claims in flight end (never a 409 while those could still give seats back).
 */
async function chooseAndLock(ctx: AppContext, tx: Db, layout: PreparedLayout, sessionId: number, view: TakenView, req: ChoiceRequest, now: Date, mine: number[]): Promise<Choice> {
  /** Seats another transaction locked or took after the read: not chosen again in this transaction. */
  const passed = new Set<number>();
  let { taken, readAgain } = view;
  for (;;) {
    const busy = inFlight(ctx).seats.get(sessionId);
    const choice = chooseSeats(layout, (id) => !taken.has(id) && !passed.has(id) && !busy?.has(id), req);
    if (!choice) {
      if (readAgain) {
        // A kept view may miss seats freed elsewhere: read them before answering 409.
        taken = await readAgain();
        readAgain = null;
        passed.clear();
        continue;
      }
      if (passed.size === 0 && !busy?.size) throw noSeats(req);
      throw new WaitForClaims(Boolean(busy?.size));
    }
    reserve(ctx, sessionId, choice.ids);
    const missing = await repo.lockFreeSeats(tx, choice.ids, now).catch((err: unknown) => {
      release(ctx, sessionId, choice.ids);
      throw err;
    });
    if (missing.length === 0) {
      mine.push(...choice.ids);
      return choice;
    }
    // Nothing of this choice stays locked (lock_free_seats): give it back, pass the seats taken.
    release(ctx, sessionId, choice.ids);
    for (const id of missing) passed.add(id);
    if (readAgain) {
      // A kept view that offered a taken seat may be behind by many (another instance's sales):
      // read the session's seats now rather than try them one choice at a time.
      taken = await readAgain();
      readAgain = null;
    }
  }
}

/** The taken seats a choice starts from, and how to read them afresh when they came from the kept view. */
interface TakenView {
  taken: Set<number>;
  readAgain: (() => Promise<Set<number>>) | null;
}

/**
 * POST .../orders/best-available and its portal twin (D61): the best free seats of a session for
 * `quantity` tickets, held in a new cart of `buyer` or added to the live cart `order_token` (D57:
 * only a cart open to the caller), all or nothing, with the hold caps (D44) and the sales window
 * (D59, D74) of any cart write.
 */
export async function bestAvailable(ctx: AppContext, channel: CartChannel, buyer: BuyerKey, lang: string, input: BestAvailableInput): Promise<BestAvailableOrder> {
  const req: ChoiceRequest = { quantity: input.quantity, accessible: input.accessible ?? 0, together: input.together ?? true, sectors: null };
  if (req.accessible > req.quantity) throw invalidData({ accessible: ['cannot be more than quantity'] });
  if (req.quantity > ctx.config.maxItemsPerOrder) throw holdLimitReached('items_per_order', ctx.config.maxItemsPerOrder);

  let together = false;
  /** Seats this request reserved (chooseAndLock), released once its transaction has ended. */
  const reserved: number[] = [];
  let sessionId = input.session_id;
  /**
   * The whole request on one connection, in the transaction: the session and its rates, the
   * buyer's claims serialised (the caps' lock, before any seat lock, as cart_hold_seats takes
   * them), the choice, the hold. At an on-sale every request waits for a pooled connection once.
   */
  const claim = async (tx: Db, target: { create: true; buyer: BuyerKey } | { create: false; order: OrderRow }, at: Date) => {
    // The taken seats as this instance keeps them (best-available.taken.ts), else read with the session.
    const mark = changeMark(ctx);
    const kept = keptTaken(ctx, input.session_id, at, () => repo.takenSeatIds(ctx.db, input.session_id, ctx.clock.now()));
    const session = await repo.findSellableSession(tx, channel.id, input.session_id, at, !kept);
    if (!session) throw new AppError('not_found.session', { session: input.session_id });
    if (session.taken) keepTaken(ctx, session.id, mark, session.taken);
    const rateOf = ratesBySector(session, input);
    if (!session.onSale) throw await notOnSaleError(tx, session.id);
    sessionId = session.id;
    const layout = (await layouts(ctx).fetch(`${session.id}/${session.layoutId}`, { context: { db: tx, sessionId: session.id } }))!;
    const buyerKey = target.create ? target.buyer : target.order.buyerKey;
    if (buyerKey) await lockBuyer(tx, buyerKey);
    const view: TakenView = kept
      ? {
          taken: kept,
          readAgain: async () => {
            const again = changeMark(ctx);
            const taken = await repo.takenSeatIds(tx, session.id, at);
            keepTaken(ctx, session.id, again, taken);
            return taken.ids;
          },
        }
      : { taken: session.taken!.ids, readAgain: null };
    const choice = await chooseAndLock(ctx, tx, layout, session.id, view, { ...req, sectors: new Set(rateOf.keys()) }, at, reserved);
    together = choice.together;
    const items = choice.ids.map((id) => ({ session_seat_id: id, rate_id: rateOf.get(layout.sectorOf.get(id)!)! }));
    return holdInTransaction(ctx, tx, channel, lang, target, items, at);
  };

  const attempt = async (): Promise<OrderView> => {
    try {
      if (input.order_token !== undefined) {
        return await changeCart(ctx, channel, input.order_token, lang, async (tx, order, at) => (await claim(tx, { create: false, order }, at)).sessionIds);
      }
      const now = ctx.clock.now();
      const done = await ctx.db.transaction((tx) => claim(tx, { create: true, buyer }, now));
      // The claimed seats join the kept view before their reservation ends.
      seatsClaimed(ctx, done.sessionIds, sessionId, reserved);
      release(ctx, sessionId, reserved.splice(0));
      return done.rows ? await orderViewFromRows(ctx, done.rows, lang, now) : await buildOrderView(ctx, done.orderId, lang, now);
    } finally {
      release(ctx, sessionId, reserved.splice(0));
    }
  };
  let foreignWaits = 0;
  let view: OrderView | null = null;
  while (!view) {
    try {
      view = await attempt();
    } catch (err) {
      if (!(err instanceof WaitForClaims)) throw err;
      // The transaction is gone (its connection back in the pool): wait for the claims in flight.
      // This instance's own end with their transactions. Seats taken since the read are seen as
      // taken at the next one; another instance's locks are waited for MAX_FOREIGN_WAITS times.
      if (err.local) {
        await claimEnded(ctx, sessionId, 100);
        continue;
      }
      if (++foreignWaits > MAX_FOREIGN_WAITS) throw new AppError('conflict', 'Too many buyers are choosing seats at this moment; try again');
      await delay(5 + Math.random() * 10);
    }
  }
  countHolds(input.quantity);
  return { ...view, next_to_each_other: together };
}
