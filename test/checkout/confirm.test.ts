import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { bearer, buildTestApp, DEMO, serverTokenFor, tokenFor, type TestApp } from '../helpers.js';
import { buyer, confirmUrl, count, createPendingOrder, seatRows, type PendingOrderOptions } from './fixtures.js';
import { onInventoryChanged } from '../../src/lib/inventory-events.js';
import { queryRows } from '../../src/db/client.js';
import { createOrder, demoSession, heldRows, orderUrl } from '../orders/cart-helpers.js';

let t: TestApp;
const tokens: Record<string, string> = {};
beforeAll(async () => {
  t = await buildTestApp();
  // A and B confirm with their widget key's token (SPEC compatibility); C and D with the server key (D40).
  for (const c of ['a', 'b'] as const) tokens[c] = await tokenFor(t.app, DEMO[c].slug, DEMO[c].key);
  for (const c of ['c', 'd'] as const) tokens[c] = await serverTokenFor(t.app, DEMO[c].slug, DEMO[c].serverKey);
}, 120_000); // building the app with the demo catalogue is slow on a busy machine
afterAll(() => t.close());

const order = (channel: 'b' | 'd' | 'a' | 'c', opts: Partial<PendingOrderOptions> = {}) =>
  createPendingOrder(t.ctx, { channel: DEMO[channel].slug, ...opts });

function confirm(channel: 'a' | 'b' | 'c' | 'd', token: string, payload: object, suffix = 'confirm') {
  return t.app.inject({ method: 'POST', url: confirmUrl(DEMO[channel].slug, token, suffix), headers: bearer(tokens[channel]!), payload });
}

const body = (amountMinor: number, extra: object = {}) => ({ ...buyer, amount: amountMinor / 100, transaction_id: 'tx-1', payment_method: 'card', ...extra });

