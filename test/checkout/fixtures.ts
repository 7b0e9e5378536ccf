// Orders as the cart builds them (docs/architecture.md "Inventory", "Orders"), written with SQL
// until the cart branch lands: a pending order with items and its seats held until expires_at.
import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import { expect } from 'vitest';
import type { AppContext } from '../../src/app-context.js';
import { queryRows, type Db } from '../../src/db/client.js';
import { percentOf } from '../../src/lib/money.js';
import { randomBase62 } from '../../src/lib/secrets.js';
import { bearer, type TestApp } from '../helpers.js';

export interface PendingOrder {
  id: number;
  token: string;
  reference: string;
  /** Order total in minor units. */
  total: number;
  sessionSeatIds: number[];
  sessionId: number;
}

export interface PendingOrderOptions {
  channel: string;
  /** Number of numbered seats (default 1). */
  seats?: number;
  /** Places of the unnumbered zone instead of numbered seats. */
  zone?: boolean;
  /** Base price of every item in minor units, instead of the rate's price. */
  basePrice?: number;
  /** Management fee per item in minor units, instead of the event's fees. */
  fee?: number;
  /** Cart lifetime from the clock's now (default 15 minutes). */
  ttlMs?: number;
  lang?: string;
  /** Which demo session, by start time (default 0). */
  sessionIndex?: number;
  /** A session by its id, instead of sessionIndex. */
  sessionId?: number;
  /** 'pending' (default), 'cancelled' or an empty cart ('empty'). */
  state?: 'pending' | 'cancelled' | 'empty';
}

/** Creates a pending order of `channel` holding free seats of a demo session. */
export async function createPendingOrder(ctx: AppContext, opts: PendingOrderOptions): Promise<PendingOrder> {
  const now = ctx.clock.now();
  const expiresAt = new Date(now.getTime() + (opts.ttlMs ?? 15 * 60_000));
  return ctx.db.transaction(async (tx) => {
    // Fixtures created side by side (benchmarks) take turns here.
    await tx.execute(sql`SELECT pg_advisory_xact_lock(4242)`);
    const [channel] = await queryRows<{ id: number }>(tx, sql`SELECT id FROM sales_channels WHERE slug = ${opts.channel}`);
    const sessions = await queryRows<{ id: number; event_id: number }>(
      tx,
      sql`SELECT id, event_id FROM sessions ORDER BY start_datetime, id`,
    );
    const session = opts.sessionId === undefined ? sessions[opts.sessionIndex ?? 0]! : sessions.find((s) => s.id === opts.sessionId)!;
    const count = opts.state === 'empty' ? 0 : (opts.seats ?? 1);
    const seats = await queryRows<{ id: number; sector_id: number }>(
      tx,
      sql`SELECT ss.id, ss.sector_id FROM session_seats ss
          WHERE ss.session_id = ${session.id} AND ss.status = 'available'
            AND ss.seat_id IS ${opts.zone ? sql`NULL` : sql`NOT NULL`}
          ORDER BY ss.id LIMIT ${count}`,
    );
    if (seats.length < count) throw new Error('fixture: not enough free seats');
    const [rate] = await queryRows<{ id: number; price: number }>(
      tx,
      sql`SELECT id, price FROM rates WHERE session_id = ${session.id} ORDER BY sort_order, id LIMIT 1`,
    );
    const fees = await queryRows<{ kind: 'fixed' | 'percent'; amount: number }>(
      tx,
      sql`SELECT kind, amount FROM fees WHERE event_id = ${session.event_id} OR session_id = ${session.id}`,
    );
    const base = opts.basePrice ?? rate!.price;
    const fee = opts.fee ?? fees.reduce((sum, f) => sum + (f.kind === 'fixed' ? f.amount : percentOf(base, f.amount)), 0);
    const total = (base + fee) * seats.length;
    const token = crypto.randomUUID();
    const reference = `TQ-${randomBase62(8).toUpperCase()}`;
    const status = opts.state === 'cancelled' ? 'cancelled' : 'pending';
    const [order] = await queryRows<{ id: string }>(
      tx,
      sql`INSERT INTO orders (order_token, reference, channel_id, type, status, lang, currency,
            base_amount, fee_amount, total_amount, expires_at, created_at, updated_at)
          VALUES (${token}, ${reference}, ${channel!.id}, 'purchase', ${status}, ${opts.lang ?? 'es'}, ${ctx.config.currency},
            ${base * seats.length}, ${fee * seats.length}, ${total}, ${count ? expiresAt : null}, ${now}, ${now})
          RETURNING id`,
    );
    const orderId = Number(order!.id);
    for (const seat of seats) {
      await tx.execute(sql`
        INSERT INTO order_items (order_id, event_id, session_id, sector_id, session_seat_id, rate_id,
          base_amount, fee_amount, total_amount, created_at)
        VALUES (${orderId}, ${session.event_id}, ${session.id}, ${seat.sector_id}, ${seat.id}, ${rate!.id},
          ${base}, ${fee}, ${base + fee}, ${now})`);
      if (status === 'pending') {
        await tx.execute(sql`
          UPDATE session_seats SET status = 'held', order_id = ${orderId}, hold_expires_at = ${expiresAt} WHERE id = ${seat.id}`);
      }
    }
    return { id: orderId, token, reference, total, sessionSeatIds: seats.map((s) => s.id), sessionId: session.id };
  });
}

export async function seatRows(db: Db, ids: number[]) {
  return queryRows<{ id: number; status: string; order_id: string | null; hold_expires_at: Date | null }>(
    db,
    sql`SELECT id, status, order_id, hold_expires_at FROM session_seats WHERE id IN (${sql.join(ids.map((id) => sql`${id}`), sql`, `)}) ORDER BY id`,
  );
}

export async function count(db: Db, query: ReturnType<typeof sql>): Promise<number> {
  const [row] = await queryRows<{ n: number | string }>(db, query);
  return Number(row!.n);
}

export const buyer = { name: 'Ana', surname: 'García Núñez', email: 'ana@example.com', phone: '+34 600 000 000' };

export const confirmUrl = (slug: string, token: string, suffix = 'confirm', lang = 'es') =>
  `/api/sales-channel/v1/${slug}/${lang}/orders/${token}/${suffix}`;

/**
 * A pending order of `channel` (`seats` seats) confirmed through the API with `token` for `buyer`
 * at `email`: the order and the confirm response's data.
 */
export async function confirmedOrder(t: TestApp, opts: { channel: string; token: string; email?: string; seats?: number }) {
  const o = await createPendingOrder(t.ctx, { channel: opts.channel, seats: opts.seats });
  const res = await t.app.inject({
    method: 'POST',
    url: confirmUrl(opts.channel, o.token),
    headers: bearer(opts.token),
    payload: { ...buyer, email: opts.email ?? buyer.email, amount: o.total / 100 },
  });
  expect(res.statusCode).toBe(200);
  return { ...o, data: res.json().data };
}
