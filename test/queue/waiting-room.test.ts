import crypto from 'node:crypto';
import { solveChallenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUYER_COOKIE } from '../../src/http/buyer-cookie.js';
import { portalQueueClient, queueSessionChanged } from '../../src/modules/queue/queue.service.js';
import { api, apiAs } from '../admin/admin-helpers.js';
import { bearer, buildTestApp, DEMO, serverTokenFor, tokenFor, type TestApp } from '../helpers.js';
import { demoSession, ordersUrl, orderUrl, type DemoSession } from '../orders/cart-helpers.js';

// The waiting room (issue 28, D60) with the injected clock: settings in the admin API, the
// pre-queue, the draw recomputed from the published seed, the admission rate, passes (missing,
// expired, foreign, other session, replayed by another client, used up), joins after the draw in
// arrival order, the proof-of-work challenge, and no PostgreSQL statement for 1,000 polls, joins
// and passes. Runs on PGlite and on PostgreSQL (TEST_DB=postgres).

let t: TestApp;
let admin: ReturnType<typeof api>;
let s1: DemoSession;
let s2: DemoSession;
let start: number;
const used = new Set<number>();
const fresh = (s: DemoSession) => {
  const seat = s.seats.find((x) => !used.has(x.id))!;
  used.add(seat.id);
  return { session_seat_id: seat.id, rate_id: s.rates.general };
};

const Q = (sessionId: number, suffix = '') => `/api/queue/v1/sessions/${sessionId}${suffix}`;
type Json = { status: number; body: { code?: string; data?: Record<string, unknown> & { [k: string]: unknown }; errors?: Record<string, string[]> } };
const call = async (method: 'GET' | 'POST', url: string, payload?: object, headers: Record<string, string> = {}): Promise<Json> => {
  const r = await t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
  return { status: r.statusCode, body: r.statusCode === 304 ? {} : r.json() };
};
const status = async (sessionId: number) => (await call('GET', Q(sessionId))).body.data!;
const join = (sessionId: number, clientId: string, extra: object = {}) => call('POST', Q(sessionId, '/join'), { client_id: clientId, ...extra });
const pass = (sessionId: number, ticket: string) => call('POST', Q(sessionId, '/pass'), { ticket });
const at = (ms: number) => t.clock.set(new Date(start + ms));

/** The draw as docs/onsale.md describes it, written again from the words: HMAC-SHA256 Fisher-Yates. */
function recompute(seed: string, ids: string[]): string[] {
  const out = [...ids].sort();
  let counter = 0;
  for (let i = out.length - 1; i > 0; i--) {
    const span = BigInt(i + 1);
    const limit = 2n ** 48n - ((2n ** 48n) % span);
    for (;;) {
      const h = crypto.createHmac('sha256', Buffer.from(seed, 'utf8')).update(`${counter++}`).digest();
      const r = BigInt(`0x${h.subarray(0, 6).toString('hex')}`);
      if (r < limit) {
        const j = Number(r % span);
        [out[i], out[j]] = [out[j]!, out[i]!];
        break;
      }
    }
  }
  return out;
}

beforeAll(async () => {
  t = await buildTestApp({ env: { MAX_LIVE_ORDERS_PER_BUYER: '2', METRICS_TOKEN: 'queue-metrics-token-0123456789' } });
  admin = await apiAs(t, 'queue@taquilla.test');
  [s1, s2] = [await demoSession(t, 1), await demoSession(t, 2)];
  // Whole seconds keep the arithmetic of the admission clock readable.
  start = Math.ceil(t.clock.now().getTime() / 1000) * 1000 + 20 * 60_000;
}, 180_000);
afterAll(() => t.close());

