import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { buildOrderView } from '../../src/modules/orders/orders.view.js';
import { NAMES_MAX_AGE_MS } from '../../src/modules/orders/orders.labels.js';
import { bearer, buildTestApp, DEMO, tokenFor, type TestApp } from '../helpers.js';
import { createOrder, demoSession, itemsOf, orderUrl, type DemoSession } from './cart-helpers.js';

// The order view takes names from a per-session label cache (orders.labels.ts) instead of joining the
// catalogue on every read. These tests hold the view to what the joins gave: the right names, also
// for a rate made after the cache was filled, in the requested language with the event's default as
// fallback, and a rename within NAMES_MAX_AGE_MS.

let t: TestApp;
let token: string;
let s0: DemoSession;

beforeAll(async () => {
  t = await buildTestApp();
  token = await tokenFor(t.app, DEMO.d.slug, DEMO.d.key);
  s0 = await demoSession(t, 0);
}, 180_000);
afterAll(() => t.close());

/** The view's labels as the catalogue holds them, read with joins (what order_view_json did). */
async function joinedLabels(orderToken: string, lang: string) {
  return queryRows<{ item_id: number; event_name: string; rate_name: string; sector_name: string; row: string | null; number: string | null; start: Date }>(
    t.ctx.db,
    sql`SELECT oi.id::int AS item_id, COALESCE(et.name, etd.name) AS event_name, COALESCE(r.names ->> ${lang}, r.name) AS rate_name,
               sec.name AS sector_name, st.row, st.number, se.start_datetime AS start
        FROM orders o JOIN order_items oi ON oi.order_id = o.id
        JOIN session_seats ss ON ss.id = oi.session_seat_id LEFT JOIN seats st ON st.id = ss.seat_id
        JOIN sectors sec ON sec.id = oi.sector_id JOIN rates r ON r.id = oi.rate_id JOIN sessions se ON se.id = oi.session_id
        JOIN events e ON e.id = oi.event_id
        LEFT JOIN event_translations et ON et.event_id = e.id AND et.lang = ${lang}
        LEFT JOIN event_translations etd ON etd.event_id = e.id AND etd.lang = e.default_lang
        WHERE o.order_token = ${orderToken} ORDER BY oi.id`,
  );
}

describe('order view labels', () => {
  it('match the catalogue read with joins, in each language, for seats and zone places', async () => {
    const order = await createOrder(t.app, token, DEMO.d.slug, { session_seat_id: s0.seats[0]!.id, rate_id: s0.rates.general });
    const zone = await t.app.inject({
      method: 'POST',
      url: orderUrl(DEMO.d.slug, order.order_token, '/items/sector'),
      headers: bearer(token),
      payload: { sector_id: s0.zone.sectorId, quantity: 1, rate_id: s0.rates.reduced },
    });
    expect(zone.statusCode).toBe(200);
    const [orderRow] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id::int FROM orders WHERE order_token = ${order.order_token}`);
    for (const lang of ['es', 'en', 'xx']) {
      const view = await buildOrderView(t.ctx, orderRow!.id, lang);
      const expected = await joinedLabels(order.order_token, lang);
      const items = itemsOf(view);
      expect(items.map((i) => i.id)).toEqual(expected.map((e) => e.item_id));
      for (const [i, e] of items.map((item, k) => [item, expected[k]!] as const)) {
        expect(i.rate_name).toBe(e.rate_name);
        expect(i.sector_name).toBe(e.sector_name);
        expect(i.row).toBe(e.row);
        expect(i.number).toBe(e.number);
      }
      expect(view.events[0]!.name).toBe(expected[0]!.event_name);
      expect(new Date(view.events[0]!.sessions[0]!.start_datetime).getTime()).toBe(new Date(expected[0]!.start).getTime());
      // The zone place shows no seat; the seat shows its inventory id.
      expect(items.map((i) => i.session_seat_id === null)).toEqual(expected.map((e) => e.row === null));
    }
  });

  it('a rate created after the labels were cached is named at once', async () => {
    const order = await createOrder(t.app, token, DEMO.d.slug, { session_seat_id: s0.seats[1]!.id, rate_id: s0.rates.general });
    const [rate] = await queryRows<{ id: number }>(
      t.ctx.db,
      sql`INSERT INTO rates (session_id, name, names, price) VALUES (${s0.sessionId}, 'Late rate', '{"en": "Late rate EN"}', 1000) RETURNING id`,
    );
    const res = await t.app.inject({
      method: 'PUT',
      url: orderUrl(DEMO.d.slug, order.order_token, '/items/change-rate'),
      headers: bearer(token),
      payload: { item_ids: [itemsOf(order)[0]!.id], rate_id: rate!.id },
    });
    expect(res.statusCode).toBe(200);
    expect(itemsOf(res.json().data)[0]!.rate_name).toBe('Late rate EN');
  });

  it('an event rename shows once the names are older than NAMES_MAX_AGE_MS, not before', async () => {
    const order = await createOrder(t.app, token, DEMO.d.slug, { session_seat_id: s0.seats[2]!.id, rate_id: s0.rates.general });
    const [orderRow] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id::int FROM orders WHERE order_token = ${order.order_token}`);
    const before = (await buildOrderView(t.ctx, orderRow!.id, 'en')).events[0]!.name;
    await t.ctx.db.execute(sql`UPDATE event_translations SET name = name || ' (renamed)' WHERE event_id = ${s0.eventId}`);
    expect((await buildOrderView(t.ctx, orderRow!.id, 'en')).events[0]!.name).toBe(before);
    const realNow = Date.now;
    Date.now = () => realNow() + NAMES_MAX_AGE_MS + 1;
    try {
      expect((await buildOrderView(t.ctx, orderRow!.id, 'en')).events[0]!.name).toBe(`${before} (renamed)`);
    } finally {
      Date.now = realNow;
    }
  });
});
