import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { claimKey, findKey, storeResponse } from '../../src/platform/idempotency.repo.js';
import { account } from '../admin/admin-helpers.js';
import { bearer, buildTestApp, DEMO, firstDemoSession, isPostgres, serverTokenFor, tokenFor, waitFor, type TestApp } from '../helpers.js';

// D52: Idempotency-Key on every POST, PUT and DELETE of the B2B and admin interfaces.

const B2B = '/api/sales-channel/v1';
const ORDERS = `${B2B}/demo-d/es/orders`;
const DAY_MS = 24 * 60 * 60 * 1000;

let t: TestApp;
let widgetToken: string;
let sessionId: number;
let rateId: number;

beforeAll(async () => {
  // Tokens outlive the test's two simulated days, so that one token repeats a key across them.
  t = await buildTestApp({ poolSize: 30, env: { TOKEN_TTL_SECONDS: String(7 * 24 * 3600) } });
  widgetToken = await tokenFor(t.app, DEMO.d.slug, DEMO.d.key, 'buyer-one');
  ({ sessionId, rateId } = await firstDemoSession(t));
}, 120_000);
afterAll(() => t?.close());

/** A different free seat on every call, so that each order of the test holds its own. */
let seatOffset = 0;
async function freeSeat(): Promise<number> {
  const [seat] = await queryRows<{ id: number }>(
    t.ctx.db,
    sql`SELECT id FROM session_seats WHERE session_id = ${sessionId} AND status = 'available' ORDER BY id LIMIT 1 OFFSET ${seatOffset++}`,
  );
  return seat!.id;
}

const newKey = () => crypto.randomUUID();

function createOrder(token: string, key: string | undefined, body: object) {
  return t.app.inject({ method: 'POST', url: ORDERS, headers: { ...bearer(token), ...(key === undefined ? {} : { 'idempotency-key': key }) }, payload: body });
}

const count = async (query: ReturnType<typeof sql>) => (await queryRows<{ n: number }>(t.ctx.db, query))[0]!.n;
const ordersOfChannel = () => count(sql`SELECT count(*)::int AS n FROM orders o JOIN sales_channels c ON c.id = o.channel_id WHERE c.slug = 'demo-d'`);
const holdsOfSeat = (seat: number) => count(sql`SELECT count(*)::int AS n FROM order_items WHERE session_seat_id = ${seat}`);

