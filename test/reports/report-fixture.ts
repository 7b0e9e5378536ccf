import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../../src/db/client.js';

/**
 * Orders written straight into the tables as docs/architecture.md ("Orders") describes them, so the
 * report is tested without the cart and closing modules: purchases and reservations with items and
 * a customer, cancelled orders, carts that are not transactions, refunds as their own rows.
 */

export interface CatalogueRefs {
  channels: Record<string, number>;
  /** Demo events by their Spanish name's first word: 'Concierto', 'La'. */
  events: { concert: EventRefs; play: EventRefs };
}

interface EventRefs {
  id: number;
  sessionId: number;
  sessionStart: Date;
  sectorId: number;
  sessionSeatId: number;
  rateId: number;
}

export async function catalogueRefs(db: Db): Promise<CatalogueRefs> {
  const channels = await queryRows<{ slug: string; id: number }>(db, sql`SELECT slug, id FROM sales_channels`);
  const events = await queryRows<{ name: string; id: number; session_id: number; start: string | Date; sector_id: number; ss_id: number; rate_id: number }>(
    db,
    sql`SELECT DISTINCT ON (e.id) t.name, e.id, s.id AS session_id, s.start_datetime AS start, ss.sector_id, ss.id AS ss_id, r.id AS rate_id
        FROM events e JOIN event_translations t ON t.event_id = e.id AND t.lang = 'es'
        JOIN sessions s ON s.event_id = e.id JOIN session_seats ss ON ss.session_id = s.id
        JOIN rates r ON r.session_id = s.id
        ORDER BY e.id, s.start_datetime, ss.id, r.id`,
  );
  const ref = (prefix: string): EventRefs => {
    const e = events.find((x) => x.name.startsWith(prefix));
    if (!e) throw new Error(`demo event ${prefix} missing`);
    return { id: e.id, sessionId: e.session_id, sessionStart: new Date(e.start), sectorId: e.sector_id, sessionSeatId: e.ss_id, rateId: e.rate_id };
  };
  return {
    channels: Object.fromEntries(channels.map((c) => [c.slug, c.id])),
    events: { concert: ref('Concierto'), play: ref('La vida') },
  };
}

interface ItemSpec {
  event: EventRefs;
  base: number;
  discount?: number;
  fee?: number;
}

export interface OrderSpec {
  channelId: number;
  createdAt: string | Date;
  type?: 'purchase' | 'reservation';
  status?: 'pending' | 'completed' | 'cancelled' | 'expired';
  items?: ItemSpec[];
  customer?: { name: string; surname: string; email: string } | null;
  paymentMethod?: string | null;
  lang?: string;
}

export interface InsertedOrder {
  id: number;
  reference: string;
  base: number;
  discount: number;
  fee: number;
  total: number;
  tickets: number;
}

let counter = 0;
const nextReference = () => `TQ-R${String(++counter).padStart(6, '0')}-${crypto.randomBytes(2).toString('hex')}`;

async function insertCustomer(db: Db, c: { name: string; surname: string; email: string }): Promise<number> {
  const [row] = await queryRows<{ id: number }>(
    db,
    sql`INSERT INTO customers (name, surname, email) VALUES (${c.name}, ${c.surname}, ${c.email}) RETURNING id`,
  );
  return row!.id;
}

/**
 * One purchase or reservation (or a cart) with its items; amounts are the sums of the items. Like
 * the service, it writes a cart (pending) with its items first and then changes its status (closing,
 * cancelling, the expiry sweep), which is when the report's order_events rows are written.
 */