describe('settings (admin API)', () => {
  it('stores the queue with its defaults and reads it back; refuses one without a sales start, and bad values', async () => {
    expect((await admin.patch(`/sessions/${s1.sessionId}`, { queue: { enabled: true, admission_per_minute: 6 } })).body).toMatchObject({
      code: 'validation_failed',
      errors: { 'queue.enabled': [expect.stringContaining('sales_start_at')] },
    });
    const saved = await admin.patch(`/sessions/${s1.sessionId}`, { sales_start_at: new Date(start).toISOString(), queue: { enabled: true, admission_per_minute: 6 } });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.data.queue).toEqual({ enabled: true, admission_per_minute: 6, pass_ttl_seconds: 600, opens_minutes_before: 30, challenge: 'none' });
    expect((await admin.get(`/sessions/${s1.sessionId}`)).body.data.queue.admission_per_minute).toBe(6);
    const bad = await admin.patch(`/sessions/${s1.sessionId}`, { queue: { challenge: 'captcha', pass_ttl_seconds: 5 } });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(expect.arrayContaining(['queue.pass_ttl_seconds']));
    // The second queue (other-session passes, the challenge).
    const second = await admin.patch(`/sessions/${s2.sessionId}`, { sales_start_at: new Date(start).toISOString(), queue: { enabled: true, admission_per_minute: 600, challenge: 'proof_of_work' } });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
  });
});

