import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import { expect } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { newSandboxNotification, SANDBOX_SIGNATURE_HEADER, signSandboxNotification } from '../../src/modules/portal/payments/sandbox.provider.js';
import { DEMO, type TestApp } from '../helpers.js';

export interface HeldOrder {
  id: number;
  token: string;
  total: number;
  sessionSeatIds: number[];
}

/**
 * A pending cart of `slug` holding `seats` free numbered seats of the first demo session, written
 * straight to the database (so payment tests do not depend on the cart routes). Price: the first
 * rate plus the event's fixed fee per seat.
 */
export async function createHeldOrder(t: TestApp, slug: string, opts: { seats?: number; ttlSeconds?: number } = {}): Promise<HeldOrder> {
  const db = t.ctx.db;
  const now = t.clock.now();
  const expiresAt = new Date(now.getTime() + (opts.ttlSeconds ?? 900) * 1000);
  const [channel] = await queryRows<{ id: number }>(db, sql`SELECT id FROM sales_channels WHERE slug = ${slug}`);
  const [session] = await queryRows<{ id: number; event_id: number }>(
    db,
    sql`SELECT s.id, s.event_id FROM sessions s ORDER BY s.start_datetime, s.id LIMIT 1`,
  );
  const [rate] = await queryRows<{ id: number; price: number }>(
    db,
    sql`SELECT id, price FROM rates WHERE session_id = ${session!.id} ORDER BY sort_order, id LIMIT 1`,
  );
  const [fee] = await queryRows<{ amount: number }>(
    db,
    sql`SELECT amount FROM fees WHERE event_id = ${session!.event_id} AND kind = 'fixed' LIMIT 1`,
  );
  const token = crypto.randomUUID();
  const seatCount = opts.seats ?? 1;
  const perSeat = rate!.price + (fee?.amount ?? 0);
  const [order] = await queryRows<{ id: string }>(
    db,
    sql`INSERT INTO orders (order_token, reference, channel_id, currency, base_amount, fee_amount, total_amount, expires_at, lang, created_at, updated_at)
        VALUES (${token}, ${'T' + crypto.randomBytes(4).toString('hex').toUpperCase()}, ${channel!.id}, 'EUR',
                ${rate!.price * seatCount}, ${(fee?.amount ?? 0) * seatCount}, ${perSeat * seatCount}, ${expiresAt.toISOString()}, 'es',
                ${now.toISOString()}, ${now.toISOString()})
        RETURNING id`,
  );
  const orderId = Number(order!.id);
  const seats = await queryRows<{ id: number; sector_id: number }>(
    db,
    sql`UPDATE session_seats SET status = 'held', order_id = ${orderId}, hold_expires_at = ${expiresAt.toISOString()}
         WHERE id IN (SELECT id FROM session_seats WHERE session_id = ${session!.id} AND seat_id IS NOT NULL AND status = 'available'
                      ORDER BY id LIMIT ${seatCount} FOR UPDATE SKIP LOCKED)
     RETURNING id, sector_id`,
  );
  for (const seat of seats) {
    await db.execute(
      sql`INSERT INTO order_items (order_id, event_id, session_id, sector_id, session_seat_id, rate_id, base_amount, fee_amount, total_amount)
          VALUES (${orderId}, ${session!.event_id}, ${session!.id}, ${seat.sector_id}, ${seat.id}, ${rate!.id}, ${rate!.price}, ${fee?.amount ?? 0}, ${perSeat})`,
    );
  }
  return { id: orderId, token, total: perSeat * seatCount, sessionSeatIds: seats.map((s) => s.id) };
}

/**
 * A model A order of `seats` (createHeldOrder on demo-a) paid on the sandbox's card page in `lang`
 * (default en) by `buyer` (default Bo Lee) with `card` (default the test card): its token,
 * reference, payment, status and tickets (ids and codes, in item order).
 */