describe('confirm: success', () => {
  it('an order with more items than the cart limit now allows still closes, one ticket per item', async () => {
    // close_order is handed maxItemsPerOrder fresh codes and asks for more when the order has more
    // items (a limit lowered after the cart was filled): one more round trip, nothing written twice.
    const o = await order('b', { seats: 3 });
    const config = t.ctx.config;
    (t.ctx as { config: typeof config }).config = { ...config, maxItemsPerOrder: 1 };
    try {
      const res = await confirm('b', o.token, body(o.total));
      expect(res.statusCode).toBe(200);
      const codes = new Set(res.json().data.ticket_pdf_urls as string[]);
      expect(codes.size).toBe(3);
    } finally {
      (t.ctx as { config: typeof config }).config = config;
    }
    expect(await count(t.ctx.db, sql`SELECT count(*) AS n FROM tickets WHERE order_id = ${o.id}`)).toBe(3);
  });

  it('model B: sells the seats, writes the buyer, issues tickets, completes the order, queues the e-mail', async () => {
    const o = await order('b', { seats: 2 });
    const changed: number[][] = [];
    const stop = onInventoryChanged(t.ctx, (ids) => changed.push([...ids]));
    const res = await confirm('b', o.token, body(o.total));
    stop();
    expect(res.statusCode).toBe(200);
    const json = res.json();
    expect(json).toMatchObject({ status: 200, success: true, message: 'Order confirmed' });
    expect(json.data).toMatchObject({ order_token: o.token, reference: o.reference, status: 'completed', total_amount: o.total / 100, expires_at: null, currency: 'EUR' });
    expect(json.data.events[0].sessions[0].items.map((i: { session_seat_id: number }) => i.session_seat_id)).toEqual(o.sessionSeatIds);
    expect(json.data.ticket_pdf_urls).toHaveLength(2);
    for (const url of json.data.ticket_pdf_urls) {
      expect(url).toMatch(/^http:\/\/taquilla\.test\/api\/tickets\/[A-Za-z0-9]{24}\.pdf\?expires=\d+&signature=[A-Za-z0-9_-]+$/);
    }
    expect(new Set(json.data.ticket_pdf_urls).size).toBe(2);

    const seats = await seatRows(t.ctx.db, o.sessionSeatIds);
    expect(seats.map((s) => [s.status, Number(s.order_id), s.hold_expires_at])).toEqual([['sold', o.id, null], ['sold', o.id, null]]);
    expect(await count(t.ctx.db, sql`SELECT count(*) AS n FROM tickets WHERE order_id = ${o.id} AND status = 'valid'`)).toBe(2);
    const [row] = await queryRows(t.ctx.db, sql`
      SELECT o.status, o.payment_method, o.transaction_id, o.completed_at, c.name, c.surname, c.email, c.phone
      FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.id = ${o.id}`);
    expect(row).toMatchObject({ status: 'completed', payment_method: 'card', transaction_id: 'tx-1', name: 'Ana', surname: 'García Núñez', email: 'ana@example.com', phone: '+34 600 000 000' });
    expect(await count(t.ctx.db, sql`SELECT count(*) AS n FROM email_outbox WHERE order_id = ${o.id} AND status = 'queued' AND recipient = 'ana@example.com'`)).toBe(1);
    expect(changed).toEqual([[o.sessionId]]);
  });

  it('model D: tickets as signed links, no e-mail queued (D24)', async () => {
    const o = await order('d');
    const res = await confirm('d', o.token, body(o.total));
    expect(res.statusCode).toBe(200);
    expect(res.json().data.ticket_pdf_urls).toHaveLength(1);
    expect(await count(t.ctx.db, sql`SELECT count(*) AS n FROM email_outbox WHERE order_id = ${o.id}`)).toBe(0);
  });

  it("carries each ticket's wallet links (D70) in item order, under the order page's rule", async () => {
    const o = await order('d', { seats: 2 });
    const res = await confirm('d', o.token, body(o.total));
    expect(res.statusCode).toBe(200);
    const data = res.json().data as { events: { sessions: { items: { id: number }[] }[] }[]; ticket_pdf_urls: string[]; ticket_wallet_urls: { item_id: number; apple: string; google: string }[] };
    const itemIds = data.events.flatMap((e) => e.sessions.flatMap((s) => s.items.map((i) => i.id))).sort((a, b) => a - b);
    expect(data.ticket_wallet_urls.map((w) => w.item_id)).toEqual(itemIds);
    const code = (url: string) => /\/api\/tickets\/(?:wallet\/(?:apple|google)\/)?([A-Za-z0-9]{24})/.exec(url)![1];
    // The same tickets, in the same order, as ticket_pdf_urls.
    expect(data.ticket_wallet_urls.map((w) => code(w.apple))).toEqual(data.ticket_pdf_urls.map(code));
    expect(data.ticket_wallet_urls.map((w) => code(w.google))).toEqual(data.ticket_pdf_urls.map(code));
    const local = (url: string) => `${new URL(url).pathname}${new URL(url).search}`;
    const pass = await t.app.inject({ url: local(data.ticket_wallet_urls[0]!.apple) });
    expect(pass.statusCode).toBe(200);
    expect(pass.headers['content-type']).toBe('application/vnd.apple.pkpass');
    const save = await t.app.inject({ url: local(data.ticket_wallet_urls[1]!.google) });
    expect(save.statusCode).toBe(302);
    expect(save.headers.location).toMatch(/^https:\/\/pay\.google\.com\/gp\/v\/save\//);
    // Only a valid ticket offers a pass, as on the order page: a voided one answers nulls for its item.
    const [voided, kept] = data.ticket_wallet_urls;
    await t.ctx.db.execute(sql`UPDATE tickets SET status = 'void', voided_at = now() WHERE order_item_id = ${voided!.item_id}`);
    const again = await confirm('d', o.token, body(o.total));
    expect(again.json().data.ticket_wallet_urls).toEqual([
      { item_id: voided!.item_id, apple: null, google: null },
      { item_id: kept!.item_id, apple: expect.stringContaining('/api/tickets/wallet/apple/'), google: expect.stringContaining('/api/tickets/wallet/google/') },
    ]);

    // A deployment that offers only Google Wallet (production with GOOGLE_WALLET_* alone): no Apple link; neither wallet: no link at all.
    const config = t.ctx.config;
    try {
      (t.ctx as { config: typeof config }).config = { ...config, wallet: { ...config.wallet, apple: null } };
      const one = await order('d');
      const googleOnly = await confirm('d', one.token, body(one.total));
      expect(googleOnly.json().data.ticket_wallet_urls).toEqual([{ item_id: expect.any(Number), apple: null, google: expect.stringContaining('/api/tickets/wallet/google/') }]);
      (t.ctx as { config: typeof config }).config = { ...config, wallet: { ...config.wallet, apple: null, google: null } };
      const none = await order('d');
      const neither = await confirm('d', none.token, body(none.total));
      expect(neither.statusCode).toBe(200);
      // Without a wallet the tickets are not read: one entry per item of the view, in item order.
      const items = (neither.json().data.events as { sessions: { items: { id: number }[] }[] }[]).flatMap((e) => e.sessions.flatMap((x) => x.items));
      expect(items.length).toBe(1);
      expect(neither.json().data.ticket_wallet_urls).toEqual(items.map((i) => ({ item_id: i.id, apple: null, google: null })));
    } finally {
      (t.ctx as { config: typeof config }).config = config;
    }
  });

  it('the alias /confirm-payment behaves identically (D19)', async () => {
    const viaConfirm = await order('d', { seats: 2 });
    const viaAlias = await order('d', { seats: 2 });
    const canonical = await confirm('d', viaConfirm.token, body(viaConfirm.total));
    const res = await confirm('d', viaAlias.token, body(viaAlias.total), 'confirm-payment');
    expect(res.statusCode).toBe(200);
    // The same envelope and the same fields as /confirm, for this order.
    const { data, ...envelope } = res.json();
    const { data: canonicalData, ...canonicalEnvelope } = canonical.json();
    expect(envelope).toEqual(canonicalEnvelope);
    expect(Object.keys(data).sort()).toEqual(Object.keys(canonicalData).sort());
    expect(data).toMatchObject({ order_token: viaAlias.token, reference: viaAlias.reference, status: 'completed', total_amount: viaAlias.total / 100 });
    expect(data.ticket_pdf_urls).toHaveLength(2);
    expect((await seatRows(t.ctx.db, viaAlias.sessionSeatIds)).map((s) => [s.status, Number(s.order_id)])).toEqual([['sold', viaAlias.id], ['sold', viaAlias.id]]);
    expect(await count(t.ctx.db, sql`SELECT count(*) AS n FROM tickets WHERE order_id = ${viaAlias.id} AND status = 'valid'`)).toBe(2);
    // Repeated through the alias: the first result (D22).
    const again = await confirm('d', viaAlias.token, body(viaAlias.total), 'confirm-payment');
    expect(again.statusCode).toBe(200);
    expect(again.json().message).toBe('Order already confirmed');
    const paths = (r: typeof res) => r.json().data.ticket_pdf_urls.map((u: string) => new URL(u).pathname);
    expect(paths(again)).toEqual(paths(res));
    // And the same refusal for an order it cannot close.
    const unknown = '00000000-0000-4000-8000-000000000000';
    const refused = await confirm('d', unknown, body(100), 'confirm-payment');
    expect(refused.statusCode).toBe(404);
    expect(refused.json()).toEqual((await confirm('d', unknown, body(100))).json());
  });

  it('transaction_id, payment_method and phone are optional', async () => {
    const o = await order('b');
    const res = await confirm('b', o.token, { name: 'Luis', surname: 'Pérez', email: 'luis@example.org', amount: o.total / 100 });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.status).toBe('completed');
    const [row] = await queryRows(t.ctx.db, sql`
      SELECT o.status, o.payment_method, o.transaction_id, c.name, c.surname, c.email, c.phone
      FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.id = ${o.id}`);
    expect(row).toEqual({ status: 'completed', payment_method: null, transaction_id: null, name: 'Luis', surname: 'Pérez', email: 'luis@example.org', phone: null });
  });

  it('an unnumbered zone item is confirmed like a seat', async () => {
    const o = await order('d', { zone: true, seats: 3 });
    const res = await confirm('d', o.token, body(o.total));
    expect(res.statusCode).toBe(200);
    expect(res.json().data.ticket_pdf_urls).toHaveLength(3);
  });
});

