import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase, type Database } from '../../src/db/client.js';
import { INVENTORY_CHANNEL } from '../../src/modules/catalogue/availability.notices.js';
import { bearer, buildTestApp, countStatements, DEMO, isPostgres, tokenFor, TEST_RATE_LIMITS, type TestApp } from '../helpers.js';
import { createOrder, demoSession, orderUrl, type DemoSession } from '../orders/cart-helpers.js';

// D62: live seat maps. The availability route answers what changed since a version (ETag, cursor),
// or a snapshot, or a stream of the same (Server-Sent Events), from memory: polls do not query the
// database; changes on another instance arrive through a database notification.

let t: TestApp;
let token: string;
let s: DemoSession;

const b2bUrl = (sess: DemoSession, query = '') => `/api/sales-channel/v1/${DEMO.d.slug}/en/events/${sess.eventId}/sessions/${sess.sessionId}/availability${query}`;
const portalUrl = (sess: DemoSession, slug: string = DEMO.d.slug, query = '') =>
  `/api/portal/${slug}/en/events/${sess.eventId}/sessions/${sess.sessionId}/availability${query}`;

interface Body {
  session_id: number;
  cursor: string;
  snapshot: boolean;
  changes: { session_seat_id: number; status: string }[];
  seats_by_status?: Record<'available' | 'held' | 'sold' | 'blocked', number[]>;
  zones: { sector_id: number; available: number }[];
  sale_state: string;
  sales_start_at: string | null;
  sales_end_at: string | null;
}

async function poll(app: FastifyInstance, url: string, headers: Record<string, string> = {}, tk = token) {
  const res = await app.inject({ method: 'GET', url, headers: { ...bearer(tk), ...headers } });
  return { status: res.statusCode, etag: res.headers.etag as string | undefined, body: res.statusCode === 200 ? (res.json().data as Body) : null, raw: res };
}

const hold = (app: FastifyInstance, seatId: number, tk = token) => createOrder(app, tk, DEMO.d.slug, { session_seat_id: seatId, rate_id: s.rates.general });

beforeAll(async () => {
  // The portal twin is polled hundreds of times from one address here.
  t = await buildTestApp({ env: { PORTAL_RATE_LIMIT_PER_MINUTE: '100000' } });
  token = await tokenFor(t.app, DEMO.d.slug, DEMO.d.key, 'live-map-a');
  s = await demoSession(t, 0);
});
afterAll(() => t?.close());

