import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from 'drizzle-orm';
import { bearer, buildTestApp, DEMO, serverTokenFor, tokenFor, type TestApp } from '../helpers.js';
import { buyer, confirmUrl, count, createPendingOrder, seatRows } from './fixtures.js';
import { queryRows } from '../../src/db/client.js';
import { onInventoryChanged } from '../../src/lib/inventory-events.js';
import { refundOrder } from '../../src/modules/checkout/refund.service.js';
import { createReservation } from '../../src/modules/checkout/reservation.service.js';
import { findChannelBySlug } from '../../src/modules/channels/channels.repo.js';
import { runCli } from '../../src/cli/index.js';

let t: TestApp;
const tokens: Record<string, string> = {};
beforeAll(async () => {
  t = await buildTestApp();
  tokens.b = await tokenFor(t.app, DEMO.b.slug, DEMO.b.key);
  tokens.d = await serverTokenFor(t.app, DEMO.d.slug, DEMO.d.serverKey);
}, 120_000); // building the app with the demo catalogue is slow on a busy machine
afterAll(() => t.close());

async function completed(channel: 'b' | 'd', seats = 2) {
  const o = await createPendingOrder(t.ctx, { channel: DEMO[channel].slug, seats });
  const res = await t.app.inject({ method: 'POST', url: confirmUrl(DEMO[channel].slug, o.token), headers: bearer(tokens[channel]!), payload: { ...buyer, amount: o.total / 100 } });
  expect(res.statusCode).toBe(200);
  return { ...o, urls: res.json().data.ticket_pdf_urls as string[] };
}

const local = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

describe('refundOrder', () => {
  it('releases the seats, voids the tickets and records a refund row with negative amounts', async () => {
    const o = await completed('b');
    const changed: number[][] = [];
    const stop = onInventoryChanged(t.ctx, (ids) => changed.push([...ids]));
    const r = await refundOrder(t.ctx, { reference: o.reference, reason: 'Customer request', actor: 'admin@demo' });
    stop();
    expect(r).toMatchObject({ refund_reference: `${o.reference}-R`, refunded_order_reference: o.reference, total_amount: -o.total / 100, released_seats: 2, voided_tickets: 2 });
    expect(changed).toEqual([[o.sessionId]]);
    expect((await seatRows(t.ctx.db, o.sessionSeatIds)).map((s) => [s.status, s.order_id])).toEqual([['available', null], ['available', null]]);
    expect(await count(t.ctx.db, sql`SELECT count(*) AS n FROM tickets WHERE order_id = ${o.id} AND status = 'void' AND voided_at IS NOT NULL`)).toBe(2);
    const [refund] = await queryRows<Record<string, unknown>>(
      t.ctx.db,
      sql`SELECT r.type, r.status, r.total_amount, r.base_amount, r.fee_amount, r.refunded_order_id, r.channel_id = o.channel_id AS same_channel,
            r.customer_id = o.customer_id AS same_customer, o.status AS original_status, rr.reason, rr.actor,
            (SELECT count(*) FROM order_items WHERE order_id = r.id)::int AS items
          FROM orders r JOIN orders o ON o.id = r.refunded_order_id JOIN order_refunds rr ON rr.refund_order_id = r.id
          WHERE r.id = ${r.refund_order_id}`,
    );
    expect(refund).toMatchObject({ type: 'refund', status: 'completed', total_amount: -o.total, same_channel: true, same_customer: true, original_status: 'completed', reason: 'Customer request', actor: 'admin@demo', items: 0 });
    expect(Number(refund!.refunded_order_id)).toBe(o.id);
    expect((refund!.base_amount as number) + (refund!.fee_amount as number)).toBe(-o.total);

    // the voided tickets' links now answer 410, the seats can be sold again
    const res = await t.app.inject({ url: local(o.urls[0]!), headers: { accept: 'application/json' } });
    expect(res.statusCode).toBe(410);
    expect(res.json()).toMatchObject({ status: 410, code: 'ticket_void' });
    // a person following the link reads a page in the order's language (D58), still 410
    const page = await t.app.inject({ url: local(o.urls[0]!), headers: { accept: 'text/html' } });
    expect(page.statusCode).toBe(410);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toMatch(/Esta entrada ya no es válida|This ticket is no longer valid/);
    const again = await createPendingOrder(t.ctx, { channel: 'demo-d', seats: 1 });
    expect(again.sessionSeatIds[0]).toBe(o.sessionSeatIds[0]);
  });

  it('refunding twice is 409 order_already_refunded', async () => {
    const o = await completed('d', 1);
    await refundOrder(t.ctx, { reference: o.reference, reason: 'x', actor: 'a' });
    await expect(refundOrder(t.ctx, { reference: o.reference, reason: 'x', actor: 'a' })).rejects.toMatchObject({ status: 409, code: 'order_already_refunded' });
    await expect(refundOrder(t.ctx, { reference: `${o.reference}-R`, reason: 'x', actor: 'a' })).rejects.toMatchObject({ status: 409 });
  });

  it('a pending order cannot be refunded; unknown and other channel references are 404', async () => {
    const pending = await createPendingOrder(t.ctx, { channel: 'demo-b' });
    await expect(refundOrder(t.ctx, { reference: pending.reference, reason: 'x', actor: 'a' })).rejects.toMatchObject({ status: 409, code: 'conflict' });
    await expect(refundOrder(t.ctx, { reference: 'TQ-NOPE', reason: 'x', actor: 'a' })).rejects.toMatchObject({ status: 404 });
    const ofB = await completed('b', 1);
    const d = (await findChannelBySlug(t.ctx.db, 'demo-d'))!;
    await expect(refundOrder(t.ctx, { channelId: d.id, reference: ofB.reference, reason: 'x', actor: 'a' })).rejects.toMatchObject({ status: 404 });
    await expect(refundOrder(t.ctx, { reference: ofB.reference, reason: ' ', actor: 'a' })).rejects.toMatchObject({ status: 422 });
  });

  it('a queued ticket e-mail of a refunded order is skipped, not sent', async () => {
    const { processEmailQueue } = await import('../../src/modules/tickets/email-queue.service.js');
    const o = await completed('b', 1);
    await refundOrder(t.ctx, { reference: o.reference, reason: 'x', actor: 'a' });
    const subjects: string[] = [];
    await processEmailQueue(t.ctx, { sender: { describe: 'memory', send: async (m) => void subjects.push(m.subject) } });
    // No ticket e-mail; the buyer's refund e-mail (D58) goes out instead.
    expect(subjects.filter((s) => s.includes(o.reference))).toEqual([`Devolución de tu pedido ${o.reference}`]);
    expect(await count(t.ctx.db, sql`SELECT count(*) AS n FROM email_outbox WHERE order_id = ${o.id} AND status = 'skipped'`)).toBe(1);
  });
});