describe('the queue with an injected clock', () => {
  const tickets: Record<string, { ticket: string; ticket_id: string }> = {};

  it('is closed before the pre-queue opens (opens_minutes_before), and unknown sessions are 404', async () => {
    at(-31 * 60_000);
    expect((await status(s1.sessionId)).state).toBe('closed');
    expect(await join(s1.sessionId, 'early')).toMatchObject({ status: 409, body: { code: 'queue_closed' } });
    expect((await call('GET', Q(999_999))).status).toBe(404);
  });

  it('pre-queue: joins get a ticket without a number; the same client gets the same ticket; the seed is committed, not shown', async () => {
    at(-10 * 60_000);
    for (const client of ['c1', 'c2', 'c3', 'c4', 'c5']) {
      const r = await join(s1.sessionId, client);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.data).toMatchObject({ number: null, state: 'pre_queue' });
      tickets[client] = r.body.data as never;
    }
    expect((await join(s1.sessionId, 'c1')).body.data!.ticket).toBe(tickets.c1!.ticket);
    const doc = await status(s1.sessionId);
    expect(doc).toMatchObject({ state: 'pre_queue', queue_length: 5, admitted_through: 0, admission_per_minute: 6, seed: null, sales_start_at: expect.any(String) });
    expect(doc.seed_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(await pass(s1.sessionId, tickets.c1!.ticket)).toMatchObject({ status: 409, body: { code: 'not_admitted_yet', data: { number: null, admitted_through: 0 } } });
    expect(await call('GET', Q(s1.sessionId, '/draw'))).toMatchObject({ status: 409, body: { code: 'queue_not_drawn' } });
    // A poll naming its ticket: no number before the draw.
    expect((await call('GET', Q(s1.sessionId, `?ticket_id=${tickets.c1!.ticket_id}`))).body.data).toMatchObject({ state: 'pre_queue', number: null });
  });

  it('serves the status document with an ETag and 304, cacheable for a second', async () => {
    const first = await t.app.inject({ url: Q(s1.sessionId) });
    expect(first.headers['cache-control']).toBe('public, max-age=1');
    const again = await t.app.inject({ url: Q(s1.sessionId), headers: { 'if-none-match': String(first.headers.etag) } });
    expect(again.statusCode).toBe(304);
    // One document for every poll while nothing in it changes; only the clock's reading moves.
    t.clock.advance(2_000);
    const later = await t.app.inject({ url: Q(s1.sessionId) });
    expect(later.headers.etag).toBe(first.headers.etag);
    expect(later.headers['content-type']).toBe('application/json; charset=utf-8');
    const [a, b] = [first.json(), later.json()];
    expect(b).toEqual({ ...a, data: { ...a.data, server_time: b.data.server_time } });
    expect(Date.parse(b.data.server_time) - Date.parse(a.data.server_time)).toBe(2_000);
    // The 304 carries the service's clock too (a browser answered 304 keeps the stored document, with
    // its old server_time, and takes the 304's headers): the Date header, from the app's clock,
    // readable by the widget on another origin.
    const unchanged = await t.app.inject({ url: Q(s1.sessionId), headers: { 'if-none-match': String(first.headers.etag), origin: 'https://partner.example' } });
    expect(unchanged.statusCode).toBe(304);
    const second = Math.floor(t.clock.now().getTime() / 1000) * 1000;
    expect(unchanged.headers.date).toBe(new Date(second).toUTCString());
    expect(later.headers.date).toBe(new Date(Date.parse(b.data.server_time)).toUTCString());
    expect(String(unchanged.headers['access-control-expose-headers']).split(', ')).toEqual(expect.arrayContaining(['ETag', 'Date', 'Age']));
    expect(Object.keys(b.data)).toEqual(['session_id', 'state', 'sales_start_at', 'opens_at', 'admitted_through', 'queue_length', 'admission_per_minute', 'pass_ttl_seconds', 'challenge', 'seed_sha256', 'seed', 'server_time']);
  });

  it('draws at the sales start: the seed matches its commitment and the drawn order is recomputed from the seed and the ticket ids', async () => {
    const committed = (await status(s1.sessionId)).seed_sha256 as string;
    at(0);
    const doc = await status(s1.sessionId);
    expect(doc).toMatchObject({ state: 'admitting', admitted_through: 0, queue_length: 5 });
    expect(crypto.createHash('sha256').update(doc.seed as string).digest('hex')).toBe(committed);
    const draw = (await call('GET', Q(s1.sessionId, '/draw'))).body.data as { seed: string; ticket_ids: string[] };
    expect(draw.seed).toBe(doc.seed);
    expect(draw.ticket_ids.sort()).toEqual(Object.values(tickets).map((x) => x.ticket_id).sort());
    const drawn = (await call('GET', Q(s1.sessionId, '/draw'))).body.data!.ticket_ids as string[];
    expect(recompute(draw.seed, drawn)).toEqual(drawn);
    // Each ticket's number is its place in the drawn order.
    for (const [client, x] of Object.entries(tickets)) {
      expect((await join(s1.sessionId, client)).body.data!.number).toBe(drawn.indexOf(x.ticket_id) + 1);
    }
  });

  it('tells a poll that names its ticket_id that ticket\'s number once drawn, with an ETag of its own', async () => {
    at(0);
    const plain = await t.app.inject({ url: Q(s1.sessionId) });
    const drawn = (await call('GET', Q(s1.sessionId, '/draw'))).body.data!.ticket_ids as string[];
    for (const x of Object.values(tickets)) {
      const r = await t.app.inject({ url: Q(s1.sessionId, `?ticket_id=${x.ticket_id}`) });
      expect(r.statusCode).toBe(200);
      const body = r.json();
      // The shared document with the number after server_time.
      expect(body).toEqual({ ...plain.json(), data: { ...plain.json().data, server_time: body.data.server_time, number: drawn.indexOf(x.ticket_id) + 1 } });
      expect(r.headers.etag).not.toBe(plain.headers.etag);
      expect((await t.app.inject({ url: Q(s1.sessionId, `?ticket_id=${x.ticket_id}`), headers: { 'if-none-match': String(r.headers.etag) } })).statusCode).toBe(304);
      // Another ticket's ETag is not this one's.
      expect(r.headers.etag).not.toBe((await t.app.inject({ url: Q(s1.sessionId, `?ticket_id=${drawn.find((id) => id !== x.ticket_id)}`) })).headers.etag);
    }
    expect((await call('GET', Q(s1.sessionId, '?ticket_id=unknownTicket0000000'))).body.data).toMatchObject({ state: 'admitting', number: null });
    expect(await call('GET', Q(s1.sessionId, '?ticket_id=not-a-ticket!'))).toMatchObject({ status: 422 });
  });

  it('numbers later arrivals in arrival order after the drawn ones', async () => {
    at(1000);
    const before = await t.app.inject({ url: Q(s1.sessionId) });
    const numbers = [];
    for (const client of ['late1', 'late2', 'late3']) numbers.push((await join(s1.sessionId, client)).body.data!.number);
    expect(numbers).toEqual([6, 7, 8]);
    // The document polls share changes with the joins at once (no second of staleness on one instance).
    const after = await t.app.inject({ url: Q(s1.sessionId) });
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(after.json().data.queue_length).toBe(before.json().data.queue_length + 3);
    for (const client of ['late1', 'late2', 'late3']) tickets[client] = (await join(s1.sessionId, client)).body.data as never;
  });

  it('admits admission_per_minute, spread evenly over the minute, from the clock', async () => {
    const through = async (ms: number) => {
      at(ms);
      return (await status(s1.sessionId)).admitted_through;
    };
    expect(await through(9_999)).toBe(0);
    expect(await through(10_000)).toBe(1);
    expect(await through(25_000)).toBe(2);
    expect(await through(60_000)).toBe(6);
    expect((await status(s1.sessionId)).queue_length).toBe(2);
  });

  it('gives a pass once the number is admitted, 409 not_admitted_yet with number and admitted_through before', async () => {
    at(10_000);
    const byNumber = async (n: number) => {
      for (const x of Object.keys(tickets)) if ((await join(s1.sessionId, x)).body.data!.number === n) return x;
      throw new Error(`no ticket ${n}`);
    };
    const first = tickets[await byNumber(1)]!;
    const second = tickets[await byNumber(2)]!;
    const ok = await pass(s1.sessionId, first.ticket);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.data).toMatchObject({ pass: expect.stringMatching(/^qp1\./), number: 1, expires_at: new Date(start + 10_000 + 600_000).toISOString().replace('Z', '+00:00').replace('.000', '') });
    expect(await pass(s1.sessionId, second.ticket)).toMatchObject({ status: 409, body: { code: 'not_admitted_yet', data: { number: 2, admitted_through: 1 } } });
    // A forged or foreign ticket.
    expect((await pass(s1.sessionId, `${first.ticket}x`)).body.code).toBe('queue_ticket_invalid');
    expect((await pass(s2.sessionId, first.ticket)).body.code).toBe('queue_ticket_invalid');
  });

  it('numbers a late arrival after the clock has admitted past the last number just ahead of the clock', async () => {
    at(120_000); // the clock admits 12; the last number is 8
    const late = (await join(s1.sessionId, 'very-late')).body.data!;
    expect(late.number).toBe(13);
    expect((await pass(s1.sessionId, late.ticket as string)).body).toMatchObject({ code: 'not_admitted_yet', data: { number: 13, admitted_through: 12 } });
    at(130_000);
    expect((await pass(s1.sessionId, late.ticket as string)).status).toBe(200);
  });
});

