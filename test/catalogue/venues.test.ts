import fs from 'node:fs';
import { sql } from 'drizzle-orm';
import { Ajv } from 'ajv';
import { Value } from 'typebox/value';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { PretixPlan } from '../../src/modules/catalogue/layout.schemas.js';
import { bearer, buildTestApp, expectRefused, isPostgres, tokenFor, type TestApp } from '../helpers.js';
import { api, apiAs, setUpOtherOrganiser } from '../admin/admin-helpers.js';
import { itemsOf, ordersUrl } from '../orders/cart-helpers.js';
import { theatrePlan } from './pretix-fixture.js';

// D64: venues and their layout versions through the admin API, pretix round trips, the session
// move onto a new version and its sold-or-held-seat guard (in parallel with holds on PostgreSQL).

const fixture = (name: string) => JSON.parse(fs.readFileSync(new URL(`../fixtures/pretix/${name}`, import.meta.url), 'utf8'));
const PLANS = ['sample-plan.json', 'grosser-saal.json', 'theatre-2000.json'];
const pretixSchema = new Ajv({ allErrors: true, strict: false }).compile(fixture('seating-plan.schema.json'));

let t: TestApp;
let admin: ReturnType<typeof api>;
let promoterA: ReturnType<typeof api>;
let b: Awaited<ReturnType<typeof setUpOtherOrganiser>>['ids'] & { venue?: number };
let promoterB: ReturnType<typeof api>;
const DEMO_ORGANISER = 1;

beforeAll(async () => {
  t = await buildTestApp({ poolSize: 20 });
  admin = await apiAs(t, 'root@taquilla.test');
  ({ ids: b, promoterB } = await setUpOtherOrganiser(t.ctx, t.app, admin));
  b.venue = (await promoterB.get('/venues')).body.data[0].id;
  promoterA = await apiAs(t, 'promoter-a@taquilla.test', DEMO_ORGANISER);
}, 180_000);
afterAll(() => t.close());

async function newVenue(client = promoterA, name = 'Sala Nueva') {
  const res = await client.post('/venues', { name, city: 'Madrid' });
  expect(res.status).toBe(201);
  return res.body.data.id as number;
}