describe('confirm after a cart built through the API', () => {
  it('closes the order the cart module built (seats, zone places, voucher)', async () => {
    const s = await demoSession(t, 1);
    const created = await createOrder(t.app, tokens.d!, 'demo-d', { session_seat_id: s.seats[10]!.id, rate_id: s.rates.general });
    const add = await t.app.inject({
      method: 'POST',
      url: orderUrl('demo-d', created.order_token, '/items/sector'),
      headers: bearer(tokens.d!),
      payload: { sector_id: s.zone.sectorId, rate_id: s.rates.reduced, quantity: 2 },
    });
    expect(add.statusCode).toBeLessThan(300);
    const voucher = await t.app.inject({ method: 'POST', url: orderUrl('demo-d', created.order_token, '/apply-voucher'), headers: bearer(tokens.d!), payload: { code: 'DEMO10' } });
    expect(voucher.statusCode).toBeLessThan(300);
    const cart = (await t.app.inject({ url: orderUrl('demo-d', created.order_token), headers: bearer(tokens.d!) })).json().data;
    const res = await t.app.inject({
      method: 'POST',
      url: confirmUrl('demo-d', created.order_token, 'confirm', 'en'),
      headers: bearer(tokens.d!),
      payload: { ...buyer, amount: cart.total_amount },
    });
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({ order_token: created.order_token, reference: created.reference, status: 'completed', total_amount: cart.total_amount });
    expect(data.vouchers).toEqual(cart.vouchers);
    expect(data.ticket_pdf_urls).toHaveLength(3);
    expect(await heldRows(t, created.order_token)).toEqual(expect.arrayContaining([expect.objectContaining({ status: 'sold' })]));
    expect((await heldRows(t, created.order_token)).every((r) => r.status === 'sold')).toBe(true);
    // the cart module now sees a completed order: it cannot be deleted (D16)
    const del = await t.app.inject({ method: 'DELETE', url: orderUrl('demo-d', created.order_token), headers: bearer(tokens.d!) });
    expect(del.statusCode).toBe(409);
    expect(del.json()).toEqual({ status: 409, success: false, code: 'order_completed', message: 'A completed order cannot be deleted' });
  });
});

