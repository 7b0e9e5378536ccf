import zlib from 'node:zlib';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { inventoryChanged } from '../../src/lib/inventory-events.js';
import { importCatalogue } from '../../src/modules/catalogue/import.service.js';
import type { CatalogueDocument } from '../../src/modules/catalogue/import.schemas.js';
import { bearer, buildTestApp, DEMO, expectRefused, tokenFor, type TestApp } from '../helpers.js';

let t: TestApp;
let token: string; // demo-d
let otherToken: string; // other-ch: sells only the "hidden" event
let concert: { id: number; sessions: number[] };
let play: { id: number; sessions: number[] };
let hidden: { id: number; session: number };
let draft: { id: number; session: number };
let seatSector: { platea: number; anfiteatro: number; pista: number };

const base = (slug: string = DEMO.d.slug) => `/api/sales-channel/v1/${slug}`;
const get = (url: string, headers: Record<string, string> = {}, tk = token) =>
  t.app.inject({ method: 'GET', url, headers: { ...bearer(tk), ...headers } });

const DAY = 24 * 3600 * 1000;

/** A second organiser: one event sold only by "other-ch", one draft event sold by demo-d. */
function extraCatalogue(now: Date): CatalogueDocument {
  const start = new Date(now.getTime() + 10 * DAY).toISOString();
  return {
    organisers: [{ key: 'other', name: 'Other Org' }],
    venues: [
      {
        key: 'sala',
        organiser: 'other',
        name: 'Sala Pequeña',
        city: 'Sevilla',
        sectors: [{ key: 'unica', name: 'Única', numbered: true, rows: [{ row: 'A', seats: 5, x: 0, y: 0 }] }],
      },
    ],
    events: [
      {
        key: 'hidden',
        organiser: 'other',
        venue: 'sala',
        default_lang: 'en',
        names: { en: 'Hidden Show' },
        sessions: [{ key: 'h1', start_datetime: start, rates: [{ key: 'std', name: 'Standard', price: 10 }] }],
      },
      {
        key: 'draft',
        organiser: 'other',
        venue: 'sala',
        status: 'draft',
        names: { es: 'Borrador' },
        sessions: [{ key: 'd1', start_datetime: start, rates: [{ key: 'std2', name: 'Standard', price: 10 }] }],
      },
    ],
    channels: [
      { organiser: 'other', slug: 'other-ch', name: 'Other', integration_mode: 'widget_external_payment', events: ['hidden'], widget_keys: ['wk_other_ch'] },
    ],
  };
}

beforeAll(async () => {
  t = await buildTestApp();
  await importCatalogue(t.ctx, extraCatalogue(t.clock.now()));
  await t.ctx.db.execute(sql`INSERT INTO channel_events (channel_id, event_id)
    SELECT c.id, e.event_id FROM sales_channels c, event_translations e WHERE c.slug = 'demo-d' AND e.name = 'Borrador'`);
  token = await tokenFor(t.app, DEMO.d.slug, DEMO.d.key);
  otherToken = await tokenFor(t.app, 'other-ch', 'wk_other_ch');
  const events = await queryRows<{ id: number; name: string; sessions: number[] }>(
    t.ctx.db,
    sql`SELECT e.id, tr.name, array_agg(s.id ORDER BY s.start_datetime) AS sessions
        FROM events e JOIN event_translations tr ON tr.event_id = e.id AND tr.lang = e.default_lang
        JOIN sessions s ON s.event_id = e.id GROUP BY e.id, tr.name`,
  );
  const byName = (name: string) => events.find((e) => e.name === name)!;
  concert = { id: byName('Concierto de Año Nuevo').id, sessions: byName('Concierto de Año Nuevo').sessions };
  play = { id: byName('La vida es sueño').id, sessions: byName('La vida es sueño').sessions };
  hidden = { id: byName('Hidden Show').id, session: byName('Hidden Show').sessions[0]! };
  draft = { id: byName('Borrador').id, session: byName('Borrador').sessions[0]! };
  const sectors = await queryRows<{ id: number; name: string }>(t.ctx.db, sql`SELECT id, name FROM sectors`);
  const sector = (name: string) => sectors.find((s) => s.name === name)!.id;
  seatSector = { platea: sector('Platea'), anfiteatro: sector('Anfiteatro'), pista: sector('Pista') };
});
afterAll(() => t.close());

