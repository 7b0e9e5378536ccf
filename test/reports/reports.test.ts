import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sql } from 'drizzle-orm';
import { Value } from 'typebox/value';
import { queryRows } from '../../src/db/client.js';
import { toAmount } from '../../src/lib/money.js';
import { ReportResponse, ReportRow, ReportSummary } from '../../src/modules/reports/reports.schemas.js';
import { bearer, buildTestApp, DEMO, expectErrorBody, serverTokenFor, tokenFor, type TestApp } from '../helpers.js';
import { parseReport, reportMessage, salesReport } from '../../src/modules/reports/reports.service.js';
import { XLSX_TYPE } from '../../src/lib/download.js';
import { readXlsx } from '../spreadsheet-helpers.js';
import { catalogueRefs, insertManyPurchases, insertOrder, insertRefund, type CatalogueRefs, type InsertedOrder } from './report-fixture.js';

/*
 * Fixture (channel demo-d unless said otherwise; TIMEZONE = Europe/Madrid, UTC+1 in winter, UTC+2 in summer):
 *   p0     2024-12-31 23:59:59 local  purchase   concert          just before the window W
 *   p1     2025-01-01 00:00:00 local  purchase   concert x2       first instant of W (2024-12-31 UTC!)
 *   p2     2025-02-10 12:00    local  purchase   play x1, bizum
 *   p3     2025-02-15 12:00    local  purchase   play + concert   spans two events: first item's event
 *   res1   2025-02-20 12:00    local  reservation concert x2, no payment method
 *   can1   2025-03-01 12:00    local  cancelled purchase, no customer
 *   cart1  2025-03-02                 pending  (not a transaction)
 *   exp1   2025-03-03                 expired  (not a transaction)
 *   ref1   2025-03-10 12:00    local  refund of p1
 *   late   2025-03-31 23:30    local  purchase   play             last half hour of W
 *   after  2025-04-01 00:30    local  purchase   concert          after W, though still 2025-03-31 in UTC
 * W = date_from 2025-01-01, date_to 2025-03-31.
 */

const ReportRowKeys = Object.keys(ReportRow.properties);

let t: TestApp;
let refs: CatalogueRefs;
let tokenD: string;
const o: Record<string, InsertedOrder> = {};

const url = (slug: string, query = '', lang = 'es') => `/api/sales-channel/v1/${slug}/${lang}/reports/sales${query ? `?${query}` : ''}`;
const W = 'date_from=2025-01-01&date_to=2025-03-31';

async function report(query = '', opts: { slug?: string; lang?: string; token?: string; headers?: Record<string, string> } = {}) {
  const res = await t.app.inject({
    url: url(opts.slug ?? DEMO.d.slug, query, opts.lang),
    headers: { ...bearer(opts.token ?? tokenD), ...opts.headers },
  });
  return res;
}

async function rowsOf(query: string) {
  const res = await report(query);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.data as Array<Record<string, unknown>>;
}

const refsOf = (rows: Array<Record<string, unknown>>) => rows.map((r) => r.order_reference);
const names = (...keys: string[]) => keys.map((k) => o[k]!.reference);

/** The summary recomputed from the rows with D30's rules, in minor units to avoid float drift. */
function recompute(rows: Array<Record<string, unknown>>) {
  const cents = (v: unknown) => Math.round((v as number) * 100);
  const counted = rows.filter((r) => r.status === 'completed' && r.type !== 'refund');
  const refunds = rows.filter((r) => r.status === 'completed' && r.type === 'refund');
  const sum = (list: typeof rows, f: string) => list.reduce((a, r) => a + cents(r[f]), 0);
  const total = sum(counted, 'total_amount');
  const refund = Math.abs(sum(refunds, 'total_amount'));
  return {
    transactions: rows.length,
    purchases: counted.filter((r) => r.type === 'purchase').length,
    refunds: refunds.length,
    reservations: counted.filter((r) => r.type === 'reservation').length,
    tickets: counted.reduce((a, r) => a + (r.tickets as number), 0),
    base_amount: sum(counted, 'base_amount') / 100,
    discount_amount: sum(counted, 'discount_amount') / 100,
    fee_amount: sum(counted, 'fee_amount') / 100,
    total_amount: total / 100,
    refund_amount: refund / 100,
    net_amount: (total - refund) / 100,
    currency: 'EUR',
  };
}

