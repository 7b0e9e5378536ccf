import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { ClaimKeeper } from '../../src/http/idempotency.js';
import { claimKey, findKey } from '../../src/platform/idempotency.repo.js';
import { account } from '../admin/admin-helpers.js';
import { bearer, buildTestApp, DEMO, firstDemoSession, isPostgres, serverTokenFor, waitFor, type TestApp } from '../helpers.js';

// D55: a key whose first request ended without a stored answer is free again as soon as the
// database answers; 409 idempotency_key_in_use only while the first request really runs. The claim
// is released at a 5xx or a 429, and otherwise bound to its request by a lease that the process
// renews while the request runs (src/http/idempotency.ts ClaimKeeper). The outage itself (a cut
// between service and database) is test/http/idempotency-outage.test.ts, on PostgreSQL.

const ORDERS = '/api/sales-channel/v1/demo-d/es/orders';
const DAY_MS = 24 * 60 * 60 * 1000;
const MAX_ITEMS = 2;

let t: TestApp;
let serverToken: string;
let sessionId: number;
let rateId: number;

beforeAll(async () => {
  t = await buildTestApp({ env: { MAX_ITEMS_PER_ORDER: String(MAX_ITEMS) } });
  serverToken = await serverTokenFor(t.app, DEMO.d.slug);
  ({ sessionId, rateId } = await firstDemoSession(t));
}, 120_000);
afterAll(() => t?.close());

let seatOffset = 0;
async function freeSeats(n: number): Promise<number[]> {
  const seats = await queryRows<{ id: number }>(
    t.ctx.db,
    sql`SELECT id FROM session_seats WHERE session_id = ${sessionId} AND status = 'available' AND seat_id IS NOT NULL ORDER BY id LIMIT ${n} OFFSET ${seatOffset}`,
  );
  seatOffset += n;
  return seats.map((s) => s.id);
}

const rowsOfKey = async (key: string) =>
  (await queryRows<{ n: number }>(t.ctx.db, sql`SELECT count(*)::int AS n FROM idempotency_keys WHERE key = ${key}`))[0]!.n;
const newKey = () => crypto.randomUUID();

/**
 * A real admin write to repeat: a new voucher (a fresh code) of the first organiser, created by a new
 * admin with one Idempotency-Key; `send` sends it again each time it is called.
 */