const sessionUrl = (sessionId = concert.sessions[0]!, lang = 'es', eventId = concert.id) =>
  `${base()}/${lang}/events/${eventId}/sessions/${sessionId}`;

/** Session detail on the current cache: fetch and parse (identity encoding). */
async function detail(sessionId = concert.sessions[0]!, lang = 'es') {
  const eventId = play.sessions.includes(sessionId) ? play.id : concert.id;
  const res = await get(sessionUrl(sessionId, lang, eventId));
  expect(res.statusCode).toBe(200);
  return res.json().data as {
    session: Record<string, unknown>;
    elements: {
      seats: { id: number; sector_id: number; row: string; number: string; status: string; rates: { id: number; name: string; price: number; meta: Record<string, unknown> }[] }[];
      sectors: { id: number; name: string; numbered: boolean; capacity: number; available: number; rates: { id: number; name: string }[] }[];
    };
  };
}

/** Sets a seat's inventory row directly, as the cart and closing modules would. */
async function setSeat(id: number, status: string, holdExpiresAt: Date | null) {
  // Held and sold rows name their order (a CHECK of the cart's migration): one order stands for them.
  const orderId = status === 'held' || status === 'sold' ? await fixtureOrderId() : null;
  await t.ctx.db.execute(
    sql`UPDATE session_seats SET status = ${status}, order_id = ${orderId}, hold_expires_at = ${holdExpiresAt ? holdExpiresAt.toISOString() : null}::timestamptz WHERE id = ${id}`,
  );
}

let fixtureOrder: number | null = null;
async function fixtureOrderId(): Promise<number> {
  if (fixtureOrder === null) {
    const [row] = await queryRows<{ id: number }>(
      t.ctx.db,
      sql`INSERT INTO orders (order_token, reference, channel_id, currency)
          SELECT 'catalogue-fixture', 'TQ-CATFIXTR', id, 'EUR' FROM sales_channels WHERE slug = 'demo-d' RETURNING id`,
    );
    fixtureOrder = Number(row!.id);
  }
  return fixtureOrder;
}

