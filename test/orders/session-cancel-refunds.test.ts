import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { api, apiAs } from '../admin/admin-helpers.js';
import { bearer, buildTestApp, DEMO, expectRefused, isPostgres, serverTokenFor, type TestApp } from '../helpers.js';
import { demoSession, itemsOf, orderUrl, type DemoSession, type OrderJson } from './cart-helpers.js';

// Cancelling a session with refund: true (D74 through D58): each completed order is refunded once,
// for its tickets of the cancelled session only (an order with tickets of two sessions keeps the
// other's), each buyer e-mailed once per order; also with a parallel second cancel and confirms
// running while the cancellation commits (PostgreSQL).

let t: TestApp;
let admin: ReturnType<typeof api>;
let serverB: string;
const sessions: DemoSession[] = [];
const used = new Set<number>();
const seat = (s: DemoSession) => {
  const found = s.seats.find((x) => !used.has(x.id))!;
  used.add(found.id);
  return { session_seat_id: found.id, rate_id: s.rates.general };
};

beforeAll(async () => {
  t = await buildTestApp({ poolSize: 30 });
  for (const i of [0, 1, 2]) sessions.push(await demoSession(t, i));
  admin = await apiAs(t, 'cancel-refunds@taquilla.test');
  serverB = await serverTokenFor(t.app, DEMO.b.slug);
}, 180_000);
afterAll(() => t.close());

const portalUrl = (suffix: string) => `/api/portal/${DEMO.b.slug}/en${suffix}`;

/** A model B cart on the portal with one seat of each given session. */
async function cart(...of: DemoSession[]): Promise<OrderJson> {
  const [first, ...rest] = of;
  const created = await t.app.inject({ method: 'POST', url: portalUrl('/orders'), payload: seat(first!) });
  expect(created.statusCode, created.body).toBe(201);
  let order = created.json().data as OrderJson;
  for (const s of rest) {
    const added = await t.app.inject({ method: 'POST', url: portalUrl(`/orders/${order.order_token}/items`), payload: seat(s) });
    expect(added.statusCode, added.body).toBe(200);
    order = added.json().data as OrderJson;
  }
  return order;
}

/** Confirms a model B cart from the channel's server (the service sends tickets and refund e-mails). */
const confirm = (order: OrderJson, email: string) =>
  t.app.inject({
    method: 'POST',
    url: orderUrl(DEMO.b.slug, order.order_token, '/confirm'),
    headers: bearer(serverB),
    payload: { name: 'Ana', surname: 'García', email, amount: order.total_amount },
  });

async function paid(email: string, ...of: DemoSession[]) {
  const order = await cart(...of);
  const res = await confirm(order, email);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as OrderJson & { reference: string };
}

/** Per order: its tickets by session (status), its refund rows and the refund e-mails. */
async function stateOf(orderToken: string) {
  const tickets = await queryRows<{ session_id: number; status: string; seat: string }>(
    t.ctx.db,
    sql`SELECT i.session_id, tk.status, ss.status AS seat FROM tickets tk JOIN order_items i ON i.id = tk.order_item_id
          JOIN session_seats ss ON ss.id = i.session_seat_id
          JOIN orders o ON o.id = tk.order_id WHERE o.order_token = ${orderToken} ORDER BY i.id`,
  );
  const [counts] = await queryRows<{ refunds: number; emails: number; refunded_items: number }>(
    t.ctx.db,
    sql`SELECT (SELECT count(*)::int FROM orders r WHERE r.refunded_order_id = o.id) AS refunds,
               (SELECT count(*)::int FROM email_outbox m JOIN orders r ON r.id = m.order_id WHERE m.kind = 'refund' AND r.refunded_order_id = o.id) AS emails,
               (SELECT count(*)::int FROM refund_items ri JOIN orders r ON r.id = ri.refund_order_id WHERE r.refunded_order_id = o.id) AS refunded_items
          FROM orders o WHERE o.order_token = ${orderToken}`,
  );
  return { tickets, ...counts! };
}