describe('the availability route (D62)', () => {
  it('answers a snapshot first, then 304 for its ETag, then only what changed (ETag or cursor)', async () => {
    const first = await poll(t.app, b2bUrl(s));
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ session_id: s.sessionId, snapshot: true, sale_state: 'on_sale' });
    expect(first.etag).toMatch(/^W\/"[A-Za-z0-9_-]+\.on_sale"$/);
    expect(first.raw.headers['cache-control']).toBe('private, no-cache');
    expect(first.body!.changes.every((c) => c.status !== 'available')).toBe(true);
    const zone = first.body!.zones.find((z) => z.sector_id === s.zone.sectorId)!;
    expect(zone.available).toBeGreaterThan(0);

    expect((await poll(t.app, b2bUrl(s), { 'if-none-match': first.etag! })).status).toBe(304);

    const seat = s.seats[3]!.id;
    const order = await hold(t.app, seat);
    const byEtag = await poll(t.app, b2bUrl(s), { 'if-none-match': first.etag! });
    expect(byEtag.status).toBe(200);
    expect(byEtag.body).toMatchObject({ snapshot: false, changes: [{ session_seat_id: seat, status: 'held' }] });
    expect(byEtag.body!.cursor).not.toBe(first.body!.cursor);
    expect(byEtag.etag).not.toBe(first.etag);

    const byCursor = await poll(t.app, b2bUrl(s, `?since=${first.body!.cursor}`));
    expect(byCursor.body).toMatchObject({ snapshot: false, changes: [{ session_seat_id: seat, status: 'held' }] });
    // Nothing since the latest cursor: 200 with no changes (a cursor asks for a body).
    const nothing = await poll(t.app, b2bUrl(s, `?since=${byCursor.body!.cursor}`));
    expect(nothing.body).toMatchObject({ snapshot: false, changes: [], cursor: byCursor.body!.cursor });

    // Released: the seat is available again, and the state's name is the one before the hold.
    const del = await t.app.inject({ method: 'DELETE', url: orderUrl(DEMO.d.slug, order.order_token), headers: bearer(token) });
    expect(del.statusCode, del.body).toBe(200);
    const released = await poll(t.app, b2bUrl(s, `?since=${byCursor.body!.cursor}`));
    expect(released.body).toMatchObject({ snapshot: false, changes: [{ session_seat_id: seat, status: 'available' }] });
    expect(released.body!.cursor).toBe(first.body!.cursor);
  });

  it('an unknown or too old cursor gets a full snapshot; a sold seat shows as sold', async () => {
    const seat = s.seats[5]!.id;
    await hold(t.app, seat);
    const res = await poll(t.app, b2bUrl(s, '?since=AAAAAAAAAAAAAAAAAAAAAA'));
    expect(res.body!.snapshot).toBe(true);
    expect(res.body!.changes).toContainEqual({ session_seat_id: seat, status: 'held' });
    const bad = await poll(t.app, b2bUrl(s, '?since=not%20a%20cursor'));
    expect(bad.status).toBe(422);
  });

  it('form=ids: the same seats as ids under their status (snapshot and changes), the rest of the answer alike; another form is 422', async () => {
    /** The `changes` of an answer as the `ids` form groups them. */
    const grouped = (changes: Body['changes']) => {
      const out: Record<string, number[]> = { available: [], held: [], sold: [], blocked: [] };
      for (const c of changes) out[c.status]!.push(c.session_seat_id);
      return out;
    };
    await hold(t.app, s.seats[20]!.id);
    const plain = await poll(t.app, b2bUrl(s));
    const ids = await poll(t.app, b2bUrl(s, '?form=ids'));
    expect(ids.status).toBe(200);
    expect(ids.body!.changes).toBeUndefined();
    expect(ids.body!.seats_by_status!.held).toContain(s.seats[20]!.id);
    expect(ids.body!.seats_by_status).toEqual(grouped(plain.body!.changes));
    const { changes: _changes, ...rest } = plain.body!;
    const { seats_by_status: _seats, ...idsRest } = ids.body!;
    expect(idsRest).toEqual(rest);
    // The ETag names the version, not the form: If-None-Match works across forms.
    expect(ids.etag).toBe(plain.etag);
    expect((await poll(t.app, b2bUrl(s, '?form=ids'), { 'if-none-match': ids.etag! })).status).toBe(304);

    const order = await hold(t.app, s.seats[22]!.id);
    await t.app.inject({ method: 'DELETE', url: orderUrl(DEMO.d.slug, order.order_token), headers: bearer(token) });
    await hold(t.app, s.seats[24]!.id);
    const delta = await poll(t.app, b2bUrl(s, `?form=ids&since=${ids.body!.cursor}`));
    expect(delta.body).toMatchObject({ snapshot: false, seats_by_status: { available: [], held: [s.seats[24]!.id], sold: [], blocked: [] } });
    // The portal twin takes the form too.
    const portal = await t.app.inject({ method: 'GET', url: portalUrl(s, DEMO.d.slug, `?form=ids&since=${ids.body!.cursor}`) });
    expect(portal.json().data.seats_by_status).toEqual(delta.body!.seats_by_status);

    for (const form of ['objects', 'IDS', '']) {
      const bad = await poll(t.app, b2bUrl(s, `?form=${form}`));
      expect(bad.status, form).toBe(422);
      expect(bad.raw.json().success).toBe(false);
    }
  });

  it('zones follow places taken in an unnumbered sector', async () => {
    const before = (await poll(t.app, b2bUrl(s))).body!;
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/sales-channel/v1/${DEMO.d.slug}/en/orders`,
      headers: bearer(token),
      payload: { session_seat_id: s.seats[7]!.id, rate_id: s.rates.general },
    });
    const orderToken = res.json().data.order_token as string;
    const zoneAdd = await t.app.inject({
      method: 'POST',
      url: orderUrl(DEMO.d.slug, orderToken, '/items/sector'),
      headers: bearer(token),
      payload: { sector_id: s.zone.sectorId, rate_id: s.rates.general, quantity: 2 },
    });
    expect(zoneAdd.statusCode, zoneAdd.body).toBe(200);
    const after = (await poll(t.app, b2bUrl(s, `?since=${before.cursor}`))).body!;
    const was = before.zones.find((z) => z.sector_id === s.zone.sectorId)!.available;
    expect(after.zones.find((z) => z.sector_id === s.zone.sectorId)!.available).toBe(was - 2);
    expect(after.changes).toEqual([{ session_seat_id: s.seats[7]!.id, status: 'held' }]);
  });

  it('a hold that expires frees its seat without any write', async () => {
    const seat = s.seats[9]!.id;
    await hold(t.app, seat);
    const held = (await poll(t.app, b2bUrl(s))).body!;
    expect(held.changes).toContainEqual({ session_seat_id: seat, status: 'held' });
    t.clock.advance(16 * 60_000);
    const later = (await poll(t.app, b2bUrl(s, `?since=${held.cursor}`))).body!;
    expect(later.changes).toContainEqual({ session_seat_id: seat, status: 'available' });
  });

  it('404 like the session detail: another event, an unknown session, a channel that does not sell it', async () => {
    const other = await demoSession(t, 2);
    expect((await poll(t.app, `/api/sales-channel/v1/${DEMO.d.slug}/en/events/${other.eventId === s.eventId ? 999999 : other.eventId}/sessions/${s.sessionId}/availability`)).status).toBe(404);
    expect((await poll(t.app, `/api/sales-channel/v1/${DEMO.d.slug}/en/events/${s.eventId}/sessions/999999/availability`)).status).toBe(404);
    expect((await poll(t.app, portalUrl(s, 'no-such-channel'))).status).toBe(404);
  });

  it('the portal twin answers the same without a token', async () => {
    const b2b = (await poll(t.app, b2bUrl(s))).body!;
    const res = await t.app.inject({ method: 'GET', url: portalUrl(s) });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json().data as Body;
    expect(body.cursor).toBe(b2b.cursor);
    expect(body.changes).toEqual(b2b.changes);
    expect((await t.app.inject({ method: 'GET', url: portalUrl(s), headers: { 'if-none-match': res.headers.etag as string } })).statusCode).toBe(304);
  });

  it('the widget may send If-None-Match and read the ETag across origins (CORS)', async () => {
    const pre = await t.app.inject({
      method: 'OPTIONS',
      url: b2bUrl(s),
      headers: { origin: 'https://partner.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization,if-none-match' },
    });
    expect(String(pre.headers['access-control-allow-headers']).toLowerCase()).toContain('if-none-match');
    const res = await poll(t.app, b2bUrl(s), { origin: 'https://partner.example' });
    expect(String(res.raw.headers['access-control-expose-headers']).toLowerCase()).toContain('etag');
  });

  it('polls are answered from memory: a constant number of statements for 600 polls and a change', async () => {
    const portalChannel = DEMO.b.slug;
    await poll(t.app, b2bUrl(s));
    await t.app.inject({ method: 'GET', url: portalUrl(s, portalChannel) });
    const start = (await poll(t.app, b2bUrl(s))).body!;
    const quiet = await countStatements(async () => {
      for (let i = 0; i < 100; i++) {
        await poll(t.app, b2bUrl(s), { 'if-none-match': `W/"${start.cursor}.on_sale"` });
        await poll(t.app, b2bUrl(s, `?since=${start.cursor}`));
        await t.app.inject({ method: 'GET', url: portalUrl(s, portalChannel) });
      }
    });
    expect(quiet).toBe(0);
    const order = await hold(t.app, s.seats[11]!.id);
    const busy = await countStatements(async () => {
      await Promise.all(
        Array.from({ length: 300 }, (_, i) => (i % 2 ? poll(t.app, b2bUrl(s, `?since=${start.cursor}`)) : t.app.inject({ method: 'GET', url: portalUrl(s, portalChannel) }))),
      );
    });
    console.log(`[D62] ${t.ctx.database.kind}: 300 polls: 0 statements; 300 polls after a hold: ${busy} statements`);
    // Reading the change once (the session's facts and its inventory), whatever the number of polls.
    expect(busy).toBeLessThanOrEqual(3);
    expect(order.order_token).toBeTruthy();
  });
});

describe('the Server-Sent Events stream (D62)', () => {
  let base: string;
  beforeAll(async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });

  /** Opens a stream and collects its events until `until` says enough (or the timeout). */
  function openStream(url: string, headers: Record<string, string>) {
    const events: { id: string; data: Body }[] = [];
    let buffer = '';
    let req: http.ClientRequest;
    const ready = new Promise<http.IncomingMessage>((resolve, reject) => {
      req = http.get(`${base}${url}`, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let cut;
          while ((cut = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            const id = /^id: (.*)$/m.exec(block)?.[1];
            const data = /^data: (.*)$/m.exec(block)?.[1];
            if (id && data) events.push({ id, data: JSON.parse(data) as Body });
          }
        });
        resolve(res);
      });
      req.on('error', reject);
    });
    const waitFor = async (n: number, limitMs = 3_000) => {
      const start = Date.now();
      while (events.length < n) {
        if (Date.now() - start > limitMs) throw new Error(`${events.length} events after ${limitMs} ms`);
        await new Promise((r) => setTimeout(r, 10));
      }
      return events;
    };
    return { ready, events, waitFor, close: () => req.destroy() };
  }

  it('sends a snapshot, then each change as it happens; a reconnect with Last-Event-ID gets what it missed', async () => {
    const stream = openStream(b2bUrl(s), bearer(token));
    const res = await stream.ready;
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/event-stream');
    const [first] = await stream.waitFor(1);
    expect(first!.data.snapshot).toBe(true);
    const seat = s.seats[13]!.id;
    const began = Date.now();
    await hold(t.app, seat);
    const events = await stream.waitFor(2);
    console.log(`[D62] ${t.ctx.database.kind}: stream told of a hold ${Date.now() - began} ms after the request`);
    expect(events[1]!.data).toMatchObject({ snapshot: false, changes: [{ session_seat_id: seat, status: 'held' }] });
    stream.close();

    const lastId = events[1]!.id;
    await hold(t.app, s.seats[15]!.id);
    const again = openStream(portalUrl(s), { 'last-event-id': lastId });
    const [missed] = await again.waitFor(1);
    expect(missed!.data).toMatchObject({ snapshot: false, changes: [{ session_seat_id: s.seats[15]!.id, status: 'held' }] });
    again.close();
  });

  it('a stream with form=ids sends every event in that form', async () => {
    const stream = openStream(b2bUrl(s, '?form=ids'), bearer(token));
    const [first] = await stream.waitFor(1);
    expect(first!.data.snapshot).toBe(true);
    expect(first!.data.changes).toBeUndefined();
    expect(first!.data.seats_by_status!.available).toEqual([]);
    const seat = s.seats[26]!.id;
    await hold(t.app, seat);
    const events = await stream.waitFor(2);
    expect(events[1]!.data).toMatchObject({ snapshot: false, seats_by_status: { available: [], held: [seat], sold: [], blocked: [] } });
    stream.close();
  });

  it('a stream for an unknown session is a JSON 404, not a stream', async () => {
    const res = await fetch(`${base}/api/portal/${DEMO.d.slug}/en/events/${s.eventId}/sessions/999999/availability`, { headers: { accept: 'text/event-stream' } });
    expect(res.status).toBe(404);
    expect((await res.json()).code).toBe('not_found');
  });
});

describe('an unreadable notification re-reads every map (always safe)', () => {
  it('a foreign payload on the channel marks the maps stale', async () => {
    const before = (await poll(t.app, b2bUrl(s))).body!;
    // Written behind the app's back: only a notification can tell it.
    await t.ctx.db.execute(sql`UPDATE session_seats SET status = 'blocked' WHERE id = ${s.seats[17]!.id}`);
    expect((await poll(t.app, b2bUrl(s, `?since=${before.cursor}`))).body!.changes).toEqual([]);
    await t.ctx.db.execute(sql`SELECT pg_notify(${INVENTORY_CHANNEL}, 'not json')`);
    const deadline = Date.now() + 2_000;
    let changes: Body['changes'] = [];
    while (Date.now() < deadline && changes.length === 0) {
      await new Promise((r) => setTimeout(r, 20));
      changes = (await poll(t.app, b2bUrl(s, `?since=${before.cursor}`))).body!.changes;
    }
    expect(changes).toEqual([{ session_seat_id: s.seats[17]!.id, status: 'blocked' }]);
  });
});

describe.runIf(isPostgres)('two instances on one PostgreSQL database (D62 in a fleet)', () => {
  let bDatabase: Database;
  let b: FastifyInstance;
  beforeAll(async () => {
    bDatabase = await openDatabase({ url: t.db.url!, poolSize: 5 });
    const config = loadConfig({ APP_ENV: 'test', PUBLIC_BASE_URL: 'http://taquilla.test', MAX_LIVE_ORDERS_PER_BUYER: '100000', ...TEST_RATE_LIMITS });
    b = await buildApp({ config, database: bDatabase, clock: t.clock, logger: false });
    await b.ready();
  });
  afterAll(async () => {
    await b?.close();
    await bDatabase?.close();
  });

  it('a hold on instance A shows on instance B within 2 s; the cursor of one is understood by the other', async () => {
    const tokenB = await tokenFor(b, DEMO.d.slug, DEMO.d.key, 'live-map-b');
    const fromB = (await poll(b, b2bUrl(s), {}, tokenB)).body!;
    const fromA = (await poll(t.app, b2bUrl(s))).body!;
    expect(fromB.cursor).toBe(fromA.cursor);
    const seat = s.seats[19]!.id;
    await hold(t.app, seat);
    const began = Date.now();
    let seen: Body | null = null;
    while (Date.now() - began < 2_000) {
      const r = await poll(b, b2bUrl(s, `?since=${fromB.cursor}`), {}, tokenB);
      if (r.body!.changes.length) {
        seen = r.body;
        break;
      }
      await new Promise((r2) => setTimeout(r2, 5));
    }
    console.log(`[D62] postgres: instance B saw A's hold after ${Date.now() - began} ms`);
    expect(seen).toMatchObject({ snapshot: false, changes: [{ session_seat_id: seat, status: 'held' }] });
    // A's cursor after the hold names the same version on B.
    const aNow = (await poll(t.app, b2bUrl(s))).body!;
    expect(aNow.cursor).toBe(seen!.cursor);
    expect((await poll(b, b2bUrl(s), { 'if-none-match': `W/"${aNow.cursor}.on_sale"` }, tokenB)).status).toBe(304);
  });
});
