import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeBlock } from '../../designer/src/plan/geometry.js';
import { buildTestApp, type TestApp } from '../helpers.js';
import { api, promoterOfNewOrganiser } from '../admin/admin-helpers.js';
import { DashboardClient } from '../admin/dashboard-client.js';

// The designer's dashboard page and its two JSON calls (D65, docs/venues.md): the page loads the
// bundle, the plan call reads the newest version, the save makes the next one through the venues
// service, behind the session and its CSRF token; another organiser's venue is 404.

let t: TestApp;
let promoter: Awaited<ReturnType<typeof promoterOfNewOrganiser>>;
let venueId: number;
let otherVenueId: number;
const client = () => new DashboardClient(t.app);

beforeAll(async () => {
  t = await buildTestApp({ demo: false });
  promoter = await promoterOfNewOrganiser(t.ctx, 'uno@taquilla.test', 'Uno');
  const other = await promoterOfNewOrganiser(t.ctx, 'dos@taquilla.test', 'Dos');
  venueId = (await api(t.app, promoter.token).post('/venues', { name: 'Sala Uno', city: 'Madrid' })).body.data.id;
  otherVenueId = (await api(t.app, other.token).post('/venues', { name: 'Sala Dos' })).body.data.id;
}, 120_000);

afterAll(async () => {
  await t?.close();
});

