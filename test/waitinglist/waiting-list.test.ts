import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { processEmailQueue } from '../../src/modules/tickets/email-queue.service.js';
import { offerFreedSeats } from '../../src/modules/waitinglist/waitinglist.service.js';
import { account, api, PASSWORD } from '../admin/admin-helpers.js';
import { DashboardClient } from '../admin/dashboard-client.js';
import { buyer, confirmUrl } from '../checkout/fixtures.js';
import { headerProblem, SmtpPeer } from '../smtp-peer.js';
import { bearer, DEMO, serverTokenFor, tokenFor, type TestApp } from '../helpers.js';
import { appWithStrictMailServer, type AppWithMailServer } from '../tickets/mail-fixtures.js';
import { joinUrl, listEntries, liveHolds, portalJoinUrl, sellOut, type SoldOut } from './fixtures.js';

// D69 waiting list: the join rules and every refusal, then the offer flow with a real (strict) SMTP
// peer: a hold that expires frees a seat, the head of the list gets it held with one e-mail, an
// offer not taken passes to the next, taking an offer completes a purchase; the organiser's list
// and the sales overview's figures.

let mail: AppWithMailServer;
let t: TestApp;
let peer: SmtpPeer;
let widgetC: string;
let serverB: string;
let admin: ReturnType<typeof api>;
let soldOut: SoldOut;
let sessionId: number;
const MINUTE = 60_000;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  ({ t, peer } = mail = await appWithStrictMailServer());
  widgetC = await tokenFor(t.app, DEMO.c.slug, DEMO.c.key, 'buyer-1');
  serverB = await serverTokenFor(t.app, DEMO.b.slug);
  admin = api(t.app, (await account(t.ctx, 'root@taquilla.test')).token);
  // Session 0 sold out: two one-seat carts of demo-b, 10 minutes left each.
  soldOut = await sellOut(t.ctx, { channel: DEMO.b.slug, sessionIndex: 0, carts: 2, ttlMs: 10 * MINUTE });
  sessionId = soldOut.sessionId;
}, 180_000);
afterAll(() => mail?.close());

const join = (payload: object, slug: string = DEMO.c.slug, session = sessionId, token = widgetC) =>
  t.app.inject({ method: 'POST', url: joinUrl(slug, session), headers: bearer(token), payload });
const portalJoin = (slug: string, payload: object, session = sessionId) => t.app.inject({ method: 'POST', url: portalJoinUrl(slug, session), payload });
const entry = (token: string, slug = DEMO.b.slug) => t.app.inject({ method: 'GET', url: `/api/portal/${slug}/es/waiting-list/${token}` });
const mailsTo = (email: string) => peer.received.filter((m) => m.to.includes(email));

async function sectors(session: number) {
  return queryRows<{ sector_id: number; numbered: boolean }>(
    t.ctx.db,
    sql`SELECT sector_id, bool_or(seat_id IS NOT NULL) AS numbered FROM session_seats WHERE session_id = ${session} GROUP BY sector_id ORDER BY sector_id`,
  );
}

