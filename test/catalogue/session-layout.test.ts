import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LayoutUnitRow } from '../../src/modules/catalogue/catalogue.schemas.js';
import { bearer, buildTestApp, DEMO, tokenFor, type TestApp } from '../helpers.js';
import { createOrder, demoSession, type DemoSession } from '../orders/cart-helpers.js';

// Issue 29, large venues: the session detail without its seats (`?seats=none`), the seat layout in
// columns (`.../layout`, kept by the client, ETag), and the statuses from the availability route.
// Together they say what the full session detail says.

let t: TestApp;
let token: string;
let s: DemoSession;
const base = (sess: DemoSession) => `/api/sales-channel/v1/${DEMO.d.slug}/es/events/${sess.eventId}/sessions/${sess.sessionId}`;

beforeAll(async () => {
  t = await buildTestApp();
  token = await tokenFor(t.app, DEMO.d.slug, DEMO.d.key, 'layout-test');
  s = await demoSession(t, 0);
});
afterAll(() => t?.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers: { ...bearer(token), ...headers } });

/** A seat of the full session detail: its place on the map (as the layout gives it), its status and rates. */
interface Seat extends LayoutUnitRow {
  status: string;
  rates: { id: number }[];
}

describe('large venues: the layout apart from the availability', () => {
  it('layout + seats=none detail + availability snapshot = the full session detail', async () => {
    await createOrder(t.app, token, DEMO.d.slug, { session_seat_id: s.seats[3]!.id, rate_id: s.rates.general });
    const full = (await get(base(s))).json().data as { session: unknown; elements: { seats: Seat[]; sectors: { id: number; rates: { id: number }[]; available: number }[] } };
    const bare = await get(`${base(s)}?seats=none`);
    expect(bare.statusCode).toBe(200);
    const detail = bare.json().data as typeof full;
    expect(detail.elements.seats).toEqual([]);
    expect(detail.elements.sectors).toEqual(full.elements.sectors);
    expect(detail.session).toEqual(full.session);
    expect(bare.headers.etag).not.toBe((await get(base(s))).headers.etag);

    const layoutRes = await get(`${base(s)}/layout`);
    expect(layoutRes.statusCode).toBe(200);
    const layout = layoutRes.json().data as { session_id: number; seats: Record<'id' | 'sector_id' | 'row' | 'number' | 'x' | 'y', (number | string)[]> };
    expect(layout.session_id).toBe(s.sessionId);
    const availability = (await get(`${base(s)}/availability`)).json().data as { snapshot: boolean; changes: { session_seat_id: number; status: string }[] };
    expect(availability.snapshot).toBe(true);
    const statusOf = new Map(availability.changes.map((c) => [c.session_seat_id, c.status]));
    const ratesOf = new Map(detail.elements.sectors.map((x) => [x.id, x.rates]));
    const rebuilt = layout.seats.id.map((id, i) => ({
      id,
      sector_id: layout.seats.sector_id[i],
      row: layout.seats.row[i],
      number: layout.seats.number[i],
      x: layout.seats.x[i],
      y: layout.seats.y[i],
      status: statusOf.get(id as number) ?? 'available',
      rates: ratesOf.get(layout.seats.sector_id[i] as number),
    }));
    expect(rebuilt).toEqual(full.elements.seats);
    expect(rebuilt.find((x) => x.id === s.seats[3]!.id)!.status).toBe('held');
    // A fraction of the full detail's bytes.
    expect(layoutRes.body.length).toBeLessThan((await get(base(s))).body.length / 3);
  });

  it('the layout revalidates (304 with its ETag, unchanged by holds), compresses, and is 404 where the detail is', async () => {
    const first = await get(`${base(s)}/layout`);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^W\//);
    expect((await get(`${base(s)}/layout`, { 'if-none-match': etag })).statusCode).toBe(304);
    await createOrder(t.app, token, DEMO.d.slug, { session_seat_id: s.seats[7]!.id, rate_id: s.rates.general });
    expect((await get(`${base(s)}/layout`, { 'if-none-match': etag })).statusCode).toBe(304);
    const gz = await get(`${base(s)}/layout`, { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect((await get(`/api/sales-channel/v1/${DEMO.d.slug}/es/events/${s.eventId}/sessions/999999/layout`)).statusCode).toBe(404);
    expect((await get(`/api/sales-channel/v1/${DEMO.d.slug}/es/events/${s.eventId}/sessions/${s.sessionId}/layout`, {})).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: `${base(s)}/layout` })).statusCode).toBe(401);
    expect((await get(`${base(s)}?seats=some`)).statusCode).toBe(422);
  });
});