describe('GET /{lang}/events', () => {
  it('lists the events the channel sells, simplified (rule 1)', async () => {
    const res = await get(`${base()}/es/events`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ status: 200, success: true, message: expect.any(String) });
    const ids = body.data.map((e: { id: number }) => e.id);
    expect(ids).toEqual(expect.arrayContaining([concert.id, play.id]));
    expect(ids).not.toContain(hidden.id); // not sold by demo-d
    expect(ids).not.toContain(draft.id); // sold but not published
    const ev = body.data.find((e: { id: number }) => e.id === concert.id);
    expect(Object.keys(ev).sort()).toEqual(['default_lang', 'description', 'id', 'image_url', 'name', 'sessions', 'venue']);
    expect(ev).not.toHaveProperty('fees');
    expect(ev).not.toHaveProperty('manual_promotions');
    expect(ev).toMatchObject({ name: 'Concierto de Año Nuevo', default_lang: 'es', venue: { name: 'Teatro Demo', city: 'Madrid' } });
    expect(ev.sessions).toHaveLength(2);
    for (const s of ev.sessions) {
      // SPEC rule 1's id and start, plus the sales window and state of D59.
      expect(Object.keys(s).sort()).toEqual(['id', 'sale_state', 'sales_end_at', 'sales_start_at', 'start_datetime']);
      expect(s.start_datetime).toMatch(/\+00:00$/);
    }
  });

  it('names in the requested language, falling back to the default language', async () => {
    const en = (await get(`${base()}/en/events`)).json().data.find((e: { id: number }) => e.id === concert.id);
    expect(en).toMatchObject({ name: "New Year's Concert", description: 'Waltzes and polkas by the house orchestra.' });
    const enGb = (await get(`${base()}/en-GB/events`)).json().data.find((e: { id: number }) => e.id === concert.id);
    expect(enGb.name).toBe("New Year's Concert");
    const fr = (await get(`${base()}/fr/events`)).json().data.find((e: { id: number }) => e.id === concert.id);
    expect(fr).toMatchObject({ name: 'Concierto de Año Nuevo', description: 'Valses y polcas con la orquesta de la casa.' });
  });

  it('shows only future sessions on sale', async () => {
    const [first] = concert.sessions;
    await t.ctx.db.execute(sql`UPDATE sessions SET status = 'closed' WHERE id = ${first!}`);
    try {
      const ev = (await get(`${base()}/es/events`)).json().data.find((e: { id: number }) => e.id === concert.id);
      expect(ev.sessions.map((s: { id: number }) => s.id)).toEqual([concert.sessions[1]]);
    } finally {
      await t.ctx.db.execute(sql`UPDATE sessions SET status = 'on_sale' WHERE id = ${first!}`);
    }
    // Both sessions started a minute ago (by the injected clock).
    const past = new Date(t.clock.now().getTime() - 60_000).toISOString();
    const starts = await queryRows<{ id: number; start: string }>(t.ctx.db, sql`SELECT id, start_datetime::text AS start FROM sessions WHERE event_id = ${concert.id}`);
    await t.ctx.db.execute(sql`UPDATE sessions SET start_datetime = ${past}::timestamptz WHERE event_id = ${concert.id}`);
    try {
      const ev = (await get(`${base()}/es/events`)).json().data.find((e: { id: number }) => e.id === concert.id);
      expect(ev.sessions).toEqual([]);
    } finally {
      for (const s of starts) await t.ctx.db.execute(sql`UPDATE sessions SET start_datetime = ${s.start}::timestamptz WHERE id = ${s.id}`);
    }
  });

  it('another channel sees only its own events', async () => {
    const res = await get(`${base('other-ch')}/en/events`, {}, otherToken);
    expect(res.statusCode).toBe(200);
    expect(res.json().data.map((e: { id: number }) => e.id)).toEqual([hidden.id]);
  });
});

describe('GET /{lang}/events/{eventId}', () => {
  it('returns the full event: fees, manual promotions, sessions with availability', async () => {
    const res = await get(`${base()}/en/events/${concert.id}`);
    expect(res.statusCode).toBe(200);
    const ev = res.json().data;
    expect(ev).toMatchObject({ id: concert.id, name: "New Year's Concert", manual_promotions: [] });
    expect(ev.fees).toEqual([{ name: 'Gastos de gestión', kind: 'fixed', amount: 1.5, session_id: null }]);
    expect(ev.sessions.map((s: { id: number }) => s.id)).toEqual(concert.sessions);
    expect(ev.sessions[0]).toMatchObject({ event_id: concert.id, status: 'on_sale', capacity: 760, available: 760 });
    const percent = (await get(`${base()}/es/events/${play.id}`)).json().data;
    expect(percent.fees).toEqual([{ name: 'Gastos de gestión', kind: 'percent', amount: 5, session_id: null }]);
  });

  it('404 for an unknown event, one the channel does not sell, and an unpublished one', async () => {
    for (const id of [999_999, hidden.id, draft.id]) expectRefused(await get(`${base()}/es/events/${id}`), 404, 'not_found');
  });
});

describe('GET /{lang}/events/{eventId}/sessions', () => {
  it('lists upcoming sessions with availability', async () => {
    const res = await get(`${base()}/es/events/${concert.id}/sessions`);
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.map((s: { id: number }) => s.id)).toEqual(concert.sessions);
    expect(Object.keys(data[0]).sort()).toEqual(['available', 'capacity', 'end_datetime', 'event_id', 'id', 'sale_state', 'sales_end_at', 'sales_start_at', 'start_datetime', 'status']);
  });

  it('404 for an event the channel does not sell', async () => {
    expectRefused(await get(`${base()}/es/events/${hidden.id}/sessions`), 404, 'not_found');
    expectRefused(await get(`${base('other-ch')}/en/events/${concert.id}/sessions`, {}, otherToken), 404, 'not_found');
  });
});