describe('cancelling a session with refund: true refunds that session only (D74, D58)', () => {
  it("an order with two sessions keeps the other session's ticket; an order refunded in part before is still refunded; each order once", async () => {
    const [a, b] = [sessions[0]!, sessions[1]!];
    const mixed = await paid('mixed@example.com', a, b);
    const single = await paid('single@example.com', a, a);
    const earlier = await paid('earlier@example.com', a, a);
    const onlyB = await paid('only-b@example.com', b);
    // One ticket of `earlier` was refunded by hand before the cancellation.
    const [firstOfEarlier] = await queryRows<{ id: number }>(
      t.ctx.db,
      sql`SELECT tk.id FROM tickets tk JOIN orders o ON o.id = tk.order_id WHERE o.order_token = ${earlier.order_token} ORDER BY tk.order_item_id LIMIT 1`,
    );
    expect((await admin.post(`/orders/${earlier.reference}/refund`, { reason: 'one seat', ticket_ids: [Number(firstOfEarlier!.id)] })).status).toBe(201);
    // A checked-in ticket of the cancelled session is refunded too: the session did not take place.
    const [usedTicket] = await queryRows<{ id: number }>(
      t.ctx.db,
      sql`SELECT tk.id FROM tickets tk JOIN order_items i ON i.id = tk.order_item_id JOIN orders o ON o.id = tk.order_id
           WHERE o.order_token = ${single.order_token} ORDER BY i.id LIMIT 1`,
    );
    await markCheckedIn(Number(usedTicket!.id));
    const unpaid = await cart(a, b);

    const res = await admin.post(`/sessions/${a.sessionId}/cancel`, { refund: true });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ newly_cancelled: true, refunded_orders: 3, refund_failures: [] });

    const m = await stateOf(mixed.order_token);
    expect(m.tickets).toEqual([
      { session_id: a.sessionId, status: 'void', seat: 'available' },
      { session_id: b.sessionId, status: 'valid', seat: 'sold' },
    ]);
    expect(m).toMatchObject({ refunds: 1, emails: 1, refunded_items: 1 });
    // The refund row is the cancelled session's ticket's amount only (D30).
    const [refundRow] = await queryRows<{ total_amount: number }>(
      t.ctx.db,
      sql`SELECT r.total_amount FROM orders r JOIN orders o ON o.id = r.refunded_order_id WHERE o.order_token = ${mixed.order_token}`,
    );
    const aItem = itemsOf(mixed).find((i) => mixed.events.some((e) => e.sessions.some((s) => s.id === a.sessionId && s.items.includes(i))))!;
    expect(refundRow!.total_amount).toBe(-Math.round(aItem.total_amount * 100));

    expect(await stateOf(single.order_token)).toMatchObject({ refunds: 1, emails: 1, refunded_items: 2 });
    expect((await stateOf(single.order_token)).tickets.map((x) => x.status)).toEqual(['void', 'void']);
    expect(await stateOf(earlier.order_token)).toMatchObject({ refunds: 2, emails: 2, refunded_items: 2 });
    expect((await stateOf(earlier.order_token)).tickets.map((x) => x.status)).toEqual(['void', 'void']);
    expect(await stateOf(onlyB.order_token)).toMatchObject({ refunds: 0, emails: 0, tickets: [{ session_id: b.sessionId, status: 'valid', seat: 'sold' }] });

    // A cart the cancellation ended answers its late confirm with D74's not_on_sale, as before it ended.
    const [ended] = await queryRows<{ status: string }>(t.ctx.db, sql`SELECT status FROM orders WHERE order_token = ${unpaid.order_token}`);
    expect(ended!.status).toBe('cancelled');
    const late = await confirm(unpaid, 'late@example.com');
    expectRefused(late, 409, 'not_on_sale');
    expect(await stateOf(unpaid.order_token)).toMatchObject({ tickets: [], refunds: 0, emails: 0 });

    // Again: nothing is left of the session to refund; the other session is untouched.
    const again = await admin.post(`/sessions/${a.sessionId}/cancel`, { refund: true });
    expect(again.body.data).toMatchObject({ newly_cancelled: false, refunded_orders: 0, refund_failures: [] });
    expect(await stateOf(mixed.order_token)).toMatchObject({ refunds: 1, emails: 1 });
    expect((await stateOf(mixed.order_token)).tickets[1]!.status).toBe('valid');
  });
});

