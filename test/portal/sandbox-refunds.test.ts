import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { refundPayment } from '../../src/modules/portal/payments/payments.refunds.js';
import { buildTestApp, DEMO, isPostgres, type TestApp } from '../helpers.js';
import { createHeldOrder, orderStatus, paidByCard } from './fixtures.js';

// The sandbox provider's refunds (D58): its own books, its card page, once per key.

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ poolSize: 12 });
}, 120_000);
afterAll(() => t.close());

/** A model A order paid on the sandbox's card page. */
async function paidOrder(seats = 1) {
  const { paymentId, ...order } = await paidByCard(t, seats, { buyer: { name: 'Ana', surname: 'García', email: 'ana@example.com' }, card: '4242 4242 4242 4242' });
  expect(await orderStatus(t, order.id)).toBe('completed');
  return { order, paymentId };
}

const books = (paymentId: string) =>
  queryRows<{ id: string; amount: number; idempotency_key: string }>(
    t.ctx.db,
    sql`SELECT id, amount, idempotency_key FROM sandbox_refunds WHERE payment_id = ${paymentId} ORDER BY created_at, id`,
  );
const recorded = (paymentId: string) =>
  queryRows<{ amount: number; provider_refund_ref: string }>(t.ctx.db, sql`SELECT amount, provider_refund_ref FROM payment_refunds WHERE payment_id = ${paymentId}`);

describe('sandbox refunds', () => {
  it('records its own refund, which its card page shows, and ours with its reference', async () => {
    const { order, paymentId } = await paidOrder(2);
    const done = await refundPayment(t.ctx, { paymentId, amount: order.total / 2, reason: 'one seat back', key: `k1-${paymentId}` });
    expect(done).toEqual({ refundRef: expect.stringMatching(/^re_sbx_[0-9a-f]{24}$/), alreadyDone: false });
    expect(await books(paymentId)).toEqual([{ id: done.refundRef, amount: order.total / 2, idempotency_key: `k1-${paymentId}` }]);
    expect(await recorded(paymentId)).toEqual([{ amount: order.total / 2, provider_refund_ref: done.refundRef }]);
    const page = await t.app.inject({ method: 'GET', url: `/sandbox/pay/${paymentId}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Refunds of this payment');
    expect(page.body).toContain(done.refundRef);
    expect(page.body).toContain('one seat back');
  });

  it('refuses more than what is left of the capture and records nothing', async () => {
    const { order, paymentId } = await paidOrder(1);
    await refundPayment(t.ctx, { paymentId, amount: order.total, reason: 'all', key: `a-${paymentId}` });
    // Straight to the provider (our own check would stop it first): the sandbox says no.
    const { providerNamed } = await import('../../src/modules/portal/payments/payments.providers.js');
    const answer = await providerNamed(t.ctx, 'sandbox').refund({
      paymentId,
      providerRef: null,
      transactionRef: null,
      amount: 1,
      currency: 'EUR',
      reason: 'again',
      idempotencyKey: `b-${paymentId}`,
    });
    expect(answer).toEqual({ ok: false, reason: 'The refund exceeds what is left of the payment' });
    expect(await books(paymentId)).toHaveLength(1);
  });

  it('a payment that was never captured is refused and nothing is recorded', async () => {
    const order = await createHeldOrder(t, DEMO.a.slug);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/portal/${DEMO.a.slug}/en/checkout`,
      payload: { order_token: order.token, name: 'Ana', surname: 'García', email: 'ana@example.com' },
    });
    const paymentId = res.json().data.payment_id as string;
    await expect(refundPayment(t.ctx, { paymentId, amount: 100, reason: 'r', key: `n-${paymentId}` })).rejects.toMatchObject({ code: 'conflict' });
    expect(await recorded(paymentId)).toEqual([]);
  });

  it.skipIf(!isPostgres)('parallel calls with one key refund once (PostgreSQL)', async () => {
    const { order, paymentId } = await paidOrder(1);
    const results = await Promise.all(
      Array.from({ length: 10 }, () => refundPayment(t.ctx, { paymentId, amount: order.total, reason: 'parallel', key: `p-${paymentId}` })),
    );
    expect(results.filter((r) => !r.alreadyDone)).toHaveLength(1);
    expect(new Set(results.map((r) => r.refundRef)).size).toBe(1);
    expect(await books(paymentId)).toHaveLength(1);
    expect(await recorded(paymentId)).toHaveLength(1);
  });
});
