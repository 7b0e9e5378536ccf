import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { hasAtMostTwoDecimals, toMinor } from '../../src/lib/money.js';
import { account, ADMIN_API, api, apiAs } from '../admin/admin-helpers.js';
import { DashboardClient } from '../admin/dashboard-client.js';
import { buildTestApp, DEMO, serverTokenFor, tokenFor, type TestApp } from '../helpers.js';
import { createHeldOrder, orderStatus } from '../portal/fixtures.js';
import { oneShowDocument } from './one-show.js';

// D11, D56: amounts are JSON numbers with at most two decimals, checked in integer minor units.
// `multipleOf: 0.01` (a floating-point division) refused 19.99, 33.33, 1.15, 0.07: about 11 % of the
// prices between 0.01 and 1,000.00. Every two-decimal price is accepted by the rate's price field of
// the admin API, the catalogue import and the dashboard, and stored exactly in minor units; a third
// decimal, even 1e-9, and any other JSON type are refused.

/** A two-decimal price as JSON carries it: the number nearest to cents / 100. */
const priceOf = (cents: number) => cents / 100;
/** The prices that the floating-point check refused, named in issue 25. */
const NAMED = [1999, 3333, 115, 7, 1, 100_000, 99_999, 1005, 29];
const cents = fc.integer({ min: 1, max: 100_000 });

let t: TestApp;
let admin: ReturnType<typeof api>;
let adminEmail: string;
let rateId: number;
let sessionId: number;

beforeAll(async () => {
  t = await buildTestApp();
  adminEmail = 'prices-admin@taquilla.test';
  admin = await apiAs(t, adminEmail);
  [{ id: rateId, session_id: sessionId }] = (await queryRows<{ id: number; session_id: number }>(t.ctx.db, sql`SELECT id, session_id FROM rates ORDER BY id LIMIT 1`)) as [
    { id: number; session_id: number },
  ];
}, 60_000);
afterAll(() => t?.close());

const storedPrice = async (id: number) => (await queryRows<{ price: number }>(t.ctx.db, sql`SELECT price FROM rates WHERE id = ${id}`))[0]!.price;

describe('every two-decimal price from 0.01 to 1,000.00 (D56)', () => {
  it('the rule the schema keyword and the services share accepts each of the 100,000 and gives its cents exactly', () => {
    const refused: number[] = [];
    for (let c = 1; c <= 100_000; c++) {
      const price = priceOf(c);
      if (!hasAtMostTwoDecimals(price) || toMinor(price) !== c) refused.push(c);
    }
    expect(refused).toEqual([]);
    for (const bad of [46.5 + 1e-9, 19.999, 1.005, 0.001, 1e-7, 999_999.991]) expect(toMinor(bad)).toBeNull();
    // Floating-point noise of a client's own sum (docs/models-b-and-d.md) is not a third decimal.
    expect(toMinor(0.1 + 0.2)).toBe(30);
  });

  it('admin API: a rate takes any such price and stores it in minor units (property)', async () => {
    await fc.assert(
      fc.asyncProperty(cents, async (c) => {
        const res = await admin.patch(`/rates/${rateId}`, { price: priceOf(c) });
        expect(res.status).toBe(200);
        expect(res.body.data.price).toBe(priceOf(c));
        expect(await storedPrice(rateId)).toBe(c);
      }),
      { numRuns: 120, examples: NAMED.map((c) => [c]), seed: 20_261_125 },
    );
    const created = await admin.post(`/sessions/${sessionId}/rates`, { name: 'Named', price: 19.99 });
    expect(created.status).toBe(201);
    expect(await storedPrice(created.body.data.id)).toBe(1999);
  });

  it('catalogue import: every rate of a document keeps its price in minor units', async () => {
    const prices = [...NAMED, ...fc.sample(cents, { numRuns: 150, seed: 20_261_125 })];
    const doc = {
      ...oneShowDocument({
        organiser: 'p',
        organiserName: 'Precios',
        names: { es: 'Precios' },
        event: { fees: [{ name: 'Gestión', kind: 'percent', amount: 2.75 }] },
        session: { rates: prices.map((c, i) => ({ key: `r${i}`, name: `price-${i}-${c}`, price: priceOf(c) })) },
      }),
      vouchers: [{ organiser: 'p', code: 'PRECIO', kind: 'fixed', value: 33.33 }],
    };
    const res = await admin.post('/catalogue/import', doc);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const rows = await queryRows<{ name: string; price: number }>(t.ctx.db, sql`SELECT name, price FROM rates WHERE name LIKE 'price-%'`);
    expect(rows).toHaveLength(prices.length);
    for (const row of rows) expect(row.price).toBe(Number(row.name.split('-')[2]));
    const [fee] = await queryRows<{ amount: number }>(t.ctx.db, sql`SELECT amount FROM fees WHERE name = 'Gestión' ORDER BY id DESC LIMIT 1`);
    expect(fee!.amount).toBe(275);
    const [voucher] = await queryRows<{ value: number }>(t.ctx.db, sql`SELECT value FROM vouchers WHERE code = 'PRECIO'`);
    expect(voucher!.value).toBe(3333);
  });

  it('dashboard: the rate form takes 19.99 and 0.07', async () => {
    const client = new DashboardClient(t.app);
    expect((await client.login(adminEmail)).statusCode).toBe(303);
    for (const [text, stored] of [
      ['19.99', 1999],
      ['0.07', 7],
      ['33.33', 3333],
    ] as const) {
      await client.get(`/admin/rates/${rateId}`);
      const res = await client.post(`/admin/rates/${rateId}`, { name: 'General', price: text, sector_id: '' });
      expect(res.statusCode, res.body.slice(0, 300)).toBe(303);
      expect(await storedPrice(rateId)).toBe(stored);
    }
    await client.get(`/admin/rates/${rateId}`);
    expect((await client.post(`/admin/rates/${rateId}`, { name: 'General', price: '19.999', sector_id: '' })).statusCode).toBe(422);
    expect(await storedPrice(rateId)).toBe(3333);
  });
});