describe('Idempotency-Key (D52)', () => {
  it('replays the first answer to a repeat with the same key and body: one order, one hold', async () => {
    const seat = await freeSeat();
    const body = { session_seat_id: seat, rate_id: rateId };
    const before = await ordersOfChannel();
    const key = newKey();
    const first = await createOrder(widgetToken, key, body);
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    // The same body with its keys in another order is the same request.
    const again = await createOrder(widgetToken, key, { rate_id: rateId, session_seat_id: seat });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers['content-type']).toBe(first.headers['content-type']);
    expect(again.body).toBe(first.body);
    expect(await ordersOfChannel()).toBe(before + 1);
    expect(await holdsOfSeat(seat)).toBe(1);
  });

  it('answers 422 idempotency_key_reused to the same key with another body, and runs nothing', async () => {
    const key = newKey();
    expect((await createOrder(widgetToken, key, { session_seat_id: await freeSeat(), rate_id: rateId })).statusCode).toBe(201);
    const other = await freeSeat();
    const before = await ordersOfChannel();
    const res = await createOrder(widgetToken, key, { session_seat_id: other, rate_id: rateId });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ status: 422, success: false, code: 'idempotency_key_reused', message: expect.any(String) });
    expect(await ordersOfChannel()).toBe(before);
    expect(await holdsOfSeat(other)).toBe(0);
    // Another path with the same key is another request too.
    const cancel = await t.app.inject({ method: 'DELETE', url: `${ORDERS}/${crypto.randomUUID()}`, headers: { ...bearer(widgetToken), 'idempotency-key': key } });
    expect(cancel.json().code).toBe('idempotency_key_reused');
  });

  it('answers 409 idempotency_key_in_use to repeats while the first runs: exactly one runs', async () => {
    const seat = await freeSeat();
    const before = await ordersOfChannel();
    const key = newKey();
    const answers = await Promise.all(Array.from({ length: 16 }, () => createOrder(widgetToken, key, { session_seat_id: seat, rate_id: rateId })));
    const ran = answers.filter((a) => a.statusCode === 201 && a.headers['idempotent-replayed'] === undefined);
    const replayed = answers.filter((a) => a.headers['idempotent-replayed'] === 'true');
    const inUse = answers.filter((a) => a.statusCode === 409);
    expect(ran).toHaveLength(1);
    expect(ran.length + replayed.length + inUse.length).toBe(answers.length);
    for (const a of replayed) expect(a.body).toBe(ran[0]!.body);
    for (const a of inUse) expect(a.json()).toEqual({ status: 409, success: false, code: 'idempotency_key_in_use', message: expect.any(String) });
    // Whether a repeat comes while the first runs (409) or after (replay) is up to timing here;
    // the tests on PostgreSQL below hold the first up to make the 409 certain.
    expect(await ordersOfChannel()).toBe(before + 1);
    expect(await holdsOfSeat(seat)).toBe(1);
  });

  it('treats a key older than 24 hours as new (by the injected clock), before the sweep; the sweep deletes it', async () => {
    const key = newKey();
    const body = { session_seat_id: await freeSeat(), rate_id: rateId };
    const first = await createOrder(widgetToken, key, body);
    expect(first.statusCode).toBe(201);
    const rowsOfKey = () => count(sql`SELECT count(*)::int AS n FROM idempotency_keys WHERE key = ${key}`);
    t.clock.advance(DAY_MS - 1000);
    expect((await createOrder(widgetToken, key, body)).body).toBe(first.body);
    expect((await createOrder(widgetToken, key, { session_seat_id: await freeSeat(), rate_id: rateId })).json().code).toBe('idempotency_key_reused');
    await t.app.scheduler.runOnce('idempotency-sweep');
    expect(await rowsOfKey()).toBe(1);
    t.clock.advance(2000);
    const seat = await freeSeat();
    const later = await createOrder(widgetToken, key, { session_seat_id: seat, rate_id: rateId });
    expect(later.statusCode).toBe(201);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(await holdsOfSeat(seat)).toBe(1);
    t.clock.advance(DAY_MS + 1000);
    await t.app.scheduler.runOnce('idempotency-sweep');
    expect(await rowsOfKey()).toBe(0);
  });

  it('keeps keys per credential: two buyers of one channel may use the same key independently', async () => {
    const mine = await tokenFor(t.app, DEMO.d.slug, DEMO.d.key, 'buyer-a');
    const yours = await tokenFor(t.app, DEMO.d.slug, DEMO.d.key, 'buyer-b');
    const key = newKey();
    const a = await createOrder(mine, key, { session_seat_id: await freeSeat(), rate_id: rateId });
    const b = await createOrder(yours, key, { session_seat_id: await freeSeat(), rate_id: rateId });
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
    expect(a.json().data.order_token).not.toBe(b.json().data.order_token);
  });

  it('does not keep a 5xx: the key is released and a retry runs', async () => {
    const seat = await freeSeat();
    const key = newKey();
    // A real failure of the real route: the table it writes is away for a moment.
    await t.ctx.db.execute(sql`ALTER TABLE order_items RENAME TO order_items_away`);
    let failed;
    try {
      failed = await createOrder(widgetToken, key, { session_seat_id: seat, rate_id: rateId });
    } finally {
      await t.ctx.db.execute(sql`ALTER TABLE order_items_away RENAME TO order_items`);
    }
    expect(failed.statusCode).toBeGreaterThanOrEqual(500);
    expect(await count(sql`SELECT count(*)::int AS n FROM idempotency_keys WHERE key = ${key}`)).toBe(0);
    const retry = await createOrder(widgetToken, key, { session_seat_id: seat, rate_id: rateId });
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await holdsOfSeat(seat)).toBe(1);
  });

  it.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['a tab', 'key\twith-tab'],
    ['a non-ASCII letter', 'clé'],
  ])('refuses a key that is %s: 422 naming the header, nothing runs', async (_what, key) => {
    const seat = await freeSeat();
    const res = await createOrder(widgetToken, key, { session_seat_id: seat, rate_id: rateId });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ status: 422, success: false, code: 'validation_failed', errors: { 'Idempotency-Key': [expect.any(String)] } });
    expect(await holdsOfSeat(seat)).toBe(0);
  });

  it('accepts a key of 255 printable characters', async () => {
    const key = `${'~ '.repeat(127)}!`;
    expect(key).toHaveLength(255);
    const body = { session_seat_id: await freeSeat(), rate_id: rateId };
    expect((await createOrder(widgetToken, key, body)).statusCode).toBe(201);
    expect((await createOrder(widgetToken, key, body)).headers['idempotent-replayed']).toBe('true');
  });

  it('lets the widget send the key from a browser, and read that an answer is a replay (CORS)', async () => {
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: ORDERS,
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,idempotency-key' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(String(preflight.headers['access-control-allow-headers'])).toMatch(/Idempotency-Key/);
    const body = { session_seat_id: await freeSeat(), rate_id: rateId };
    const key = newKey();
    await createOrder(widgetToken, key, body);
    const again = await t.app.inject({ method: 'POST', url: ORDERS, headers: { ...bearer(widgetToken), origin: 'https://shop.example', 'idempotency-key': key }, payload: body });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(String(again.headers['access-control-expose-headers'])).toMatch(/Idempotent-Replayed/);
  });

  it('lets a repeat take over a claim whose lease ran out (its process was killed mid-request, D55)', async () => {
    const row = { credential: `test:${newKey()}`, key: newKey(), fingerprint: 'f', now: t.clock.now() };
    const lease = { owner: 'a-process-that-will-die', ms: 3000 };
    const doneBefore = new Date(row.now.getTime() - DAY_MS);
    expect(await claimKey(t.ctx.db, { ...row, claim: 'first' }, lease, doneBefore)).toBe(true);
    expect(await findKey(t.ctx.db, row.credential, row.key)).toMatchObject({ state: 'running', owner: lease.owner });
    // Its lease runs: the first still counts as running.
    expect(await claimKey(t.ctx.db, { ...row, claim: 'second' }, lease, doneBefore)).toBe(false);
    // Its process was killed: nobody renewed the lease, which ran out a moment ago.
    await t.ctx.db.execute(sql`UPDATE idempotency_keys SET lease_until = clock_timestamp() - interval '10 milliseconds' WHERE key = ${row.key}`);
    expect(await claimKey(t.ctx.db, { ...row, claim: 'third' }, { owner: 'another', ms: 3000 }, doneBefore)).toBe(true);
    expect(await findKey(t.ctx.db, row.credential, row.key)).toMatchObject({ state: 'running', owner: 'another' });
    // The first request, finishing late, no longer holds the claim: it stores nothing.
    await storeResponse(t.ctx.db, { credential: row.credential, key: row.key, claim: 'first' }, { status: 200, type: null, body: '{}' });
    expect((await findKey(t.ctx.db, row.credential, row.key))?.state).toBe('running');
  });

  it('keeps the old rule for a running claim written before leases existed: free 5 minutes after it started', async () => {
    const row = { credential: `test:${newKey()}`, key: newKey(), fingerprint: 'f' };
    const lease = { owner: 'new', ms: 3000 };
    const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000);
    await t.ctx.db.execute(
      sql`INSERT INTO idempotency_keys (credential, key, fingerprint, claim, state, created_at) VALUES (${row.credential}, ${row.key}, 'f', 'old', 'running', ${at(4).toISOString()})`,
    );
    expect(await claimKey(t.ctx.db, { ...row, claim: 'x', now: new Date() }, lease, at(24 * 60))).toBe(false);
    await t.ctx.db.execute(sql`UPDATE idempotency_keys SET created_at = ${at(5).toISOString()} WHERE key = ${row.key}`);
    expect(await claimKey(t.ctx.db, { ...row, claim: 'y', now: new Date() }, lease, at(24 * 60))).toBe(true);
  });

  it('leaves GET alone', async () => {
    const key = newKey();
    const url = `${B2B}/demo-d/es/events`;
    for (let i = 0; i < 2; i++) {
      const res = await t.app.inject({ method: 'GET', url, headers: { ...bearer(widgetToken), 'idempotency-key': key } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
    }
    expect(await count(sql`SELECT count(*)::int AS n FROM idempotency_keys WHERE key = ${key}`)).toBe(0);
  });
});

