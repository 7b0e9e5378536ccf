import { sql } from 'drizzle-orm';
import { XLSX_TYPE } from '../../src/lib/download.js';
import { readXlsx } from '../spreadsheet-helpers.js';
import { beforeAll, describe, expect } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { appTest, type TestApp } from '../helpers.js';
import { account, adminApiForFile, apiAs, PASSWORD, type AdminApi } from '../admin/admin-helpers.js';
import { DashboardClient } from '../admin/dashboard-client.js';
import { createPendingOrder } from '../checkout/fixtures.js';
import { flashSaleCatalogue } from '../../bench/bench-catalogue.js';
import { importCatalogue } from '../../src/modules/catalogue/import.service.js';
import { forgetTokens, sell, type Sale } from './audience-fixtures.js';

// D66 against a sale counted by hand: completed, cancelled, live carts, refunds whole and in part,
// two channels, numbered seats and an unnumbered zone.

const { it, app } = appTest();
const admin = adminApiForFile(app, 'root@taquilla.test');
let promoterB: AdminApi;
let eventId: number;
let sessionId: number;
let two: Sale;
let one: Sale;
let zone: Sale;

beforeAll(async () => {
  const t = app();
  forgetTokens();
  const [org] = await queryRows<{ id: number }>(t.ctx.db, sql`INSERT INTO organisers (name, created_at) VALUES ('Otra', now()) RETURNING id`);
  promoterB = await apiAs(t, 'promoter-b@taquilla.test', org!.id);
  // Session 2 of the demo (index 1): nothing else in this file sells it.
  two = await sell(t, 'b', { name: 'Ana', surname: 'Uno', email: 'ana@example.com' }, { seats: 2, sessionIndex: 1 });
  one = await sell(t, 'd', { name: 'Bea', surname: 'Dos', email: 'bea@example.com' }, { seats: 1, sessionIndex: 1 });
  zone = await sell(t, 'd', { name: 'Carla', surname: 'Tres', email: 'carla@example.com' }, { seats: 1, zone: true, sessionIndex: 1 });
  await createPendingOrder(t.ctx, { channel: 'demo-d', seats: 1, sessionIndex: 1, state: 'cancelled' });
  await createPendingOrder(t.ctx, { channel: 'demo-b', seats: 3, sessionIndex: 1 });
  sessionId = two.sessionId;
  const [s] = await queryRows<{ event_id: number }>(t.ctx.db, sql`SELECT event_id FROM sessions WHERE id = ${sessionId}`);
  eventId = s!.event_id;
  // One of Ana's two tickets refunded, and Bea's whole order (fees refunded: the default).
  const [ticket] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM tickets WHERE order_id = ${two.orderId} ORDER BY id LIMIT 1`);
  expect((await admin.post(`/orders/${two.reference}/refund`, { reason: 'test', ticket_ids: [Number(ticket!.id)] })).status).toBe(201);
  expect((await admin.post(`/orders/${one.reference}/refund`, { reason: 'test' })).status).toBe(201);
}, 240_000);

const cents = (n: number) => Math.round(n * 100);

describe('GET /api/admin/v1/events/{id}/sales (D66)', () => {
  it('matches the sale counted by hand, refunds counted apart everywhere', async ({ t }) => {
    const res = await admin.get(`/events/${eventId}/sales?session_id=${sessionId}`);
    expect(res.status).toBe(200);
    const o = res.body.data;
    const perTicket = two.total / 2;
    const gross = two.total + one.total + zone.total;
    const refunds = perTicket + one.total;
    const session = o.sessions.find((s: { id: number }) => s.id === sessionId);
    expect(o.sessions).toHaveLength(1);
    expect(session).toMatchObject({ tickets: 2, refunded_tickets: 2, held: 3, checked_in: 0 });
    expect(cents(session.gross_amount)).toBe(gross);
    expect(cents(session.refund_amount)).toBe(refunds);
    expect(cents(session.net_amount)).toBe(gross - refunds);
    const [seats] = await queryRows<{ capacity: number; sold: number }>(
      t.ctx.db,
      sql`SELECT count(*)::int AS capacity, count(*) FILTER (WHERE status = 'sold')::int AS sold FROM session_seats WHERE session_id = ${sessionId}`,
    );
    expect(session.capacity).toBe(seats!.capacity);
    expect(session.sold).toBe(2);
    expect(session.free).toBe(seats!.capacity - 2 - 3 - session.blocked);
    expect(o.totals).toMatchObject({ tickets: 2, refunded_tickets: 2, held: 3 });

    const byChannel = Object.fromEntries(o.channels.map((c: { name: string; tickets: number; refunded_tickets: number }) => [c.name, c]));
    expect(Object.keys(byChannel)).toHaveLength(2);
    const channels = o.channels as { tickets: number; refunded_tickets: number; net_amount: number }[];
    expect(channels.map((c) => c.tickets).sort()).toEqual([1, 1]);
    expect(channels.map((c) => c.refunded_tickets).sort()).toEqual([1, 1]);
    expect(cents(channels.reduce((s, c) => s + c.net_amount, 0))).toBe(gross - refunds);
    const sectors = o.sectors as { tickets: number; sold: number }[];
    expect(sectors.reduce((s, x) => s + x.tickets, 0)).toBe(2);
    expect(sectors.length).toBeGreaterThanOrEqual(2);
    expect((o.rates as { tickets: number }[]).reduce((s, r) => s + r.tickets, 0)).toBe(2);
    expect(o.sales_over_time.points.reduce((s: number, p: { tickets: number }) => s + p.tickets, 0)).toBe(4);
    expect(o).toMatchObject({ currency: 'EUR', queue: null, waiting_list: { waiting: 0, offers: 0, conversion_rate: null, sessions: [] } });
  });

  it('the whole event adds every session; hourly buckets on request', async () => {
    const o = (await admin.get(`/events/${eventId}/sales?interval=hour`)).body.data;
    expect(o.sessions.length).toBeGreaterThanOrEqual(2);
    expect(o.sales_over_time.interval).toBe('hour');
    // Each bucket starts at a local hour of TIMEZONE, given as ISO 8601 with the zone's offset (D12):
    // the hour that holds the sales, in Europe/Madrid's winter (+01:00) or summer (+02:00) offset.
    const points = o.sales_over_time.points as { at: string }[];
    expect(points.length).toBeGreaterThan(0);
    for (const p of points) {
      expect(p.at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:00:00\+0[12]:00$/);
      const start = new Date(p.at).getTime();
      expect(start % 3_600_000).toBe(0);
    }
    const local = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Madrid', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    for (const p of points) expect(local.format(new Date(p.at)).replace(' ', 'T')).toBe(p.at.slice(0, 16));
    const daily = (await admin.get(`/events/${eventId}/sales`)).body.data.sales_over_time.points as { at: string }[];
    for (const p of daily) expect(p.at).toMatch(/^\d{4}-\d{2}-\d{2}T00:00:00\+0[12]:00$/);
    expect(o.totals.capacity).toBe(o.sessions.reduce((s: number, x: { capacity: number }) => s + x.capacity, 0));
  });

  it('the waiting room figures of a session with a queue (D60): its state, length, admissions and rate', async ({ t }) => {
    // Ten minutes before the sales start: the pre-queue is open (it opens 30 minutes before).
    const start = new Date(t.clock.now().getTime() + 600_000).toISOString();
    const patched = await admin.patch(`/sessions/${sessionId}`, { sales_start_at: start, queue: { enabled: true, admission_per_minute: 120 } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    try {
      for (const id of ['a', 'b']) expect((await t.app.inject({ method: 'POST', url: `/api/queue/v1/sessions/${sessionId}/join`, payload: { client_id: `overview-${id}` } })).statusCode).toBe(200);
      const o = (await admin.get(`/events/${eventId}/sales`)).body.data;
      expect(o.queue).toEqual({
        queue_length: 2,
        admitted: 0,
        sessions: [{ session_id: sessionId, state: 'pre_queue', queue_length: 2, admitted_through: 0, admission_per_minute: 120, sales_start_at: expect.any(String) }],
      });
      await account(t.ctx, 'queue-clerk@taquilla.test');
      const client = new DashboardClient(t.app);
      expect((await client.login('queue-clerk@taquilla.test', PASSWORD)).statusCode).toBe(303);
      const page = await client.get(`/admin/events/${eventId}/sales`);
      expect(page.body).toContain('<h2 id="queue-h">Waiting room</h2>');
      expect(page.body).toMatch(/Pre-queue.*2 waiting/s);
    } finally {
      await admin.patch(`/sessions/${sessionId}`, { queue: null, sales_start_at: null });
    }
  });

  it('another organiser\'s promoter and unknown ids get 404; a session of another event is 404', async () => {
    expect((await promoterB.get(`/events/${eventId}/sales`)).body).toMatchObject({ status: 404, code: 'not_found' });
    expect((await admin.get('/events/999999/sales')).body.code).toBe('not_found');
    expect((await admin.get(`/events/${eventId}/sales?session_id=999999`)).body.code).toBe('not_found');
  });
});

describe('the dashboard pages (D66-D68)', () => {
  it('the overview, the attendee list and its CSV, and the erasure with its confirmation', async ({ t }) => {
    await account(t.ctx, 'clerk@taquilla.test');
    const client = new DashboardClient(t.app);
    expect((await client.login('clerk@taquilla.test', PASSWORD)).statusCode).toBe(303);
    const list = await client.get('/admin/sales');
    expect(list.statusCode).toBe(200);
    expect(list.body).toContain(`/admin/events/${eventId}/sales`);
    const overview = await client.get(`/admin/events/${eventId}/sales`);
    expect(overview.statusCode).toBe(200);
    expect(overview.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(overview.body).toContain('<svg class="bar"');
    expect(overview.body).toContain('<figcaption>Seats per session</figcaption>');
    expect(overview.body).toContain(`<a href="/admin/sessions/${sessionId}/sales">`);
    const attendees = await client.get(`/admin/sessions/${sessionId}/attendees?q=ana`);
    expect(attendees.body).toContain('ana@example.com');
    expect(attendees.body).not.toContain('carla@example.com');
    const csv = await client.get(`/admin/sessions/${sessionId}/attendees.csv`);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.body.startsWith('\uFEFFticket_code,')).toBe(true);
    expect(attendees.body).toContain(`/admin/sessions/${sessionId}/attendees.xlsx`);
    const xlsx = await client.get(`/admin/sessions/${sessionId}/attendees.xlsx`);
    expect(xlsx.headers['content-type']).toBe(XLSX_TYPE);
    expect((await readXlsx(xlsx.rawPayload)).rows.map((r) => r.email!.value)).toContain('ana@example.com');

    // Without the confirmation box nothing is erased.
    await client.get('/admin/privacy');
    expect((await client.post('/admin/privacy/erase', { email: 'carla@example.com' })).statusCode).toBe(303);
    expect((await client.get(`/admin/sessions/${sessionId}/attendees`)).body).toContain('carla@example.com');
    const erased = await client.post('/admin/privacy/erase', { email: 'carla@example.com', confirm: '1' });
    expect(erased.statusCode).toBe(303);
    expect(erased.headers.location).toMatch(/^\/admin\/privacy\?erased=1%20buyer%20records/);
    expect((await client.get(`/admin/sessions/${sessionId}/attendees`)).body).not.toContain('carla@example.com');
  });
});

type Status = 'sold' | 'held' | 'free' | 'blocked';

/** The heat map of a page: seats drawn per status (the dashed runs of each path) and the zones' bars. */
function heatMapOf(body: string) {
  const seats: Record<Status, number> = { sold: 0, held: 0, free: 0, blocked: 0 };
  const zones: Record<Status, number> = { sold: 0, held: 0, free: 0, blocked: 0 };
  let paths = 0;
  for (const m of body.matchAll(/<path class="heat-(\w+)" data-status="(\w+)"[^>]* d="([^"]*)"/g)) {
    expect(m[1]).toBe(m[2]);
    paths += 1;
    for (const run of m[3]!.matchAll(/M(\d+) (\d+)\.5h(\d+)/g)) seats[m[2] as Status] += Number(run[3]);
  }
  for (const m of body.matchAll(/<rect class="bar-(\w+)" data-status="(\w+)" x="[\d.]+" y="0" width="(\d+)"/g)) {
    expect(m[1]).toBe(m[2]);
    zones[m[2] as Status] += Number(m[3]);
  }
  return { seats, zones, paths };
}

/** Places of a session per status as the heat map shows them (an expired hold is free), numbered seats and zones apart. */
async function placesOf(db: TestApp['ctx']['db'], id: number, now: Date) {
  const rows = await queryRows<{ numbered: boolean; st: Status; n: number }>(
    db,
    sql`SELECT ss.seat_id IS NOT NULL AS numbered,
               CASE WHEN ss.status = 'held' AND ss.hold_expires_at > ${now} THEN 'held' WHEN ss.status IN ('sold', 'blocked') THEN ss.status ELSE 'free' END AS st,
               count(*)::int AS n
        FROM session_seats ss WHERE ss.session_id = ${id} GROUP BY 1, 2`,
  );
  const out: { seats: Record<Status, number>; zones: Record<Status, number> } = { seats: { sold: 0, held: 0, free: 0, blocked: 0 }, zones: { sold: 0, held: 0, free: 0, blocked: 0 } };
  for (const r of rows) (r.numbered ? out.seats : out.zones)[r.st] = Number(r.n);
  return out;
}

describe('the per-session overview page (D66)', () => {
  it('shows the hand-counted sale of the session and its seat map as a heat map of every seat by status', async ({ t }) => {
    await account(t.ctx, 'map-clerk@taquilla.test');
    const client = new DashboardClient(t.app);
    expect((await client.login('map-clerk@taquilla.test', PASSWORD)).statusCode).toBe(303);
    // One free seat blocked for the test: the fourth colour.
    const [blocked] = await queryRows<{ id: number }>(
      t.ctx.db,
      sql`UPDATE session_seats SET status = 'blocked' WHERE id = (SELECT id FROM session_seats WHERE session_id = ${sessionId} AND seat_id IS NOT NULL AND status = 'available' ORDER BY id LIMIT 1) RETURNING id`,
    );
    try {
      const res = await client.get(`/admin/sessions/${sessionId}/sales`);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.body;
      // The figures of the sale counted by hand (as the API's test above): 2 tickets kept, 2 refunded, 3 held.
      const gross = two.total + one.total + zone.total;
      const refunds = two.total / 2 + one.total;
      const eur = (minor: number) => `€${(minor / 100).toFixed(2)}`; // the UI kit's money in English (amounts under €1,000)
      const [cap] = await queryRows<{ n: number }>(t.ctx.db, sql`SELECT count(*)::int AS n FROM session_seats WHERE session_id = ${sessionId}`);
      expect(body).toContain(`<dt>Tickets sold</dt><dd>2 of ${cap!.n} (2 refunded, not counted)</dd>`);
      expect(body).toContain('<dt>Held in carts now</dt><dd>3</dd>');
      expect(body).toContain(`<dt>Gross</dt><dd>${eur(gross)}`);
      expect(body).toContain(`<dt>Refunds</dt><dd>${eur(refunds)}</dd>`);
      expect(body).toContain(`<dt>Net</dt><dd><strong>${eur(gross - refunds)}</strong></dd>`);
      expect(body).toContain(`<a href="/admin/events/${eventId}/sales">`);
      // Only this session: the sessions chart of the event is not there, the heat map is.
      expect(body).not.toContain('Seats per session');
      expect(body).toContain('<h2 id="map-h">Seat map: sold, held and free</h2>');

      // Every seat drawn once, in the colour of its status; the zone as its fill.
      const drawn = heatMapOf(body);
      const places = await placesOf(t.ctx.db, sessionId, t.clock.now());
      expect(drawn.seats).toEqual(places.seats);
      expect(drawn.zones).toEqual(places.zones);
      expect(drawn.seats.sold + drawn.zones.sold).toBe(2);
      expect(drawn.seats.held + drawn.zones.held).toBe(3);
      expect(drawn.seats.blocked).toBe(1);
      expect(drawn.paths).toBeLessThanOrEqual(4 * (body.match(/<figure class="heatmap">/g) ?? []).length);
      // The counts in text, and each sector an image named by its counts.
      const total = Object.values(places.seats).reduce((a, b) => a + b, 0) + Object.values(places.zones).reduce((a, b) => a + b, 0);
      expect(body).toContain(`<p class="heat-summary">${total} places: <strong>2 sold</strong>, 3 held in a cart, ${places.seats.free + places.zones.free} free, 1 blocked.</p>`);
      expect(body).toMatch(/<svg viewBox="0 0 \d+ \d+" width="\d+" height="\d+" role="img" aria-label="[^"]+: \d+ seats, \d+ sold, \d+ held in a cart, \d+ free, 1 blocked">/);

      // An unknown session: the dashboard's 404 page.
      expect((await client.get(`/admin/sessions/999999/sales`)).statusCode).toBe(404);
    } finally {
      await t.ctx.db.execute(sql`UPDATE session_seats SET status = 'available' WHERE id = ${blocked!.id}`);
    }
  });

  it('draws a 20,000-seat session in one path per status (the time is printed)', async ({ t }) => {
    await importCatalogue(t.ctx, flashSaleCatalogue(20_000, { slug: 'overview-20k', server_keys: ['sk_overview_20k_test'] }));
    const [s] = await queryRows<{ id: number }>(
      t.ctx.db,
      sql`SELECT ses.id FROM sessions ses JOIN events e ON e.id = ses.event_id JOIN venues v ON v.id = e.venue_id WHERE v.name = 'Arena' ORDER BY ses.id DESC LIMIT 1`,
    );
    const big = Number(s!.id);
    // Every seventh seat sold, every 13th held (a live hold; any order will do for the map), every 101st blocked.
    await t.ctx.db.execute(sql`UPDATE session_seats SET status = 'sold' WHERE session_id = ${big} AND id % 7 = 0`);
    await t.ctx.db.execute(sql`UPDATE session_seats SET status = 'held', order_id = (SELECT min(id) FROM orders), hold_expires_at = ${new Date(t.clock.now().getTime() + 600_000)} WHERE session_id = ${big} AND id % 13 = 0 AND status = 'available'`);
    await t.ctx.db.execute(sql`UPDATE session_seats SET status = 'blocked' WHERE session_id = ${big} AND id % 101 = 0 AND status = 'available'`);
    await account(t.ctx, 'map-clerk-20k@taquilla.test');
    const client = new DashboardClient(t.app);
    expect((await client.login('map-clerk-20k@taquilla.test', PASSWORD)).statusCode).toBe(303);
    await client.get(`/admin/sessions/${big}/sales`);
    const times: number[] = [];
    let res;
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      res = await client.get(`/admin/sessions/${big}/sales`);
      times.push(performance.now() - started);
    }
    expect(res!.statusCode).toBe(200);
    const drawn = heatMapOf(res!.body);
    const places = await placesOf(t.ctx.db, big, t.clock.now());
    expect(drawn.seats).toEqual(places.seats);
    expect(Object.values(drawn.seats).reduce((a, b) => a + b, 0)).toBe(20_000);
    expect(drawn.paths).toBe(4);
    console.log(`20,000-seat session overview page (${process.env.TEST_DB ?? 'pglite'}): ${times.map((x) => x.toFixed(0)).join(', ')} ms, ${(res!.body.length / 1024).toFixed(0)} KiB`);
  }, 180_000);
});