describe('GET /{lang}/events/{eventId}/maps', () => {
  it('returns sectors with their session-independent seat layout, zones with capacity', async () => {
    const res = await get(`${base()}/es/events/${concert.id}/maps`);
    expect(res.statusCode).toBe(200);
    const sectors = res.json().data;
    expect(sectors.map((s: { name: string }) => s.name)).toEqual(['Platea', 'Anfiteatro', 'Pista']);
    const [platea, , pista] = sectors;
    expect(platea).toMatchObject({ id: seatSector.platea, numbered: true, capacity: 400 });
    expect(platea.seats).toHaveLength(400);
    expect(Object.keys(platea.seats[0]).sort()).toEqual(['id', 'number', 'row', 'x', 'y']);
    expect(platea.seats[0]).toMatchObject({ row: 'A', number: '1', x: 0, y: 0 });
    const [layoutSeat] = await queryRows<{ id: number }>(
      t.ctx.db,
      sql`SELECT id FROM seats WHERE sector_id = ${seatSector.platea} AND row = 'A' AND number = '1'`,
    );
    expect(platea.seats[0].id).toBe(layoutSeat!.id);
    expect(pista).toMatchObject({ numbered: false, capacity: 200, seats: [] });
  });

  it('404 for an event the channel does not sell', async () => {
    expectRefused(await get(`${base()}/es/events/${hidden.id}/maps`), 404, 'not_found');
  });
});