beforeAll(async () => {
  t = await buildTestApp();
  refs = await catalogueRefs(t.ctx.db);
  const db = t.ctx.db;
  const d = refs.channels['demo-d']!;
  const { concert, play } = refs.events;
  const ticket = (event = concert) => ({ event, base: 3000, discount: -300, fee: 150 });
  o.p0 = await insertOrder(db, { channelId: d, createdAt: '2024-12-31T23:59:59+01:00', items: [ticket()] });
  o.p1 = await insertOrder(db, { channelId: d, createdAt: '2025-01-01T00:00:00+01:00', items: [ticket(), ticket()] });
  o.p2 = await insertOrder(db, {
    channelId: d,
    createdAt: '2025-02-10T12:00:00+01:00',
    items: [{ event: play, base: 2250, fee: 113 }],
    paymentMethod: 'bizum',
    customer: { name: 'Luis', surname: 'Pérez', email: 'luis@example.com' },
  });
  o.p3 = await insertOrder(db, { channelId: d, createdAt: '2025-02-15T12:00:00+01:00', items: [ticket(play), ticket(concert)] });
  o.res1 = await insertOrder(db, { channelId: d, createdAt: '2025-02-20T12:00:00+01:00', type: 'reservation', items: [ticket(), ticket()], paymentMethod: null });
  o.can1 = await insertOrder(db, { channelId: d, createdAt: '2025-03-01T12:00:00+01:00', status: 'cancelled', items: [ticket()], customer: null });
  o.cart1 = await insertOrder(db, { channelId: d, createdAt: '2025-03-02T12:00:00+01:00', status: 'pending', items: [ticket()], customer: null });
  o.exp1 = await insertOrder(db, { channelId: d, createdAt: '2025-03-03T12:00:00+01:00', status: 'expired', items: [ticket()], customer: null });
  o.ref1 = await insertRefund(db, o.p1, '2025-03-10T12:00:00+01:00');
  o.late = await insertOrder(db, { channelId: d, createdAt: '2025-03-31T23:30:00+02:00', items: [ticket(play)] });
  o.after = await insertOrder(db, { channelId: d, createdAt: '2025-04-01T00:30:00+02:00', items: [ticket()] });
  // Another channel's orders in the same window and for the same events: never in demo-d's report.
  o.otherA = await insertOrder(db, { channelId: refs.channels['demo-a']!, createdAt: '2025-02-01T12:00:00+01:00', items: [ticket()] });
  o.otherA2 = await insertOrder(db, { channelId: refs.channels['demo-a']!, createdAt: '2025-02-02T12:00:00+01:00', status: 'cancelled', items: [ticket(play)] });
  tokenD = await serverTokenFor(t.app, DEMO.d.slug, DEMO.d.serverKey); // the report of C and D needs the server key (D40)
});
afterAll(() => t?.close());