describe('Queue-Pass on every cart create while the queue is on', () => {
  let passOf: (client: string) => Promise<string>;
  beforeAll(() => {
    passOf = async (client: string) => {
      const ticket = (await join(s1.sessionId, client)).body.data!.ticket as string;
      // A late arrival's number comes up at the clock's next admission (10 s at 6 a minute).
      t.clock.advance(10_000);
      const r = await pass(s1.sessionId, ticket);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.data!.pass as string;
    };
  });

  it('B2B widget token: missing, foreign (replayed by another client), other session, expired, used up; a valid one creates, adding needs none', async () => {
    at(600_000); // everyone admitted
    const mine = await tokenFor(t.app, DEMO.c.slug, DEMO.c.key, 'b1');
    const theirs = await tokenFor(t.app, DEMO.c.slug, DEMO.c.key, 'b2');
    const create = (token: string, body: object, queuePass?: string) =>
      call('POST', ordersUrl(DEMO.c.slug), body, { ...bearer(token), ...(queuePass ? { 'queue-pass': queuePass } : {}) });
    const p1 = await passOf('b1');

    expect(await create(mine, fresh(s1))).toMatchObject({ status: 403, body: { code: 'queue_pass_required' } });
    expect(await create(mine, { items: [fresh(s1), fresh(s1)] })).toMatchObject({ status: 403, body: { code: 'queue_pass_required' } });
    expect(await create(theirs, fresh(s1), p1)).toMatchObject({ status: 403, body: { code: 'queue_pass_invalid', data: { reason: 'other_client' } } });
    expect(await create(mine, fresh(s2), p1)).toMatchObject({ status: 403, body: { code: 'queue_pass_invalid', data: { reason: 'other_session' } } });
    expect(await create(mine, fresh(s1), 'qp1.garbage.sig')).toMatchObject({ status: 403, body: { code: 'queue_pass_invalid', data: { reason: 'malformed' } } });

    const held = fresh(s1);
    const made = await create(mine, { items: [held, fresh(s1)] }, p1);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const token = made.body.data!.order_token as string;
    const added = await call('POST', orderUrl(DEMO.c.slug, token, '/items'), fresh(s1), bearer(mine));
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    // create with the order_token of the existing cart adds to it: no pass.
    expect((await create(mine, { ...fresh(s1), order_token: token })).status).toBe(200);
    // A pass makes at most MAX_LIVE_ORDERS_PER_BUYER (2 here) carts.
    expect((await create(mine, fresh(s1), p1)).status).toBe(201);
    expect(await create(mine, fresh(s1), p1)).toMatchObject({ status: 403, body: { code: 'queue_pass_invalid', data: { reason: 'used_up' } } });
    // A refused create gives its use back.
    const p3 = await passOf('b3');
    const c3 = await tokenFor(t.app, DEMO.c.slug, DEMO.c.key, 'b3');
    expect((await create(c3, held, p3)).status).toBe(409); // held above
    expect((await create(c3, fresh(s1), p3)).status).toBe(201);
    expect((await create(c3, fresh(s1), p3)).status).toBe(201);

    // A widget token without a client_id (D38's single group) has no client to bind: it uses the
    // pass of whichever client joined, still at most MAX_LIVE_ORDERS_PER_BUYER carts per pass.
    const p5 = await passOf('b5');
    const anonymousToken = await tokenFor(t.app, DEMO.c.slug, DEMO.c.key);
    expect(await create(anonymousToken, fresh(s1))).toMatchObject({ status: 403, body: { code: 'queue_pass_required' } });
    expect((await create(anonymousToken, fresh(s1), p5)).status).toBe(201);
    expect((await create(anonymousToken, fresh(s1), p5)).status).toBe(201);
    expect(await create(anonymousToken, fresh(s1), p5)).toMatchObject({ status: 403, body: { code: 'queue_pass_invalid', data: { reason: 'used_up' } } });

    // Expired: the pass's own expiry (pass_ttl_seconds from its first issue).
    const p4 = await passOf('b4');
    const c4 = await tokenFor(t.app, DEMO.c.slug, DEMO.c.key, 'b4');
    at(2_000_000);
    expect(await create(c4, fresh(s1), p4)).toMatchObject({ status: 403, body: { code: 'queue_pass_invalid', data: { reason: 'expired' } } });
    expect(await pass(s1.sessionId, (await join(s1.sessionId, 'b4')).body.data!.ticket as string)).toMatchObject({ status: 403, body: { code: 'queue_pass_invalid' } });
    // Sessions without a queue need none.
    const s0 = await demoSession(t, 0);
    expect((await create(mine, fresh(s0))).status).toBe(201);
  });

  it('B2B server token (model D): the channel server forwards its buyer\'s pass', async () => {
    at(2_400_000);
    const server = await serverTokenFor(t.app, DEMO.d.slug);
    const create = (queuePass?: string) => call('POST', ordersUrl(DEMO.d.slug), fresh(s1), { ...bearer(server), ...(queuePass ? { 'queue-pass': queuePass } : {}) });
    expect((await create()).body.code).toBe('queue_pass_required');
    const r = await create(await passOf('server-buyer'));
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  });

  it('portal: the pass of this browser\'s queue client id (from its buyer cookie); another browser\'s is refused', async () => {
    at(2_800_000);
    const page = await t.app.inject({ url: `/${DEMO.a.slug}/en/events` });
    const cookie = page.cookies.find((c) => c.name === BUYER_COOKIE)!;
    const client = portalQueueClient(t.config.signingSecret, cookie.value.split('.')[0]!);
    const create = (body: object, queuePass?: string) =>
      t.app.inject({ method: 'POST', url: `/api/portal/${DEMO.a.slug}/en/orders`, cookies: { [BUYER_COOKIE]: cookie.value }, headers: queuePass ? { 'queue-pass': queuePass } : {}, payload: body });
    expect((await create(fresh(s1))).json().code).toBe('queue_pass_required');
    expect((await create(fresh(s1), await passOf('someone-else'))).json()).toMatchObject({ code: 'queue_pass_invalid', data: { reason: 'other_client' } });
    // The portal's page joins with its cookie and no client id: the ticket of that same client.
    const byCookie = await t.app.inject({ method: 'POST', url: Q(s1.sessionId, '/join'), cookies: { [BUYER_COOKIE]: cookie.value }, payload: {} });
    expect(byCookie.statusCode, byCookie.body).toBe(200);
    expect(byCookie.json().data.ticket_id).toBe((await join(s1.sessionId, client)).body.data!.ticket_id);
    const anonymous = await t.app.inject({ method: 'POST', url: Q(s1.sessionId, '/join'), payload: {} });
    expect(anonymous.statusCode).toBe(422);
    expect(anonymous.json()).toMatchObject({ code: 'validation_failed', errors: { client_id: [expect.any(String)] } });
    const mine = await passOf(client);
    const seat = await create(fresh(s1), mine);
    expect(seat.statusCode, seat.body).toBe(201);
    const zone = await create({ sector_id: s1.zone.sectorId, rate_id: s1.rates.general, quantity: 1 }, mine);
    expect(zone.statusCode, zone.body).toBe(201);
  });
});

