import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.js';
import { buildTestApp, isPostgres, type TestApp } from '../helpers.js';
import { apiAs } from '../admin/admin-helpers.js';
import { device, makeGate, openDoor, sellTickets } from './checkin-helpers.js';

// Once-only entry is the database's (D54): many devices scanning the same tickets at once. On
// PostgreSQL the requests really run side by side on a pool of connections; PGlite (one connection)
// runs the same file serialised.

let t: TestApp;
let sessionId: number;
let listId: number;
let gates: Array<ReturnType<typeof device>>;

beforeAll(async () => {
  t = await buildTestApp({ poolSize: 16 });
  ({ sessionId, listId } = await openDoor(t, 'Stadium'));
  gates = [];
  for (let i = 1; i <= 4; i++) gates.push(await makeGate(t, `Gate ${i}`, [listId]));
}, 120_000);
afterAll(() => t?.close());


describe('parallel scans', () => {
  it('of the same tickets from four gates: exactly one valid per ticket, every scan stored', async () => {
    const { tickets } = await sellTickets(t, { sessionId, seats: 8 });
    const attempts = tickets.flatMap((ticket) => Array.from({ length: 12 }, (_, i) => ({ ticket, gate: gates[i % gates.length]! })));
    const answers = await Promise.all(attempts.map((a) => a.gate.scan(listId, { secret: a.ticket.secret })));
    for (const ticket of tickets) {
      const results = answers.filter((_, i) => attempts[i]!.ticket.id === ticket.id).map((r) => r.json().result);
      expect(results.filter((r) => r === 'valid')).toHaveLength(1);
      expect(results.filter((r) => r === 'already_used')).toHaveLength(11);
    }
    const [row] = await queryRows<{ scans: string; entries: string }>(
      t.ctx.db,
      sql`SELECT (SELECT count(*) FROM checkin_scans WHERE list_id = ${listId}) AS scans, (SELECT count(*) FROM checkin_entries WHERE list_id = ${listId}) AS entries`,
    );
    expect(Number(row!.scans)).toBe(attempts.length);
    expect(Number(row!.entries)).toBe(tickets.length);
  });

  it('offline uploads of one ticket from all gates at once: one first scan (the earliest), all stored, one valid entry row', async () => {
    const { tickets } = await sellTickets(t, { sessionId });
    const now = t.clock.now().getTime();
    const scans = gates.map((_, i) => ({ client_scan_id: crypto.randomUUID(), secret: tickets[0]!.secret, direction: 'entry', scanned_at: new Date(now - (i + 1) * 60_000).toISOString() }));
    await Promise.all(gates.map((g, i) => g.batch(listId, [scans[i]!])));
    const rows = await queryRows<{ client_scan_id: string; result: string }>(
      t.ctx.db,
      sql`SELECT client_scan_id, result FROM checkin_scans WHERE ticket_id = ${tickets[0]!.id} ORDER BY scanned_at`,
    );
    expect(rows).toHaveLength(gates.length);
    // The earliest (the last gate's) is the entry; every other is recorded as a second entry.
    expect(rows.map((r) => r.result)).toEqual(['valid', ...Array(gates.length - 1).fill('already_used')]);
    expect(rows[0]!.client_scan_id).toBe(scans[gates.length - 1]!.client_scan_id);
    const [entry] = await queryRows<{ first_scanned_at: Date }>(t.ctx.db, sql`SELECT first_scanned_at FROM checkin_entries WHERE ticket_id = ${tickets[0]!.id}`);
    expect(new Date(entry!.first_scanned_at).toISOString()).toBe(scans[gates.length - 1]!.scanned_at);
  });

  it('the same upload sent twice at once is stored once and answered alike', async () => {
    const { tickets } = await sellTickets(t, { sessionId, seats: 3 });
    const scans = tickets.map((ticket) => ({ client_scan_id: crypto.randomUUID(), secret: ticket.secret, direction: 'entry', scanned_at: new Date(t.clock.now().getTime() - 60_000).toISOString() }));
    const [a, b] = await Promise.all([gates[0]!.batch(listId, scans), gates[0]!.batch(listId, scans)]);
    expect(a.statusCode).toBe(200);
    expect(b.json()).toEqual(a.json());
    expect(a.json().results.every((r: { result: string }) => r.result === 'valid')).toBe(true);
    const [row] = await queryRows<{ n: string }>(t.ctx.db, sql`SELECT count(*) AS n FROM checkin_scans WHERE client_scan_id IN (${sql.join(scans.map((s) => sql`${s.client_scan_id}::uuid`), sql`, `)})`);
    expect(Number(row!.n)).toBe(scans.length);
  });
});