describe('rows', () => {
  it('a date window lists completed and cancelled transactions newest first, never carts', async () => {
    const rows = await rowsOf(W);
    expect(refsOf(rows)).toEqual(names('late', 'ref1', 'can1', 'res1', 'p3', 'p2', 'p1'));
  });

  it('every row field of SPEC with its type, amounts as D11 and datetimes with an offset', async () => {
    const rows = await rowsOf(W);
    const p1 = rows.find((r) => r.order_reference === o.p1!.reference)!;
    expect(p1).toEqual({
      id: o.p1!.id,
      order_reference: o.p1!.reference,
      type: 'purchase',
      datetime: '2024-12-31T23:00:00+00:00',
      customer_name: 'Ana García López',
      customer_email: 'ana@example.com',
      event_name: 'Concierto de Año Nuevo',
      session_datetime: refs.events.concert.sessionStart.toISOString().replace(/\.\d{3}Z$/, '+00:00'),
      tickets: 2,
      base_amount: 60,
      discount_amount: -6,
      fee_amount: 3,
      payment_method: 'card',
      total_amount: 57,
      currency: 'EUR',
      status: 'completed',
    });
    const p2 = rows.find((r) => r.order_reference === o.p2!.reference)!;
    expect(p2).toMatchObject({ customer_name: 'Luis Pérez', payment_method: 'bizum', event_name: 'La vida es sueño', base_amount: 22.5, fee_amount: 1.13, total_amount: 23.63 });
    const res1 = rows.find((r) => r.order_reference === o.res1!.reference)!;
    expect(res1).toMatchObject({ type: 'reservation', status: 'completed', payment_method: null, tickets: 2 });
    const can1 = rows.find((r) => r.order_reference === o.can1!.reference)!;
    expect(can1).toMatchObject({ type: 'purchase', status: 'cancelled', customer_name: null, customer_email: null, tickets: 1 });
  });

  it('an order spanning several events shows its first item\'s event', async () => {
    const rows = await rowsOf(W);
    const p3 = rows.find((r) => r.order_reference === o.p3!.reference)!;
    expect(p3.event_name).toBe('La vida es sueño');
    expect(p3.session_datetime).toBe(refs.events.play.sessionStart.toISOString().replace(/\.\d{3}Z$/, '+00:00'));
  });

  it('a refund row: negative amounts and tickets, the refunded order\'s event and session', async () => {
    const rows = await rowsOf(W);
    const ref1 = rows.find((r) => r.order_reference === o.ref1!.reference)!;
    expect(ref1).toMatchObject({
      type: 'refund',
      status: 'completed',
      tickets: -2,
      base_amount: -60,
      discount_amount: 6,
      fee_amount: -3,
      total_amount: -57,
      event_name: 'Concierto de Año Nuevo',
      customer_name: 'Ana García López',
      datetime: '2025-03-10T11:00:00+00:00',
    });
    expect(ref1.session_datetime).toBe(refs.events.concert.sessionStart.toISOString().replace(/\.\d{3}Z$/, '+00:00'));
  });

  it('event_name in the requested language, falling back to the event\'s default language', async () => {
    const en = (await report(W, { lang: 'en' })).json().data.data as Array<Record<string, unknown>>;
    expect(en.find((r) => r.order_reference === o.p1!.reference)!.event_name).toBe("New Year's Concert");
    expect(en.find((r) => r.order_reference === o.p2!.reference)!.event_name).toBe('Life Is a Dream');
    const fr = (await report(W, { lang: 'fr' })).json().data.data as Array<Record<string, unknown>>;
    expect(fr.find((r) => r.order_reference === o.p1!.reference)!.event_name).toBe('Concierto de Año Nuevo');
  });

  it('no filter: the completed orders only (D28), newest first', async () => {
    const res = await report();
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 200, success: true, message: 'Sales report retrieved' });
    const rows = res.json().data.data;
    expect(refsOf(rows)).toEqual(names('after', 'late', 'ref1', 'res1', 'p3', 'p2', 'p1', 'p0'));
  });
});