describe('the proof-of-work challenge (altcha)', () => {
  it('asks for a solved challenge at join, accepts each solution once, and not for another session', async () => {
    at(-5 * 60_000);
    expect(await join(s2.sessionId, 'pow-1')).toMatchObject({ status: 403, body: { code: 'queue_challenge_failed' } });
    const challenge = (await call('GET', Q(s2.sessionId, '/challenge'))).body.data as never;
    const solution = await solveChallenge({ challenge, deriveKey });
    const payload = Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
    const ok = await join(s2.sessionId, 'pow-1', { challenge_solution: payload });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    // The same client joins again without solving; another client cannot reuse the solution.
    expect((await join(s2.sessionId, 'pow-1')).status).toBe(200);
    expect(await join(s2.sessionId, 'pow-2', { challenge_solution: payload })).toMatchObject({ status: 403, body: { code: 'queue_challenge_failed' } });
    const other = (await call('GET', Q(s1.sessionId, '/challenge'))).body.data as never;
    const forS1 = Buffer.from(JSON.stringify({ challenge: other, solution: await solveChallenge({ challenge: other, deriveKey }) })).toString('base64');
    expect(await join(s2.sessionId, 'pow-3', { challenge_solution: forS1 })).toMatchObject({ status: 403, body: { code: 'queue_challenge_failed' } });
  });
});