async function newVoucherRequest() {
  const admin = (await account(t.ctx, `faults-${newKey()}@taquilla.test`)).token;
  const key = newKey();
  const [organiser] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM organisers ORDER BY id LIMIT 1`);
  const payload = { organiser_id: organiser!.id, code: `F${crypto.randomBytes(4).toString('hex').toUpperCase()}`, kind: 'percent', value: 10 };
  const send = () => t.app.inject({ method: 'POST', url: '/api/admin/v1/vouchers', headers: { ...bearer(admin), 'idempotency-key': key }, payload });
  return { key, send };
}

/** Runs `during` while `table` cannot be reached (renamed away), then puts it back; gives what `during` gave. */
async function whileTableAway<T>(table: string, during: () => Promise<T>): Promise<T> {
  await t.ctx.db.execute(sql`ALTER TABLE ${sql.identifier(table)} RENAME TO ${sql.identifier(`${table}_away`)}`);
  try {
    return await during();
  } finally {
    await t.ctx.db.execute(sql`ALTER TABLE ${sql.identifier(`${table}_away`)} RENAME TO ${sql.identifier(table)}`);
  }
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the claim of an answer that says "try again" is released (D55)', () => {
  it('a 429 (hold_limit_reached) is not kept: the retry with the same key runs again', async () => {
    const created = await t.app.inject({ method: 'POST', url: ORDERS, headers: bearer(serverToken), payload: { session_seat_id: (await freeSeats(1))[0], rate_id: rateId } });
    expect(created.statusCode).toBe(201);
    const url = `${ORDERS}/${created.json().data.order_token as string}/items-bulk`;
    const body = { items: (await freeSeats(MAX_ITEMS)).map((id) => ({ session_seat_id: id, rate_id: rateId })) };
    const key = newKey();
    const send = () => t.app.inject({ method: 'POST', url, headers: { ...bearer(serverToken), 'idempotency-key': key }, payload: body });
    const first = await send();
    expect(first.statusCode).toBe(429);
    expect(first.json().code).toBe('hold_limit_reached');
    expect(await rowsOfKey(key)).toBe(0);
    // The retry runs (no replay): the cart is still full, so it is refused again, for real.
    const retry = await send();
    expect(retry.statusCode).toBe(429);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    expect(await rowsOfKey(key)).toBe(0);
    expect(t.app.idempotencyClaims.size).toBe(0);
  });

  it('a 5xx is not kept, on the admin API too: the retry runs', async () => {
    // A real failure of a real admin write: the table it writes is away for a moment.
    const { key, send } = await newVoucherRequest();
    const failed = await whileTableAway('vouchers', send);
    expect(failed.statusCode, failed.body).toBeGreaterThanOrEqual(500);
    expect(await rowsOfKey(key)).toBe(0);
    const retry = await send();
    expect(retry.statusCode, retry.body).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
    const again = await send();
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(retry.body);
  });
});

describe('a repeat right after the database is back runs (D55)', () => {
  it('on the instance whose request ended while its key could not be released: settled at the repeat, not 409', async () => {
    const { key, send } = await newVoucherRequest();
    // The write fails (its table is away) and the release of its claim fails too (the key table
    // refuses deletes for a moment): the claim stays running, its release pending.
    await t.ctx.db.execute(sql`CREATE OR REPLACE FUNCTION test_refuse_key_delete() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'away'; END $$`);
    await t.ctx.db.execute(sql`CREATE TRIGGER away BEFORE DELETE ON idempotency_keys FOR EACH ROW EXECUTE FUNCTION test_refuse_key_delete()`);
    let failed;
    try {
      failed = await whileTableAway('vouchers', send);
    } finally {
      await t.ctx.db.execute(sql`DROP TRIGGER away ON idempotency_keys`);
      await t.ctx.db.execute(sql`DROP FUNCTION test_refuse_key_delete()`);
    }
    expect(failed.statusCode, failed.body).toBeGreaterThanOrEqual(500);
    expect(await rowsOfKey(key)).toBe(1);
    // At once, before any beat of the keeper: the repeat runs.
    const retry = await send();
    expect(retry.statusCode, retry.body).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBeUndefined();
  });
});

describe('the claim keeper: a running claim counts while its request runs, and only then (D55)', () => {
  const lease = { leaseMs: 400, renewEveryMs: 100 };
  const claimOf = async (keeper: ClaimKeeper, key: string, claim = newKey()) => {
    const row = { credential: `test:${newKey()}`, key, fingerprint: 'f', claim, now: t.clock.now() };
    expect(await claimKey(t.ctx.db, row, keeper.lease, new Date(row.now.getTime() - DAY_MS))).toBe(true);
    return row;
  };
  const log = { warn() {}, error() {} };

  it('renews the lease of a claim it holds: another instance cannot take it over while the request runs', async () => {
    const mine = new ClaimKeeper(t.ctx.db, log, lease);
    const theirs = new ClaimKeeper(t.ctx.db, log, lease);
    try {
      const row = await claimOf(mine, newKey());
      mine.hold(row);
      // Three leases long: only the renewals keep it.
      await sleep(3 * lease.leaseMs);
      expect(await claimKey(t.ctx.db, { ...row, claim: 'theirs' }, theirs.lease, new Date(0))).toBe(false);
      expect(await findKey(t.ctx.db, row.credential, row.key)).toMatchObject({ state: 'running', owner: mine.lease.owner });
      // The request answers: the answer is kept and replayed from now on; no claim is held any more.
      await mine.finish(row, { status: 201, type: 'application/json', body: '{"ok":true}' });
      expect(mine.size).toBe(0);
      expect(await findKey(t.ctx.db, row.credential, row.key)).toMatchObject({ state: 'done', responseStatus: 201, responseBody: '{"ok":true}' });
    } finally {
      await mine.close();
      await theirs.close();
    }
  });

  it('a claim nobody renews (its process is gone) is free once its lease has run out', async () => {
    const dead = new ClaimKeeper(t.ctx.db, log, lease);
    const row = await claimOf(dead, newKey());
    // Never held by a running keeper: as if the process died right after claiming.
    const other = new ClaimKeeper(t.ctx.db, log, lease);
    try {
      expect(await claimKey(t.ctx.db, { ...row, claim: 'early' }, other.lease, new Date(0))).toBe(false);
      await sleep(lease.leaseMs + 100);
      expect(await claimKey(t.ctx.db, { ...row, claim: 'later' }, other.lease, new Date(0))).toBe(true);
    } finally {
      await dead.close();
      await other.close();
    }
  });

  type Claim = Awaited<ReturnType<typeof claimOf>>;
  /** A keeper that holds one fresh claim of a new key while `during` runs, closed after. */
  async function withHeldClaim(keeperLease: typeof lease, during: (keeper: ClaimKeeper, row: Claim, key: string) => Promise<void>) {
    const keeper = new ClaimKeeper(t.ctx.db, log, keeperLease);
    try {
      const key = newKey();
      const row = await claimOf(keeper, key);
      keeper.hold(row);
      await during(keeper, row, key);
    } finally {
      await keeper.close();
    }
  }

  it('a release the database cannot take at the answer is made at a later beat', () =>
    withHeldClaim(lease, async (keeper, row, key) => {
      await whileTableAway('idempotency_keys', async () => {
        // The answer was a 503: the claim is to be released, but the table cannot be reached.
        await keeper.finish(row, null);
        expect(keeper.size).toBe(1);
        await sleep(2 * lease.renewEveryMs);
      });
      await waitFor(async () => (await rowsOfKey(key)) === 0);
      expect(keeper.size).toBe(0);
    }));

  it('a release that waits for the database is tried again soon after, not at the next renewal beat', () =>
    withHeldClaim({ leaseMs: 400, renewEveryMs: 60_000 }, async (keeper, row, key) => {
      await whileTableAway('idempotency_keys', () => keeper.finish(row, null));
      // The renewal beat is a minute away; the pending release is written within a second.
      await waitFor(async () => (await rowsOfKey(key)) === 0, 1000);
      expect(keeper.size).toBe(0);
    }));

  it('an answer the database refuses to store is not waited for: the claim is released instead', () =>
    withHeldClaim(lease, async (keeper, row, key) => {
      // A NUL character: PostgreSQL's text refuses it, now and at every later beat.
      await keeper.finish(row, { status: 200, type: 'text/plain', body: 'a\u0000b' });
      await waitFor(async () => (await rowsOfKey(key)) === 0);
      expect(keeper.size).toBe(0);
    }));
});

// PGlite runs one statement at a time on one connection; a request held up inside the database
// while another answers needs PostgreSQL.
describe.runIf(isPostgres)('on PostgreSQL: 409 stays while the first request really runs', () => {
  it('a first request held up for longer than a lease (3 s) keeps its key: repeats are 409 until it answers', async () => {
    const [seat] = await freeSeats(1);
    const key = newKey();
    const body = { session_seat_id: seat, rate_id: rateId };
    const send = () => t.app.inject({ method: 'POST', url: ORDERS, headers: { ...bearer(serverToken), 'idempotency-key': key }, payload: body });
    const blocker = new pg.Client({ connectionString: t.db.url! });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('SELECT id FROM session_seats WHERE id = $1 FOR UPDATE', [seat]);
      const first = send();
      await waitFor(async () => (await rowsOfKey(key)) === 1);
      await sleep(4000);
      const repeat = await send();
      expect(repeat.statusCode).toBe(409);
      expect(repeat.json().code).toBe('idempotency_key_in_use');
      await blocker.query('COMMIT');
      const answered = await first;
      expect(answered.statusCode).toBe(201);
      const later = await send();
      expect(later.headers['idempotent-replayed']).toBe('true');
      expect(later.body).toBe(answered.body);
    } finally {
      await blocker.end();
    }
  }, 20_000);
});
