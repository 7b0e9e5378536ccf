import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { bearer, buildTestApp, DEMO, serverTokenFor, tokenFor, type TestApp } from '../helpers.js';
import { buyer, confirmUrl } from '../checkout/fixtures.js';
import { apiAs } from '../admin/admin-helpers.js';
import { demoSession, itemsOf, orderUrl, ordersUrl, type DemoSession, type OrderJson } from './cart-helpers.js';

// D75: the price a cart shows is the price it pays. Each item's base price and fee are fixed when
// it is held (cart_hold_seats, src/db/functions); an organiser's later change of a rate or a fee
// applies only to items held afterwards; removing one item never reprices another; confirm and
// the report use the held amounts. A voucher the organiser disables, restricts or lets expire is
// removed at the cart's next change or at confirm, with 409 voucher_withdrawn and the new total.

let t: TestApp;
let d: string;
let server: string; // demo-d's server key: confirm (model D)
let s0: DemoSession;
let s1: DemoSession;
let organiserId: number;
let next = 0;
const seat = () => s0.seats[next++]!;

beforeAll(async () => {
  t = await buildTestApp();
  d = await tokenFor(t.app, DEMO.d.slug, DEMO.d.key);
  server = await serverTokenFor(t.app, DEMO.d.slug);
  [s0, s1] = [await demoSession(t, 0), await demoSession(t, 1)];
  const [ev] = await queryRows<{ organiser_id: number }>(t.ctx.db, sql`SELECT organiser_id FROM events WHERE id = ${s0.eventId}`);
  organiserId = ev!.organiser_id;
}, 180_000);
afterAll(() => t.close());

/** The organiser's catalogue as each test starts it: general at 20.00, one fixed fee of 1.00 on the event. */
beforeEach(async () => {
  await setRate(2000);
  await t.ctx.db.execute(sql`DELETE FROM fees WHERE event_id = ${s0.eventId} OR session_id IN (${s0.sessionId}, ${s1.sessionId})`);
  await t.ctx.db.execute(sql`INSERT INTO fees (event_id, session_id, name, kind, amount) VALUES (${s0.eventId}, NULL, 'Service', 'fixed', 100)`);
});

const setRate = (price: number) => t.ctx.db.execute(sql`UPDATE rates SET price = ${price} WHERE id = ${s0.rates.general}`);
const setFee = (amount: number) => t.ctx.db.execute(sql`UPDATE fees SET amount = ${amount} WHERE event_id = ${s0.eventId}`);

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const call = async (method: Method, url: string, payload?: unknown) => {
  const res = await t.app.inject({ method, url, headers: bearer(d), ...(payload === undefined ? {} : { payload: payload as object }) });
  return { status: res.statusCode, body: res.json() };
};
const create = async (seatId: number) => {
  const res = await call('POST', ordersUrl('demo-d'), { session_seat_id: seatId, rate_id: s0.rates.general });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data as OrderJson;
};
const add = (token: string, seatId: number) => call('POST', orderUrl('demo-d', token, '/items'), { session_seat_id: seatId, rate_id: s0.rates.general });
const read = async (token: string) => (await call('GET', orderUrl('demo-d', token))).body.data as OrderJson;
const bySeat = (order: OrderJson, seatId: number) => itemsOf(order).find((i) => i.session_seat_id === seatId)!;
const amounts = (i: { base_amount: number; discount_amount: number; fee_amount: number; total_amount: number }) => [i.base_amount, i.discount_amount, i.fee_amount, i.total_amount];

async function newVoucher(v: { kind?: 'percent' | 'fixed'; value?: number; validUntil?: Date | null; sessionId?: number | null } = {}) {
  const code = `HP${crypto.randomBytes(4).toString('hex').toUpperCase()}`;
  await t.ctx.db.execute(
    sql`INSERT INTO vouchers (organiser_id, code, kind, value, valid_until, session_id)
        VALUES (${organiserId}, ${code}, ${v.kind ?? 'percent'}, ${v.value ?? 1000}, ${v.validUntil ?? null}, ${v.sessionId ?? null})`,
  );
  return code;
}
const apply = (token: string, code: string) => call('POST', orderUrl('demo-d', token, '/apply-voucher'), { code });

/** The report's row of an order (D30: the held amounts), over the days around the clock's now. */
async function reportRow(reference: string) {
  const day = (offset: number) => new Date(t.clock.now().getTime() + offset * 86_400_000).toISOString().slice(0, 10);
  const res = await t.app.inject({ url: `/api/sales-channel/v1/demo-d/en/reports/sales?date_from=${day(-1)}&date_to=${day(1)}`, headers: bearer(server) });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json().data.data as Array<Record<string, unknown>>).find((r) => r.order_reference === reference);
}