describe('amounts and fields that are not what they claim to be (D56)', () => {
  it('admin API: a price of another type, with a third decimal or 1e-9 more is 422 on errors.price and changes nothing', async () => {
    expect((await admin.patch(`/rates/${rateId}`, { price: 12.5 })).status).toBe(200);
    for (const price of ['19.99', [19.99], { value: 19.99 }, 19.999, 12.5 + 1e-9, true]) {
      const res = await admin.patch(`/rates/${rateId}`, { price });
      expect(res.status, JSON.stringify(price)).toBe(422);
      expect(res.body.code).toBe('validation_failed');
      expect(res.body.message).toBe('The given data was invalid');
      expect(Object.keys(res.body.errors)).toEqual(['price']);
    }
    const unknown = await admin.patch(`/rates/${rateId}`, { price: 13, discount: 5 });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors).toEqual({ discount: ['is not allowed'] });
    expect(await storedPrice(rateId)).toBe(1250);
  });

  it('catalogue import: a price with a third decimal or 1e-9 more is 422 and imports nothing', async () => {
    for (const price of [19.999, 10 + 1e-9, '19.99']) {
      const doc = {
        organisers: [{ key: 'q', name: `Precio ${String(price)}` }],
        venues: [{ key: 'v', organiser: 'q', name: 'Sala', sectors: [{ key: 'floor', name: 'Floor', numbered: false, capacity: 5 }] }],
        events: [{ key: 'e', organiser: 'q', venue: 'v', names: { es: 'X' }, sessions: [{ key: 's', start_datetime: '2031-01-01T19:00:00Z', rates: [{ key: 'r', name: 'R', price }] }] }],
      };
      const res = await admin.post('/catalogue/import', doc);
      expect(res.status, JSON.stringify(price)).toBe(422);
      expect(JSON.stringify(res.body.errors)).toMatch(/price/);
      expect(await queryRows(t.ctx.db, sql`SELECT 1 FROM organisers WHERE name = ${`Precio ${String(price)}`}`)).toHaveLength(0);
    }
  });

  it('confirm: "46.5", [46.5] and the total + 1e-9 are 422 on errors.amount and leave the order pending; the total completes it', async () => {
    const serverToken = await serverTokenFor(t.app, DEMO.d.slug);
    const held = await createHeldOrder(t, DEMO.d.slug);
    const total = held.total / 100;
    const confirm = (amount: unknown) =>
      t.app.inject({
        method: 'POST',
        url: `/api/sales-channel/v1/${DEMO.d.slug}/es/orders/${held.token}/confirm`,
        headers: { authorization: `Bearer ${serverToken}` },
        payload: { amount, name: 'Ana', surname: 'Pérez', email: 'ana@example.com' },
      });
    for (const amount of [String(total), [total], total + 1e-9, { amount: total }, total + 0.001]) {
      const res = await confirm(amount);
      expect(res.statusCode, JSON.stringify(amount)).toBe(422);
      expect(Object.keys(res.json().errors)).toEqual(['amount']);
    }
    expect(await orderStatus(t, held.id)).toBe('pending');
    const unknown = await t.app.inject({
      method: 'POST',
      url: `/api/sales-channel/v1/${DEMO.d.slug}/es/orders/${held.token}/confirm`,
      headers: { authorization: `Bearer ${serverToken}` },
      payload: { amount: total, name: 'Ana', surname: 'Pérez', email: 'ana@example.com', send_email: false },
    });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().errors).toEqual({ send_email: ['is not allowed'] });
    expect((await confirm(total)).statusCode).toBe(200);
    expect(await orderStatus(t, held.id)).toBe('completed');
  });

  it('token endpoint: a widget_key in an array or a numeric client_id is 422, not a token', async () => {
    const token = (payload: object) => t.app.inject({ method: 'POST', url: '/api/sales-channel/v1/auth/token', payload });
    const asArray = await token({ sales_channel_slug: DEMO.d.slug, widget_key: [DEMO.d.key] });
    expect(asArray.statusCode).toBe(422);
    expect(Object.keys(asArray.json().errors)).toEqual(['widget_key']);
    const numeric = await token({ sales_channel_slug: DEMO.d.slug, widget_key: DEMO.d.key, client_id: 12 });
    expect(numeric.statusCode).toBe(422);
    expect(Object.keys(numeric.json().errors)).toEqual(['client_id']);
    expect((await token({ sales_channel_slug: DEMO.d.slug, widget_key: DEMO.d.key, client_id: '12' })).statusCode).toBe(200);
  });

  it('query strings and path parameters still convert from text', async () => {
    const token = await tokenFor(t.app, DEMO.d.slug);
    const res = await t.app.inject({ url: `/api/sales-channel/v1/${DEMO.d.slug}/es/events`, headers: { authorization: `Bearer ${token}` } });
    expect(res.statusCode).toBe(200);
    const event = res.json().data[0].id as number;
    expect((await t.app.inject({ url: `/api/sales-channel/v1/${DEMO.d.slug}/es/events/${event}`, headers: { authorization: `Bearer ${token}` } })).statusCode).toBe(200);
    const orders = await t.app.inject({ url: `${ADMIN_API}/orders?limit=5`, headers: { authorization: `Bearer ${(await account(t.ctx, 'q@taquilla.test')).token}` } });
    expect(orders.statusCode).toBe(200);
  });
});