describe('filters', () => {
  it('event_id alone: every matching transaction, refunds by their refunded order\'s event', async () => {
    expect(refsOf(await rowsOf(`event_id=${refs.events.play.id}`))).toEqual(names('late', 'p3', 'p2'));
    expect(refsOf(await rowsOf(`event_id=${refs.events.concert.id}`))).toEqual(names('after', 'ref1', 'can1', 'res1', 'p3', 'p1', 'p0'));
  });

  it('event_ids[] with one value, several values, and event_ids without brackets', async () => {
    const { concert, play } = refs.events;
    expect(refsOf(await rowsOf(`event_ids[]=${play.id}`))).toEqual(names('late', 'p3', 'p2'));
    expect(refsOf(await rowsOf(`event_ids%5B%5D=${play.id}`))).toEqual(names('late', 'p3', 'p2'));
    expect(refsOf(await rowsOf(`event_ids=${play.id}`))).toEqual(names('late', 'p3', 'p2'));
    const both = names('after', 'late', 'ref1', 'can1', 'res1', 'p3', 'p2', 'p1', 'p0');
    expect(refsOf(await rowsOf(`event_ids[]=${play.id}&event_ids[]=${concert.id}`))).toEqual(both);
    expect(refsOf(await rowsOf(`event_ids=${play.id}&event_ids=${concert.id}`))).toEqual(both);
  });

  it('event_id and event_ids[] together select the union (D29); an unknown event selects nothing', async () => {
    const { concert, play } = refs.events;
    expect(refsOf(await rowsOf(`event_id=${concert.id}&event_ids[]=${play.id}&${W}`))).toEqual(names('late', 'ref1', 'can1', 'res1', 'p3', 'p2', 'p1'));
    expect(await rowsOf('event_id=999999')).toEqual([]);
  });

  it('events and dates combined', async () => {
    expect(refsOf(await rowsOf(`event_id=${refs.events.concert.id}&${W}`))).toEqual(names('ref1', 'can1', 'res1', 'p3', 'p1'));
    expect(refsOf(await rowsOf(`event_ids[]=${refs.events.play.id}&date_from=2025-02-12&date_to=2025-03-31`))).toEqual(names('late', 'p3'));
  });

  it('calendar days are local (Europe/Madrid): 00:00 of date_from and 23:30 of date_to are in', async () => {
    expect(refsOf(await rowsOf('date_from=2025-03-31&date_to=2025-03-31'))).toEqual(names('late'));
    // 00:30 local on 1 April is 22:30 UTC on 31 March: still April in the report.
    expect(refsOf(await rowsOf('date_from=2025-04-01&date_to=2025-04-01'))).toEqual(names('after'));
    expect(refsOf(await rowsOf('date_from=2025-01-01&date_to=2025-01-01'))).toEqual(names('p1'));
    expect(refsOf(await rowsOf('date_from=2024-12-31&date_to=2024-12-31'))).toEqual(names('p0'));
  });

  it('another TIMEZONE moves the day boundaries', async () => {
    // The same service with TIMEZONE=UTC: 23:30 local on 31 March is then 1 April in Madrid terms.
    const ctx = { ...t.ctx, config: { ...t.ctx.config, timezone: 'UTC' } };
    const d = refs.channels['demo-d']!;
    const day = async (date: string) => {
      const result = await salesReport(ctx, d, 'es', { date_from: date, date_to: date });
      return { filters: result.filters, rows: parseReport(result).data };
    };
    // late (21:30 UTC on 31 March) and after (22:30 UTC on 31 March) are both 31 March in UTC.
    expect(refsOf((await day('2025-03-31')).rows)).toEqual(names('after', 'late'));
    expect((await day('2025-04-01')).rows).toEqual([]);
    // p1 (23:00 UTC on 31 December) and p0 (22:59:59 UTC) are both 2024 in UTC.
    expect(refsOf((await day('2024-12-31')).rows)).toEqual(names('p1', 'p0'));
    expect(reportMessage((await day('2025-03-31')).filters, 'UTC')).toBe('Sales report retrieved for 2025-03-31 to 2025-03-31 (UTC)');
  });

  it('90 days apart is accepted, 91 days is 422 "The date range cannot exceed 90 days"', async () => {
    const ok90 = await report('date_from=2025-01-01&date_to=2025-04-01');
    expect(ok90.statusCode).toBe(200);
    expect(refsOf(ok90.json().data.data)).toEqual(names('after', 'late', 'ref1', 'can1', 'res1', 'p3', 'p2', 'p1'));
    const too = await report('date_from=2025-01-01&date_to=2025-04-02');
    expectErrorBody(too, 422, 'date_range_too_long', 'The date range cannot exceed 90 days', { date_to: ['must be at most 90 days after date_from'] });
    // Across a leap day and a DST change the count is still in calendar days.
    expect((await report('date_from=2024-01-01&date_to=2024-03-31')).statusCode).toBe(200);
    expect((await report('date_from=2024-01-01&date_to=2024-04-01')).statusCode).toBe(422);
  });

  it('a lone date_from reads the 90 days after it; a lone date_to the 90 days before it', async () => {
    const from = await report('date_from=2025-01-01');
    expect(from.statusCode).toBe(200);
    expect(from.json().message).toBe('Sales report retrieved for 2025-01-01 to 2025-04-01 (Europe/Madrid)');
    expect(refsOf(from.json().data.data)).toEqual(names('after', 'late', 'ref1', 'can1', 'res1', 'p3', 'p2', 'p1'));
    const to = await report('date_to=2025-03-31');
    expect(to.json().message).toBe('Sales report retrieved for 2024-12-31 to 2025-03-31 (Europe/Madrid)');
    expect(refsOf(to.json().data.data)).toEqual(names('late', 'ref1', 'can1', 'res1', 'p3', 'p2', 'p1', 'p0'));
    expect(refsOf(await rowsOf('date_from=2025-01-02'))).toEqual(names('after', 'late', 'ref1', 'can1', 'res1', 'p3', 'p2'));
    expect(refsOf(await rowsOf('date_to=2025-03-30'))).toEqual(names('ref1', 'can1', 'res1', 'p3', 'p2', 'p1', 'p0'));
  });
});