describe('GET /{lang}/events/{eventId}/sessions/{sessionId}', () => {
  it('returns the session and its elements (D34) without the keys rule 2 forbids', async () => {
    const res = await get(sessionUrl());
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ status: 200, success: true });
    expect(Object.keys(body.data).sort()).toEqual(['elements', 'session']);
    expect(body.data).not.toHaveProperty('sales_channel');
    const { session, elements } = body.data;
    expect(session).toMatchObject({ id: concert.sessions[0], event_id: concert.id, event_name: 'Concierto de Año Nuevo' });
    expect(session.start_datetime).toMatch(/\+00:00$/);
    for (const key of ['venue', 'start_date', 'end_date', 'fees']) expect(session).not.toHaveProperty(key);
    expect(elements.seats).toHaveLength(560);
    const seat = elements.seats[0];
    expect(Object.keys(seat).sort()).toEqual(['id', 'number', 'rates', 'row', 'sector_id', 'status', 'x', 'y']);
    expect(seat).toMatchObject({ sector_id: seatSector.platea, row: 'A', number: '1', status: 'available' });
    expect(seat.rates.map((r: { name: string; price: number }) => [r.name, r.price])).toEqual([
      ['General', 30],
      ['Reducida', 22.5],
    ]);
    for (const rate of seat.rates) expect(Object.keys(rate).sort()).toEqual(['id', 'meta', 'name', 'price']);
    expect(seat.rates[1].meta).toEqual({ requires_id: true });
    const [sessionSeat] = await queryRows<{ id: number }>(
      t.ctx.db,
      sql`SELECT ss.id FROM session_seats ss JOIN seats s ON s.id = ss.seat_id
          WHERE ss.session_id = ${concert.sessions[0]!} AND s.sector_id = ${seatSector.platea} AND s.row = 'A' AND s.number = '1'`,
    );
    expect(seat.id).toBe(sessionSeat!.id); // the session_seat_id, not the layout seat id
    expect(elements.sectors.map((s: { name: string; numbered: boolean; capacity: number; available: number }) => [s.name, s.numbered, s.capacity, s.available])).toEqual([
      ['Platea', true, 400, 400],
      ['Anfiteatro', true, 160, 160],
      ['Pista', false, 200, 200],
    ]);
    expect(elements.sectors[2].rates).toHaveLength(2);
  });

  it('never sends created_at / updated_at in rate meta, and sector rates apply to their sector only', async () => {
    const sessionId = concert.sessions[1]!;
    await t.ctx.db.execute(sql`UPDATE rates SET meta = meta || '{"created_at":"2026-01-01","updated_at":"2026-01-02","note":"x"}'::jsonb WHERE session_id = ${sessionId}`);
    await t.ctx.db.execute(sql`INSERT INTO rates (session_id, sector_id, name, names, price, sort_order) VALUES
      (${sessionId}, ${seatSector.pista}, 'Pista VIP', '{}'::jsonb, 5000, 10)`);
    inventoryChanged(t.ctx, [sessionId]);
    const data = await detail(sessionId);
    for (const seat of data.elements.seats) {
      for (const rate of seat.rates) {
        expect(rate.meta).not.toHaveProperty('created_at');
        expect(rate.meta).not.toHaveProperty('updated_at');
        expect(rate.meta).toHaveProperty('note', 'x');
      }
      expect(seat.rates.map((r) => r.name)).not.toContain('Pista VIP');
    }
    const pista = data.elements.sectors.find((s) => s.name === 'Pista')!;
    expect(pista.rates.map((r) => r.name)).toEqual(['General', 'Reducida', 'Pista VIP']);
    // A rate without translations keeps its plain name in any language.
    const en = await detail(sessionId, 'en');
    expect(en.elements.sectors.find((s) => s.name === 'Pista')!.rates.map((r) => r.name)).toEqual(['General admission', 'Concession', 'Pista VIP']);
  });

  it('rate names in the requested language with fallback to the default language', async () => {
    expect((await detail(concert.sessions[0], 'en')).elements.seats[0]!.rates.map((r) => r.name)).toEqual(['General admission', 'Concession']);
    expect((await detail(concert.sessions[0], 'de')).elements.seats[0]!.rates.map((r) => r.name)).toEqual(['General', 'Reducida']);
    expect((await detail(concert.sessions[0], 'en')).session.event_name).toBe("New Year's Concert");
  });

  it('404 for an unknown session, a session of another event, a draft session, an event not sold', async () => {
    const cases = [
      sessionUrl(999_999),
      sessionUrl(play.sessions[0]!, 'es', concert.id), // session of another event
      sessionUrl(concert.sessions[0]!, 'es', 999_999),
      sessionUrl(hidden.session, 'es', hidden.id), // not sold by demo-d
      sessionUrl(draft.session, 'es', draft.id), // event not published
    ];
    for (const url of cases) expectRefused(await get(url), 404, 'not_found');
    await t.ctx.db.execute(sql`UPDATE sessions SET status = 'draft' WHERE id = ${play.sessions[0]!}`);
    t.clock.advance(10_001); // catalogue edits show within 10 s without any notice
    try {
      expectRefused(await get(sessionUrl(play.sessions[0]!, 'es', play.id)), 404, 'not_found');
    } finally {
      await t.ctx.db.execute(sql`UPDATE sessions SET status = 'on_sale' WHERE id = ${play.sessions[0]!}`);
    }
  });

  it('a cached payload is still 404 for a channel that does not sell the event', async () => {
    expect((await get(sessionUrl())).statusCode).toBe(200); // cached now, through demo-d
    const res = await get(`${base('other-ch')}/es/events/${concert.id}/sessions/${concert.sessions[0]}`, {}, otherToken);
    expectRefused(res, 404, 'not_found');
    expect(res.body).not.toContain('Platea');
  });
});