describe('pretix seating plans', () => {
  it('the fixtures are valid pretix plans, and our theatre is what its generator writes', () => {
    for (const name of PLANS) expect(pretixSchema(fixture(name)), name).toBe(true);
    expect(fixture('theatre-2000.json')).toEqual(theatrePlan());
  });

  it("our expression of pretix's schema accepts and refuses what pretix's own file does", () => {
    const plan = fixture('grosser-saal.json');
    const variants = [
      plan,
      { ...plan, size: undefined },
      { ...plan, extra: 1 },
      { ...plan, zones: [{ ...plan.zones[0], rows: undefined }] },
      { ...plan, zones: [{ ...plan.zones[0], position: { x: 'a', y: 0 } }] },
      { ...plan, zones: [{ ...plan.zones[0], rows: [{ row_number: '1', seats: [{ seat_guid: 'g', seat_number: '1', position: { x: 0, y: 0 } }] }] }] },
      { ...plan, zones: [{ ...plan.zones[0], areas: [{ shape: 'hexagon' }] }] },
      { ...plan, zones: [{ ...plan.zones[0], rows: [{ row_number: '1', row_number_position: 'middle', seats: [] }] }] },
      { foo: 'bar' },
    ].map((v) => JSON.parse(JSON.stringify(v)));
    for (const v of variants) expect(Value.Check(PretixPlan, v)).toBe(pretixSchema(v));
    for (const name of PLANS) expect(Value.Check(PretixPlan, fixture(name))).toBe(true);
  });

  it.each(PLANS)('%s: the export of an import equals the original, through both formats', async (name) => {
    const original = fixture(name);
    const venue = await newVenue(promoterA, name);
    const created = await promoterA.post(`/venues/${venue}/layouts`, { format: 'pretix', plan: original });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ venue_id: venue, version: 1, format: 'pretix' });
    const exported = await promoterA.get(`/venues/${venue}/layouts/1?format=pretix`);
    expect(exported.status).toBe(200);
    expect(exported.body.data).toMatchObject({ venue_id: venue, version: 1, format: 'pretix' });
    expect(exported.body.data.plan).toEqual(original);
    expect(pretixSchema(exported.body.data.plan)).toBe(true);
    // the Taquilla document of the same version, saved again as version 2, still exports the original
    const own = (await promoterA.get(`/venues/${venue}/layouts/1`)).body.data;
    expect(own.format).toBe('taquilla');
    expect((await promoterA.post(`/venues/${venue}/layouts`, { format: 'taquilla', plan: own.plan })).status).toBe(201);
    expect((await promoterA.get(`/venues/${venue}/layouts/2?format=pretix`)).body.data.plan).toEqual(original);
    const seats = original.zones.reduce((n: number, z: { rows: { seats: unknown[] }[] }) => n + z.rows.reduce((m, r) => m + r.seats.length, 0), 0);
    expect((await promoterA.get(`/venues/${venue}/layouts`)).body.data).toEqual([
      { version: 1, seats, capacity: seats, sessions: 0, created_at: expect.any(String) },
      { version: 2, seats, capacity: seats, sessions: 0, created_at: expect.any(String) },
    ]);
    expect((await promoterA.get(`/venues/${venue}`)).body.data).toMatchObject({ layout_version: 2, sectors: expect.any(Array) });
  });

  it('a plan that breaks the pretix schema is 422 validation_failed with field errors under plan', async () => {
    const venue = await newVenue();
    const res = await promoterA.post(`/venues/${venue}/layouts`, { format: 'pretix', plan: { foo: 'bar' } });
    expectRefused(res, 422, 'validation_failed');
    expect(Object.keys(res.body.errors)).toEqual(expect.arrayContaining(['plan.foo', 'plan.zones', 'plan.name']));
    const bad = fixture('sample-plan.json');
    delete bad.zones[0].rows[0].seats[1].category;
    const missing = await promoterA.post(`/venues/${venue}/layouts`, { format: 'pretix', plan: bad });
    expectRefused(missing, 422, 'validation_failed');
    expect(missing.body.errors['plan.zones.0.rows.0.seats.1.category']).toBeDefined();
    expect((await promoterA.get(`/venues/${venue}/layouts`)).body.data).toEqual([]);
  });

  it('a Taquilla export carries no Taquilla-only facts into pretix, and keeps shapes', async () => {
    const venue = await newVenue();
    const plan = {
      focal_point: { x: 100, y: -50 },
      sectors: [
        { name: 'Pista', numbered: false, capacity: 300 },
        { name: 'Grada', numbered: true, rows: [{ label: 'A', priority: 5, seats: [{ number: '1', x: 0, y: 0, wheelchair: true }, { number: '2', x: 30, y: 0, companion: true }] }] },
      ],
      shapes: [{ kind: 'rectangle', role: 'stage', position: { x: 0, y: -100 }, width: 200, height: 40 }],
    };
    expect((await promoterA.post(`/venues/${venue}/layouts`, { format: 'taquilla', plan })).status).toBe(201);
    const own = await promoterA.get(`/venues/${venue}/layouts/1`);
    expect(own.body.data.plan).toEqual(plan);
    const pretix = (await promoterA.get(`/venues/${venue}/layouts/1?format=pretix`)).body.data.plan;
    expect(pretixSchema(pretix)).toBe(true);
    expect(pretix.zones.map((z: { name: string }) => z.name)).toEqual(['Pista', 'Grada', 'Drawing']);
    expect(pretix.zones[1].rows[0].seats[0]).toEqual({ seat_guid: 'Grada-A-1', seat_number: '1', position: { x: 0, y: 0 }, category: '' });
    const [seat] = await queryRows<{ wheelchair: boolean; row_priority: number; focal_x: number }>(
      t.ctx.db,
      sql`SELECT st.wheelchair, st.row_priority, l.focal_x FROM seats st JOIN venue_layouts l ON l.id = st.layout_id
          WHERE l.venue_id = ${venue} AND st.number = '1'`,
    );
    expect(seat).toEqual({ wheelchair: true, row_priority: 5, focal_x: 100 });
    expect((await promoterA.get(`/venues/${venue}/layouts`)).body.data[0]).toMatchObject({ seats: 2, capacity: 302 });
  });
});