async function postJson(c: DashboardClient, url: string, body: unknown) {
  const res = await t.app.inject({
    method: 'POST',
    url,
    headers: { cookie: [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
  return { status: res.statusCode, type: String(res.headers['content-type']), body: res.json() };
}

const plan = () => ({
  name: 'Sala Uno',
  size: { width: 1000, height: 600 },
  focal_point: { x: 250, y: 40 },
  categories: [{ name: 'Standard', color: '#3366cc' }],
  sectors: [makeBlock({ name: 'Platea', rows: 3, seatsPerRow: 10, origin: { x: 100, y: 150 }, direction: 'ltr', parity: 'all', category: 'Standard' })],
  shapes: [{ kind: 'rectangle', role: 'stage', position: { x: 100, y: 20 }, width: 300, height: 60 }],
});

describe('the designer page', () => {
  it('needs a session, and shows the page with the bundle for the venue', async () => {
    const anonymous = await t.app.inject({ method: 'GET', url: `/admin/venues/${venueId}/designer` });
    expect(anonymous.statusCode).toBe(303);
    expect(anonymous.headers.location).toBe('/admin/login');

    const c = client();
    await c.login('uno@taquilla.test');
    const page = await c.get(`/admin/venues/${venueId}/designer`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1>Seat map: Sala Uno</h1>');
    expect(page.body).toMatch(/<div id="designer-root" data-venue-id="\d+" data-venue-name="Sala Uno" data-plan-url="\/admin\/venues\/\d+\/designer\/plan" data-csrf="[^"]+">/);
    const js = /src="(\/admin\/designer\/designer\.js\?v=[0-9a-f]{16})"/.exec(page.body)![1]!;
    const css = /href="(\/admin\/designer\/designer\.css\?v=[0-9a-f]{16})"/.exec(page.body)![1]!;
    expect(String(page.headers['content-security-policy'])).toContain("script-src 'self'");

    const script = await c.get(js);
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toContain('text/javascript');
    expect(script.headers['cache-control']).toContain('immutable');
    expect((await c.get(css)).headers['content-type']).toContain('text/css');
    expect((await c.get('/admin/designer/other.js')).statusCode).toBe(404);
  });

  it('loads an empty plan, saves versions, and reads the newest back', async () => {
    const c = client();
    await c.login('uno@taquilla.test');
    await c.get(`/admin/venues/${venueId}/designer`);
    const empty = await c.get(`/admin/venues/${venueId}/designer/plan`);
    expect(empty.statusCode).toBe(200);
    expect(empty.json().data).toEqual({ version: null, plan: { name: 'Sala Uno', size: { width: 1200, height: 800 }, categories: [{ name: 'Standard', color: '#3366cc' }], sectors: [], shapes: [] } });

    const saved = await postJson(c, `/admin/venues/${venueId}/designer/plan`, { _csrf: c.csrf, plan: plan() });
    expect(saved.status).toBe(201);
    expect(saved.body).toMatchObject({ success: true, data: { version: 1, seats: 30, capacity: 30, sessions_moved: [] } });

    const second = plan();
    second.sectors[0]!.rows![0]!.seats[0]!.wheelchair = true;
    expect((await postJson(c, `/admin/venues/${venueId}/designer/plan`, { _csrf: c.csrf, plan: second })).body.data.version).toBe(2);

    const back = (await c.get(`/admin/venues/${venueId}/designer/plan`)).json().data;
    expect(back.version).toBe(2);
    expect(back.plan).toEqual(second);
    const versions = await api(t.app, promoter.token).get(`/venues/${venueId}/layouts`);
    expect(versions.body.data.map((v: { version: number; seats: number }) => [v.version, v.seats])).toEqual([
      [1, 30],
      [2, 30],
    ]);
  });

  it('refuses a save without the CSRF token, and a bad plan with the D4 envelope', async () => {
    const c = client();
    await c.login('uno@taquilla.test');
    await c.get(`/admin/venues/${venueId}/designer`);
    const forged = await postJson(c, `/admin/venues/${venueId}/designer/plan`, { plan: plan() });
    expect(forged.status).toBe(403);
    expect(forged.type).toContain('application/json');
    expect(forged.body).toMatchObject({ status: 403, success: false, code: 'forbidden' });
    for (const odd of [{ _csrf: 7, plan: plan() }, { _csrf: { a: 1 }, plan: plan() }, [c.csrf], 'text', null]) {
      const res = await postJson(c, `/admin/venues/${venueId}/designer/plan`, odd);
      expect(res.status, JSON.stringify(odd)).toBe(403);
      expect(res.body.code).toBe('forbidden');
    }
    const notJson = await t.app.inject({
      method: 'POST',
      url: `/admin/venues/${venueId}/designer/plan`,
      headers: { cookie: [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'content-type': 'application/json' },
      payload: '{"_csrf": ',
    });
    expect(notJson.statusCode).toBe(400);
    expect(notJson.json().code).toBe('bad_request');

    const twice = plan();
    twice.sectors.push({ ...twice.sectors[0]! });
    const bad = await postJson(c, `/admin/venues/${venueId}/designer/plan`, { _csrf: c.csrf, plan: twice });
    expect(bad.status).toBe(422);
    expect(bad.body.code).toBe('validation_failed');
    expect(bad.body.errors['plan.sectors.1.name']).toEqual(['repeats the sector "Platea": sector names are unique in a layout']);

    const notAPlan = await postJson(c, `/admin/venues/${venueId}/designer/plan`, { _csrf: c.csrf, plan: [1] });
    expect(notAPlan.status).toBe(422);
    expect(notAPlan.body.errors).toEqual({ plan: ['must be a Taquilla layout (an object)'] });
    const schema = await postJson(c, `/admin/venues/${venueId}/designer/plan`, { _csrf: c.csrf, plan: { sectors: [{ name: 'X', numbered: true, colour: 1 }] } });
    expect(schema.status).toBe(422);
    expect(schema.body.errors['plan.sectors.0.colour']).toEqual(['is not allowed']);
  });

  it("answers 404 for another organiser's venue, page and calls alike", async () => {
    const c = client();
    await c.login('uno@taquilla.test');
    await c.get(`/admin/venues/${venueId}/designer`);
    expect((await c.get(`/admin/venues/${otherVenueId}/designer`)).statusCode).toBe(404);
    const read = await c.get(`/admin/venues/${otherVenueId}/designer/plan`);
    expect(read.statusCode).toBe(404);
    expect(read.json()).toMatchObject({ code: 'not_found', message: 'Venue not found' });
    const write = await postJson(c, `/admin/venues/${otherVenueId}/designer/plan`, { _csrf: c.csrf, plan: plan() });
    expect(write).toMatchObject({ status: 404, body: { code: 'not_found', message: 'Venue not found' } });
    expect((await c.get('/admin/venues/abc/designer/plan')).json()).toMatchObject({ status: 404, code: 'not_found' });
  });
});