describe('confirm: idempotency (D22)', () => {
  it('repeating confirm returns 200 with the same tickets, runs nothing again', async () => {
    const o = await order('b', { seats: 2 });
    const first = await confirm('b', o.token, body(o.total));
    t.clock.advance(60_000);
    // "any" condition (SPEC States): even a different body answers 200 with the first result.
    const again = await confirm('b', o.token, body(o.total + 100, { name: 'Otro', email: 'otro@example.com' }));
    expect(again.statusCode).toBe(200);
    expect(again.json().message).toBe('Order already confirmed');
    const codes = (r: typeof first) => r.json().data.ticket_pdf_urls.map((u: string) => new URL(u).pathname);
    expect(codes(again)).toEqual(codes(first));
    // freshly signed: a later expiry
    const expiry = (r: typeof first) => Number(new URL(r.json().data.ticket_pdf_urls[0]).searchParams.get('expires'));
    expect(expiry(again)).toBe(expiry(first) + 60);
    expect(await count(t.ctx.db, sql`SELECT count(*) AS n FROM tickets WHERE order_id = ${o.id}`)).toBe(2);
    expect(await count(t.ctx.db, sql`SELECT count(*) AS n FROM email_outbox WHERE order_id = ${o.id}`)).toBe(1);
    const [c] = await queryRows<{ name: string }>(t.ctx.db, sql`SELECT c.name FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.id = ${o.id}`);
    expect(c!.name).toBe('Ana');
  });
});

