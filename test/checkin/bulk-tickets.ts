import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../../src/db/client.js';

/**
 * `n` sold tickets of a session, written with a few set-based statements (a real sale of 50,000
 * tickets would take minutes): zone places of one sector, orders of `perOrder` tickets, one buyer
 * each. Used by the list-download tests and bench/checkin.bench.ts.
 */
export async function bulkTickets(db: Db, opts: { sessionId: number; n: number; perOrder?: number; currency: string; tag: string }): Promise<void> {
  const perOrder = opts.perOrder ?? 10;
  const orders = Math.ceil(opts.n / perOrder);
  const prefix = `bulk-${opts.tag}-`;
  await db.transaction(async (tx) => {
    const [c] = await queryRows<{ event_id: number; sector_id: number; rate_id: number; channel_id: number }>(
      tx,
      sql`SELECT s.event_id,
            (SELECT id FROM sectors WHERE venue_id = s.venue_id ORDER BY numbered, id LIMIT 1) AS sector_id,
            (SELECT id FROM rates WHERE session_id = s.id ORDER BY id LIMIT 1) AS rate_id,
            (SELECT id FROM sales_channels ORDER BY id LIMIT 1) AS channel_id
          FROM sessions s WHERE s.id = ${opts.sessionId}`,
    );
    await tx.execute(sql`
      INSERT INTO customers (name, surname, email)
      SELECT 'Buyer', 'Number ' || g, ${prefix} || g || '@example.com' FROM generate_series(1, ${orders}) g`);
    await tx.execute(sql`
      INSERT INTO orders (order_token, reference, channel_id, type, status, currency, customer_id, created_at, updated_at, completed_at)
      SELECT ${prefix} || c.id, 'TQ-' || upper(${opts.tag}) || c.id, ${c!.channel_id}, 'purchase', 'completed', ${opts.currency}, c.id, now(), now(), now()
      FROM customers c WHERE c.email LIKE ${`${prefix}%`}`);
    await tx.execute(sql`
      INSERT INTO session_seats (session_id, sector_id, status, order_id)
      SELECT ${opts.sessionId}, ${c!.sector_id}, 'sold', o.id
      FROM orders o CROSS JOIN generate_series(1, ${perOrder}) g
      WHERE o.order_token LIKE ${`${prefix}%`}
      ORDER BY o.id, g LIMIT ${opts.n}`);
    await tx.execute(sql`
      INSERT INTO order_items (order_id, event_id, session_id, sector_id, session_seat_id, rate_id, base_amount, total_amount, created_at)
      SELECT ss.order_id, ${c!.event_id}, ${opts.sessionId}, ${c!.sector_id}, ss.id, ${c!.rate_id}, 0, 0, now()
      FROM session_seats ss JOIN orders o ON o.id = ss.order_id
      WHERE ss.session_id = ${opts.sessionId} AND o.order_token LIKE ${`${prefix}%`}`);
    await tx.execute(sql`
      INSERT INTO tickets (code, order_id, order_item_id, issued_at)
      SELECT substr(md5(i.id::text || random()::text), 1, 24), i.order_id, i.id, now()
      FROM order_items i JOIN orders o ON o.id = i.order_id
      WHERE o.order_token LIKE ${`${prefix}%`}`);
  });
}
