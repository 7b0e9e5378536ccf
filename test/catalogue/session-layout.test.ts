import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LayoutUnitRow } from '../../src/modules/catalogue/catalogue.schemas.js';
import { rowLinesOfColumns } from '../../src/lib/seat-layout.js';
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
    // The layout lists the seats in reading order, the detail by id: the same seats.
    expect([...rebuilt].sort((a, b) => (a.id as number) - (b.id as number))).toEqual(full.elements.seats);
    expect(rebuilt.find((x) => x.id === s.seats[3]!.id)!.status).toBe('held');
    // A fraction of the full detail's bytes.
    expect(layoutRes.body.length).toBeLessThan((await get(base(s))).body.length / 3);
  });

  it('the layout comes in reading order with its sectors, rows and bounds; form=index gives the statuses by position in it', async () => {
    await createOrder(t.app, token, DEMO.d.slug, { session_seat_id: s.seats[5]!.id, rate_id: s.rates.general });
    const layout = (await get(`${base(s)}/layout`)).json().data as {
      seats: { id: number[]; sector_id: number[]; row: string[]; number: string[]; x: number[]; y: number[] };
      sectors: { id: number; first: number; count: number; min_x: number; min_y: number; max_x: number; max_y: number }[];
      rows: { sector_id: number[]; row: string[]; y: number[]; min_x: number[]; max_x: number[] };
      bounds: { min_x: number; min_y: number; max_x: number; max_y: number };
      version: string;
    };
    const { seats } = layout;
    const n = seats.id.length;
    expect(n).toBeGreaterThan(10);
    // Sector by sector in the detail's order, then by y, then by x; each sector's range and bounds.
    const detail = (await get(`${base(s)}?seats=none`)).json().data as { elements: { sectors: { id: number }[] } };
    const rank = (id: number) => detail.elements.sectors.findIndex((x) => x.id === id);
    for (let i = 1; i < n; i++) {
      const [a, b] = [i - 1, i];
      const before = rank(seats.sector_id[a]!) - rank(seats.sector_id[b]!) || seats.y[a]! - seats.y[b]! || seats.x[a]! - seats.x[b]!;
      expect(before, `seat ${i}`).toBeLessThanOrEqual(0);
    }
    expect(layout.sectors.reduce((k, x) => k + x.count, 0)).toBe(n);
    for (const sector of layout.sectors) {
      const range = Array.from({ length: sector.count }, (_, k) => sector.first + k);
      expect(range.every((i) => seats.sector_id[i] === sector.id)).toBe(true);
      expect(sector).toMatchObject({
        min_x: Math.min(...range.map((i) => seats.x[i]!)),
        max_x: Math.max(...range.map((i) => seats.x[i]!)),
        min_y: Math.min(...range.map((i) => seats.y[i]!)),
        max_y: Math.max(...range.map((i) => seats.y[i]!)),
      });
    }
    expect(layout.bounds).toEqual({ min_x: Math.min(...seats.x), min_y: Math.min(...seats.y), max_x: Math.max(...seats.x), max_y: Math.max(...seats.y) });
    // The rows are those src/lib/seat-layout.ts reads from the seats (as the widget did per load).
    const lines = rowLinesOfColumns({ sectorId: seats.sector_id, row: seats.row, x: seats.x, y: seats.y });
    expect(layout.rows).toEqual({ sector_id: lines.map((l) => l.sectorId), row: lines.map((l) => l.row), y: lines.map((l) => l.y), min_x: lines.map((l) => l.minX), max_x: lines.map((l) => l.maxX) });

    // form=index: the seats of form=ids by their position in the layout's columns of that version.
    const ids = (await get(`${base(s)}/availability?form=ids`)).json().data as { cursor: string; seats_by_status: Record<string, number[]> };
    const byIndex = await get(`${base(s)}/availability?form=index`);
    expect(byIndex.statusCode).toBe(200);
    const body = byIndex.json().data as { cursor: string; layout: string; index_by_status: Record<string, number[]>; seats_by_status?: unknown; changes?: unknown };
    expect(body.layout).toBe(layout.version);
    expect(body.cursor).toBe(ids.cursor);
    expect(body.seats_by_status).toBeUndefined();
    expect(body.changes).toBeUndefined();
    const toIds = (list: Record<string, number[]>) => Object.fromEntries(Object.entries(list).map(([k, v]) => [k, v.map((i) => seats.id[i]!).sort((a, b) => a - b)]));
    const sorted = (list: Record<string, number[]>) => Object.fromEntries(Object.entries(list).map(([k, v]) => [k, [...v].sort((a, b) => a - b)]));
    expect(toIds(body.index_by_status)).toEqual(sorted(ids.seats_by_status));
    expect(toIds(body.index_by_status).held).toContain(s.seats[5]!.id);
    // Changes since a cursor come by index too.
    await createOrder(t.app, token, DEMO.d.slug, { session_seat_id: s.seats[9]!.id, rate_id: s.rates.general });
    const delta = (await get(`${base(s)}/availability?form=index&since=${body.cursor}`)).json().data as { snapshot: boolean; index_by_status: Record<string, number[]> };
    expect(delta.snapshot).toBe(false);
    expect(delta.index_by_status.held!.map((i) => seats.id[i])).toEqual([s.seats[9]!.id]);
    // The same layout on every read: the same version.
    expect(((await get(`${base(s)}/layout`)).json().data as { version: string }).version).toBe(layout.version);
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