export async function insertOrder(db: Db, spec: OrderSpec): Promise<InsertedOrder> {
  const items = spec.items ?? [];
  const sum = (f: (i: ItemSpec) => number) => items.reduce((acc, i) => acc + f(i), 0);
  const base = sum((i) => i.base);
  const discount = sum((i) => i.discount ?? 0);
  const fee = sum((i) => i.fee ?? 0);
  const total = base + discount + fee;
  const customer = spec.customer === undefined ? { name: 'Ana', surname: 'García López', email: 'ana@example.com' } : spec.customer;
  const customerId = customer ? await insertCustomer(db, customer) : null;
  const status = spec.status ?? 'completed';
  const reference = nextReference();
  const createdAt = new Date(spec.createdAt);
  const [order] = await queryRows<{ id: string | number }>(
    db,
    sql`INSERT INTO orders (order_token, reference, channel_id, type, status, lang, currency, base_amount,
          discount_amount, fee_amount, total_amount, customer_id, payment_method, created_at, updated_at, completed_at)
        VALUES (${crypto.randomUUID()}, ${reference}, ${spec.channelId}, ${spec.type ?? 'purchase'}, 'pending',
          ${spec.lang ?? 'es'}, 'EUR', ${base}, ${discount}, ${fee}, ${total}, ${customerId},
          ${spec.paymentMethod === undefined ? 'card' : spec.paymentMethod}, ${createdAt.toISOString()}, ${createdAt.toISOString()}, NULL)
        RETURNING id`,
  );
  const id = Number(order!.id);
  for (const item of items) {
    const e = item.event;
    await db.execute(sql`INSERT INTO order_items (order_id, event_id, session_id, sector_id, session_seat_id, rate_id,
        base_amount, discount_amount, fee_amount, total_amount, created_at)
      VALUES (${id}, ${e.id}, ${e.sessionId}, ${e.sectorId}, ${e.sessionSeatId}, ${e.rateId}, ${item.base},
        ${item.discount ?? 0}, ${item.fee ?? 0}, ${item.base + (item.discount ?? 0) + (item.fee ?? 0)}, ${createdAt.toISOString()})`);
  }
  if (status !== 'pending') {
    await db.execute(sql`UPDATE orders SET status = ${status}, completed_at = ${status === 'completed' ? createdAt.toISOString() : null}
      WHERE id = ${id}`);
  }
  return { id, reference, base, discount, fee, total, tickets: items.length };
}

/** A refund row of architecture.md: its own order, negative amounts, no items, same channel and customer. */
export async function insertRefund(db: Db, refunded: InsertedOrder, createdAt: string | Date): Promise<InsertedOrder> {
  const reference = nextReference();
  const at = new Date(createdAt).toISOString();
  const [order] = await queryRows<{ id: string | number }>(
    db,
    sql`INSERT INTO orders (order_token, reference, channel_id, type, status, lang, currency, base_amount,
          discount_amount, fee_amount, total_amount, customer_id, payment_method, refunded_order_id,
          created_at, updated_at, completed_at)
        SELECT ${crypto.randomUUID()}, ${reference}, channel_id, 'refund', 'completed', lang, currency,
          -base_amount, -discount_amount, -fee_amount, -total_amount, customer_id, payment_method, id, ${at}, ${at}, ${at}
        FROM orders WHERE id = ${refunded.id}
        RETURNING id`,
  );
  // What the refund covered, item by item (refund_items, D30): the whole order, as a refund of the
  // admin API without ticket_ids records it.
  await db.execute(sql`
    INSERT INTO refund_items (refund_order_id, order_item_id, ticket_id, base_amount, discount_amount, fee_amount, total_amount)
    SELECT ${Number(order!.id)}, i.id, t.id, -i.base_amount, -i.discount_amount, -i.fee_amount, -i.total_amount
    FROM order_items i LEFT JOIN tickets t ON t.order_item_id = i.id
    WHERE i.order_id = ${refunded.id}`);
  return {
    id: Number(order!.id),
    reference,
    base: -refunded.base,
    discount: -refunded.discount,
    fee: -refunded.fee,
    total: -refunded.total,
    tickets: -refunded.tickets,
  };
}

/** `count` completed one-item purchases, one minute apart going back from `newest` (fast, one statement). */
export async function insertManyPurchases(db: Db, channelId: number, event: EventRefs, newest: Date, count: number): Promise<void> {
  await db.execute(sql`
    WITH o AS (
      INSERT INTO orders (order_token, reference, channel_id, type, status, currency, base_amount, fee_amount, total_amount,
                          payment_method, created_at, completed_at)
      SELECT gen_random_uuid()::text, 'BULK-' || ${channelId} || '-' || g, ${channelId}, 'purchase', 'completed', 'EUR',
             1000, 100, 1100, 'card', ${newest.toISOString()}::timestamptz - g * interval '1 minute',
             ${newest.toISOString()}::timestamptz - g * interval '1 minute'
      FROM generate_series(0, ${count - 1}) g
      RETURNING id, created_at)
    INSERT INTO order_items (order_id, event_id, session_id, sector_id, session_seat_id, rate_id, base_amount, fee_amount, total_amount)
    SELECT o.id, ${event.id}, ${event.sessionId}, ${event.sectorId}, ${event.sessionSeatId}, ${event.rateId}, 1000, 100, 1100 FROM o`);
}