describe('cost', () => {
  it('serves 1,000 polls (with and without a ticket_id), joins and passes without one PostgreSQL statement', async () => {
    at(3_200_000);
    // The instance reads a session's queue facts again every 30 s: start the count with a fresh copy.
    queueSessionChanged(t.ctx, s1.sessionId);
    const joined = (await join(s1.sessionId, 'counter')).body.data!;
    const [ticket, ticketId] = [joined.ticket as string, joined.ticket_id as string];
    t.clock.advance(10_000);
    await status(s1.sessionId);
    await pass(s1.sessionId, ticket);
    const client = (t.ctx.db as unknown as { $client: Record<string, unknown> }).$client;
    let statements = 0;
    const restore: (() => void)[] = [];
    for (const name of ['query', 'exec', 'connect', 'execute']) {
      const original = client[name];
      if (typeof original !== 'function') continue;
      client[name] = (...args: unknown[]) => {
        statements++;
        return (original as (...a: unknown[]) => unknown).apply(client, args);
      };
      restore.push(() => (client[name] = original));
    }
    try {
      for (let i = 0; i < 1000; i++) {
        const kind = i % 4;
        const r =
          kind === 0 ? await call('GET', Q(s1.sessionId)) : kind === 1 ? await join(s1.sessionId, `bulk-${i}`) : kind === 2 ? await pass(s1.sessionId, ticket) : await call('GET', Q(s1.sessionId, `?ticket_id=${ticketId}`));
        expect(r.status).toBe(200);
      }
    } finally {
      for (const undo of restore) undo();
    }
    expect(statements).toBe(0);
  }, 120_000);
});

describe('metrics', () => {
  it('shows queue length, admitted numbers, the rate, passes and joins refused on /metrics', async () => {
    const text = (await t.app.inject({ url: '/metrics', headers: { authorization: 'Bearer queue-metrics-token-0123456789' } })).body;
    expect(text).toMatch(new RegExp(`taquilla_queue_length\\{session_id="${s1.sessionId}"\\} \\d+`));
    expect(text).toMatch(new RegExp(`taquilla_queue_admitted_through\\{session_id="${s1.sessionId}"\\} \\d+`));
    expect(text).toContain(`taquilla_queue_admission_per_minute{session_id="${s1.sessionId}"} 6`);
    expect(text).toMatch(/taquilla_queue_passes_total\{event="issued"\} [1-9]/);
    expect(text).toMatch(/taquilla_queue_passes_total\{event="refused_expired"\} [1-9]/);
    expect(text).toMatch(/taquilla_queue_joins_total\{result="refused_challenge"\} [1-9]/);
   }, 120_000);
});