describe('joining (D69)', () => {
  it('409 seats_available while the session has the seats: buy them instead', async () => {
    const other = (await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM sessions WHERE id <> ${sessionId} ORDER BY start_datetime, id LIMIT 1`))[0]!.id;
    const res = await join({ email: 'early@example.com', quantity: 2 }, DEMO.c.slug, other);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ success: false, code: 'seats_available' });
    expect(res.json().data.available).toBeGreaterThanOrEqual(2);
  });

  it('a sold-out session takes entries in order: 201 with the token, the position, no offer yet', async () => {
    const first = await join({ email: 'first@example.com', quantity: 1, name: 'Primera' });
    expect(first.statusCode).toBe(201);
    const body = first.json();
    expect(body).toMatchObject({ status: 201, success: true, data: { status: 'waiting', position: 1, session_id: sessionId, quantity: 1, sector_id: null, rate_id: null, offer: null } });
    expect(body.data.token).toMatch(/^wl_[A-Za-z0-9]{32}$/);
    tokens.first = body.data.token;
    const second = await join({ email: 'second@example.com', quantity: 1 });
    expect(second.json().data.position).toBe(2);
    // The buyer reads their position with the token (B2B and portal).
    const read = await t.app.inject({ method: 'GET', url: `/api/sales-channel/v1/${DEMO.c.slug}/es/waiting-list/${second.json().data.token}`, headers: bearer(widgetC) });
    expect(read.statusCode).toBe(200);
    expect(read.json().data).toMatchObject({ status: 'waiting', position: 2 });
    expect(read.json().data.token).toBeUndefined();
  });

  it('409 already_on_waiting_list for an address that already waits (any case)', async () => {
    const res = await join({ email: 'FIRST@example.com', quantity: 2 });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('already_on_waiting_list');
  });

  it('the portal twin joins for the storefront models (A, B); 403 for a widget model', async () => {
    const res = await portalJoin(DEMO.b.slug, { email: 'third@example.com', quantity: 1 });
    expect(res.statusCode).toBe(201);
    expect(res.json().data.position).toBe(3);
    const read = await entry(res.json().data.token);
    expect(read.json().data).toMatchObject({ status: 'waiting', position: 3 });
    expect((await portalJoin(DEMO.c.slug, { email: 'x@example.com', quantity: 1 })).json().code).toBe('forbidden_for_integration_mode');
    // B2B join is a cart operation: models A and B have no B2B carts.
    const tokenA = await tokenFor(t.app, DEMO.a.slug, DEMO.a.key);
    expect((await join({ email: 'y@example.com', quantity: 1 }, DEMO.a.slug, sessionId, tokenA)).json().code).toBe('forbidden_for_integration_mode');
  });

  it('422 for a sector or rate that is not the session\'s, a quantity past the caps, a strict body', async () => {
    const zone = (await sectors(sessionId)).find((s) => !s.numbered)!;
    const expectField = async (payload: object, field: string) => {
      const res = await join({ email: 'z@example.com', quantity: 1, ...payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(422);
      expect(res.json().code).toBe('validation_failed');
      expect(Object.keys(res.json().errors)).toContain(field);
    };
    await expectField({ sector_id: 999_999 }, 'sector_id');
    // An unnumbered zone is a scope like any sector (D69): this one still has room.
    expect((await join({ email: 'z@example.com', quantity: 1, sector_id: zone.sector_id })).json().code).toBe('seats_available');
    await expectField({ rate_id: 999_999 }, 'rate_id');
    await expectField({ quantity: t.config.maxItemsPerOrder + 1 }, 'quantity');
    await expectField({ quantity: '2' }, 'quantity');
    await expectField({ seats: 2 }, 'seats');
    await expectField({ email: 'not-an-address' }, 'email');
    await t.ctx.db.execute(sql`UPDATE sessions SET max_tickets_per_buyer = 2 WHERE id = ${sessionId}`);
    await expectField({ quantity: 3 }, 'quantity');
    await t.ctx.db.execute(sql`UPDATE sessions SET max_tickets_per_buyer = NULL WHERE id = ${sessionId}`);
  });

  it('404 for an unknown session and an unknown or foreign entry token; 409 not_on_sale outside the sale', async () => {
    const notFound = { status: 404, success: false, code: 'not_found' };
    expect((await join({ email: 'z@example.com', quantity: 1 }, DEMO.c.slug, 999_999)).json()).toMatchObject(notFound);
    expect((await entry(`wl_${'x'.repeat(32)}`)).json()).toMatchObject(notFound);
    const mine = await join({ email: 'fourth@example.com', quantity: 1 });
    // demo-c's entry is not demo-b's.
    expect((await entry(mine.json().data.token, DEMO.b.slug)).json()).toMatchObject(notFound);
    await t.ctx.db.execute(sql`UPDATE sessions SET sales_end_at = ${new Date(t.clock.now().getTime() - MINUTE)} WHERE id = ${sessionId}`);
    const closed = await join({ email: 'late@example.com', quantity: 1 });
    await t.ctx.db.execute(sql`UPDATE sessions SET sales_end_at = NULL WHERE id = ${sessionId}`);
    expect(closed.statusCode).toBe(409);
    expect(closed.json()).toMatchObject({ code: 'not_on_sale', data: { session_id: sessionId } });
  });
});

describe('offers (D69)', () => {
  let firstToken: string;

  it('nothing is offered while no seat is free', async () => {
    expect(await offerFreedSeats(t.ctx)).toBe(0);
  });

  it('an expired hold frees a seat: the head gets it held, and exactly one e-mail with the checkout link', async () => {
    // Re-read the head's token through the admin list is impossible (only hashes are kept): join anew.
    const rows = await queryRows<{ email: string }>(t.ctx.db, sql`SELECT email FROM waiting_list_entries WHERE session_id = ${sessionId} ORDER BY id`);
    expect(rows.map((r) => r.email)).toEqual(['first@example.com', 'second@example.com', 'third@example.com', 'fourth@example.com']);
    t.clock.advance(11 * MINUTE); // both demo-b carts run out (D15)
    // The job of the scheduler, twice: the second pass finds the entry already offered.
    await t.app.scheduler.runOnce('waiting-list');
    await t.app.scheduler.runOnce('waiting-list');
    const offered = await queryRows<{ email: string; status: string; offer_order_id: string }>(
      t.ctx.db,
      sql`SELECT email, status, offer_order_id FROM waiting_list_entries WHERE session_id = ${sessionId} AND status = 'offered' ORDER BY id`,
    );
    // Two seats came free: the first two entries (one seat each) get one each, in list order.
    expect(offered.map((r) => r.email)).toEqual(['first@example.com', 'second@example.com']);
    const holds = await liveHolds(t.ctx, sessionId);
    expect(holds).toHaveLength(2);
    expect(new Set(holds.map((h) => h.order))).toEqual(new Set(offered.map((r) => Number(r.offer_order_id))));
    await processEmailQueue(t.ctx);
    await processEmailQueue(t.ctx);
    expect(mailsTo('first@example.com')).toHaveLength(1);
    expect(mailsTo('second@example.com')).toHaveLength(1);
    expect(mailsTo('third@example.com')).toHaveLength(0);
    const mail = mailsTo('first@example.com')[0]!;
    expect(headerProblem(mail.raw)).toBeNull();
    const [order] = await queryRows<{ order_token: string; expires_at: Date }>(t.ctx.db, sql`SELECT order_token, expires_at FROM orders WHERE id = ${offered[0]!.offer_order_id}`);
    // The offer holds for WAITINGLIST_OFFER_MINUTES (30 by default).
    expect(new Date(order!.expires_at).getTime()).toBe(t.clock.now().getTime() + 30 * MINUTE);
    const link = `http://taquilla.test/${DEMO.c.slug}/es/checkout?order_token=${order!.order_token}`;
    expect(mail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=')).toContain(link);
    // "hasta el jueves, …" (the date comes with its weekday), not "hasta las jueves".
    expect(mail.raw.replace(/=\r?\n/g, '')).toMatch(/reservado 1 entrada \([^)]*\) hasta el (lunes|martes|mi=C3=A9rcoles|jueves|viernes|s=C3=A1bado|domingo), /);
    // The portal's checkout page of that order opens.
    const page = await t.app.inject({ method: 'GET', url: link.replace('http://taquilla.test', '') });
    expect(page.statusCode).toBe(200);
  });

  it("the buyer sees the offer with the entry token; the organiser's list shows it", async () => {
    const mine = await t.app.inject({ method: 'GET', url: `/api/sales-channel/v1/${DEMO.c.slug}/es/waiting-list/${tokens.first}`, headers: bearer(widgetC) });
    expect(mine.json().data).toMatchObject({ status: 'offered', position: null, offer: { checkout_url: expect.stringContaining(`/${DEMO.c.slug}/es/checkout?order_token=`) } });
    const order = await t.app.inject({ method: 'GET', url: `/api/portal/${DEMO.c.slug}/es/orders/${mine.json().data.offer.order_token}` });
    expect(order.json().data).toMatchObject({ status: 'pending', expires_at: mine.json().data.offer.expires_at });
    const res = await join({ email: 'fifth@example.com', quantity: 1 });
    expect(res.json().data.position).toBe(3); // third and fourth wait ahead
    firstToken = res.json().data.token;
    const list = await admin.get(`/sessions/${sessionId}/waiting-list`);
    expect(list.status).toBe(200);
    expect(list.body.data.figures).toMatchObject({ waiting: 3, offered: 2, converted: 0, lapsed: 0, offers: 2, conversion_rate: null });
    expect(list.body.data.entries.map((e: { email: string; status: string; position: number | null }) => [e.email, e.status, e.position])).toEqual([
      ['first@example.com', 'offered', null],
      ['second@example.com', 'offered', null],
      ['third@example.com', 'waiting', 1],
      ['fourth@example.com', 'waiting', 2],
      ['fifth@example.com', 'waiting', 3],
    ]);
  });

  it('an offer not taken passes to the next in the list; one taken completes a purchase and counts as converted', async () => {
    // second@ (demo-c) takes nothing; first@ (demo-c) too: after 30 minutes both lapse and the
    // next two entries get the seats.
    t.clock.advance(31 * MINUTE);
    await offerFreedSeats(t.ctx);
    const state = () => listEntries(t.ctx, sessionId);
    expect((await state()).map((r) => [r.email, r.status])).toEqual([
      ['first@example.com', 'lapsed'],
      ['second@example.com', 'lapsed'],
      ['third@example.com', 'offered'],
      ['fourth@example.com', 'offered'],
      ['fifth@example.com', 'waiting'],
    ]);
    const fifth = await t.app.inject({ method: 'GET', url: `/api/sales-channel/v1/${DEMO.c.slug}/es/waiting-list/${firstToken}`, headers: bearer(widgetC) });
    expect(fifth.json().data).toMatchObject({ status: 'waiting', position: 1 });
    await processEmailQueue(t.ctx);
    expect(mailsTo('third@example.com')).toHaveLength(1);
    expect(mailsTo('first@example.com')).toHaveLength(1);
    // third@ joined on demo-b's portal (model B): its channel confirms the offer's order.
    const third = (await state()).find((r) => r.email === 'third@example.com')!;
    const [order] = await queryRows<{ order_token: string; total_amount: number }>(t.ctx.db, sql`SELECT order_token, total_amount FROM orders WHERE id = ${third.offer_order_id}`);
    const confirm = await t.app.inject({
      method: 'POST',
      url: confirmUrl(DEMO.b.slug, order!.order_token),
      headers: bearer(serverB),
      payload: { ...buyer, email: 'third@example.com', amount: order!.total_amount / 100 },
    });
    expect(confirm.statusCode).toBe(200);
    const list = await admin.get(`/sessions/${sessionId}/waiting-list`);
    expect(list.body.data.figures).toMatchObject({ waiting: 1, offered: 1, converted: 1, converted_tickets: 1, lapsed: 2, offers: 4, conversion_rate: 0.333 });
    await offerFreedSeats(t.ctx);
    expect((await state()).find((r) => r.email === 'third@example.com')!.status).toBe('converted');
  });

  it("the sales overview (D66) carries the event's waiting-list figures", async () => {
    const [s] = await queryRows<{ event_id: number }>(t.ctx.db, sql`SELECT event_id FROM sessions WHERE id = ${sessionId}`);
    const res = await admin.get(`/events/${s!.event_id}/sales`);
    expect(res.status).toBe(200);
    expect(res.body.data.waiting_list).toMatchObject({ waiting: 1, offered: 1, converted: 1, lapsed: 2, sessions: [{ session_id: sessionId, converted: 1 }] });
  });

  it("the dashboard shows the figures on the sales page and the session's list on its own page", async () => {
    const [s] = await queryRows<{ event_id: number }>(t.ctx.db, sql`SELECT event_id FROM sessions WHERE id = ${sessionId}`);
    await account(t.ctx, 'clerk@taquilla.test');
    const client = new DashboardClient(t.app);
    expect((await client.login('clerk@taquilla.test', PASSWORD)).statusCode).toBe(303);
    const overview = await client.get(`/admin/events/${s!.event_id}/sales`);
    expect(overview.statusCode).toBe(200);
    expect(overview.body).toContain('Waiting list');
    expect(overview.body).toContain(`/admin/sessions/${sessionId}/waiting-list`);
    const page = await client.get(`/admin/sessions/${sessionId}/waiting-list`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('fifth@example.com');
    expect(page.body).toContain('offer not taken');
    expect(page.body).toContain('33 %');
  });
});
