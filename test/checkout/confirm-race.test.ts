import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { bearer, buildTestApp, DEMO, isPostgres, tokenFor, type TestApp } from '../helpers.js';
import { buyer, confirmUrl, count, createPendingOrder, seatRows } from './fixtures.js';
import { closeOrder } from '../../src/modules/checkout/closing.service.js';

// Real parallelism needs PostgreSQL (PGlite serialises on its one connection); on PGlite the
// same assertions still hold and run as a smoke test.
let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await buildTestApp({ poolSize: 25 });
  token = await tokenFor(t.app, DEMO.b.slug, DEMO.b.key);
}, 120_000); // building the app with the demo catalogue is slow on a busy machine
afterAll(() => t.close());

describe(`racing confirms (${isPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('20 confirms of one order at once: one closing, one set of tickets, one e-mail, all 200', async () => {
    const o = await createPendingOrder(t.ctx, { channel: 'demo-b', seats: 3 });
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.app.inject({
          method: 'POST',
          url: confirmUrl('demo-b', o.token, i % 2 ? 'confirm' : 'confirm-payment'),
          headers: bearer(token),
          payload: { ...buyer, email: `racer-${i}@example.com`, amount: o.total / 100, transaction_id: `tx-${i}` },
        }),
      ),
    );
    expect(responses.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
    const messages = responses.map((r) => r.json().message);
    expect(messages.filter((m) => m === 'Order confirmed')).toHaveLength(1);
    expect(messages.filter((m) => m === 'Order already confirmed')).toHaveLength(19);
    const codeSets = responses.map((r) => JSON.stringify(r.json().data.ticket_pdf_urls.map((u: string) => new URL(u).pathname)));
    expect(new Set(codeSets).size).toBe(1);
    expect(JSON.parse(codeSets[0]!)).toHaveLength(3);

    expect(await count(t.ctx.db, sql`SELECT count(*) AS n FROM tickets WHERE order_id = ${o.id}`)).toBe(3);
    expect(await count(t.ctx.db, sql`SELECT count(*) AS n FROM email_outbox WHERE order_id = ${o.id}`)).toBe(1);
    const customers = await count(t.ctx.db, sql`SELECT count(*) AS n FROM customers WHERE email LIKE 'racer-%'`);
    expect(customers).toBe(1);
    expect((await seatRows(t.ctx.db, o.sessionSeatIds)).every((s) => s.status === 'sold' && Number(s.order_id) === o.id)).toBe(true);
  });

  it('ten concurrent closeOrder calls (confirm and portal payments both close through it): still one closing', async () => {
    const o = await createPendingOrder(t.ctx, { channel: 'demo-b', seats: 1 });
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        closeOrder(t.ctx, { orderId: o.id, buyer, expectedAmount: o.total }),
      ),
    );
    expect(results.filter((r) => !r.alreadyCompleted)).toHaveLength(1);
    expect(new Set(results.map((r) => r.ticketCodes.join()))).toHaveProperty('size', 1);
    expect(await count(t.ctx.db, sql`SELECT count(*) AS n FROM tickets WHERE order_id = ${o.id}`)).toBe(1);
  });
});

describe('closeOrder with allowExpired (late card payment notification)', () => {
  it('completes an expired order whose seats are still free', async () => {
    const o = await createPendingOrder(t.ctx, { channel: 'demo-b', seats: 2, ttlMs: 60_000 });
    t.clock.advance(120_000);
    await expect(closeOrder(t.ctx, { orderId: o.id, buyer })).rejects.toMatchObject({ code: 'order_expired' });
    const r = await closeOrder(t.ctx, { orderId: o.id, buyer, allowExpired: true });
    expect(r.alreadyCompleted).toBe(false);
    expect(r.ticketCodes).toHaveLength(2);
  });

  it('also after the sweep released the seats, but not when someone else took one', async () => {
    const o = await createPendingOrder(t.ctx, { channel: 'demo-b', seats: 2, ttlMs: 60_000 });
    t.clock.advance(120_000);
    // the sweep: order expired, seats back to available; then another cart takes the second seat
    await t.ctx.db.execute(sql`UPDATE orders SET status = 'expired' WHERE id = ${o.id}`);
    await t.ctx.db.execute(sql`UPDATE session_seats SET status = 'available', order_id = NULL, hold_expires_at = NULL WHERE order_id = ${o.id}`);
    const other = await createPendingOrder(t.ctx, { channel: 'demo-d', seats: 1 });
    await t.ctx.db.execute(sql`UPDATE session_seats SET status = 'available', order_id = NULL, hold_expires_at = NULL WHERE id = ${other.sessionSeatIds[0]!}`);
    await t.ctx.db.execute(sql`UPDATE session_seats SET status = 'held', order_id = ${other.id}, hold_expires_at = ${new Date(t.clock.now().getTime() + 60_000)} WHERE id = ${o.sessionSeatIds[1]!}`);
    await expect(closeOrder(t.ctx, { orderId: o.id, buyer, allowExpired: true })).rejects.toMatchObject({ code: 'seat_unavailable' });
    expect((await seatRows(t.ctx.db, o.sessionSeatIds)).map((s) => s.status)).toEqual(['available', 'held']);
    // once that hold is gone too, the late payment completes
    await t.ctx.db.execute(sql`UPDATE session_seats SET status = 'available', order_id = NULL, hold_expires_at = NULL WHERE id = ${o.sessionSeatIds[1]!}`);
    const r = await closeOrder(t.ctx, { orderId: o.id, buyer, allowExpired: true });
    expect(r.ticketCodes).toHaveLength(2);
    expect((await seatRows(t.ctx.db, o.sessionSeatIds)).map((s) => [s.status, Number(s.order_id)])).toEqual([['sold', o.id], ['sold', o.id]]);
  });
});