describe('summary', () => {
  it('D30 over the window: refunds apart, cancelled only in transactions', async () => {
    const res = await report(W);
    const completed = ['p1', 'p2', 'p3', 'res1', 'late'].map((k) => o[k]!);
    const cents = (f: (x: InsertedOrder) => number) => completed.reduce((a, x) => a + f(x), 0);
    expect(res.json().data.summary).toEqual({
      transactions: 7,
      purchases: 4,
      refunds: 1,
      reservations: 1,
      tickets: 8,
      base_amount: cents((x) => x.base) / 100,
      discount_amount: cents((x) => x.discount) / 100,
      fee_amount: cents((x) => x.fee) / 100,
      total_amount: cents((x) => x.total) / 100,
      refund_amount: 57,
      net_amount: (cents((x) => x.total) - 5700) / 100,
      currency: 'EUR',
    });
  });

  it('equals the sums recomputed from the returned rows, for every kind of query', async () => {
    const { concert, play } = refs.events;
    for (const q of ['', W, `event_id=${concert.id}`, `event_ids[]=${play.id}&${W}`, 'date_from=2025-03-01', 'date_to=2025-01-01', 'date_from=2030-01-01']) {
      const body = (await report(q)).json().data;
      expect(body.summary, q).toEqual(recompute(body.data));
    }
  });

  it('an empty result has a zero summary', async () => {
    const body = (await report('date_from=2030-01-01&date_to=2030-01-31')).json().data;
    expect(body.data).toEqual([]);
    expect(body.summary).toMatchObject({ transactions: 0, tickets: 0, total_amount: 0, refund_amount: 0, net_amount: 0, currency: 'EUR' });
  });
});