// D58: a refund and a scan of one ticket take the same row lock, so a ticket ends either refunded
// (every scan answered `refunded`) or admitted (every refund without allow_used answered 409
// `ticket_used`), never both. Only PostgreSQL runs them really side by side.
describe.skipIf(!isPostgres)('refunds racing scans of the same tickets (PostgreSQL)', () => {
  it('each ticket is either refunded or checked in, never both', async () => {
    const admin = await apiAs(t, 'race@taquilla.test');
    const rounds = 6;
    let refundedTickets = 0;
    let admittedTickets = 0;
    for (let round = 0; round < rounds; round++) {
      const { order, tickets } = await sellTickets(t, { sessionId, seats: 3 });
      const reference = (await queryRows<{ reference: string }>(t.ctx.db, sql`SELECT reference FROM orders WHERE id = ${order.id}`))[0]!.reference;
      // Interleaved: per ticket four scans (from the four gates) and three refunds of that ticket.
      const calls = tickets.flatMap((ticket) => [
        ...gates.map((gate) => ({ ticket, kind: 'scan' as const, run: () => gate.scan(listId, { secret: ticket.secret }).then((r) => ({ status: r.statusCode, body: r.json() })) })),
        ...Array.from({ length: 3 }, () => ({ ticket, kind: 'refund' as const, run: () => admin.post(`/orders/${reference}/refund`, { reason: 'race', ticket_ids: [ticket.id] }) })),
      ]);
      // Shuffled so that neither kind always starts first.
      calls.sort(() => Math.random() - 0.5);
      const answers = await Promise.all(calls.map(async (c) => ({ ...c, answer: await c.run() })));
      for (const ticket of tickets) {
        const mine = answers.filter((a) => a.ticket.id === ticket.id);
        const scans = mine.filter((a) => a.kind === 'scan').map((a) => a.answer.body.result as string);
        const refunds = mine.filter((a) => a.kind === 'refund').map((a) => a.answer);
        const [row] = await queryRows<{ status: string; entries: string; refunds: string }>(
          t.ctx.db,
          sql`SELECT t.status,
                     (SELECT count(*) FROM checkin_entries e WHERE e.ticket_id = t.id) AS entries,
                     (SELECT count(*) FROM refund_items ri WHERE ri.ticket_id = t.id) AS refunds
                FROM tickets t WHERE t.id = ${ticket.id}`,
        );
        const refunded = refunds.filter((r) => r.status === 201).length;
        const admitted = scans.filter((r) => r === 'valid').length;
        if (refunded === 1) {
          refundedTickets++;
          expect(admitted).toBe(0);
          expect(scans.every((r) => r === 'refunded')).toBe(true);
          expect(refunds.filter((r) => r.status !== 201).every((r) => r.status === 409 && r.body.code === 'ticket_already_refunded')).toBe(true);
          expect(row).toMatchObject({ status: 'void', entries: '0', refunds: '1' });
        } else {
          admittedTickets++;
          expect(refunded).toBe(0);
          expect(admitted).toBe(1);
          expect(scans.filter((r) => r !== 'valid').every((r) => r === 'already_used')).toBe(true);
          expect(refunds.every((r) => r.status === 409 && r.body.code === 'ticket_used')).toBe(true);
          expect(row).toMatchObject({ status: 'valid', entries: '1', refunds: '0' });
        }
      }
    }
    expect(refundedTickets + admittedTickets).toBe(rounds * 3);
    console.info(`refund/scan race: ${refundedTickets} tickets refunded, ${admittedTickets} admitted`);
  }, 120_000);
});