describe('venues', () => {
  it('a promoter creates, reads, lists and updates its own venues', async () => {
    const id = await newVenue(promoterA, 'Teatro Propio');
    const read = await promoterA.get(`/venues/${id}`);
    expect(read.body.data).toEqual({
      id,
      organiser_id: DEMO_ORGANISER,
      name: 'Teatro Propio',
      address: null,
      city: 'Madrid',
      layout_version: null,
      sectors: [],
      created_at: expect.any(String),
    });
    const updated = await promoterA.patch(`/venues/${id}`, { address: 'Calle Mayor 1', city: null });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ name: 'Teatro Propio', address: 'Calle Mayor 1', city: null });
    const list = (await promoterA.get('/venues')).body.data as { id: number; organiser_id: number }[];
    expect(list.map((v) => v.id)).toContain(id);
    expect(list.every((v) => v.organiser_id === DEMO_ORGANISER)).toBe(true);
  });

  it("another organiser's venue is 404 for a promoter, on every route", async () => {
    const v = b.venue!;
    expectRefused(await promoterA.get(`/venues/${v}`), 404, 'not_found');
    expectRefused(await promoterA.patch(`/venues/${v}`, { name: 'Mine' }), 404, 'not_found');
    expectRefused(await promoterA.get(`/venues/${v}/layouts`), 404, 'not_found');
    expectRefused(await promoterA.get(`/venues/${v}/layouts/1`), 404, 'not_found');
    expectRefused(await promoterA.post(`/venues/${v}/layouts`, { format: 'pretix', plan: fixture('sample-plan.json') }), 404, 'not_found');
    expect(((await promoterA.get('/venues')).body.data as { id: number }[]).map((x) => x.id)).not.toContain(v);
    expectRefused(await promoterA.post('/venues', { name: 'X', organiser_id: b.organiser }), 404, 'not_found');
    // the admin sees it; its catalogue-imported map is version 1
    expect((await admin.get(`/venues/${v}/layouts`)).body.data).toEqual([{ version: 1, seats: 10, capacity: 15, sessions: 1, created_at: expect.any(String) }]);
  });

  it('every refusal of the venue routes', async () => {
    expectRefused(await admin.post('/venues', { name: 'No organiser' }), 422, 'validation_failed');
    expectRefused(await admin.post('/venues', { name: 'Ghost', organiser_id: 999_999 }), 404, 'not_found');
    expectRefused(await promoterA.post('/venues', { name: '' }), 422, 'validation_failed');
    expectRefused(await promoterA.post('/venues', { name: 'X', capacity: 3 }), 422, 'validation_failed');
    expectRefused(await promoterA.get('/venues/999999'), 404, 'not_found');
    const id = await newVenue();
    expectRefused(await promoterA.get(`/venues/${id}/layouts/1`), 404, 'not_found');
    expectRefused(await promoterA.get(`/venues/${id}/layouts/1?format=svg`), 422, 'validation_failed');
    expectRefused(await promoterA.post(`/venues/${id}/layouts`, { format: 'seatsio', plan: {} }), 422, 'validation_failed');
    expectRefused(await promoterA.post(`/venues/${id}/layouts`, { format: 'taquilla' }), 422, 'validation_failed');
    const rules = [
      [{ sectors: [{ name: 'A', numbered: false, capacity: 1 }, { name: 'A', numbered: false, capacity: 2 }] }, 'plan.sectors.1.name'],
      [{ sectors: [{ name: 'A', numbered: false }] }, 'plan.sectors.0.capacity'],
      [{ sectors: [{ name: 'A', numbered: true, capacity: 4, rows: [] }] }, 'plan.sectors.0.capacity'],
      [{ sectors: [{ name: 'A', numbered: true, rows: [{ label: 'A', seats: [{ number: '1', x: 0, y: 0 }, { number: '1', x: 1, y: 0 }] }] }] }, 'plan.sectors.0.rows.0.seats.1.number'],
      [{ sectors: [{ name: 'A', numbered: true, rows: [{ label: 'A', seats: [{ number: '1', x: 0 }] }] }] }, 'plan.sectors.0.rows.0.seats.0.y'],
      [{ sectors: [{ name: 'A', numbered: true, rows: [{ label: 'A', seats: [{ number: '1', x: 0, y: 0, wheelchair: true, companion: true }] }] }] }, 'plan.sectors.0.rows.0.seats.0.companion'],
    ] as const;
    for (const [plan, field] of rules) {
      const res = await promoterA.post(`/venues/${id}/layouts`, { format: 'taquilla', plan });
      expectRefused(res, 422, 'validation_failed');
      expect(Object.keys(res.body.errors), field).toContain(field);
    }
  });

  it('a promoter may make events on its new venue: the session takes the newest version', async () => {
    const venue = await newVenue(promoterA, 'Sala con sesiones');
    await promoterA.post(`/venues/${venue}/layouts`, { format: 'pretix', plan: fixture('grosser-saal.json') });
    const event = await promoterA.post('/events', { venue_id: venue, names: { es: 'Estreno' } });
    expect(event.status).toBe(201);
    const session = await promoterA.post(`/events/${event.body.data.id}/sessions`, { start_datetime: '2031-01-01T20:00:00Z' });
    expect(session.status).toBe(201);
    const [row] = await queryRows<{ version: number; units: number }>(
      t.ctx.db,
      sql`SELECT l.version, (SELECT count(*)::int FROM session_seats WHERE session_id = s.id) AS units
          FROM sessions s JOIN venue_layouts l ON l.id = s.layout_id WHERE s.id = ${session.body.data.id}`,
    );
    expect(row).toEqual({ version: 1, units: 3 });
  });
});