describe('the 500-row cap', () => {
  it('no filter: the 500 newest completed orders, newest first; a date filter also caps at 500', async () => {
    const c = refs.channels['demo-c']!;
    const newest = new Date('2025-06-30T10:00:00Z');
    await insertManyPurchases(t.ctx.db, c, refs.events.concert, newest, 520);
    const cancelled = await insertOrder(t.ctx.db, { channelId: c, createdAt: '2025-06-30T11:00:00Z', status: 'cancelled', items: [{ event: refs.events.concert, base: 1000 }] });
    const token = await serverTokenFor(t.app, DEMO.c.slug, DEMO.c.serverKey);

    const plain = (await report('', { slug: 'demo-c', token })).json().data;
    expect(plain.data).toHaveLength(500);
    expect(plain.data[0].datetime).toBe('2025-06-30T10:00:00+00:00');
    expect(plain.data[499].datetime).toBe(new Date(newest.getTime() - 499 * 60_000).toISOString().replace(/\.\d{3}Z$/, '+00:00'));
    const times = plain.data.map((r: { datetime: string }) => r.datetime);
    expect([...times].sort().reverse()).toEqual(times);
    expect(plain.summary).toMatchObject({ transactions: 500, purchases: 500, tickets: 500, total_amount: 5500, net_amount: 5500 });

    const dated = (await report('date_from=2025-06-01&date_to=2025-06-30', { slug: 'demo-c', token })).json().data;
    expect(dated.data).toHaveLength(500);
    expect(dated.data[0].order_reference).toBe(cancelled.reference);
    expect(dated.data[499].datetime).toBe(new Date(newest.getTime() - 498 * 60_000).toISOString().replace(/\.\d{3}Z$/, '+00:00'));
    expect(dated.summary).toEqual(recompute(dated.data));
    expect(dated.summary).toMatchObject({ transactions: 500, purchases: 499, total_amount: 5489 });
  });
});

describe('isolation between channels', () => {
  it('a channel sees only its own orders', async () => {
    const rows = await rowsOf(`${W}&event_ids[]=${refs.events.concert.id}&event_ids[]=${refs.events.play.id}`);
    expect(refsOf(rows)).not.toContain(o.otherA!.reference);
    expect(refsOf(rows)).not.toContain(o.otherA2!.reference);
    const tokenA = await tokenFor(t.app, DEMO.a.slug, DEMO.a.key);
    const a = (await report(W, { slug: 'demo-a', token: tokenA })).json().data;
    expect(refsOf(a.data)).toEqual(names('otherA2', 'otherA'));
    expect(a.summary).toMatchObject({ transactions: 2, purchases: 1 });
  });

  it('another channel\'s slug in the path is 403, no token is 401', async () => {
    const res = await report(W, { slug: 'demo-a' });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ status: 403, success: false, message: 'Unauthorized sales channel', code: 'unauthorized_sales_channel' });
    const anon = await t.app.inject({ url: url('demo-d', W) });
    expect(anon.statusCode).toBe(401);
  });
});

describe('422 "The given data was invalid"', () => {
  const cases: Array<[string, string]> = [
    ['date_from=2025-1-1&date_to=2025-01-31', 'date_from'],
    ['date_from=01/01/2025', 'date_from'],
    ['date_from=2025-01-01&date_to=2025-02-30', 'date_to'],
    ['date_to=2025-13-01', 'date_to'],
    ['date_from=', 'date_from'],
    ['date_from=0000-01-01', 'date_from'],
    ['date_from=2025-01-01T00:00:00', 'date_from'],
    ['event_id=abc', 'event_id'],
    ['event_id=1.5', 'event_id'],
    ['event_id=0', 'event_id'],
    ['event_id=99999999999', 'event_id'],
    ['event_id=', 'event_id'],
    ['event_ids[]=x', 'event_ids[]'],
    ['event_ids[]=1&event_ids[]=two', 'event_ids[]'],
    ['event_ids=-3', 'event_ids'],
    ['format=xml', 'format'],
  ];
  it.each(cases)('%s -> errors.%s', async (query, field) => {
    const res = await report(query);
    expect(res.statusCode, res.body).toBe(422);
    const body = res.json();
    expect(body).toMatchObject({ status: 422, success: false, message: 'The given data was invalid', code: 'validation_failed' });
    expect(Object.keys(body.errors).some((k) => k === field || k.startsWith(`${field}.`)), JSON.stringify(body.errors)).toBe(true);
  });

  it('date_from after date_to, with errors.date_from', async () => {
    const res = await report('date_from=2025-03-02&date_to=2025-03-01');
    expectErrorBody(res, 422, 'validation_failed', 'The given data was invalid', { date_from: ['must be on or before date_to'] });
  });
});