describe('every write of the B2B and admin interfaces is covered', () => {
  /** Writes without a bearer credential: nothing names the caller, so a key has no owner. */
  const PUBLIC = new Set([`POST ${B2B}/auth/token`]);

  it('a repeat with the same key is a replay, for each POST, PUT and DELETE of the served OpenAPI', async () => {
    const doc = (await t.app.inject({ url: '/api/openapi.json' })).json() as {
      paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; requestBody?: unknown }>>;
    };
    const serverToken = await serverTokenFor(t.app, DEMO.d.slug);
    const adminToken = (await account(t.ctx, `idem-${crypto.randomUUID()}@taquilla.test`)).token;
    const checked: string[] = [];
    const failures: string[] = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      const admin = path.startsWith('/api/admin/v1/');
      if (!admin && !path.startsWith(`${B2B}/`)) continue;
      for (const [method, op] of Object.entries(operations)) {
        const verb = method.toUpperCase();
        if (!['POST', 'PUT', 'DELETE'].includes(verb) || PUBLIC.has(`${verb} ${path}`)) continue;
        const header = op.parameters?.find((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
        if (!header) failures.push(`${verb} ${path}: the OpenAPI does not document Idempotency-Key`);
        // Ids that name nothing (or the demo's channel): whatever the first answer is, the repeat replays it.
        const url = path.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'salesChannelSlug' ? DEMO.d.slug : name === 'lang' ? 'es' : '999999'));
        const key = newKey();
        const send = () =>
          t.app.inject({
            method: verb as 'POST',
            url,
            headers: { ...bearer(admin ? adminToken : serverToken), 'idempotency-key': key },
            ...(op.requestBody ? { payload: {} } : {}),
          });
        const first = await send();
        const again = await send();
        if (first.statusCode >= 500 || first.statusCode === 429) failures.push(`${verb} ${path}: first answer ${first.statusCode}`);
        else if (again.headers['idempotent-replayed'] !== 'true' || again.statusCode !== first.statusCode || again.body !== first.body) {
          failures.push(`${verb} ${path}: the repeat was not a replay (${first.statusCode} then ${again.statusCode})`);
        }
        checked.push(`${verb} ${path}`);
      }
    }
    expect(failures).toEqual([]);
    expect(checked.filter((c) => c.includes('/api/admin/')).length).toBeGreaterThan(10);
    expect(checked.filter((c) => c.includes(B2B)).length).toBeGreaterThan(10);
  });

  it('is documented on no GET', async () => {
    const doc = (await t.app.inject({ url: '/api/openapi.json' })).json() as { paths: Record<string, Record<string, { parameters?: { name: string }[] }>> };
    const gets = Object.values(doc.paths).flatMap((ops) => (ops.get ? [ops.get] : []));
    expect(gets.some((op) => op.parameters?.some((p) => p.name === 'idempotency-key'))).toBe(false);
  });
});

