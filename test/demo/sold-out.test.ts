import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { queryRows } from '../../src/db/client.js';
import { refundOrderAs } from '../../src/modules/checkout/order-actions.service.js';
import { CLI_ACTOR } from '../../src/platform/actor.js';
import { buildTestApp, DEMO, type TestApp } from '../helpers.js';
import { portalJoinUrl } from '../waitinglist/fixtures.js';

// Issue 31 "done when": on a fresh start the demo has a sold-out session (DEMO_SOLD_OUT, on by
// default in development) whose waiting list takes an entry and offers a freed seat by e-mail.

let t: TestApp;
let session: { event_id: number; session_id: number } | undefined;

beforeAll(async () => {
  t = await buildTestApp({ env: { DEMO_SOLD_OUT: 'true', PORTAL_RATE_LIMIT_PER_MINUTE: '1000' } });
  [session] = await queryRows<{ event_id: number; session_id: number }>(
    t.ctx.db,
    sql`SELECT s.event_id, s.id AS session_id FROM sessions s JOIN events e ON e.id = s.event_id JOIN venues v ON v.id = e.venue_id WHERE v.name = 'Sala de Cámara'`,
  );
}, 120_000);
afterAll(() => t?.close());

const soldOut = () => {
  expect(session).toBeDefined();
  return session!;
};
const outbox = () => queryRows<{ kind: string; recipient: string; status: string }>(t.ctx.db, sql`SELECT kind, recipient, status FROM email_outbox ORDER BY id`);

describe('the demo sold-out session', () => {
  it('is on by default in development only', () => {
    expect(loadConfig({ APP_ENV: 'development' }).demoSoldOut).toBe(true);
    expect(loadConfig({ APP_ENV: 'test' }).demoSoldOut).toBe(false);
    expect(() => loadConfig({ APP_ENV: 'development', DEMO_SOLD_OUT: 'yes' })).toThrow(/DEMO_SOLD_OUT must be true or false/);
  });

  it('is sold out at load by one reservation of the service (tickets issued, no e-mail queued); the D37 sessions are untouched', async () => {
    const session = soldOut();
    const seats = await queryRows<{ status: string; n: number }>(t.ctx.db, sql`SELECT status, count(*)::int AS n FROM session_seats WHERE session_id = ${session.session_id} GROUP BY status`);
    expect(seats).toEqual([{ status: 'sold', n: 8 }]);
    const orders = await queryRows<{ type: string; status: string; slug: string; tickets: number }>(
      t.ctx.db,
      sql`SELECT o.type, o.status, c.slug, (SELECT count(*)::int FROM tickets tk WHERE tk.order_id = o.id AND tk.status = 'valid') AS tickets
          FROM orders o JOIN sales_channels c ON c.id = o.channel_id`,
    );
    expect(orders).toEqual([{ type: 'reservation', status: 'completed', slug: 'demo-d', tickets: 8 }]);
    expect(await outbox()).toEqual([]);
    // the other sessions keep every seat free
    const others = await queryRows<{ n: number }>(t.ctx.db, sql`SELECT count(*)::int AS n FROM session_seats WHERE session_id <> ${session.session_id} AND status <> 'available'`);
    expect(others[0]!.n).toBe(0);
  });

  it('its portal page offers the waiting list; an entry is taken; a refunded seat is offered to it by e-mail', async () => {
    const session = soldOut();
    for (const lang of ['es', 'en']) {
      const page = await t.app.inject({ url: `/${DEMO.a.slug}/${lang}/events/${session.event_id}/sessions/${session.session_id}` });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('id="waitlist-form"');
    }
    // a buying session's page does not
    const [other] = await queryRows<{ event_id: number; id: number }>(t.ctx.db, sql`SELECT event_id, id FROM sessions WHERE id <> ${session.session_id} ORDER BY id LIMIT 1`);
    expect((await t.app.inject({ url: `/${DEMO.a.slug}/es/events/${other!.event_id}/sessions/${other!.id}` })).body).not.toContain('id="waitlist-form"');

    const joined = await t.app.inject({ method: 'POST', url: portalJoinUrl(DEMO.a.slug, session.session_id), payload: { email: 'ana@example.com', quantity: 1 } });
    expect(joined.statusCode).toBe(201);
    expect(joined.json().data).toMatchObject({ status: 'waiting', position: 1 });

    const [order] = await queryRows<{ reference: string; ticket: string }>(
      t.ctx.db,
      sql`SELECT o.reference, min(tk.id)::text AS ticket FROM orders o JOIN tickets tk ON tk.order_id = o.id WHERE o.type = 'reservation' GROUP BY o.reference`,
    );
    await refundOrderAs(t.ctx, CLI_ACTOR, order!.reference, 'demo: free a seat', { ticketIds: [Number(order!.ticket)] });
    await t.app.scheduler.runOnce('waiting-list');
    const entries = await queryRows<{ status: string }>(t.ctx.db, sql`SELECT status FROM waiting_list_entries WHERE session_id = ${session.session_id}`);
    expect(entries).toEqual([{ status: 'offered' }]);
    expect((await outbox()).filter((m) => m.kind === 'waitinglist_offer')).toEqual([{ kind: 'waitinglist_offer', recipient: 'ana@example.com', status: 'queued' }]);
  });
});