describe('CSV export', () => {
  it('format=csv and Accept: text/csv give the same rows as JSON, with a header line', async () => {
    const json = (await report(W)).json().data.data as Array<Record<string, unknown>>;
    for (const res of [await report(`${W}&format=csv`), await report(W, { headers: { accept: 'text/csv' } })]) {
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).toBe('attachment; filename="sales-report_demo-d_2025-01-01_2025-03-31.csv"');
      // A byte-order mark first: without it spreadsheets read the UTF-8 names as Windows-1252.
      expect(res.rawPayload.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
      const lines = res.body.replace(/^\uFEFF/, '').trimEnd().split('\r\n');
      expect(lines[0]).toBe(
        'id,order_reference,type,datetime,customer_name,customer_email,event_name,session_datetime,tickets,base_amount,discount_amount,fee_amount,payment_method,total_amount,currency,status',
      );
      expect(lines).toHaveLength(json.length + 1);
      const refund = lines.find((l) => l.includes(o.ref1!.reference))!;
      expect(refund).toBe(
        `${o.ref1!.id},${o.ref1!.reference},refund,2025-03-10T11:00:00+00:00,Ana García López,ana@example.com,Concierto de Año Nuevo,` +
          `${json.find((r) => r.type === 'refund')!.session_datetime},-2,-60,6,-3,card,-57,EUR,completed`,
      );
      expect(lines.slice(1).map((l) => l.split(',')[1])).toEqual(refsOf(json));
    }
  });

  it('format=xlsx and the XLSX Accept header give the same rows as a workbook: numbers, amounts and Madrid wall-clock dates typed', async () => {
    const json = (await report(W)).json().data.data as Array<Record<string, unknown>>;
    for (const res of [await report(`${W}&format=xlsx`), await report(W, { headers: { accept: XLSX_TYPE } })]) {
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe(XLSX_TYPE);
      expect(res.headers['content-disposition']).toBe('attachment; filename="sales-report_demo-d_2025-01-01_2025-03-31.xlsx"');
      const { header, rows } = await readXlsx(res.rawPayload);
      expect(header).toEqual(ReportRowKeys.map((k) => (k === 'datetime' || k === 'session_datetime' ? `${k} (Europe/Madrid)` : k)));
      expect(rows.map((r) => r.order_reference!.value)).toEqual(refsOf(json));
      const refund = rows.find((r) => r.order_reference!.value === o.ref1!.reference)!;
      expect(refund.id!.value).toBe(o.ref1!.id);
      expect(refund.tickets!.value).toBe(-2);
      expect(refund.total_amount!.value).toBe(-57);
      expect(refund.total_amount!.numFmt).toBe('#,##0.00 "€"');
      // 2025-03-10T11:00:00Z is 12:00 in Madrid: the cell holds that wall-clock time.
      expect(refund['datetime (Europe/Madrid)']!.value).toEqual(new Date('2025-03-10T12:00:00Z'));
      expect(refund.customer_name!.value).toBe('Ana García López');
      expect(refund.payment_method!.value).toBe('card');
      const p1 = rows.find((r) => r.order_reference!.value === o.p1!.reference)!;
      expect(p1['datetime (Europe/Madrid)']!.value).toEqual(new Date('2025-01-01T00:00:00Z'));
    }
  });

  it('a format that is not json, csv or xlsx is 422 in the error envelope; the first of CSV and XLSX that Accept names wins', async () => {
    const bad = await report(`${W}&format=ods`);
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toMatchObject({ success: false, code: 'validation_failed' });
    expect((await report(W, { headers: { accept: `text/csv, ${XLSX_TYPE}` } })).headers['content-type']).toContain('text/csv');
    expect((await report(W, { headers: { accept: `${XLSX_TYPE};q=0.9, text/csv` } })).headers['content-type']).toBe(XLSX_TYPE);
    const tooLong = await report('date_from=2025-01-01&date_to=2025-06-01&format=xlsx');
    expect(tooLong.statusCode).toBe(422);
    expect(tooLong.json().code).toBe('date_range_too_long');
  });

  it('format=json wins over Accept; errors stay JSON', async () => {
    const res = await report(`${W}&format=json`, { headers: { accept: 'text/csv' } });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const bad = await report('date_from=2025-01-01&date_to=2025-06-01&format=csv');
    expect(bad.statusCode).toBe(422);
    expect(bad.json().code).toBe('date_range_too_long');
  });

  it('quotes commas and quotes, and defuses formula-like text', async () => {
    const b = refs.channels['demo-b']!;
    await insertOrder(t.ctx.db, {
      channelId: b,
      createdAt: '2025-05-05T12:00:00+02:00',
      items: [{ event: refs.events.play, base: 1000 }],
      customer: { name: '=HYPERLINK("x")', surname: 'O"Brien, Jr', email: 'x@example.com' },
    });
    const token = await tokenFor(t.app, DEMO.b.slug, DEMO.b.key);
    const res = await report('format=csv', { slug: 'demo-b', token });
    const line = res.body.split('\r\n')[1]!;
    // The same text in the XLSX download is a string cell, which is never a formula: left as it is.
    const { rows } = await readXlsx((await report('format=xlsx', { slug: 'demo-b', token })).rawPayload);
    expect(rows[0]!.customer_name!.value).toBe('=HYPERLINK("x") O"Brien, Jr');
    expect(line).toContain(`,"'=HYPERLINK(""x"") O""Brien, Jr",x@example.com,`);
  });
});

