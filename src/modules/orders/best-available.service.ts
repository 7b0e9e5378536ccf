import { setTimeout as delay } from 'node:timers/promises';
import { appSingleton, type AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { AppError, invalidData } from '../../http/errors.js';
import { inventoryChanged } from '../../lib/inventory-events.js';
import { namedCache } from '../../platform/cache.js';
import { countHolds } from '../../platform/metrics.js';
import { notOnSaleError } from '../../platform/sale-state.js';
import { chooseSeats, prepareLayout, type Choice, type ChoiceRequest, type PreparedLayout } from './best-available.js';
import * as repo from './best-available.repo.js';
import { holdLimitReached } from './hold-caps.service.js';
import { lockBuyer } from './hold-caps.repo.js';
import type { BuyerKey, CartChannel } from './orders.buyer.js';
import type { OrderRow } from './orders.repo.js';
import { changeCart, holdInTransaction } from './orders.service.js';
import { buildOrderView, orderViewFromRows, type OrderView } from './orders.view.js';

// Best available (D61): the service chooses the seats (best-available.ts) and holds them through
// the one hold, cart_hold_seats, in ONE transaction. Parallel requests never share a seat and never
// answer 409 while enough seats remain: the choice is locked without waiting (lock_free_seats,
// SKIP LOCKED); seats another request has locked or taken meanwhile are passed over and the choice
// is made again, and when only such seats were left, the free seats are read again once those
// claims have ended (each holds its seats for a few milliseconds).

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

/** A layout does not change once its session exists (catalogue.session-layouts keeps it as long). */
const LAYOUT_MAX_AGE_MS = 5 * 60_000;
const LAYOUT_MAX_ENTRIES = 50;
const layouts = appSingleton('orders.best-available-layouts', (ctx) =>
  namedCache<number, PreparedLayout, Db>({
    name: 'orders.best-available-layouts',
    max: LAYOUT_MAX_ENTRIES,
    ttl: LAYOUT_MAX_AGE_MS,
    now: () => ctx.clock.now().getTime(),
    fetch: async (sessionId, db) => {
      const { seats, sectors } = await repo.sessionLayout(db, sessionId);
      return prepareLayout(seats, sectors);
    },
  }),
);

/** How long a request waits, at most, for the claims of others on the last free seats to end. */
const CLAIM_PATIENCE_MS = 10_000;

const noSeats = (req: ChoiceRequest) =>
  new AppError(
    'no_seats_together',
    req.accessible > 0
      ? `No ${req.accessible} free wheelchair places with ${req.quantity - req.accessible} companion seats beside them`
      : req.together
        ? `No ${req.quantity} free seats next to each other`
        : `Fewer than ${req.quantity} seats are free`,
  );

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
    if (!sector) throw new AppError('not_found', `Sector ${input.sector_id} not found`);
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
 * Chooses seats and locks them for the transaction (see the header). Throws 409
 * no_seats_together when the free seats cannot meet the request.
 */
async function chooseAndLock(tx: Db, layout: PreparedLayout, sessionId: number, req: ChoiceRequest, now: Date): Promise<Choice> {
  const deadline = Date.now() + CLAIM_PATIENCE_MS;
  let taken = await repo.takenSeatIds(tx, sessionId, now);
  /** Seats another transaction locked or took after the read: not chosen again until the next read. */
  const passed = new Set<number>();
  for (;;) {
    const choice = chooseSeats(layout, (id) => !taken.has(id) && !passed.has(id), req);
    if (!choice) {
      if (passed.size === 0) throw noSeats(req);
      if (Date.now() > deadline) throw new AppError('conflict', 'Too many buyers are choosing seats at this moment; try again');
      await delay(2);
      taken = await repo.takenSeatIds(tx, sessionId, now);
      passed.clear();
      continue;
    }
    const missing = await repo.lockFreeSeats(tx, choice.ids, now);
    if (missing.length === 0) return choice;
    for (const id of missing) passed.add(id);
  }
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
  /**
   * The whole request on one connection, in the transaction: the session and its rates, the
   * buyer's claims serialised (the caps' lock, before any seat lock, as cart_hold_seats takes
   * them), the choice, the hold. At an on-sale every request waits for a pooled connection once.
   */
  const claim = async (tx: Db, target: { create: true; buyer: BuyerKey } | { create: false; order: OrderRow }, at: Date) => {
    const session = await repo.findSellableSession(tx, channel.id, input.session_id, at);
    if (!session) throw new AppError('not_found', `Session ${input.session_id} not found`);
    const rateOf = ratesBySector(session, input);
    if (!session.onSale) throw await notOnSaleError(tx, session.id);
    const layout = (await layouts(ctx).fetch(session.id, { context: tx }))!;
    const buyerKey = target.create ? target.buyer : target.order.buyerKey;
    if (buyerKey) await lockBuyer(tx, buyerKey);
    const choice = await chooseAndLock(tx, layout, session.id, { ...req, sectors: new Set(rateOf.keys()) }, at);
    together = choice.together;
    const items = choice.ids.map((id) => ({ session_seat_id: id, rate_id: rateOf.get(layout.sectorOf.get(id)!)! }));
    return holdInTransaction(ctx, tx, channel, lang, target, items, at);
  };

  let view: OrderView;
  if (input.order_token !== undefined) {
    view = await changeCart(ctx, channel, input.order_token, lang, async (tx, order, at) => (await claim(tx, { create: false, order }, at)).sessionIds);
  } else {
    const now = ctx.clock.now();
    const done = await ctx.db.transaction((tx) => claim(tx, { create: true, buyer }, now));
    inventoryChanged(ctx, done.sessionIds);
    view = done.rows ? await orderViewFromRows(ctx, done.rows, lang, now) : await buildOrderView(ctx, done.orderId, lang, now);
  }
  countHolds(input.quantity);
  return { ...view, next_to_each_other: together };
}
