import { beforeAll, describe, expect } from 'vitest';
import crypto from 'node:crypto';
import zlib from 'node:zlib';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.js';
import { CLI_ACTOR } from '../../src/platform/actor.js';
import { refundOrderAs } from '../../src/modules/checkout/order-actions.service.js';
import { listScansFor } from '../../src/modules/checkin/checkin-admin.service.js';
import { appTest, isPostgres } from '../helpers.js';
import { device, makeDevice, makeGate, openDoor, sellTickets } from './checkin-helpers.js';

// Offline devices (D54): scans uploaded later, the list download since a cursor.

const { it, app } = appTest();
let sessionId: number;
let listId: number;
let gateA: ReturnType<typeof device>;
let gateB: ReturnType<typeof device>;

beforeAll(async () => {
  const t = app();
  ({ sessionId, listId } = await openDoor(t, 'Main door'));
  gateA = await makeGate(t, 'Gate A', [listId]);
  gateB = await makeGate(t, 'Gate B', [listId]);
}, 120_000);

const ago = (minutes: number) => new Date(app().clock.now().getTime() - minutes * 60_000).toISOString();
const offline = (secret: string, minutesAgo: number, direction = 'entry') => ({ client_scan_id: crypto.randomUUID(), secret, direction, scanned_at: ago(minutesAgo) });
const scanCount = async () => Number((await queryRows<{ n: string }>(app().ctx.db, sql`SELECT count(*) AS n FROM checkin_scans`))[0]!.n);

describe('offline scans uploaded later', () => {
  it('two devices scanned one ticket offline: the first by scanned_at wins, whoever uploads first', async ({ t }) => {
    const { tickets } = await sellTickets(t, { sessionId });
    const secret = tickets[0]!.secret;
    const a = offline(secret, 10); // Gate A scanned first ...
    const b = offline(secret, 5); // ... Gate B five minutes later, but uploads first.
    const before = await scanCount();
    const upB = await gateB.batch(listId, [b]);
    expect(upB.statusCode).toBe(200);
    expect(upB.json().results).toEqual([{ client_scan_id: b.client_scan_id, result: 'valid' }]);
    const upA = await gateA.batch(listId, [a]);
    expect(upA.json().results).toEqual([{ client_scan_id: a.client_scan_id, result: 'valid' }]);
    // Nothing lost: both scans are stored; B's is now the second entry, reported as such.
    expect(await scanCount()).toBe(before + 2);
    const twice = await listScansFor(t.ctx, CLI_ACTOR, listId, { twice: true });
    expect(twice.find((s) => s.ticket_id === tickets[0]!.id)).toMatchObject({ device_name: 'Gate B', result: 'already_used', first_scan: { device_name: 'Gate A' } });
    // Online, the ticket is used, first by Gate A.
    expect((await gateB.scan(listId, { secret })).json()).toMatchObject({ result: 'already_used', first_scan: { device_name: 'Gate A', scanned_at: a.scanned_at.replace(/\.\d+Z$/, '+00:00') } });
  });

  it('a later offline scan is already_used with the first scan; a re-upload stores nothing new and answers the same', async ({ t }) => {
    const { tickets } = await sellTickets(t, { sessionId, seats: 2 });
    const first = offline(tickets[0]!.secret, 20);
    const second = offline(tickets[0]!.secret, 15);
    const other = offline(tickets[1]!.secret, 14);
    const junk = offline('not a ticket', 13);
    const upA = await gateA.batch(listId, [first, other, junk]);
    expect(upA.json().results.map((r: { result: string }) => r.result)).toEqual(['valid', 'valid', 'invalid']);
    const upB = await gateB.batch(listId, [second]);
    expect(upB.json().results[0]).toMatchObject({ result: 'already_used', first_scan: { device_name: 'Gate A' } });
    const stored = await scanCount();
    const again = await gateA.batch(listId, [first, other, junk]);
    expect(again.json()).toEqual(upA.json());
    expect((await gateB.batch(listId, [second])).json()).toEqual(upB.json());
    expect(await scanCount()).toBe(stored);
  });

  it('applies one upload in scanned_at order, and refuses a batch over 500 scans', async ({ t }) => {
    const { tickets } = await sellTickets(t, { sessionId });
    const late = offline(tickets[0]!.secret, 1);
    const early = offline(tickets[0]!.secret, 2);
    const res = await gateA.batch(listId, [late, early]);
    expect(res.json().results).toMatchObject([
      { client_scan_id: late.client_scan_id, result: 'already_used' },
      { client_scan_id: early.client_scan_id, result: 'valid' },
    ]);
    const tooMany = Array.from({ length: 501 }, () => offline('x', 1));
    expect((await gateA.batch(listId, tooMany)).statusCode).toBe(422);
  });

  it('an exit in an upload to a list without re-entry is invalid, and stored like every scan', async ({ t }) => {
    const { tickets } = await sellTickets(t, { sessionId });
    const exit = offline(tickets[0]!.secret, 3, 'exit');
    expect((await gateA.batch(listId, [exit])).json().results[0].result).toBe('invalid');
    const [row] = await queryRows<{ result: string }>(t.ctx.db, sql`SELECT result FROM checkin_scans WHERE client_scan_id = ${exit.client_scan_id}`);
    expect(row!.result).toBe('invalid');
  });

  it('a scan time in the future counts as now (a wrong device clock cannot win)', async ({ t }) => {
    const { tickets } = await sellTickets(t, { sessionId });
    const future = { ...offline(tickets[0]!.secret, 0), scanned_at: new Date(t.clock.now().getTime() + 3_600_000).toISOString() };
    expect((await gateA.batch(listId, [future])).json().results[0].result).toBe('valid');
    const [row] = await queryRows<{ scanned_at: Date }>(t.ctx.db, sql`SELECT scanned_at FROM checkin_scans WHERE client_scan_id = ${future.client_scan_id}`);
    expect(new Date(row!.scanned_at).getTime()).toBe(t.clock.now().getTime());
  });
});