describe('the JSON text the database builds', () => {
  it('matches the documented response schema exactly, for every kind of query', async () => {
    const { concert, play } = refs.events;
    for (const q of ['', W, `event_id=${concert.id}`, `event_ids[]=${play.id}&${W}`, 'date_from=2030-01-01']) {
      const res = await report(q);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      const body = res.json();
      expect([...Value.Errors(ReportResponse, body)], q).toEqual([]);
      // No field beyond the schema's: the text is sent as is, nothing strips extras.
      expect(Object.keys(body).sort()).toEqual(['data', 'message', 'status', 'success']);
      expect(Object.keys(body.data).sort()).toEqual(['data', 'summary']);
      expect(Object.keys(body.data.summary).sort()).toEqual(Object.keys(ReportSummary.properties).sort());
      for (const row of body.data.data) expect(Object.keys(row)).toEqual(Object.keys(ReportRow.properties));
    }
  });

  it('amounts print as at most two decimals, as toAmount() would give them', async () => {
    const text = (await report(W)).body;
    const amounts = [...text.matchAll(/"(?:base|discount|fee|total|refund|net)_amount"\s*:\s*([^,}]+)/g)].map((m) => m[1]!.trim());
    expect(amounts.length).toBeGreaterThan(7 * 4);
    for (const a of amounts) expect(a).toMatch(/^-?\d+(\.\d{1,2})?$/);
    expect(amounts).toContain('1.13');
    expect(amounts).toContain('23.63');
    expect(amounts).toContain('223.13');
  });

  it('the database prints float8 amounts with the same text as JSON.stringify(toAmount())', async () => {
    const minors = fc.sample(fc.integer({ min: -100_000_000, max: 100_000_000 }), 3000).concat([0, 1, -1, 5, 10, 99, 101, 2363, 113]);
    const [row] = await queryRows<{ out: string }>(t.ctx.db, sql`SELECT string_agg((x::float8 / 100)::text, ' ' ORDER BY i) AS out
      FROM unnest(${`{${minors.join(',')}}`}::int[]) WITH ORDINALITY AS u(x, i)`);
    expect(row!.out.split(' ')).toEqual(minors.map((m) => JSON.stringify(toAmount(m))));
  });
});

describe('OpenAPI', () => {
  it('documents the report route with its query parameters', async () => {
    const doc = (await t.app.inject({ url: '/api/openapi.json' })).json();
    const op = doc.paths['/api/sales-channel/v1/{salesChannelSlug}/{lang}/reports/sales'].get;
    expect(op.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['event_id', 'event_ids[]', 'event_ids', 'date_from', 'date_to', 'format', 'salesChannelSlug', 'lang']),
    );
  });
});