// ---- sessions on a version, and the guard

const row = (label: string, n: number, y: number, category = 'Main') => ({
  label,
  seats: Array.from({ length: n }, (_, i) => ({ number: String(i + 1), x: i * 30, y, category })),
});

/** A venue (rows A and B of 10, a zone of 5) with an event on sale through a widget channel. */
async function venueOnSale(slug: string) {
  const venue = await newVenue(admin === undefined ? promoterA : promoterA, `Sala ${slug}`);
  const plan = { sectors: [{ name: 'Patio', numbered: true, rows: [row('A', 10, 0), row('B', 10, 40)] }, { name: 'Pista', numbered: false, capacity: 5 }] };
  expect((await promoterA.post(`/venues/${venue}/layouts`, { format: 'taquilla', plan })).status).toBe(201);
  const event = (await promoterA.post('/events', { venue_id: venue, names: { es: `Función ${slug}` }, status: 'published' })).body.data.id as number;
  const start = new Date(t.clock.now().getTime() + 30 * 86_400_000).toISOString();
  const session = (await promoterA.post(`/events/${event}/sessions`, { start_datetime: start, status: 'on_sale' })).body.data.id as number;
  const rate = await promoterA.post(`/sessions/${session}/rates`, { name: 'General', price: 10 });
  expect(rate.status).toBe(201);
  const channel = await promoterA.post('/channels', { name: slug, slug, integration_mode: 'widget_external_payment', event_ids: [event] });
  expect(channel.status).toBe(201);
  const key = (await promoterA.post(`/channels/${channel.body.data.id}/keys`)).body.data.widget_key as string;
  const token = await tokenFor(t.app, slug, key);
  const seats = await queryRows<{ id: number; row: string; number: string }>(
    t.ctx.db,
    sql`SELECT ss.id, st.row, st.number FROM session_seats ss JOIN seats st ON st.id = ss.seat_id WHERE ss.session_id = ${session} ORDER BY ss.id`,
  );
  return { venue, plan, event, session, rate: rate.body.data.id as number, token, slug, seats };
}

