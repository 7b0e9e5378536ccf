import { sql } from 'drizzle-orm';
import { describe, expect } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { appTest, DEMO, tokenFor } from '../helpers.js';
import { createOrder } from '../orders/cart-helpers.js';
import { createHeldOrder, orderStatus, paymentStatus, postSandboxNotification, SANDBOX_NOTIFY_URL, sandboxNotification, startPayment } from './fixtures.js';

const { it, app } = appTest();

const NOTIFY_URL = SANDBOX_NOTIFY_URL;
const signed = (paymentId: string, outcome: 'succeeded' | 'declined', amount: number, at = app().clock.now()) => sandboxNotification(app(), paymentId, outcome, amount, at);
const post = (n: { body: string; signature: string }) => postSandboxNotification(app(), n);

/**
 * A card payment of a one-seat cart whose checkout extended it to CHECKOUT_HOLD_SECONDS (1800): paid
 * at 1790 s (the signed notification `paid`), the clock left at 1810 s, when it is notified late.
 */
async function paidJustBeforeExpiry() {
  const order = await createHeldOrder(app(), DEMO.a.slug, { ttlSeconds: 60 });
  const paymentId = await startPayment(app(), DEMO.a.slug, order);
  app().clock.advance(1790_000);
  const paid = signed(paymentId, 'succeeded', order.total);
  app().clock.advance(20_000);
  return { order, paymentId, paid };
}

const count = async (table: 'tickets' | 'email_outbox', orderId: number) => {
  const [row] = await queryRows<{ n: number }>(app().ctx.db, sql`SELECT count(*)::int AS n FROM ${sql.raw(table)} WHERE order_id = ${orderId}`);
  return row!.n;
};

