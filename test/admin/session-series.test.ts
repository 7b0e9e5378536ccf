import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { buildTestApp, DEMO, firstDemoSession, isPostgres, type TestApp } from '../helpers.js';
import { createPendingOrder } from '../checkout/fixtures.js';
import { api, apiAs } from './admin-helpers.js';
import { DashboardClient } from './dashboard-client.js';

// Issue 29: rates copied from another session, rates deleted while unused (409 rate_in_use
// otherwise), and a series of sessions made at once in the deployment's zone (Europe/Madrid in
// the tests), DST-correct, at most 100, previewed first; on the admin API and in the dashboard.

let t: TestApp;
let admin: ReturnType<typeof api>;
let eventId: number;
let sourceId: number;

beforeAll(async () => {
  t = await buildTestApp();
  admin = await apiAs(t, 'root@taquilla.test');
  // The first demo session (by start) and its event: the source of the rates.
  ({ sessionId: sourceId, eventId } = await firstDemoSession(t));
}, 180_000);
afterAll(() => t?.close());

const ratesOf = async (sessionId: number) => (await admin.get(`/sessions/${sessionId}`)).body.data.rates as { id: number; name: string; price: number; sector_id: number | null }[];
const newSession = async (start: string) => (await admin.post(`/events/${eventId}/sessions`, { start_datetime: start })).body.data.id as number;

describe('rates copied from another session', () => {
  it('copies name, price and sector; a second copy adds nothing', async () => {
    const source = await ratesOf(sourceId);
    expect(source.length).toBeGreaterThan(0);
    const target = await newSession('2032-03-01T19:00:00Z');
    const first = await admin.post(`/sessions/${target}/rates/copy`, { from_session_id: sourceId });
    expect(first.status).toBe(201);
    expect(first.body.data.added).toHaveLength(source.length);
    const copied = await ratesOf(target);
    expect(copied.map((r) => [r.name, r.price, r.sector_id])).toEqual(source.map((r) => [r.name, r.price, r.sector_id]));
    const again = await admin.post(`/sessions/${target}/rates/copy`, { from_session_id: sourceId });
    expect(again.body.data).toEqual({ added: [], skipped: source.length });
    expect(await ratesOf(target)).toHaveLength(source.length);
  });

  it('refuses a copy from itself (422) and from a session the promoter cannot see (422, like an unknown one)', async () => {
    expect((await admin.post(`/sessions/${sourceId}/rates/copy`, { from_session_id: sourceId })).status).toBe(422);
    expect((await admin.post(`/sessions/${sourceId}/rates/copy`, { from_session_id: 999_999 })).status).toBe(422);
    const org = await admin.post('/organisers', { name: 'Otra Casa' });
    const promoter = await apiAs(t, 'otra@example.com', org.body.data.id);
    // Its own sessions are none: the demo session is another organiser's (404 for the target).
    expect((await promoter.post(`/sessions/${sourceId}/rates/copy`, { from_session_id: sourceId })).status).toBe(404);
  });
});