describe('createReservation', () => {
  async function freeSeats(n: number) {
    return queryRows<{ id: number; rate_id: number; price: number }>(
      t.ctx.db,
      sql`SELECT ss.id, (SELECT id FROM rates r WHERE r.session_id = ss.session_id ORDER BY sort_order DESC LIMIT 1) AS rate_id,
            (SELECT price FROM rates r WHERE r.session_id = ss.session_id ORDER BY sort_order DESC LIMIT 1) AS price
          FROM session_seats ss WHERE ss.status = 'available' AND ss.seat_id IS NOT NULL
            AND ss.session_id = (SELECT id FROM sessions ORDER BY start_datetime, id LIMIT 1)
          ORDER BY ss.id DESC LIMIT ${n}`,
    );
  }

  it('issues a completed order of type reservation, priced at its rates plus fees, seats sold, tickets issued', async () => {
    const seats = await freeSeats(2);
    const r = await createReservation(t.ctx, {
      channelSlug: 'demo-b',
      items: seats.map((s) => ({ session_seat_id: s.id, rate_id: s.rate_id })),
      buyer: { name: 'Eva', surname: 'Ruiz', email: 'eva@example.com' },
    });
    // Reducida 22.50 + fixed fee 1.50 each
    expect(r.total_amount).toBe(48);
    expect(r.ticket_pdf_urls).toHaveLength(2);
    const [order] = await queryRows<Record<string, unknown>>(t.ctx.db, sql`SELECT type, status, total_amount, payment_method FROM orders WHERE id = ${r.order_id}`);
    expect(order).toEqual({ type: 'reservation', status: 'completed', total_amount: 4800, payment_method: null });
    expect((await seatRows(t.ctx.db, seats.map((s) => s.id))).every((s) => s.status === 'sold' && Number(s.order_id) === r.order_id)).toBe(true);
    expect(await count(t.ctx.db, sql`SELECT count(*) AS n FROM email_outbox WHERE order_id = ${r.order_id}`)).toBe(1);
    expect((await t.app.inject({ url: local(r.ticket_pdf_urls[0]!) })).statusCode).toBe(200);
    // The order page its ticket e-mail links opens, with each ticket and its wallet passes (D70).
    const page = await t.app.inject({ url: `/demo-b/es/orders/${r.order_token}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(r.reference);
    expect(page.body.match(/class="button wallet apple" href="[^"]+\/api\/tickets\/wallet\/apple\/\w{24}\.pkpass\?/g)).toHaveLength(2);
    expect(page.body.match(/class="button wallet google" href="[^"]+\/api\/tickets\/wallet\/google\/\w{24}\?/g)).toHaveLength(2);
    // Its checkout page is still no page: a reservation is never paid.
    expect((await t.app.inject({ url: `/demo-b/es/checkout?order_token=${r.order_token}` })).statusCode).toBe(404);
    // and it can be refunded
    const refund = await refundOrder(t.ctx, { reference: r.reference, reason: 'x', actor: 'a' });
    expect(refund.total_amount).toBe(-48);
  });

  it('claims nothing when one seat is taken (409) and checks the rate belongs to the seat (422)', async () => {
    const held = await createPendingOrder(t.ctx, { channel: 'demo-b' });
    const [free] = await freeSeats(1);
    await expect(
      createReservation(t.ctx, {
        channelSlug: 'demo-b',
        items: [{ session_seat_id: free!.id, rate_id: free!.rate_id }, { session_seat_id: held.sessionSeatIds[0]!, rate_id: free!.rate_id }],
        buyer,
      }),
    ).rejects.toMatchObject({ status: 409, code: 'seat_unavailable' });
    expect((await seatRows(t.ctx.db, [free!.id]))[0]!.status).toBe('available');
    const [otherSessionRate] = await queryRows<{ id: number }>(
      t.ctx.db,
      sql`SELECT r.id FROM rates r WHERE r.session_id <> (SELECT session_id FROM session_seats WHERE id = ${free!.id}) LIMIT 1`,
    );
    await expect(
      createReservation(t.ctx, { channelSlug: 'demo-b', items: [{ session_seat_id: free!.id, rate_id: otherSessionRate!.id }], buyer }),
    ).rejects.toMatchObject({ status: 422, fields: { 'items.0.rate_id': expect.any(Array) } });
    await expect(createReservation(t.ctx, { channelSlug: 'demo-b', items: [], buyer })).rejects.toMatchObject({ status: 422 });
    await expect(createReservation(t.ctx, { channelSlug: 'nope', items: [{ session_seat_id: free!.id, rate_id: free!.rate_id }], buyer })).rejects.toMatchObject({ status: 404 });
  });

  it('takes a seat whose cart hold has lapsed (D15)', async () => {
    const lapsed = await createPendingOrder(t.ctx, { channel: 'demo-d', ttlMs: 1000 });
    t.clock.advance(2000);
    const [rate] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM rates WHERE session_id = ${lapsed.sessionId} LIMIT 1`);
    const r = await createReservation(t.ctx, { channelSlug: 'demo-d', items: [{ session_seat_id: lapsed.sessionSeatIds[0]!, rate_id: rate!.id }], buyer });
    expect(r.ticket_pdf_urls).toHaveLength(1);
    // model D: no e-mail
    expect(await count(t.ctx.db, sql`SELECT count(*) AS n FROM email_outbox WHERE order_id = ${r.order_id}`)).toBe(0);
  });
});

describe('operator commands', () => {
  const run = async (name: string, positional: string[], flags: Record<string, string>) => {
    const out: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((s: string) => void out.push(s));
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const argv = [name, ...positional, ...Object.entries(flags).map(([flag, value]) => `--${flag}=${value}`)];
      const code = await runCli(argv, async () => ({ ctx: t.ctx, appliedNow: [], close: async () => {} }));
      return { code, out: out.join('\n') };
    } finally {
      log.mockRestore();
      err.mockRestore();
    }
  };

  it('orders:reserve then orders:refund', async () => {
    const [seat] = await queryRows<{ id: number; rate_id: number }>(
      t.ctx.db,
      sql`SELECT ss.id, (SELECT id FROM rates WHERE session_id = ss.session_id ORDER BY sort_order LIMIT 1) AS rate_id
          FROM session_seats ss WHERE status = 'available' AND seat_id IS NOT NULL ORDER BY id DESC LIMIT 1`,
    );
    const reserved = await run('orders:reserve', [], { channel: 'demo-b', items: `${seat!.id}:${seat!.rate_id}`, name: 'Op', surname: 'Erator', email: 'op@example.com' });
    expect(reserved.code).toBe(0);
    const { reference } = JSON.parse(reserved.out);
    const refunded = await run('orders:refund', [reference], { reason: 'test', channel: 'demo-b' });
    expect(refunded.code).toBe(0);
    expect(JSON.parse(refunded.out)).toMatchObject({ refunded_order_reference: reference, released_seats: 1 });
    expect((await run('orders:refund', [reference], {})).code).toBe(2);
  });
});