describe('confirm: amounts in minor units (D11, D20)', () => {
  /** Confirms a new demo-d order (made with `opts`) with the buyer's payment of `amount`. */
  async function pay(amount: number, opts: Partial<PendingOrderOptions> = {}) {
    const o = await order('d', opts);
    return { o, res: await confirm('d', o.token, body(0, { amount })) };
  }

  it.each([
    [115, 1.15],
    [29, 0.29],
    [435, 4.35],
    [1020, 10.2],
    [100001, 1000.01],
    [0, 0],
  ])('total %i minor units accepts amount %d', async (minor, amount) => {
    const { o, res } = await pay(amount, { basePrice: minor, fee: 0 });
    expect(o.total).toBe(minor);
    expect(res.statusCode).toBe(200);
  });

  it.each([
    [3150, 31.49],
    [3150, 31.51],
    [3150, 3150],
    [3150, 315],
  ])('total %i minor units rejects amount %d with 422 amount_mismatch', async (minor, amount) => {
    const { o, res } = await pay(amount, { basePrice: minor, fee: 0 });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ status: 422, success: false, code: 'amount_mismatch', errors: { amount: ['must equal the order total 31.50'] } });
    const seats = await seatRows(t.ctx.db, o.sessionSeatIds);
    expect(seats[0]!.status).toBe('held');
  });

  it.each([31.505, 1.005, 0.001])('amount %d with more than two decimals is 422 validation_failed', async (amount) => {
    const { res } = await pay(amount);
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'validation_failed', message: 'The given data was invalid', errors: { amount: expect.any(Array) } });
  });

  it('a negative amount is 422', async () => {
    const { res } = await pay(-1);
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ status: 422, success: false, code: 'validation_failed', message: 'The given data was invalid', errors: { amount: expect.any(Array) } });
    expect(Object.keys(res.json().errors)).toEqual(['amount']);
  });
});