describe('the list download', () => {
  interface Page {
    tickets: Array<{ id: number; status: string; checked_in_at?: string; legacy_code_sha256?: string; kid?: string; v: number }>;
    next_cursor: string;
    has_more: boolean;
  }
  async function downloadAll(d: ReturnType<typeof device>, cursor?: string, limit = 3) {
    const all: Page['tickets'] = [];
    for (let pages = 0; pages < 1000; pages++) {
      const res = await d.tickets(listId, `?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.statusCode, res.body).toBe(200);
      const page = res.json() as Page;
      all.push(...page.tickets);
      cursor = page.next_cursor;
      if (!page.has_more) return { tickets: all, cursor: cursor! };
    }
    throw new Error('no end');
  }

  it('pages through every ticket of the list, then sends only what changed: revocations, check-ins, new tickets', async ({ t }) => {
    const sold = await sellTickets(t, { sessionId, seats: 3 });
    const full = await downloadAll(gateA);
    const ids = full.tickets.map((x) => x.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    for (const s of sold.tickets) expect(full.tickets.find((x) => x.id === s.id)).toMatchObject({ status: 'valid', v: 1, kid: expect.stringMatching(/^[0-9a-f]{8}$/) });

    // Nothing changed: nothing to send. (On a PostgreSQL server the floor is the oldest transaction
    // running anywhere in the cluster, other test files' included, so recent tickets may come again:
    // re-sending is allowed, missing is not.)
    const quiet = await downloadAll(gateA, full.cursor);
    if (isPostgres) expect(quiet.tickets.every((x) => ids.includes(x.id))).toBe(true);
    else expect(quiet.tickets).toEqual([]);

    // A refund, a check-in and a new sale.
    await refundOrderAs(t.ctx, CLI_ACTOR, sold.order.reference, 'cancelled');
    const other = await sellTickets(t, { sessionId });
    expect((await gateB.scan(listId, { secret: other.tickets[0]!.secret })).json().result).toBe('valid');
    const changes = await downloadAll(gateA, full.cursor);
    const byId = new Map(changes.tickets.map((x) => [x.id, x]));
    for (const s of sold.tickets) expect(byId.get(s.id)?.status).toBe('revoked');
    expect(byId.get(other.tickets[0]!.id)).toMatchObject({ status: 'valid', checked_in_at: expect.any(String) });
    expect(changes.tickets.length).toBeLessThanOrEqual(sold.tickets.length + 1 + 2);
  });

  it('a format-1 ticket comes with the SHA-256 of its code, not the code', async ({ t }) => {
    const { tickets } = await sellTickets(t, { sessionId });
    await t.ctx.db.execute(sql`UPDATE tickets SET secret_format = 1 WHERE id = ${tickets[0]!.id}`);
    const { tickets: all } = await downloadAll(gateA, undefined, 5000);
    const row = all.find((x) => x.id === tickets[0]!.id)!;
    expect(row.legacy_code_sha256).toBe(crypto.createHash('sha256').update(tickets[0]!.code).digest('base64url'));
    expect(row.kid).toBeUndefined();
    expect(JSON.stringify(all)).not.toContain(tickets[0]!.code);
  });

  it('is gzip-compressed when the client accepts it', async ({ t }) => {
    await sellTickets(t, { sessionId, seats: 10 });
    const res = await t.app.inject({ url: `/api/checkin/v1/lists/${listId}/tickets`, headers: { authorization: (await gateHeaders()).authorization, 'accept-encoding': 'gzip, br' } });
    expect(res.headers['content-encoding']).toBe('gzip');
    const body = JSON.parse(zlib.gunzipSync(res.rawPayload).toString());
    expect(body.tickets.length).toBeGreaterThan(10);
  });

  it('refuses a cursor that is not one (422)', async () => {
    for (const cursor of ['nope', Buffer.from('{"f":-1,"a":0,"n":0}').toString('base64url')]) {
      const res = await gateA.tickets(listId, `?cursor=${cursor}`);
      expect(res.statusCode).toBe(422);
      expect(res.json().code).toBe('validation_failed');
    }
    expect((await gateA.tickets(listId, '?limit=5001')).statusCode).toBe(422);
  });
});

let headersOfA: { authorization: string } | undefined;
async function gateHeaders() {
  if (!headersOfA) {
    const d = await makeDevice(app(), 'Gate C', [listId]);
    headersOfA = { authorization: `Bearer ${d.token}` };
  }
  return headersOfA;
}