// PGlite serialises every statement on one connection; the race of many instances is PostgreSQL's.
describe.runIf(isPostgres)('on PostgreSQL', () => {
  it('a repeat while the first is held up is 409; once the first has answered, a repeat replays it', async () => {
    const seat = await freeSeat();
    const key = newKey();
    const body = { session_seat_id: seat, rate_id: rateId };
    // Another connection locks the seat's row: the first request waits inside its hold.
    const blocker = new pg.Client({ connectionString: t.db.url! });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('SELECT id FROM session_seats WHERE id = $1 FOR UPDATE', [seat]);
      const first = createOrder(widgetToken, key, body);
      await waitFor(async () => (await count(sql`SELECT count(*)::int AS n FROM idempotency_keys WHERE key = ${key} AND state = 'running'`)) === 1);
      const repeat = await createOrder(widgetToken, key, body);
      expect(repeat.statusCode).toBe(409);
      expect(repeat.json().code).toBe('idempotency_key_in_use');
      await blocker.query('COMMIT');
      const answered = await first;
      expect(answered.statusCode).toBe(201);
      const later = await createOrder(widgetToken, key, body);
      expect(later.headers['idempotent-replayed']).toBe('true');
      expect(later.body).toBe(answered.body);
    } finally {
      await blocker.end();
    }
  });

  it('many parallel repeats of one key while the first runs: exactly one runs, every other is 409', async () => {
    const token = await serverTokenFor(t.app, DEMO.d.slug);
    const key = newKey();
    const seats = await Promise.all(Array.from({ length: 15 }, () => freeSeat()));
    const body = { items: seats.map((id) => ({ session_seat_id: id, rate_id: rateId })) };
    const order = await createOrder(token, undefined, { session_seat_id: await freeSeat(), rate_id: rateId });
    const url = `${ORDERS}/${order.json().data.order_token as string}/items-bulk`;
    // The last seat's row is locked by another connection: whichever request claims the key first
    // waits inside its holds until every repeat has answered.
    const blocker = new pg.Client({ connectionString: t.db.url! });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('SELECT id FROM session_seats WHERE id = $1 FOR UPDATE', [seats.at(-1)]);
      let settled = 0;
      const pending = Array.from({ length: 25 }, () =>
        t.app.inject({ method: 'POST', url, headers: { ...bearer(token), 'idempotency-key': key }, payload: body }).finally(() => settled++),
      );
      await waitFor(async () => settled === pending.length - 1);
      await blocker.query('COMMIT');
      const answers = await Promise.all(pending);
      const ran = answers.filter((a) => a.statusCode !== 409);
      expect(ran).toHaveLength(1);
      expect(ran[0]!.statusCode).toBe(200);
      for (const a of answers.filter((a) => a.statusCode === 409)) expect(a.json().code).toBe('idempotency_key_in_use');
    } finally {
      await blocker.end();
    }
    expect(await count(sql`SELECT count(*)::int AS n FROM order_items WHERE session_seat_id IN (${sql.join(seats, sql`, `)})`)).toBe(seats.length);
  });
});
