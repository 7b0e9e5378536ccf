import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it as base } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { bearer, buildTestApp, DEMO, serverTokenFor, type TestApp } from '../helpers.js';
import { itemsOf, newDemoSession, ordersUrl, type OrderJson } from './cart-helpers.js';

// Best available keeps a view of each session's taken seats between requests
// (src/modules/orders/best-available.taken.ts). Changes the instance does not hear of (another
// instance's, written here straight into the database) must not cost a seat twice, a 409 while
// seats are free, or a best seat freed here; an expired hold is free at once. Each test sells in a
// session of its own (the view is kept per session), from the clock's time when it starts.

let t: TestApp;
let server: string;
let anfiteatro: number;

beforeAll(async () => {
  // A view that lasts a minute of real time: only what the rules end it with ends it here.
  t = await buildTestApp({ env: { MAX_LIVE_ORDERS_PER_BUYER: '50', BEST_AVAILABLE_VIEW_MS: '60000' } });
  server = await serverTokenFor(t.app, DEMO.d.slug);
  const [row] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM sectors WHERE name = 'Anfiteatro'`);
  anfiteatro = row!.id;
}, 180_000);
afterAll(() => t.close());

type Res = { status: number; body: { code?: string; data: OrderJson } };

/** Best available in the Anfiteatro of a session of the test's own, and that sector's seats. */
const it = base.extend<{ session: { best(quantity: number): Promise<Res>; anfiteatroSeats(): Promise<{ id: number; row: string; number: string; status: string }[]> } }>({
  // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from its first parameter's pattern
  session: async ({}, use) => {
    const { sessionId } = await newDemoSession(t);
    await use({
      async best(quantity) {
        const res = await t.app.inject({
          method: 'POST',
          url: `${ordersUrl(DEMO.d.slug)}/best-available`,
          headers: bearer(server),
          payload: { session_id: sessionId, quantity, sector_id: anfiteatro },
        });
        return { status: res.statusCode, body: res.json() };
      },
      anfiteatroSeats: () =>
        queryRows<{ id: number; row: string; number: string; status: string }>(
          t.ctx.db,
          sql`SELECT ss.id, st.row, st.number, ss.status FROM session_seats ss JOIN seats st ON st.id = ss.seat_id
              WHERE ss.session_id = ${sessionId} AND ss.sector_id = ${anfiteatro} ORDER BY st.row, st.number::int`,
        ),
    });
  },
});
const seatIds = (order: OrderJson) => itemsOf(order).map((i) => Number(i.session_seat_id)).sort((a, b) => a - b);
/** What another instance would do: seats sold or freed in the database, no notice to this one. */
const setStatus = (ids: number[], status: 'sold' | 'available') =>
  t.ctx.db.execute(sql`UPDATE session_seats SET status = ${status}, order_id = NULL, hold_expires_at = NULL WHERE id = ANY(${`{${ids.join(',')}}`}::int[])`);

describe('best available from the kept view of taken seats', () => {
  it('seats sold elsewhere after the view was read are passed over: no 409, no seat held twice', async ({ session: { best, anfiteatroSeats } }) => {
    const first = await best(2);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    // The rest of the front row is sold by "another instance".
    const seats = await anfiteatroSeats();
    const frontRow = seats.filter((s) => s.row === seats[0]!.row && s.status === 'available').map((s) => s.id);
    await setStatus(frontRow, 'sold');
    const next = await best(2);
    expect(next.status, JSON.stringify(next.body)).toBe(201);
    for (const id of seatIds(next.body.data)) expect(frontRow).not.toContain(id);
    const held = await queryRows<{ id: number; status: string }>(t.ctx.db, sql`SELECT id, status FROM session_seats WHERE id = ANY(${`{${seatIds(next.body.data).join(',')}}`}::int[])`);
    expect(held.map((h) => h.status)).toEqual(['held', 'held']);
  });

  it('seats freed elsewhere while the view shows the sector full are read before a 409', async ({ session: { best, anfiteatroSeats } }) => {
    const seats = await anfiteatroSeats();
    const free = seats.filter((s) => s.status === 'available');
    expect(free).toHaveLength(seats.length);
    // Everything but one pair is sold; best available takes the pair and keeps a full view.
    await setStatus(free.slice(2).map((s) => s.id), 'sold');
    const last = await best(2);
    expect(last.status, JSON.stringify(last.body)).toBe(201);
    expect(await best(1)).toMatchObject({ status: 409, body: { code: 'no_seats_together' } });
    // "Another instance" gives two seats back.
    const back = free.slice(10, 12).map((s) => s.id);
    await setStatus(back, 'available');
    const again = await best(2);
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    expect(seatIds(again.body.data)).toEqual(back.sort((a, b) => a - b));
  });

  /** Frees a pair in the first row and a pair in the last (the sector is sold out before): the best and a worse choice. */
  async function bestAndWorsePair(anfiteatroSeats: () => Promise<{ id: number; row: string }[]>): Promise<{ bestPair: number[]; worsePair: number[] }> {
    const seats = await anfiteatroSeats();
    await setStatus(seats.map((s) => s.id), 'sold');
    const rows = [...new Set(seats.map((s) => s.row))];
    const pair = (row: string) => seats.filter((s) => s.row === row).slice(4, 6).map((s) => s.id);
    const [bestPair, worsePair] = [pair(rows[0]!), pair(rows.at(-1)!)];
    await setStatus([...bestPair, ...worsePair], 'available');
    return { bestPair, worsePair };
  }

  it('a cart deleted here gives its seats back to the next request at once', async ({ session: { best, anfiteatroSeats } }) => {
    const { bestPair } = await bestAndWorsePair(anfiteatroSeats);
    const held = await best(2);
    expect(held.status, JSON.stringify(held.body)).toBe(201);
    expect(seatIds(held.body.data)).toEqual(bestPair);
    const del = await t.app.inject({ method: 'DELETE', url: `${ordersUrl(DEMO.d.slug)}/${held.body.data.order_token}`, headers: bearer(server) });
    expect(del.statusCode, del.body).toBeLessThan(300);
    const again = await best(2);
    expect(again.status, JSON.stringify(again.body)).toBe(201);
    expect(seatIds(again.body.data)).toEqual(bestPair);
  });

  it("an expired hold is free at once (a clock past the view's life ends it)", async ({ session: { best, anfiteatroSeats } }) => {
    const { bestPair } = await bestAndWorsePair(anfiteatroSeats);
    const held = await best(2);
    expect(seatIds(held.body.data)).toEqual(bestPair);
    const [hold] = await queryRows<{ expires_at: string }>(t.ctx.db, sql`SELECT max(hold_expires_at) AS expires_at FROM session_seats WHERE id = ANY(${`{${bestPair.join(',')}}`}::int[])`);
    t.clock.set(new Date(new Date(hold!.expires_at).getTime() + 1000));
    const after = await best(2);
    expect(after.status, JSON.stringify(after.body)).toBe(201);
    expect(seatIds(after.body.data)).toEqual(bestPair);
  });
});
