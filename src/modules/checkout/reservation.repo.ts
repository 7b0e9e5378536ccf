import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../../db/client.js';

// SQL of reservations (orders issued without payment). Every function takes the reservation's
// transaction. The rules are the cart's, by name: seat_is_free (D15), rate_fits_seat and ticket_fee
// (src/db/functions).

const bigintArray = (ids: readonly number[]) => sql`${`{${ids.map((n) => Math.trunc(n)).join(',')}}`}::bigint[]`;

/** One requested seat as the channel may sell it, priced at the requested rate. */
export interface ReservationLine {
  sessionSeatId: number;
  rateId: number;
  /** The seat, or null when it does not exist or is not of an event the channel sells. */
  seat: { id: number; sessionId: number; sectorId: number; eventId: number } | null;
  /** Whether the rate exists and may price this seat (rate_fits_seat). */
  rateFits: boolean;
  /** The rate's price and the ticket's management fees (ticket_fee); 0 unless the rate fits. */
  price: number;
  fee: number;
}

/** The requested (seat, rate) pairs, in the order given, in one round trip. */
export async function loadReservationLines(
  db: Db,
  channelId: number,
  requests: readonly { sessionSeatId: number; rateId: number }[],
): Promise<ReservationLine[]> {
  const rows = await queryRows<{
    seat_id: string | number;
    rate_id: string | number;
    id: number | null;
    session_id: number | null;
    sector_id: number | null;
    event_id: number | null;
    fits: boolean;
    price: number | null;
    fee: number | null;
  }>(
    db,
    sql`SELECT w.seat_id, w.rate_id, s.id, s.session_id, s.sector_id, s.event_id, x.fits,
               CASE WHEN x.fits THEN r.price END AS price,
               CASE WHEN x.fits THEN ticket_fee(r.price, s.event_id, s.session_id) END AS fee
        FROM unnest(${bigintArray(requests.map((r) => r.sessionSeatId))}, ${bigintArray(requests.map((r) => r.rateId))})
             WITH ORDINALITY AS w(seat_id, rate_id, n)
        LEFT JOIN (SELECT ss.id, ss.session_id, ss.sector_id, se.event_id
                   FROM session_seats ss
                   JOIN sessions se ON se.id = ss.session_id
                   JOIN channel_events ce ON ce.event_id = se.event_id AND ce.channel_id = ${channelId}) s ON s.id = w.seat_id
        LEFT JOIN rates r ON r.id = w.rate_id
        CROSS JOIN LATERAL (SELECT COALESCE(r.id IS NOT NULL AND rate_fits_seat(r.session_id, r.sector_id, s.session_id, s.sector_id), false) AS fits) x
        ORDER BY w.n`,
  );
  return rows.map((r) => ({
    sessionSeatId: Number(r.seat_id),
    rateId: Number(r.rate_id),
    seat: r.id === null ? null : { id: r.id, sessionId: r.session_id!, sectorId: r.sector_id!, eventId: r.event_id! },
    rateFits: r.fits,
    price: r.price ?? 0,
    fee: r.fee ?? 0,
  }));
}

/** Inserts the reservation's order, pending until completeOrder, with its totals; returns its id. */
export async function insertReservationOrder(
  db: Db,
  o: { orderToken: string; reference: string; channelId: number; lang: string; currency: string; base: number; fee: number; total: number; now: Date },
): Promise<number> {
  const [order] = await queryRows<{ id: string | number }>(
    db,
    sql`INSERT INTO orders (order_token, reference, channel_id, type, status, lang, currency, base_amount, fee_amount,
          total_amount, created_at, updated_at)
        VALUES (${o.orderToken}, ${o.reference}, ${o.channelId}, 'reservation', 'pending', ${o.lang}, ${o.currency},
          ${o.base}, ${o.fee}, ${o.total}, ${o.now}, ${o.now})
        RETURNING id`,
  );
  return Number(order!.id);
}

/** Sells one free seat (D14, D15: free, or held by a lapsed cart) to the order; false when it is not free. */
export async function claimSeatSold(db: Db, orderId: number, sessionSeatId: number, now: Date): Promise<boolean> {
  const claimed = await queryRows<{ id: number }>(
    db,
    sql`UPDATE session_seats SET status = 'sold', order_id = ${orderId}, hold_expires_at = NULL
        WHERE id = ${sessionSeatId} AND seat_is_free(status, hold_expires_at, ${now}::timestamptz)
        RETURNING id`,
  );
  return claimed.length === 1;
}

/** Inserts one item of the reservation with its amounts (no discount); returns its id. */
export async function insertReservationItem(
  db: Db,
  i: { orderId: number; eventId: number; sessionId: number; sectorId: number; sessionSeatId: number; rateId: number; base: number; fee: number; total: number; now: Date },
): Promise<number> {
  const [item] = await queryRows<{ id: string | number }>(
    db,
    sql`INSERT INTO order_items (order_id, event_id, session_id, sector_id, session_seat_id, rate_id, base_amount,
          fee_amount, total_amount, created_at)
        VALUES (${i.orderId}, ${i.eventId}, ${i.sessionId}, ${i.sectorId}, ${i.sessionSeatId}, ${i.rateId},
          ${i.base}, ${i.fee}, ${i.total}, ${i.now})
        RETURNING id`,
  );
  return Number(item!.id);
}