describe('availability (live inventory)', () => {
  let sessionId: number;
  let seatIds: number[];
  beforeAll(async () => {
    sessionId = play.sessions[0]!;
    const rows = await queryRows<{ id: number }>(
      t.ctx.db,
      sql`SELECT id FROM session_seats WHERE session_id = ${sessionId} AND sector_id = ${seatSector.platea} ORDER BY id LIMIT 4`,
    );
    seatIds = rows.map((r) => r.id);
  });
  beforeEach(async () => {
    await t.ctx.db.execute(sql`UPDATE session_seats SET status = 'available', order_id = NULL, hold_expires_at = NULL WHERE session_id = ${sessionId}`);
    inventoryChanged(t.ctx, [sessionId]);
  });

  const statusOf = (data: Awaited<ReturnType<typeof detail>>, id: number) => data.elements.seats.find((s) => s.id === id)!.status;
  const platea = (data: Awaited<ReturnType<typeof detail>>) => data.elements.sectors.find((s) => s.id === seatSector.platea)!;

  it('held, sold and blocked seats as the buyer sees them; sector counts follow', async () => {
    const now = t.clock.now();
    await setSeat(seatIds[0]!, 'held', new Date(now.getTime() + 15 * 60_000));
    await setSeat(seatIds[1]!, 'sold', null);
    await setSeat(seatIds[2]!, 'blocked', null);
    inventoryChanged(t.ctx, [sessionId]);
    const data = await detail(sessionId);
    expect([0, 1, 2, 3].map((i) => statusOf(data, seatIds[i]!))).toEqual(['held', 'sold', 'blocked', 'available']);
    expect(platea(data)).toMatchObject({ capacity: 400, available: 397 });
  });

  it('a hold whose expiry passed counts as available, without any write (clock only)', async () => {
    const now = t.clock.now();
    await setSeat(seatIds[0]!, 'held', new Date(now.getTime() + 500));
    await setSeat(seatIds[1]!, 'held', new Date(now.getTime() - 1));
    inventoryChanged(t.ctx, [sessionId]);
    const before = await detail(sessionId);
    expect(statusOf(before, seatIds[0]!)).toBe('held');
    expect(statusOf(before, seatIds[1]!)).toBe('available');
    expect(platea(before).available).toBe(399);
    // 600 ms later: less than the cache's max age, but past the hold's expiry.
    t.clock.advance(600);
    const after = await detail(sessionId);
    expect(statusOf(after, seatIds[0]!)).toBe('available');
    expect(platea(after).available).toBe(400);
  });

  it('zone places held and sold reduce the zone availability', async () => {
    await t.ctx.db.execute(sql`UPDATE session_seats SET status = 'sold' WHERE id IN (
      SELECT id FROM session_seats WHERE session_id = ${sessionId} AND sector_id = ${seatSector.pista} ORDER BY id LIMIT 3)`);
    inventoryChanged(t.ctx, [sessionId]);
    const data = await detail(sessionId);
    expect(data.elements.sectors.find((s) => s.id === seatSector.pista)).toMatchObject({ capacity: 200, available: 197 });
  });
});