describe('deleting a rate', () => {
  it('an unused rate goes; a rate with tickets held in a cart, or a voucher, stays with 409 rate_in_use', async () => {
    const target = await newSession('2032-03-02T19:00:00Z');
    const extra = await admin.post(`/sessions/${target}/rates`, { name: 'Sobrante', price: 5 });
    expect((await admin.del(`/rates/${extra.body.data.id}`)).status).toBe(200);
    expect((await ratesOf(target)).map((r) => r.name)).not.toContain('Sobrante');

    // createPendingOrder holds a seat of the first demo session at its first rate.
    await createPendingOrder(t.ctx, { channel: DEMO.b.slug, sessionIndex: 0 });
    const held = (await ratesOf(sourceId))[0]!;
    const refused = await admin.del(`/rates/${held.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error ?? refused.body.code ?? refused.body).toBeDefined();
    expect(JSON.stringify(refused.body)).toContain('rate_in_use');
    expect(refused.body.message).toMatch(/held in carts/);
    expect(refused.body.data).toMatchObject({ rate_id: held.id, held: 1 });
    expect((await ratesOf(sourceId)).map((r) => r.id)).toContain(held.id);

    const withVoucher = await admin.post(`/sessions/${target}/rates`, { name: 'Con vale', price: 7 });
    const [demoEvent] = await queryRows<{ organiser_id: number }>(t.ctx.db, sql`SELECT organiser_id FROM events WHERE id = ${eventId}`);
    const v = await admin.post('/vouchers', { organiser_id: demoEvent!.organiser_id, code: 'SOLOVALE', kind: 'percent', value: 10, rate_id: withVoucher.body.data.id });
    expect(v.status).toBe(201);
    const byVoucher = await admin.del(`/rates/${withVoucher.body.data.id}`);
    expect(byVoucher.status).toBe(409);
    expect(byVoucher.body.message).toContain('SOLOVALE');
  });
});

describe('a series of sessions', () => {
  const series = { start_date: '2031-10-10', time: '21:00', repeat: 'weekly', count: 8, duration_minutes: 120 };

  it('the preview: every Friday at 21:00 Madrid time for 8 weeks, across the end of summer time', async () => {
    const res = await admin.post(`/events/${eventId}/sessions/series`, { ...series, dry_run: true });
    expect(res.status).toBe(200);
    const starts = (res.body.data.sessions as { start_datetime: string; id: null }[]).map((s) => s.start_datetime);
    // 21:00 CEST is 19:00 UTC until 26 October 2031; 21:00 CET is 20:00 UTC after.
    expect(starts).toEqual([
      '2031-10-10T19:00:00+00:00',
      '2031-10-17T19:00:00+00:00',
      '2031-10-24T19:00:00+00:00',
      '2031-10-31T20:00:00+00:00',
      '2031-11-07T20:00:00+00:00',
      '2031-11-14T20:00:00+00:00',
      '2031-11-21T20:00:00+00:00',
      '2031-11-28T20:00:00+00:00',
    ]);
    expect(res.body.data.sessions[0]).toMatchObject({ id: null, end_datetime: '2031-10-10T21:00:00+00:00', exists: false });
    expect(res.body.data.created).toBe(0);
    const [n] = await queryRows<{ n: number | string }>(t.ctx.db, sql`SELECT count(*) AS n FROM sessions WHERE start_datetime >= '2031-10-01' AND start_datetime < '2031-12-01' AND event_id = ${eventId}`);
    expect(Number(n!.n)).toBe(0);
  });

  it('creates them as drafts with their inventory and the copied rates; sent again, it adds nothing', async () => {
    const source = await ratesOf(sourceId);
    const res = await admin.post(`/events/${eventId}/sessions/series`, { ...series, rates_from_session_id: sourceId });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ created: 8, skipped: 0 });
    for (const s of res.body.data.sessions as { id: number; rates: number }[]) {
      expect(s.rates).toBe(source.length);
      const detail = (await admin.get(`/sessions/${s.id}`)).body.data;
      expect(detail.status).toBe('draft');
      expect(detail.rates.map((r: { name: string }) => r.name)).toEqual(source.map((r) => r.name));
    }
    const [inv] = await queryRows<{ n: number | string }>(t.ctx.db, sql`SELECT count(*) AS n FROM session_seats WHERE session_id = ${res.body.data.sessions[0].id}`);
    expect(Number(inv!.n)).toBeGreaterThan(0);
    const again = await admin.post(`/events/${eventId}/sessions/series`, { ...series, rates_from_session_id: sourceId });
    expect(again.body.data).toMatchObject({ created: 0, skipped: 8 });
  });

  it('limits and bad input: 101 sessions, a bad day or time, are 422 with the field; nothing is created', async () => {
    const over = await admin.post(`/events/${eventId}/sessions/series`, { ...series, start_date: '2033-01-07', count: 101 });
    expect(over.status).toBe(422);
    expect(over.body.errors.count[0]).toMatch(/at most 100/);
    const badDay = await admin.post(`/events/${eventId}/sessions/series`, { ...series, start_date: '2033-02-30' });
    expect(badDay.status).toBe(422);
    const badTime = await admin.post(`/events/${eventId}/sessions/series`, { ...series, start_date: '2033-01-07', time: '25:00' });
    expect(badTime.status).toBe(422);
    expect(badTime.body.errors.time).toBeTruthy();
    const [n] = await queryRows<{ n: number | string }>(t.ctx.db, sql`SELECT count(*) AS n FROM sessions WHERE start_datetime >= '2033-01-01'`);
    expect(Number(n!.n)).toBe(0);
  });

  it.runIf(isPostgres)('two parallel requests for one series make it once (PostgreSQL)', async () => {
    const body = { start_date: '2034-05-05', time: '20:30', repeat: 'daily', count: 5 };
    const results = await Promise.all([1, 2, 3].map(() => admin.post(`/events/${eventId}/sessions/series`, body)));
    expect(results.map((r) => r.status)).toEqual([201, 201, 201]);
    expect(results.reduce((n, r) => n + r.body.data.created, 0)).toBe(5);
    const [n] = await queryRows<{ n: number | string }>(t.ctx.db, sql`SELECT count(*) AS n FROM sessions WHERE event_id = ${eventId} AND start_datetime >= '2034-05-01' AND start_datetime < '2034-06-01'`);
    expect(Number(n!.n)).toBe(5);
  });
});

describe('in the dashboard', () => {
  async function signedIn() {
    const c = new DashboardClient(t.app);
    expect((await c.login('root@taquilla.test')).statusCode).toBe(303);
    return c;
  }

  it('the series form previews the dates in the zone, then creates them; pickers name sessions, not ids', async () => {
    const c = await signedIn();
    const pageRes = await c.get(`/admin/events/${eventId}`);
    expect(pageRes.body).toContain('A series of sessions');
    expect(pageRes.body).toContain('Starts (Europe/Madrid time)');
    // The rates picker: event name and start in the zone, how many rates.
    expect(pageRes.body).toMatch(/<option value="\d+">[^<]+ · \d{4}-\d{2}-\d{2} \d{2}:\d{2} CES?T \(\d+ rates?\)<\/option>/);
    const form = { start_date: '2035-03-16', time: '21:00', repeat: 'weekly', count: '3', duration_minutes: '', rates_from_session_id: String(sourceId) };
    const preview = await c.post(`/admin/events/${eventId}/series`, { ...form, action: 'preview' });
    expect(preview.statusCode).toBe(200);
    // Across the start of summer time (25 March 2035): 21:00 every time.
    expect(preview.body).toContain('3 sessions would be created');
    expect(preview.body).toContain('2035-03-16 21:00 CET');
    expect(preview.body).toContain('2035-03-30 21:00 CEST');
    expect(preview.body).toContain('value="2035-03-16"');
    const tooMany = await c.post(`/admin/events/${eventId}/series`, { ...form, count: '500', action: 'create' });
    expect(tooMany.statusCode).toBe(422);
    expect(tooMany.body).toContain('at most 100 sessions at once');
    const created = await c.post(`/admin/events/${eventId}/series`, { ...form, action: 'create' });
    expect(created.statusCode).toBe(303);
    const after = await c.get(created.headers.location as string);
    expect(after.body).toContain('2035-03-23 21:00 CET');
    expect(after.body).toContain('Sessions created as drafts');
  });

  it('a session typed in the zone; rates copied from a picker; deleting a used rate is refused with the reason', async () => {
    const c = await signedIn();
    await c.get(`/admin/events/${eventId}`);
    const made = await c.post(`/admin/events/${eventId}/sessions`, { start_datetime: '2036-07-04T21:00', end_datetime: '', rates_from_session_id: String(sourceId) });
    expect(made.statusCode).toBe(303);
    const sessionPage = await c.get(made.headers.location as string);
    expect(sessionPage.body).toContain('value="2036-07-04T21:00"');
    expect(sessionPage.body).toContain('Session 2036-07-04 21:00 CEST');
    const source = await ratesOf(sourceId);
    for (const r of source) expect(sessionPage.body).toContain(`value="${r.name}"`);
    expect(sessionPage.body).toContain('Copy rates from another session');

    const used = source[0]!;
    const sourcePage = await c.get(`/admin/sessions/${sourceId}`);
    expect(sourcePage.body).toContain(`action="/admin/rates/${used.id}/delete"`);
    const refused = await c.post(`/admin/rates/${used.id}/delete`);
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain('cannot be deleted');
  });
});