describe('held amounts (D75)', () => {
  it('a raised rate reaches only items held afterwards; removing the second seat does not reprice the first', async () => {
    const [a, b] = [seat(), seat()];
    const order = await create(a.id);
    expect(amounts(bySeat(order, a.id))).toEqual([20, 0, 1, 21]);
    await setRate(3000);
    const res = await add(order.order_token, b.id);
    expect(res.status).toBe(200);
    const both = res.body.data as OrderJson;
    expect(amounts(bySeat(both, a.id))).toEqual([20, 0, 1, 21]);
    expect(amounts(bySeat(both, b.id))).toEqual([30, 0, 1, 31]);
    expect(both.total_amount).toBe(52);
    const removed = await call('DELETE', orderUrl('demo-d', order.order_token, `/items/${bySeat(both, b.id).id}`));
    expect(removed.status).toBe(200);
    expect(amounts(bySeat(removed.body.data, a.id))).toEqual([20, 0, 1, 21]);
    expect(removed.body.data.total_amount).toBe(21);
  });

  it('a raised, lowered or deleted fee reaches only items held afterwards, also with a voucher repricing the cart', async () => {
    const [a, b, c] = [seat(), seat(), seat()];
    const order = await create(a.id);
    await setFee(200);
    await add(order.order_token, b.id);
    expect((await apply(order.order_token, await newVoucher({ kind: 'percent', value: 1000 }))).status).toBe(200);
    await t.ctx.db.execute(sql`DELETE FROM fees WHERE event_id = ${s0.eventId}`);
    await setRate(5000);
    const res = await add(order.order_token, c.id); // a voucher cart: the hold runs in the change's transaction
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const o = res.body.data as OrderJson;
    expect(amounts(bySeat(o, a.id))).toEqual([20, -2, 1, 19]);
    expect(amounts(bySeat(o, b.id))).toEqual([20, -2, 2, 20]);
    expect(amounts(bySeat(o, c.id))).toEqual([50, -5, 0, 45]);
    expect(o.total_amount).toBe(84);
  });

  it('a change of rate holds the new rate at its price now, and only for the items changed', async () => {
    const [a, b] = [seat(), seat()];
    const order = await create(a.id);
    await add(order.order_token, b.id);
    await t.ctx.db.execute(sql`UPDATE rates SET price = 1234 WHERE id = ${s0.rates.reduced}`);
    await setRate(9900);
    const itemB = bySeat(await read(order.order_token), b.id);
    const res = await call('PUT', orderUrl('demo-d', order.order_token, '/items/change-rate'), { item_ids: [itemB.id], rate_id: s0.rates.reduced });
    expect(res.status).toBe(200);
    expect(amounts(bySeat(res.body.data, a.id))).toEqual([20, 0, 1, 21]);
    expect(amounts(bySeat(res.body.data, b.id))).toEqual([12.34, 0, 1, 13.34]);
    await t.ctx.db.execute(sql`UPDATE rates SET price = ${s0.prices.reduced} WHERE id = ${s0.rates.reduced}`);
  });

  it('confirm and the report use the held amounts, whatever the organiser changed since', async () => {
    const [a, b] = [seat(), seat()];
    const order = await create(a.id);
    await setRate(2500);
    await setFee(300);
    const both = (await add(order.order_token, b.id)).body.data as OrderJson;
    expect(both.total_amount).toBe(21 + 28);
    await setRate(9000);
    await setFee(900);
    const res = await t.app.inject({ method: 'POST', url: confirmUrl('demo-d', order.order_token), headers: bearer(server), payload: { ...buyer, amount: 49 } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ status: 'completed', base_amount: 45, fee_amount: 4, total_amount: 49 });
    expect(itemsOf(res.json().data).map(amounts)).toEqual([
      [20, 0, 1, 21],
      [25, 0, 3, 28],
    ]);
    expect(await reportRow(order.reference)).toMatchObject({ base_amount: 45, discount_amount: 0, fee_amount: 4, total_amount: 49 });
  });

  it('a sector (zone) add holds its fee at hold time as well', async () => {
    const order = await create(seat().id);
    await setFee(250);
    const res = await call('POST', orderUrl('demo-d', order.order_token, '/items/sector'), { sector_id: s0.zone.sectorId, rate_id: s0.rates.general, quantity: 1 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await setFee(999);
    await setRate(7777);
    const o = await read(order.order_token);
    expect(itemsOf(o).map(amounts)).toEqual([
      [20, 0, 1, 21],
      [20, 0, 2.5, 22.5],
    ]);
    // A later change (a voucher reprices the cart) keeps both items' held base and fee.
    const applied = await apply(order.order_token, await newVoucher({ kind: 'fixed', value: 400 }));
    expect(applied.status).toBe(200);
    expect(itemsOf(applied.body.data).map(amounts)).toEqual([
      [20, -2, 1, 19],
      [20, -2, 2.5, 20.5],
    ]);
  });
});

describe('withdrawn vouchers (D75)', () => {
  /** A cart of one seat with a 10 % voucher: 20 - 2 + 1 = 19. */
  async function cartWithVoucher(v: Parameters<typeof newVoucher>[0] = {}) {
    const order = await create(seat().id);
    const code = await newVoucher(v);
    const res = await apply(order.order_token, code);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.total_amount).toBe(19);
    return { token: order.order_token, code };
  }

  function expectWithdrawn(res: { status: number; body: Record<string, unknown> }, code: string, total: number) {
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ status: 409, success: false, code: 'voucher_withdrawn' });
    expect(res.body.message).toBe(`Voucher code ${code} was withdrawn by the organiser and removed from the order; the new total is ${total.toFixed(2)}`);
    expect(res.body.data).toMatchObject({ total_amount: total, discount_amount: 0, vouchers: [] });
  }

  it('disabled: the next add answers 409 voucher_withdrawn with the new total, holds nothing, and the voucher is gone', async () => {
    const { token, code } = await cartWithVoucher();
    await t.ctx.db.execute(sql`UPDATE vouchers SET active = false WHERE code = ${code}`);
    const b = seat();
    expectWithdrawn(await add(token, b.id), code, 21);
    const after = await read(token);
    expect(after).toMatchObject({ total_amount: 21, discount_amount: 0, vouchers: [] });
    expect(itemsOf(after)).toHaveLength(1);
    // The change can be sent again, at the price the buyer now sees.
    expect((await add(token, b.id)).status).toBe(200);
    // A disabled code cannot be applied again.
    expect((await apply(token, code)).body).toMatchObject({ code: 'voucher_invalid' });
  });

  it('restricted away from the cart: the next removal answers 409 and removes nothing else', async () => {
    const { token, code } = await cartWithVoucher();
    await add(token, seat().id);
    await t.ctx.db.execute(sql`UPDATE vouchers SET session_id = ${s1.sessionId} WHERE code = ${code}`);
    const item = itemsOf(await read(token))[1]!;
    expectWithdrawn(await call('DELETE', orderUrl('demo-d', token, `/items/${item.id}`)), code, 42);
    expect(itemsOf(await read(token))).toHaveLength(2);
  });

  it('expired (injected clock): confirm answers 409 voucher_withdrawn, then confirms at the new total', async () => {
    const { token, code } = await cartWithVoucher({ validUntil: new Date(t.clock.now().getTime() + 5 * 60_000) });
    t.clock.advance(6 * 60_000);
    const confirm = (amount: number) =>
      t.app.inject({ method: 'POST', url: confirmUrl('demo-d', token, 'confirm', 'en'), headers: bearer(server), payload: { ...buyer, amount } });
    const first = await confirm(19);
    expectWithdrawn({ status: first.statusCode, body: first.json() }, code, 21);
    const second = await confirm(21);
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json().data).toMatchObject({ status: 'completed', total_amount: 21, vouchers: [] });
  });

  it('answers in Spanish to a Spanish-speaking client (Accept-Language)', async () => {
    const { token, code } = await cartWithVoucher();
    await t.ctx.db.execute(sql`UPDATE vouchers SET active = false WHERE code = ${code}`);
    const res = await t.app.inject({ method: 'POST', url: orderUrl('demo-d', token, '/items', 'es'), headers: { ...bearer(d), 'accept-language': 'es-ES' }, payload: { session_seat_id: seat().id, rate_id: s0.rates.general } });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'voucher_withdrawn', data: { total_amount: 21 } });
    expect(res.json().message).toContain(`código de descuento ${code}`);
  });

  it('a voucher still valid keeps applying; removing the only item it covered drops it without a 409', async () => {
    const order = await create(seat().id);
    const other = (await call('POST', orderUrl('demo-d', order.order_token, '/items'), { session_seat_id: s1.seats[0]!.id, rate_id: s1.rates.general })).body.data as OrderJson;
    const code = await newVoucher({ sessionId: s1.sessionId });
    expect((await apply(order.order_token, code)).status).toBe(200);
    const covered = bySeat(other, s1.seats[0]!.id);
    const res = await call('DELETE', orderUrl('demo-d', order.order_token, `/items/${covered.id}`));
    expect(res.status).toBe(200);
    expect(res.body.data.vouchers).toEqual([]);
    expect((await add(order.order_token, seat().id)).status).toBe(200);
  });

  it('the admin API disables a voucher (active: false): a cart holding it loses it at its next change', async () => {
    const { token, code } = await cartWithVoucher();
    const admin = await apiAs(t, 'held-prices@taquilla.test');
    const [v] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM vouchers WHERE code = ${code}`);
    expect((await admin.get(`/vouchers/${v!.id}`)).body.data).toMatchObject({ code, active: true });
    const patched = await admin.patch(`/vouchers/${v!.id}`, { active: false });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.data).toMatchObject({ code, active: false });
    expectWithdrawn(await add(token, seat().id), code, 21);
  });
});