describe('session payload cache', () => {
  let sessionId: number;
  let seatId: number;
  beforeAll(async () => {
    sessionId = concert.sessions[0]!;
    const [row] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM session_seats WHERE session_id = ${sessionId} AND seat_id IS NOT NULL ORDER BY id DESC LIMIT 1`);
    seatId = row!.id;
  });

  it('serves the cached payload until inventoryChanged drops it', async () => {
    await setSeat(seatId, 'available', null);
    inventoryChanged(t.ctx, [sessionId]);
    expect((await detail(sessionId)).elements.seats.find((s) => s.id === seatId)!.status).toBe('available');
    await setSeat(seatId, 'sold', null); // a write that has not announced itself yet
    expect((await detail(sessionId)).elements.seats.find((s) => s.id === seatId)!.status).toBe('available');
    inventoryChanged(t.ctx, [concert.sessions[1]!]); // another session: no effect
    expect((await detail(sessionId)).elements.seats.find((s) => s.id === seatId)!.status).toBe('available');
    inventoryChanged(t.ctx, [sessionId]);
    expect((await detail(sessionId)).elements.seats.find((s) => s.id === seatId)!.status).toBe('sold');
    await setSeat(seatId, 'available', null);
    inventoryChanged(t.ctx, [sessionId]);
  });

  it('bounds staleness from writes it was not told about by a max age of 1 s', async () => {
    expect((await detail(sessionId)).elements.seats.find((s) => s.id === seatId)!.status).toBe('available');
    await setSeat(seatId, 'blocked', null); // as if written by another instance
    t.clock.advance(900);
    expect((await detail(sessionId)).elements.seats.find((s) => s.id === seatId)!.status).toBe('available');
    t.clock.advance(200);
    expect((await detail(sessionId)).elements.seats.find((s) => s.id === seatId)!.status).toBe('blocked');
    await setSeat(seatId, 'available', null);
    inventoryChanged(t.ctx, [sessionId]);
  });

  it('ETag per payload version; 304 on If-None-Match; a new version after a change', async () => {
    const first = await get(sessionUrl());
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^W\/".+"$/);
    expect(first.headers['cache-control']).toBe('private, no-cache');
    expect(first.headers.vary).toMatch(/accept-encoding/i);
    const again = await get(sessionUrl());
    expect(again.headers.etag).toBe(etag);
    const notModified = await get(sessionUrl(), { 'if-none-match': etag });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.body).toBe('');
    expect(notModified.headers.etag).toBe(etag);
    expect((await get(sessionUrl(), { 'if-none-match': '"other", ' + etag.replace(/^W\//, '') })).statusCode).toBe(304);
    // Another language is another payload.
    expect((await get(sessionUrl(undefined, 'en'))).headers.etag).not.toBe(etag);
    // A rebuild with identical content keeps the tag (clients keep their 304s).
    inventoryChanged(t.ctx, [sessionId]);
    expect((await get(sessionUrl(), { 'if-none-match': etag })).statusCode).toBe(304);
    await setSeat(seatId, 'sold', null);
    inventoryChanged(t.ctx, [sessionId]);
    const changed = await get(sessionUrl(), { 'if-none-match': etag });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
    await setSeat(seatId, 'available', null);
    inventoryChanged(t.ctx, [sessionId]);
  });

  it('gzip and brotli decode to the same JSON as the plain body', async () => {
    const plain = await get(sessionUrl());
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['content-type']).toMatch(/^application\/json/);
    const br = await get(sessionUrl(), { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.etag).toBe(plain.headers.etag);
    expect(JSON.parse(zlib.brotliDecompressSync(br.rawPayload).toString())).toEqual(plain.json());
    const gz = await get(sessionUrl(), { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(zlib.gunzipSync(gz.rawPayload).toString())).toEqual(plain.json());
    expect(gz.rawPayload.length).toBeLessThan(plain.rawPayload.length / 5);
    const refused = await get(sessionUrl(), { 'accept-encoding': 'br;q=0, gzip;q=0.5' });
    expect(refused.headers['content-encoding']).toBe('gzip');
    const none = await get(sessionUrl(), { 'accept-encoding': 'identity' });
    expect(none.headers['content-encoding']).toBeUndefined();
  });
});

describe('validation and access on every catalogue route', () => {
  const routes = () => [
    `/es/events`,
    `/es/events/${concert.id}`,
    `/es/events/${concert.id}/sessions`,
    `/es/events/${concert.id}/sessions/${concert.sessions[0]}`,
    `/es/events/${concert.id}/maps`,
  ];

  it('401 without a token or with an unknown one', async () => {
    for (const path of routes()) {
      for (const headers of [{}, bearer('tk_unknown')]) {
        const res = await t.app.inject({ url: base() + path, headers });
        expect(res.statusCode, path).toBe(401);
        expect(res.json()).toMatchObject({ status: 401, success: false });
      }
    }
  });

  it('403 "Unauthorized sales channel" with another channel slug in the path', async () => {
    for (const path of routes()) {
      const res = await get(base('demo-a') + path);
      expect(res.statusCode, path).toBe(403);
      expect(res.json()).toEqual({ status: 403, success: false, message: 'Unauthorized sales channel', code: 'unauthorized_sales_channel' });
    }
  });

  it('422 "The given data was invalid" for ids that are not integers', async () => {
    const bad = [
      `/es/events/abc`,
      `/es/events/1.5`,
      `/es/events/0`,
      `/es/events/abc/sessions`,
      `/es/events/abc/maps`,
      `/es/events/${concert.id}/sessions/x1`,
      `/es/events/-3/sessions/1`,
      `/es/events/99999999999/sessions/1`,
    ];
    for (const path of bad) {
      const res = await get(base() + path);
      expect(res.statusCode, path).toBe(422);
      expect(res.json()).toMatchObject({ status: 422, success: false, code: 'validation_failed', message: 'The given data was invalid' });
    }
    const lang = await get(`${base()}/english/events`);
    expect(lang.statusCode).toBe(422);
    expect(lang.json().errors).toHaveProperty('lang');
  });
});