describe('confirm: every 4xx', () => {
  it('401 without a token', async () => {
    const o = await order('d');
    const res = await t.app.inject({ method: 'POST', url: confirmUrl('demo-d', o.token), payload: body(o.total) });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ status: 401, success: false, code: 'unauthenticated', message: 'A bearer token is required (Authorization: Bearer <token>)' });
    expect((await seatRows(t.ctx.db, o.sessionSeatIds))[0]!.status).toBe('held');
  });

  it.each(['a', 'c'] as const)('model %s gets 403 forbidden_for_integration_mode', async (c) => {
    const o = await order(c);
    const res = await confirm(c, o.token, body(o.total));
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ status: 403, success: false, code: 'forbidden_for_integration_mode' });
    expect((await seatRows(t.ctx.db, o.sessionSeatIds))[0]!.status).toBe('held');
  });

  it("403 Unauthorized sales channel for another channel's slug in the path", async () => {
    const o = await order('b');
    const res = await t.app.inject({ method: 'POST', url: confirmUrl('demo-b', o.token), headers: bearer(tokens.d!), payload: body(o.total) });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ status: 403, success: false, message: 'Unauthorized sales channel', code: 'unauthorized_sales_channel' });
  });

  it("404 for an unknown order and for another channel's order (D5)", async () => {
    const unknown = await confirm('d', '00000000-0000-4000-8000-000000000000', body(100));
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 'not_found', message: 'Order not found' });
    const ofB = await order('b');
    const res = await confirm('d', ofB.token, body(ofB.total));
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual(unknown.json());
    expect((await seatRows(t.ctx.db, ofB.sessionSeatIds))[0]!.status).toBe('held');
  });

  /** A demo-d order of a 60 s cart, confirmed `left` ms before the cart expires (injected clock). */
  async function confirmWithTimeLeft(left: number) {
    const ttlMs = 60_000;
    const o = await order('d', { ttlMs });
    t.clock.advance(ttlMs - left);
    return { o, res: await confirm('d', o.token, body(o.total)) };
  }

  it('409 order_expired once expires_at has passed (injected clock)', async () => {
    const { o, res } = await confirmWithTimeLeft(0);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ status: 409, success: false, code: 'order_expired', message: 'The order has expired' });
    expect((await seatRows(t.ctx.db, o.sessionSeatIds))[0]!.status).toBe('held');
  });

  it('a second before expiry it still closes', async () => {
    const { o, res } = await confirmWithTimeLeft(1_000);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ message: 'Order confirmed', data: { order_token: o.token, status: 'completed', expires_at: null } });
    expect((await seatRows(t.ctx.db, o.sessionSeatIds)).map((s) => [s.status, s.hold_expires_at])).toEqual([['sold', null]]);
    expect(await count(t.ctx.db, sql`SELECT count(*) AS n FROM tickets WHERE order_id = ${o.id} AND status = 'valid'`)).toBe(1);
  });

  it('409 for a cancelled order', async () => {
    const o = await order('d', { state: 'cancelled' });
    const res = await confirm('d', o.token, body(o.total));
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ status: 409, success: false, code: 'order_not_modifiable', message: 'The order was cancelled and cannot be confirmed' });
  });

  it('409 order_empty for an order without items', async () => {
    const o = await order('d', { state: 'empty' });
    const res = await confirm('d', o.token, body(0));
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'order_empty', message: 'The order has no items' });
  });

  it('422 with field errors when name, surname or email are missing or malformed', async () => {
    const o = await order('d');
    const missing = await confirm('d', o.token, { amount: o.total / 100 });
    expect(missing.statusCode).toBe(422);
    expect(missing.json()).toMatchObject({ code: 'validation_failed', message: 'The given data was invalid' });
    expect(Object.keys(missing.json().errors).sort()).toEqual(['email', 'name', 'surname']);
    const bad = await confirm('d', o.token, { ...buyer, name: '  ', email: 'not-an-email', amount: o.total / 100 });
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toMatchObject({ status: 422, success: false, code: 'validation_failed', message: 'The given data was invalid' });
    expect(Object.keys(bad.json().errors).sort()).toEqual(['email', 'name']);
    const noAmount = await confirm('d', o.token, { ...buyer });
    expect(noAmount.statusCode).toBe(422);
    expect(noAmount.json()).toMatchObject({ status: 422, success: false, code: 'validation_failed', message: 'The given data was invalid' });
    expect(Object.keys(noAmount.json().errors)).toEqual(['amount']);
    expect((await seatRows(t.ctx.db, o.sessionSeatIds))[0]!.status).toBe('held');
  });

  it('422 for an invalid order token in the path, 400 for a body that is not JSON', async () => {
    const res = await confirm('d', 'bad token!', body(100));
    expect([404, 422]).toContain(res.statusCode);
    expect(res.json()).toMatchObject({ status: res.statusCode, success: false, code: res.statusCode === 404 ? 'not_found' : 'validation_failed' });
    const notJson = await t.app.inject({
      method: 'POST',
      url: confirmUrl('demo-d', 'x'),
      headers: { ...bearer(tokens.d!), 'content-type': 'application/json' },
      payload: '{"amount":',
    });
    expect(notJson.statusCode).toBe(400);
    expect(notJson.json()).toMatchObject({ status: 400, success: false, code: 'bad_request', message: expect.any(String) });
  });

  it('409 seat_unavailable when a held seat was lost (no partial sale)', async () => {
    const o = await order('d', { seats: 2 });
    await t.ctx.db.execute(sql`UPDATE session_seats SET status = 'blocked', order_id = NULL WHERE id = ${o.sessionSeatIds[1]!}`);
    const res = await confirm('d', o.token, body(o.total));
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ status: 409, success: false, code: 'seat_unavailable', message: 'Some seats of the order are no longer available' });
    expect((await seatRows(t.ctx.db, o.sessionSeatIds)).map((s) => s.status)).toEqual(['held', 'blocked']);
    expect(await count(t.ctx.db, sql`SELECT count(*) AS n FROM tickets WHERE order_id = ${o.id}`)).toBe(0);
  });
});