const hold = (s: Awaited<ReturnType<typeof venueOnSale>>, seatId: number) =>
  t.app.inject({ method: 'POST', url: ordersUrl(s.slug), headers: bearer(s.token), payload: { session_seat_id: seatId, rate_id: s.rate } });

describe('sessions on a layout version', () => {
  it('a new version moves the upcoming sessions: kept seats keep their inventory, new ones come, free ones go', async () => {
    const s = await venueOnSale('move-a');
    const a1 = s.seats.find((x) => x.row === 'A' && x.number === '1')!;
    expect((await hold(s, a1.id)).statusCode).toBe(201);
    const detailUrl = `/api/sales-channel/v1/${s.slug}/es/events/${s.event}/sessions/${s.session}`;
    // Read before the move: the session's layout is cached, and the move must not leave it stale.
    expect((await t.app.inject({ url: detailUrl, headers: bearer(s.token) })).body).toContain('"row":"B"');
    const plan = { ...s.plan, sectors: [{ name: 'Patio', numbered: true, rows: [row('A', 12, 0), row('C', 5, 80)] }, { name: 'Pista', numbered: false, capacity: 8 }] };
    const res = await promoterA.post(`/venues/${s.venue}/layouts`, { format: 'taquilla', plan });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ version: 2, sessions_moved: [s.session] });
    const units = await queryRows<{ row: string | null; status: string; n: number }>(
      t.ctx.db,
      sql`SELECT st.row, ss.status, count(*)::int AS n FROM session_seats ss LEFT JOIN seats st ON st.id = ss.seat_id
          WHERE ss.session_id = ${s.session} GROUP BY st.row, ss.status ORDER BY st.row NULLS LAST, ss.status`,
    );
    expect(units).toEqual([
      { row: 'A', status: 'available', n: 11 },
      { row: 'A', status: 'held', n: 1 },
      { row: 'C', status: 'available', n: 5 },
      { row: null, status: 'available', n: 8 },
    ]);
    // the held seat is the same inventory row, now on version 2's seat
    const [held] = await queryRows<{ id: number; version: number }>(
      t.ctx.db,
      sql`SELECT ss.id, l.version FROM session_seats ss JOIN seats st ON st.id = ss.seat_id JOIN venue_layouts l ON l.id = st.layout_id WHERE ss.status = 'held' AND ss.session_id = ${s.session}`,
    );
    expect(held).toEqual({ id: a1.id, version: 2 });
    const detail = await t.app.inject({ url: detailUrl, headers: bearer(s.token) });
    expect(detail.statusCode).toBe(200);
    expect(detail.body).toContain('"row":"C"');
    expect(detail.body).not.toContain('"row":"B"');
    expect((await promoterA.get(`/venues/${s.venue}/layouts`)).body.data.map((l: { sessions: number }) => l.sessions)).toEqual([0, 1]);
  });

  it('best available (D61) after a move offers the seats of the new version only, though it had read the old one', async () => {
    const s = await venueOnSale('move-ba');
    const bestAvailable = (payload: object) =>
      t.app.inject({ method: 'POST', url: `${ordersUrl(s.slug)}/best-available`, headers: bearer(s.token), payload: { session_id: s.session, ...payload } });
    // Read before the move: best available keeps the session's layout, and the move must not leave it stale.
    expect((await bestAvailable({ quantity: 2 })).statusCode).toBe(201);
    // Version 2 drops row B (free) and brings A11, A12 and row C.
    const plan = { ...s.plan, sectors: [{ name: 'Patio', numbered: true, rows: [row('A', 12, 0), row('C', 5, 80)] }, s.plan.sectors[1]] };
    const res = await promoterA.post(`/venues/${s.venue}/layouts`, { format: 'taquilla', plan });
    expect(res.body.data).toMatchObject({ version: 2, sessions_moved: [s.session] });
    const free = await queryRows<{ id: number }>(
      t.ctx.db,
      sql`SELECT ss.id FROM session_seats ss JOIN seats st ON st.id = ss.seat_id WHERE ss.session_id = ${s.session} AND ss.status = 'available' ORDER BY ss.id`,
    );
    expect(free).toHaveLength(15);
    // Every free seat of version 2 (10 of row A, 5 of row C): the old layout knew neither A11, A12 nor C.
    const r = await bestAvailable({ quantity: 15, together: false });
    expect(r.statusCode, r.body).toBe(201);
    expect(itemsOf(r.json().data).map((i) => i.session_seat_id!).sort((a, b) => a - b)).toEqual(free.map((f) => f.id));
  });

  it('409 layout_seat_in_use lists the held and sold seats (and short zones) a version would remove; nothing changes', async () => {
    const s = await venueOnSale('guard-a');
    const b3 = s.seats.find((x) => x.row === 'B' && x.number === '3')!;
    expect((await hold(s, b3.id)).statusCode).toBe(201);
    // three zone places held (by the database state a zone cart leaves) and one seat sold
    const until = new Date(t.clock.now().getTime() + 3600_000).toISOString();
    await t.ctx.db.execute(sql`UPDATE session_seats SET status = 'held', hold_expires_at = ${until}::timestamptz,
      order_id = (SELECT order_id FROM session_seats WHERE id = ${b3.id}) WHERE id IN (SELECT id FROM session_seats WHERE session_id = ${s.session} AND seat_id IS NULL ORDER BY id LIMIT 3)`);
    await t.ctx.db.execute(sql`UPDATE session_seats SET status = 'sold' WHERE id = ${s.seats.find((x) => x.row === 'A' && x.number === '10')!.id}`);
    // renumbering row A to 2..11 drops A1 (free) and renumbers A10's place: A10 still exists; drop row B; shrink the zone to 2
    const plan = { sectors: [{ name: 'Patio', numbered: true, rows: [row('A', 9, 0)] }, { name: 'Pista', numbered: false, capacity: 2 }] };
    const res = await promoterA.post(`/venues/${s.venue}/layouts`, { format: 'taquilla', plan });
    expectRefused(res, 409, 'layout_seat_in_use');
    expect(res.body.data).toEqual({
      seats: [
        { session_id: s.session, sector: 'Patio', row: 'A', number: '10', status: 'sold' },
        { session_id: s.session, sector: 'Patio', row: 'B', number: '3', status: 'held' },
      ],
      zones: [{ session_id: s.session, sector: 'Pista', taken: 3, capacity: 2 }],
    });
    expect((await promoterA.get(`/venues/${s.venue}/layouts`)).body.data).toHaveLength(1);
    // an expired hold is free: once the clock passes it, only the sold seat stands in the way
    t.clock.advance(3 * 3600_000);
    const later = await promoterA.post(`/venues/${s.venue}/layouts`, { format: 'taquilla', plan });
    expectRefused(later, 409, 'layout_seat_in_use');
    expect(later.body.data).toEqual({ seats: [{ session_id: s.session, sector: 'Patio', row: 'A', number: '10', status: 'sold' }], zones: [] });
    const keepA10 = { sectors: [{ name: 'Patio', numbered: true, rows: [row('A', 10, 0)] }, { name: 'Pista', numbered: false, capacity: 2 }] };
    expect((await promoterA.post(`/venues/${s.venue}/layouts`, { format: 'taquilla', plan: keepA10 })).status).toBe(201);
  });

  it.runIf(isPostgres)('a hold waiting on a seat that a new version deletes answers 404 seat_not_found, and keeps no cart (PostgreSQL)', async () => {
    const s = await venueOnSale('gone-wait');
    const b1 = s.seats.find((x) => x.row === 'B' && x.number === '1')!;
    const orders = async () => (await queryRows<{ n: number }>(t.ctx.db, sql`SELECT count(*)::int AS n FROM orders`))[0]!.n;
    const before = await orders();
    let answer: Awaited<ReturnType<typeof hold>> | undefined;
    // What the save of a version does to a seat it drops (layouts.repo.ts retire), with the hold
    // already past its read of the seat and waiting for the row's lock.
    await t.ctx.db.transaction(async (tx) => {
      await tx.execute(sql`SELECT id FROM session_seats WHERE id = ${b1.id} FOR UPDATE`);
      const pending = hold(s, b1.id).then((r) => (answer = r));
      for (let i = 0; i < 200; i++) {
        const [w] = await queryRows<{ n: number }>(t.ctx.db, sql`SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND locktype IN ('transactionid', 'tuple')`);
        if (w!.n > 0) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      expect(answer).toBeUndefined();
      await tx.execute(sql`DELETE FROM session_seats WHERE id = ${b1.id}`);
      void pending;
    });
    await vi.waitFor(() => expect(answer).toBeDefined(), { timeout: 10_000 });
    expect(answer!.statusCode).toBe(404);
    expect(answer!.json()).toMatchObject({ code: 'not_found', message: `Seat ${b1.id} not found` });
    expect(await orders()).toBe(before);
  });

  it(`parallel holds while a new version is saved never leave a held seat outside the session's version (${isPostgres ? 'PostgreSQL' : 'PGlite, serialised'})`, async () => {
    for (let round = 0; round < (isPostgres ? 4 : 1); round++) {
      const s = await venueOnSale(`race-${round}`);
      const rowB = s.seats.filter((x) => x.row === 'B');
      const dropB = { sectors: [{ name: 'Patio', numbered: true, rows: [row('A', 10, 0)] }, { name: 'Pista', numbered: false, capacity: 5 }] };
      const holds = rowB.map((x, i) => new Promise((r) => setTimeout(r, i % 4)).then(() => hold(s, x.id)));
      const save = promoterA.post(`/venues/${s.venue}/layouts`, { format: 'taquilla', plan: dropB });
      const [saved, ...held] = await Promise.all([save, ...holds]);
      const won = held.filter((h) => h.statusCode === 201).length;
      // a hold that lost: the seat taken (409) or already gone with the new version (404)
      for (const h of held) expect([201, 404, 409]).toContain(h.statusCode);
      if (saved.status === 201) {
        // every hold that won took a seat before the move saw it... and then the save could not have won
        expect(won).toBe(0);
      } else {
        expectRefused(saved, 409, 'layout_seat_in_use');
        // the seats held when the save looked (holds may still win after it gave up)
        expect(saved.body.data.seats.length).toBeGreaterThan(0);
        expect(saved.body.data.seats.length).toBeLessThanOrEqual(won);
      }
      const orphans = await queryRows<{ id: number }>(
        t.ctx.db,
        sql`SELECT ss.id FROM session_seats ss JOIN seats st ON st.id = ss.seat_id JOIN sessions se ON se.id = ss.session_id
            WHERE ss.session_id = ${s.session} AND ss.status IN ('held', 'sold') AND st.layout_id <> se.layout_id`,
      );
      expect(orphans).toEqual([]);
    }
  }, 120_000);
});
