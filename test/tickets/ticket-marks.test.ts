import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { buildTestApp, type TestApp } from '../helpers.js';
import { bulkTickets } from '../checkin/bulk-tickets.js';
import { demoSessions, sellTickets } from '../checkin/checkin-helpers.js';

// Every ticket row is marked by the database (tickets_mark_change, migrations 0100, 0353 and 0354): the
// transaction that wrote it (the check-in list download's cursor) and, when new, the active
// signing key (D53). complete_order gives both itself, so its insert spares the trigger's call; any
// other insert (without them, or with another transaction's id) is still marked by the trigger.

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => {
  await t.close();
});

const activeKid = async () => (await queryRows<{ kid: string }>(t.ctx.db, sql`SELECT kid FROM ticket_signing_keys WHERE retired_at IS NULL`))[0]!.kid;
const marksOf = (where: ReturnType<typeof sql>) =>
  queryRows<{ change_xid: string; signing_kid: string | null }>(t.ctx.db, sql`SELECT change_xid::text, signing_kid FROM tickets WHERE ${where} ORDER BY id`);

it('a sale marks its tickets with its transaction and the active signing key', async () => {
  const before = await marksOf(sql`true`);
  const { tickets } = await sellTickets(t, { seats: 2 });
  const marks = await marksOf(sql`id IN (${sql.join(tickets.map((x) => sql`${x.id}`), sql`, `)})`);
  expect(marks).toHaveLength(2);
  expect(new Set(marks.map((m) => m.change_xid)).size).toBe(1);
  const newest = Math.max(0, ...before.map((m) => Number(m.change_xid)));
  expect(Number(marks[0]!.change_xid)).toBeGreaterThan(newest);
  const kid = await activeKid();
  expect(marks.map((m) => m.signing_kid)).toEqual([kid, kid]);
});

it('an insert without the marks, or with another transaction\'s id, is marked by the trigger', async () => {
  const sessionId = (await demoSessions(t.ctx))[0]!.id;
  await bulkTickets(t.ctx.db, { sessionId, n: 3, perOrder: 3, currency: t.config.currency, tag: 'marks' });
  const bulk = await marksOf(sql`order_id IN (SELECT id FROM orders WHERE order_token LIKE 'bulk-marks-%')`);
  expect(bulk).toHaveLength(3);
  expect(Number(bulk[0]!.change_xid)).toBeGreaterThan(0);
  expect(new Set(bulk.map((m) => m.change_xid)).size).toBe(1);
  expect(bulk.map((m) => m.signing_kid)).toEqual(Array(3).fill(await activeKid()));

  // A stale transaction id given with the key: the trigger writes this transaction's (one of the
  // bulk tickets written again, its item taking one ticket).
  const kid = await activeKid();
  const row = await t.ctx.db.transaction(async (tx) => {
    const [gone] = await queryRows<{ order_id: number; order_item_id: number }>(
      tx,
      sql`DELETE FROM tickets WHERE id = (SELECT min(id) FROM tickets WHERE order_id IN (SELECT id FROM orders WHERE order_token LIKE 'bulk-marks-%'))
          RETURNING order_id, order_item_id`,
    );
    const [written] = await queryRows<{ change_xid: string; now_xid: string }>(
      tx,
      sql`INSERT INTO tickets (code, order_id, order_item_id, issued_at, change_xid, signing_kid)
          VALUES ('stale-xid-ticket-0000001', ${gone!.order_id}, ${gone!.order_item_id}, now(), 1, ${kid})
          RETURNING change_xid::text, txid_current()::text AS now_xid`,
    );
    return written!;
  });
  expect(row!.change_xid).toBe(row!.now_xid);
  expect(row!.change_xid).not.toBe('1');

  // An explicit NULL for the transaction id is marked too (0354), not refused by NOT NULL.
  const nulled = await t.ctx.db.transaction(async (tx) => {
    const [gone] = await queryRows<{ order_id: number; order_item_id: number }>(
      tx,
      sql`DELETE FROM tickets WHERE code = 'stale-xid-ticket-0000001' RETURNING order_id, order_item_id`,
    );
    const [written] = await queryRows<{ change_xid: string; now_xid: string }>(
      tx,
      sql`INSERT INTO tickets (code, order_id, order_item_id, issued_at, change_xid, signing_kid)
          VALUES ('null-xid-ticket-00000001', ${gone!.order_id}, ${gone!.order_item_id}, now(), NULL, ${kid})
          RETURNING change_xid::text, txid_current()::text AS now_xid`,
    );
    return written!;
  });
  expect(nulled.change_xid).toBe(nulled.now_xid);
});
