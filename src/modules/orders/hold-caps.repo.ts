import { sql } from 'drizzle-orm';
import { lockForTransaction } from '../../db/advisory-locks.js';
import { parseJson, queryRows, type Db, type Json } from '../../db/client.js';
import { intArray } from './orders.repo.js';

// SQL of the hold caps (D44) for the zone places; seats get the same inside cart_hold_seats
// (src/db/functions, which explains the lock). Both run inside the claim's transaction.

/**
 * Serialises the claims of one buyer until the transaction ends (the caps are counts over several
 * rows, which no row lock covers): the buyer keyspace, the same lock as cart_hold_seats.
 */
export async function lockBuyer(db: Db, buyerKey: string): Promise<void> {
  await lockForTransaction(db, 'buyer', buyerKey);
}

export interface BuyerHoldings {
  /** The buyer's live carts (pending, unexpired, holding items) other than `exceptOrderId`. */
  otherLiveCarts: number;
  /** Items the buyer holds in live carts, per session (of the sessions asked about). */
  ticketsBySession: Map<number, number>;
}

/** What one buyer holds now; run after lockBuyer, in a statement of its own (a fresh snapshot). */
export async function buyerHoldings(db: Db, buyerKey: string, exceptOrderId: number, sessionIds: readonly number[], now: Date): Promise<BuyerHoldings> {
  const [row] = await queryRows<{ other_live_carts: number; tickets: Json<Record<string, number>> }>(
    db,
    sql`SELECT
          (SELECT count(*)::int FROM orders
            WHERE buyer_key = ${buyerKey} AND status = 'pending' AND expires_at > ${now} AND id <> ${exceptOrderId}) AS other_live_carts,
          (SELECT COALESCE(json_object_agg(t.session_id, t.n), '{}'::json) FROM (
             SELECT oi.session_id, count(*)::int AS n
             FROM orders o JOIN order_items oi ON oi.order_id = o.id
             WHERE o.buyer_key = ${buyerKey} AND o.status = 'pending' AND o.expires_at > ${now}
               AND oi.session_id = ANY(${intArray(sessionIds)})
             GROUP BY oi.session_id) t) AS tickets`,
  );
  const tickets = parseJson(row!.tickets);
  return {
    otherLiveCarts: Number(row!.other_live_carts),
    ticketsBySession: new Map(Object.entries(tickets).map(([id, n]) => [Number(id), Number(n)])),
  };
}