describe('sandbox payment notifications', () => {
  it('a valid success notification completes the order through the closing process (tickets, e-mail)', async ({ t }) => {
    const order = await createHeldOrder(t, DEMO.a.slug, { seats: 2 });
    const paymentId = await startPayment(t, DEMO.a.slug, order);
    const res = await post(signed(paymentId, 'succeeded', order.total));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ success: true, data: { result: 'completed', payment_id: paymentId } });
    expect(await orderStatus(t, order.id)).toBe('completed');
    expect(await paymentStatus(t, paymentId)).toEqual({ status: 'succeeded', failure_reason: null });
    expect(await count('tickets', order.id)).toBe(2);
    expect(await count('email_outbox', order.id)).toBe(1);
    const [seats] = await queryRows<{ sold: number }>(
      t.ctx.db,
      sql`SELECT count(*)::int AS sold FROM session_seats WHERE order_id = ${order.id} AND status = 'sold'`,
    );
    expect(seats!.sold).toBe(2);
  });

  it('a forged signature is 403 and changes nothing', async ({ t }) => {
    const order = await createHeldOrder(t, DEMO.c.slug);
    const paymentId = await startPayment(t, DEMO.c.slug, order);
    const good = signed(paymentId, 'succeeded', order.total);
    const wrongKey = await post({ body: good.body, signature: good.signature.replace(/v1=.*/, 'v1=' + 'A'.repeat(43)) });
    expect(wrongKey.statusCode).toBe(403);
    expect(wrongKey.json()).toMatchObject({ status: 403, success: false, code: 'invalid_signature' });
    const tampered = await post({ body: good.body.replace(`"amount":${order.total}`, '"amount":1'), signature: good.signature });
    expect(tampered.statusCode).toBe(403);
    const missing = await t.app.inject({ method: 'POST', url: NOTIFY_URL, headers: { 'content-type': 'application/json' }, payload: good.body });
    expect(missing.statusCode).toBe(403);
    expect(await orderStatus(t, order.id)).toBe('pending');
    expect(await paymentStatus(t, paymentId)).toMatchObject({ status: 'pending' });
  });

  it('a signature older than five minutes is refused (a captured notification cannot be replayed later)', async ({ t }) => {
    const order = await createHeldOrder(t, DEMO.a.slug);
    const paymentId = await startPayment(t, DEMO.a.slug, order);
    const old = signed(paymentId, 'succeeded', order.total, new Date(t.clock.now().getTime() - 301_000));
    const res = await post(old);
    expect(res.statusCode).toBe(403);
    expect(await orderStatus(t, order.id)).toBe('pending');
  });

  it('a replayed notification is processed once: the second answer is duplicate and nothing runs again', async ({ t }) => {
    const order = await createHeldOrder(t, DEMO.a.slug);
    const paymentId = await startPayment(t, DEMO.a.slug, order);
    const n = signed(paymentId, 'succeeded', order.total);
    const first = await post(n);
    expect(first.json().data.result).toBe('completed');
    const again = await post(n);
    expect(again.statusCode).toBe(200);
    expect(again.json().data.result).toBe('duplicate');
    // Another notification id for the same, already settled payment changes nothing either.
    const other = await post(signed(paymentId, 'succeeded', order.total));
    expect(other.json().data.result).toBe('duplicate');
    expect(await count('tickets', order.id)).toBe(1);
    expect(await count('email_outbox', order.id)).toBe(1);
  });

  it('a replay racing the original still closes the order once', async ({ t }) => {
    const order = await createHeldOrder(t, DEMO.a.slug, { seats: 2 });
    const paymentId = await startPayment(t, DEMO.a.slug, order);
    const n = signed(paymentId, 'succeeded', order.total);
    const results = await Promise.all([post(n), post(n), post(n)]);
    expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200]);
    expect(results.map((r) => r.json().data.result).sort()).toEqual(['completed', 'duplicate', 'duplicate']);
    expect(await count('tickets', order.id)).toBe(2);
  });

  it('a declined card leaves the cart pending until it expires; another card may still pay it', async ({ t }) => {
    const order = await createHeldOrder(t, DEMO.a.slug);
    const paymentId = await startPayment(t, DEMO.a.slug, order);
    const res = await post(signed(paymentId, 'declined', order.total));
    expect(res.json().data.result).toBe('declined');
    expect(await orderStatus(t, order.id)).toBe('pending');
    expect(await paymentStatus(t, paymentId)).toEqual({ status: 'declined', failure_reason: 'card_declined' });
    expect(await count('tickets', order.id)).toBe(0);
    const retry = await startPayment(t, DEMO.a.slug, order);
    expect((await post(signed(retry, 'succeeded', order.total))).json().data.result).toBe('completed');
  });

  it('a late notification of a payment taken before the cart expired completes it when its seats are still free (D73)', async ({ t }) => {
    const { order, paid } = await paidJustBeforeExpiry();
    const res = await post(paid);
    expect(res.json().data.result).toBe('completed');
    expect(await orderStatus(t, order.id)).toBe('completed');
  });

  it('a late notification whose seats were sold meanwhile flags the payment for refund', async ({ t }) => {
    const { order, paymentId, paid } = await paidJustBeforeExpiry();
    // Another buyer (model D channel, B2B cart) takes the freed seat.
    const [item] = await queryRows<{ session_seat_id: number; rate_id: number }>(
      t.ctx.db,
      sql`SELECT session_seat_id, rate_id FROM order_items WHERE order_id = ${order.id}`,
    );
    const token = await tokenFor(t.app, DEMO.d.slug, DEMO.d.key);
    await createOrder(t.app, token, DEMO.d.slug, { session_seat_id: item!.session_seat_id, rate_id: item!.rate_id }); // throws unless 201
    const res = await post(paid);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.result).toBe('refund_required');
    expect(await paymentStatus(t, paymentId)).toEqual({ status: 'refund_required', failure_reason: 'seats_unavailable' });
    expect(await orderStatus(t, order.id)).not.toBe('completed');
    expect(await count('tickets', order.id)).toBe(0);
  });

  it('a paid amount that differs from the order total flags the payment for refund', async ({ t }) => {
    const order = await createHeldOrder(t, DEMO.a.slug);
    const paymentId = await startPayment(t, DEMO.a.slug, order);
    const res = await post(signed(paymentId, 'succeeded', order.total - 100));
    expect(res.json().data.result).toBe('refund_required');
    expect(await paymentStatus(t, paymentId)).toMatchObject({ status: 'refund_required', failure_reason: 'amount_mismatch' });
    expect(await orderStatus(t, order.id)).toBe('pending');
  });

  it('a notification for an unknown payment is acknowledged and changes nothing', async () => {
    const res = await post(signed('pay_unknown', 'succeeded', 100));
    expect(res.statusCode).toBe(200);
    expect(res.json().data.result).toBe('unknown_payment');
  });
});
