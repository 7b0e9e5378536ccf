import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { AppError } from '../../http/errors.js';
import { countHoldCapRefusal } from '../../platform/metrics.js';
import * as capsRepo from './hold-caps.repo.js';
import type { OrderRow } from './orders.repo.js';

// The hold caps (D44, docs/cart.md "Hold caps"). A claim that would take a cart past one of them
// answers 429 hold_limit_reached and holds nothing:
//   items_per_order   MAX_ITEMS_PER_ORDER items in one order (every order, whoever created it);
//   live_orders       MAX_LIVE_ORDERS_PER_BUYER live carts per buyer (a claim into an empty cart
//                     starts one: the buyer's other live carts must be fewer);
//   session_tickets   a session's max_tickets_per_buyer seats and zone places in the buyer's live
//                     carts of that session.
// The per-buyer caps count against the buyer recorded on the order (orders.buyer_key, orders.buyer.ts);
// an order without one (server scope, admin) has only the first cap. Completed orders do not
// count: the caps bound what one buyer can keep from others at once, not what it buys.
// Seats are held by cart_hold_seats (src/db/functions), which applies the same caps in SQL and
// answers with the same error through holdLimitReached; assertHoldCaps serves the zone places.

export type HoldCap = 'items_per_order' | 'live_orders' | 'session_tickets';

/** The largest max_tickets_per_buyer a session accepts (a cap above any venue is no cap). */
export const MAX_TICKETS_PER_BUYER_LIMIT = 100_000;

/** 429 hold_limit_reached, with a message naming the cap and its value. */
export function holdLimitReached(cap: HoldCap, limit: number, sessionId?: number): AppError {
  // Every refusal of a cap is made here (the SQL fast path's too), right before it is thrown.
  countHoldCapRefusal(cap);
  return cap === 'session_tickets'
    ? new AppError('hold_limit_reached.session_tickets', { session: sessionId, limit })
    : new AppError(`hold_limit_reached.${cap}`, { limit });
}

/** Items a claim adds to one session, and that session's cap (null: none). */
export interface SessionClaim {
  sessionId: number;
  maxTicketsPerBuyer: number | null;
  quantity: number;
}

/**
 * Checks every hold cap for a claim into a locked live cart that holds `itemCount` items, before
 * anything is claimed. When a per-buyer cap can bite it first takes the buyer's lock, so that the
 * counts stay true until the claim commits (parallel claims of one buyer count one after another).
 */
export async function assertHoldCaps(
  ctx: AppContext,
  tx: Db,
  order: OrderRow,
  itemCount: number,
  claims: readonly SessionClaim[],
  now: Date,
): Promise<void> {
  const adding = claims.reduce((n, c) => n + c.quantity, 0);
  const maxItems = ctx.config.maxItemsPerOrder;
  if (itemCount + adding > maxItems) throw holdLimitReached('items_per_order', maxItems);
  const buyer = order.buyerKey;
  const startsCart = itemCount === 0;
  const capped = claims.filter((c) => c.maxTicketsPerBuyer !== null);
  if (!buyer || (!startsCart && capped.length === 0)) return;

  await capsRepo.lockBuyer(tx, buyer);
  const held = await capsRepo.buyerHoldings(tx, buyer, order.id, [...new Set(capped.map((c) => c.sessionId))], now);
  const maxCarts = ctx.config.maxLiveOrdersPerBuyer;
  if (startsCart && held.otherLiveCarts >= maxCarts) throw holdLimitReached('live_orders', maxCarts);
  const perSession = new Map<number, number>();
  for (const c of capped) perSession.set(c.sessionId, (perSession.get(c.sessionId) ?? 0) + c.quantity);
  for (const [sessionId, quantity] of perSession) {
    const cap = capped.find((c) => c.sessionId === sessionId)!.maxTicketsPerBuyer!;
    if ((held.ticketsBySession.get(sessionId) ?? 0) + quantity > cap) throw holdLimitReached('session_tickets', cap, sessionId);
  }
}