export async function paidByCard(
  t: TestApp,
  seats: number,
  opts: { lang?: string; buyer?: { name: string; surname: string; email: string }; card?: string } = {},
) {
  const order = await createHeldOrder(t, DEMO.a.slug, { seats });
  const start = await t.app.inject({
    method: 'POST',
    url: `/api/portal/${DEMO.a.slug}/${opts.lang ?? 'en'}/checkout`,
    payload: { order_token: order.token, ...(opts.buyer ?? { name: 'Bo', surname: 'Lee', email: 'bo@example.com' }) },
  });
  const paymentId = start.json().data.payment_id as string;
  const paid = await t.app.inject({ method: 'POST', url: `/sandbox/pay/${paymentId}`, payload: { card_number: opts.card ?? '4242424242424242', expiry: '12/34', cvc: '123' } });
  expect(paid.statusCode).toBe(303);
  const [row] = await queryRows<{ reference: string; status: string }>(t.ctx.db, sql`SELECT reference, status FROM orders WHERE id = ${order.id}`);
  const tickets = await queryRows<{ id: string | number; code: string }>(t.ctx.db, sql`SELECT id, code FROM tickets WHERE order_id = ${order.id} ORDER BY order_item_id`);
  return { ...order, paymentId, reference: row!.reference, status: row!.status, tickets: tickets.map((x) => ({ id: Number(x.id), code: x.code })) };
}

export const SANDBOX_NOTIFY_URL = '/api/portal/payments/sandbox/notifications';

/** A sandbox notification of `paymentId` (test card, EUR) and its signature, as the sandbox sends it at `at`. */
export function sandboxNotification(t: TestApp, paymentId: string, outcome: 'succeeded' | 'declined', amount: number, at = t.clock.now()) {
  const body = JSON.stringify(newSandboxNotification(paymentId, outcome, amount, 'EUR', '4242424242424242', at));
  return { body, signature: signSandboxNotification(t.config, body, at) };
}

/** Posts a signed notification to the sandbox's notification endpoint, as the provider does. */
export const postSandboxNotification = (t: TestApp, n: { body: string; signature: string }) =>
  t.app.inject({ method: 'POST', url: SANDBOX_NOTIFY_URL, headers: { 'content-type': 'application/json', [SANDBOX_SIGNATURE_HEADER]: n.signature }, payload: n.body });

/** Starts the portal's checkout (es) of `order` on `slug` for Ana García: the sandbox payment's id. */
export async function startPayment(t: TestApp, slug: string, order: HeldOrder): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/portal/${slug}/es/checkout`,
    payload: { order_token: order.token, name: 'Ana', surname: 'García', email: 'ana@example.com' },
  });
  expect(res.statusCode).toBe(200);
  return res.json().data.payment_id;
}

export async function orderStatus(t: TestApp, orderId: number): Promise<string> {
  const [row] = await queryRows<{ status: string }>(t.ctx.db, sql`SELECT status FROM orders WHERE id = ${orderId}`);
  return row!.status;
}

export async function paymentStatus(t: TestApp, paymentId: string): Promise<{ status: string; failure_reason: string | null }> {
  const [row] = await queryRows<{ status: string; failure_reason: string | null }>(
    t.ctx.db,
    sql`SELECT status, failure_reason FROM payments WHERE id = ${paymentId}`,
  );
  return row!;
}

/**
 * The first upcoming on-sale session with rates of a published event demo-a sells (its storefront
 * pages); with `numberedSeatsAbove`, the first with more numbered seats than that.
 */
export async function firstStorefrontSession(t: TestApp, opts: { numberedSeatsAbove?: number } = {}): Promise<{ eventId: number; sessionId: number }> {
  const seats = opts.numberedSeatsAbove === undefined
    ? sql``
    : sql`AND (SELECT count(*) FROM session_seats ss WHERE ss.session_id = s.id AND ss.seat_id IS NOT NULL) > ${opts.numberedSeatsAbove}`;
  const [row] = await queryRows<{ event_id: number; session_id: number }>(
    t.ctx.db,
    sql`SELECT s.event_id, s.id AS session_id FROM sessions s
          JOIN channel_events ce ON ce.event_id = s.event_id
          JOIN sales_channels c ON c.id = ce.channel_id AND c.slug = ${DEMO.a.slug}
          JOIN events e ON e.id = s.event_id AND e.status = 'published'
         WHERE s.status = 'on_sale' AND s.start_datetime > now() AND EXISTS (SELECT 1 FROM rates r WHERE r.session_id = s.id)
           ${seats}
         ORDER BY s.start_datetime LIMIT 1`,
  );
  return { eventId: row!.event_id, sessionId: row!.session_id };
}