describe.skipIf(!isPostgres)('a cancellation with refund: true racing confirms and a second cancel (PostgreSQL)', () => {
  it('every order completed before the cancellation is refunded once for that session only; every later confirm is refused', async () => {
    const [c, d] = [sessions[2]!, sessions[1]!];
    // Half the carts hold a seat of both sessions, half of the cancelled one only; some paid before.
    const before = await Promise.all(Array.from({ length: 4 }, (_, i) => paid(`before${i}@example.com`, ...(i % 2 ? [c] : [c, d]))));
    const carts = await Promise.all(Array.from({ length: 16 }, (_, i) => cart(...(i % 2 ? [c] : [c, d]))));
    const [first, second, ...confirms] = await Promise.all([
      admin.post(`/sessions/${c.sessionId}/cancel`, { refund: true }),
      admin.post(`/sessions/${c.sessionId}/cancel`, { refund: true }),
      ...carts.map((o, i) => confirm(o, `racer${i}@example.com`)),
    ]);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect([first.body.data.newly_cancelled, second.body.data.newly_cancelled].sort()).toEqual([false, true]);
    for (const r of confirms) expect([200, 409], r.body).toContain(r.statusCode);
    const completed = carts.filter((_, i) => confirms[i]!.statusCode === 200);
    const refused = carts.filter((_, i) => confirms[i]!.statusCode !== 200);
    for (const r of confirms.filter((x) => x.statusCode === 409)) expect(r.json().code).toBe('not_on_sale');
    // Both calls together refunded each completed order once, none failed.
    expect(first.body.data.refunded_orders + second.body.data.refunded_orders).toBe(before.length + completed.length);
    expect([...first.body.data.refund_failures, ...second.body.data.refund_failures]).toEqual([]);

    for (const o of [...before, ...completed]) {
      const s = await stateOf(o.order_token);
      expect(s).toMatchObject({ refunds: 1, emails: 1 });
      for (const tk of s.tickets) {
        expect(tk).toEqual(tk.session_id === c.sessionId ? { session_id: c.sessionId, status: 'void', seat: 'available' } : { session_id: d.sessionId, status: 'valid', seat: 'sold' });
      }
      expect(s.refunded_items).toBe(s.tickets.filter((x) => x.session_id === c.sessionId).length);
    }
    for (const o of refused) expect(await stateOf(o.order_token)).toMatchObject({ tickets: [], refunds: 0, emails: 0 });
    // Nothing of the cancelled session stays sold or held; one refund e-mail per refunded order.
    const [left] = await queryRows<{ n: number }>(
      t.ctx.db,
      sql`SELECT count(*)::int AS n FROM session_seats WHERE session_id = ${c.sessionId} AND status IN ('sold', 'held')`,
    );
    expect(left!.n).toBe(0);
    const mails = await queryRows<{ recipient: string; n: number }>(
      t.ctx.db,
      sql`SELECT m.recipient, count(*)::int AS n FROM email_outbox m WHERE m.kind = 'refund' AND (m.recipient LIKE 'before%' OR m.recipient LIKE 'racer%') GROUP BY m.recipient`,
    );
    expect(mails.every((m) => m.n === 1)).toBe(true);
    expect(mails).toHaveLength(before.length + completed.length);
  }, 120_000);
});

/** A check-in entry for a ticket, as a scan records it (list, device, scan). */
async function markCheckedIn(ticketId: number) {
  const [list] = await queryRows<{ id: number }>(t.ctx.db, sql`INSERT INTO checkin_lists (organiser_id, name, created_at) VALUES (1, ${'L' + ticketId}, now()) RETURNING id`);
  const [dev] = await queryRows<{ id: number }>(
    t.ctx.db,
    sql`INSERT INTO checkin_devices (organiser_id, name, token_hash, token_last4, created_at) VALUES (1, 'd', ${'h' + ticketId}, 'abcd', now()) RETURNING id`,
  );
  const [scan] = await queryRows<{ id: number }>(
    t.ctx.db,
    sql`INSERT INTO checkin_scans (list_id, device_id, ticket_id, direction, result, offline, scanned_at, received_at)
        VALUES (${list!.id}, ${dev!.id}, ${ticketId}, 'entry', 'valid', false, now(), now()) RETURNING id`,
  );
  await t.ctx.db.execute(sql`INSERT INTO checkin_entries (list_id, ticket_id, first_scan_id, first_scanned_at, first_device_id, change_xid)
                             VALUES (${list!.id}, ${ticketId}, ${scan!.id}, now(), ${dev!.id}, 0)`);
}
