import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { processEmailQueue } from '../../src/modules/tickets/email-queue.service.js';
import { offerFreedSeats } from '../../src/modules/waitinglist/waitinglist.service.js';
import { account, api, apiAs, PASSWORD } from '../admin/admin-helpers.js';
import { DashboardClient } from '../admin/dashboard-client.js';
import { buyer, confirmUrl } from '../checkout/fixtures.js';
import { newDemoSession } from '../orders/cart-helpers.js';
import { headerProblem, SmtpPeer } from '../smtp-peer.js';
import { bearer, DEMO, serverTokenFor, tokenFor, type TestApp } from '../helpers.js';
import { appWithStrictMailServer, type AppWithMailServer } from '../tickets/mail-fixtures.js';
import { joinUrl, listEntries, liveHolds, ownListTest, portalJoinUrl, sellOut } from './fixtures.js';

// D69 waiting list: the join rules and every refusal, then the offer flow with a real (strict) SMTP
// peer: a hold that expires frees a seat, the head of the list gets it held with one e-mail, an
// offer not taken passes to the next, taking an offer completes a purchase; the organiser's list
// and the sales overview's figures. Each test has a sold-out session of its own (its own event) and
// plays the steps before the one it checks itself, from the clock's time when it starts.

let mail: AppWithMailServer;
let t: TestApp;
let peer: SmtpPeer;
let widgetC: string;
let serverB: string;
let admin: ReturnType<typeof api>;
const MINUTE = 60_000;

beforeAll(async () => {
  ({ t, peer } = mail = await appWithStrictMailServer());
  widgetC = await tokenFor(t.app, DEMO.c.slug, DEMO.c.key, 'buyer-1');
  serverB = await serverTokenFor(t.app, DEMO.b.slug);
  admin = await apiAs(t, 'root@taquilla.test');
}, 180_000);
afterAll(() => mail?.close());

interface List {
  sessionId: number;
  eventId: number;
  /** A buyer's address on this list: `name`.s<session>@example.com, so that the mail server's messages of the file's other tests are not counted. */
  email(name: string): string;
}

/** A sold-out session of the test's own: two one-seat carts of demo-b with 10 minutes left each, every other numbered seat blocked. */
const it = ownListTest(
  () => t,
  async (app, sessionId): Promise<Omit<List, 'sessionId'>> => {
    await sellOut(app.ctx, { channel: DEMO.b.slug, sessionId, carts: 2, ttlMs: 10 * MINUTE });
    const [s] = await queryRows<{ event_id: number }>(app.ctx.db, sql`SELECT event_id FROM sessions WHERE id = ${sessionId}`);
    return { eventId: s!.event_id, email: (name) => `${name}.s${sessionId}@example.com` };
  },
);

const join = (session: number, payload: object, slug: string = DEMO.c.slug, token = widgetC) =>
  t.app.inject({ method: 'POST', url: joinUrl(slug, session), headers: bearer(token), payload });
const portalJoin = (session: number, slug: string, payload: object) => t.app.inject({ method: 'POST', url: portalJoinUrl(slug, session), payload });
const entry = (token: string, slug = DEMO.b.slug) => t.app.inject({ method: 'GET', url: `/api/portal/${slug}/es/waiting-list/${token}` });
const readEntry = (token: string) => t.app.inject({ method: 'GET', url: `/api/sales-channel/v1/${DEMO.c.slug}/es/waiting-list/${token}`, headers: bearer(widgetC) });
const mailsTo = (email: string) => peer.received.filter((m) => m.to.includes(email));

async function sectors(session: number) {
  return queryRows<{ sector_id: number; numbered: boolean }>(
    t.ctx.db,
    sql`SELECT sector_id, bool_or(seat_id IS NOT NULL) AS numbered FROM session_seats WHERE session_id = ${session} GROUP BY sector_id ORDER BY sector_id`,
  );
}

/** Joins `name` (one seat) on demo-c's widget, or on demo-b's portal; 201 with the entry's token. */
async function joined(list: List, name: string, on: 'widget' | 'portal' = 'widget'): Promise<string> {
  const payload = { email: list.email(name), quantity: 1 };
  const res = on === 'widget' ? await join(list.sessionId, payload) : await portalJoin(list.sessionId, DEMO.b.slug, payload);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data.token;
}

type Tokens = Record<string, string>;

/** The offer tests' list: first, second and fourth join on demo-c's widget, third on demo-b's portal (model B). */
async function joinFour(list: List): Promise<Tokens> {
  const tokens: Tokens = {};
  for (const name of ['first', 'second', 'third', 'fourth']) tokens[name] = await joined(list, name, name === 'third' ? 'portal' : 'widget');
  return tokens;
}

/** joinFour, then both demo-b carts run out (D15), a pass offers their two seats to first and second, and the offers' e-mails go out. */
async function firstOffers(list: List): Promise<Tokens> {
  const tokens = await joinFour(list);
  t.clock.advance(11 * MINUTE);
  await offerFreedSeats(t.ctx);
  await processEmailQueue(t.ctx);
  return tokens;
}

/** firstOffers and fifth joins; then nobody takes the offers: after 30 minutes they lapse and a pass gives the seats to third and fourth. */
async function offersPassedOn(list: List): Promise<Tokens> {
  const tokens = await firstOffers(list);
  tokens.fifth = await joined(list, 'fifth');
  t.clock.advance(31 * MINUTE);
  await offerFreedSeats(t.ctx);
  return tokens;
}

/** third@ joined on demo-b's portal (model B): its channel confirms the offer's order. */
async function thirdTakesTheOffer(list: List) {
  const third = (await listEntries(t.ctx, list.sessionId)).find((r) => r.email === list.email('third'))!;
  const [order] = await queryRows<{ order_token: string; total_amount: number }>(t.ctx.db, sql`SELECT order_token, total_amount FROM orders WHERE id = ${third.offer_order_id}`);
  return t.app.inject({
    method: 'POST',
    url: confirmUrl(DEMO.b.slug, order!.order_token),
    headers: bearer(serverB),
    payload: { ...buyer, email: list.email('third'), amount: order!.total_amount / 100 },
  });
}

/** offersPassedOn, third takes its offer, and the next pass counts it as converted: 1 waiting, 1 offered, 1 converted, 2 lapsed. */
async function thirdConverted(list: List) {
  await offersPassedOn(list);
  expect((await thirdTakesTheOffer(list)).statusCode).toBe(200);
  await offerFreedSeats(t.ctx);
}

describe('joining (D69)', () => {
  it('409 seats_available while the session has the seats: buy them instead', async () => {
    const { sessionId } = await newDemoSession(t);
    const res = await join(sessionId, { email: 'early@example.com', quantity: 2 });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ success: false, code: 'seats_available' });
    expect(res.json().data.available).toBeGreaterThanOrEqual(2);
  });

  it('a sold-out session takes entries in order: 201 with the token, the position, no offer yet', async ({ list }) => {
    const first = await join(list.sessionId, { email: list.email('first'), quantity: 1, name: 'Primera' });
    expect(first.statusCode).toBe(201);
    const body = first.json();
    expect(body).toMatchObject({ status: 201, success: true, data: { status: 'waiting', position: 1, session_id: list.sessionId, quantity: 1, sector_id: null, rate_id: null, offer: null } });
    expect(body.data.token).toMatch(/^wl_[A-Za-z0-9]{32}$/);
    const second = await join(list.sessionId, { email: list.email('second'), quantity: 1 });
    expect(second.json().data.position).toBe(2);
    // The buyer reads their position with the token (B2B and portal).
    const read = await readEntry(second.json().data.token);
    expect(read.statusCode).toBe(200);
    expect(read.json().data).toMatchObject({ status: 'waiting', position: 2 });
    expect(read.json().data.token).toBeUndefined();
  });

  it('409 already_on_waiting_list for an address that already waits (any case)', async ({ list }) => {
    await joined(list, 'first');
    const res = await join(list.sessionId, { email: list.email('FIRST'), quantity: 2 });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('already_on_waiting_list');
  });

  it('the portal twin joins for the storefront models (A, B); 403 for a widget model', async ({ list }) => {
    await joined(list, 'first');
    await joined(list, 'second');
    const res = await portalJoin(list.sessionId, DEMO.b.slug, { email: list.email('third'), quantity: 1 });
    expect(res.statusCode).toBe(201);
    expect(res.json().data.position).toBe(3);
    const read = await entry(res.json().data.token);
    expect(read.json().data).toMatchObject({ status: 'waiting', position: 3 });
    expect((await portalJoin(list.sessionId, DEMO.c.slug, { email: 'x@example.com', quantity: 1 })).json().code).toBe('forbidden_for_integration_mode');
    // B2B join is a cart operation: models A and B have no B2B carts.
    const tokenA = await tokenFor(t.app, DEMO.a.slug, DEMO.a.key);
    expect((await join(list.sessionId, { email: 'y@example.com', quantity: 1 }, DEMO.a.slug, tokenA)).json().code).toBe('forbidden_for_integration_mode');
  });

  it('422 for a sector or rate that is not the session\'s, a quantity past the caps, a strict body', async ({ list }) => {
    const { sessionId } = list;
    const zone = (await sectors(sessionId)).find((s) => !s.numbered)!;
    const expectField = async (payload: object, field: string) => {
      const res = await join(sessionId, { email: 'z@example.com', quantity: 1, ...payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(422);
      expect(res.json().code).toBe('validation_failed');
      expect(Object.keys(res.json().errors)).toContain(field);
    };
    await expectField({ sector_id: 999_999 }, 'sector_id');
    // An unnumbered zone is a scope like any sector (D69): this one still has room.
    expect((await join(sessionId, { email: 'z@example.com', quantity: 1, sector_id: zone.sector_id })).json().code).toBe('seats_available');
    await expectField({ rate_id: 999_999 }, 'rate_id');
    await expectField({ quantity: t.config.maxItemsPerOrder + 1 }, 'quantity');
    await expectField({ quantity: '2' }, 'quantity');
    await expectField({ seats: 2 }, 'seats');
    await expectField({ email: 'not-an-address' }, 'email');
    await t.ctx.db.execute(sql`UPDATE sessions SET max_tickets_per_buyer = 2 WHERE id = ${sessionId}`);
    await expectField({ quantity: 3 }, 'quantity');
  });

  it('404 for an unknown session and an unknown or foreign entry token; 409 not_on_sale outside the sale', async ({ list }) => {
    const { sessionId } = list;
    const notFound = { status: 404, success: false, code: 'not_found' };
    expect((await join(999_999, { email: 'z@example.com', quantity: 1 })).json()).toMatchObject(notFound);
    expect((await entry(`wl_${'x'.repeat(32)}`)).json()).toMatchObject(notFound);
    const mine = await joined(list, 'fourth');
    // demo-c's entry is not demo-b's.
    expect((await entry(mine, DEMO.b.slug)).json()).toMatchObject(notFound);
    await t.ctx.db.execute(sql`UPDATE sessions SET sales_end_at = ${new Date(t.clock.now().getTime() - MINUTE)} WHERE id = ${sessionId}`);
    const closed = await join(sessionId, { email: list.email('late'), quantity: 1 });
    expect(closed.statusCode).toBe(409);
    expect(closed.json()).toMatchObject({ code: 'not_on_sale', data: { session_id: sessionId } });
  });
});

describe('offers (D69)', () => {
  it('nothing is offered while no seat is free', async ({ list }) => {
    await joinFour(list);
    expect(await offerFreedSeats(t.ctx)).toBe(0);
    expect((await listEntries(t.ctx, list.sessionId)).map((r) => r.status)).toEqual(['waiting', 'waiting', 'waiting', 'waiting']);
  });

  it('an expired hold frees a seat: the head gets it held, and exactly one e-mail with the checkout link', async ({ list }) => {
    const { sessionId } = list;
    await joinFour(list);
    const rows = await queryRows<{ email: string }>(t.ctx.db, sql`SELECT email FROM waiting_list_entries WHERE session_id = ${sessionId} ORDER BY id`);
    expect(rows.map((r) => r.email)).toEqual(['first', 'second', 'third', 'fourth'].map(list.email));
    t.clock.advance(11 * MINUTE); // both demo-b carts run out (D15)
    // The job of the scheduler, twice: the second pass finds the entry already offered.
    await t.app.scheduler.runOnce('waiting-list');
    await t.app.scheduler.runOnce('waiting-list');
    const offered = await queryRows<{ email: string; status: string; offer_order_id: string }>(
      t.ctx.db,
      sql`SELECT email, status, offer_order_id FROM waiting_list_entries WHERE session_id = ${sessionId} AND status = 'offered' ORDER BY id`,
    );
    // Two seats came free: the first two entries (one seat each) get one each, in list order.
    expect(offered.map((r) => r.email)).toEqual([list.email('first'), list.email('second')]);
    const holds = await liveHolds(t.ctx, sessionId);
    expect(holds).toHaveLength(2);
    expect(new Set(holds.map((h) => h.order))).toEqual(new Set(offered.map((r) => Number(r.offer_order_id))));
    await processEmailQueue(t.ctx);
    await processEmailQueue(t.ctx);
    expect(mailsTo(list.email('first'))).toHaveLength(1);
    expect(mailsTo(list.email('second'))).toHaveLength(1);
    expect(mailsTo(list.email('third'))).toHaveLength(0);
    const mail = mailsTo(list.email('first'))[0]!;
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

  it("the buyer sees the offer with the entry token; the organiser's list shows it", async ({ list }) => {
    const { sessionId } = list;
    const tokens = await firstOffers(list);
    const mine = await readEntry(tokens.first!);
    expect(mine.json().data).toMatchObject({ status: 'offered', position: null, offer: { checkout_url: expect.stringContaining(`/${DEMO.c.slug}/es/checkout?order_token=`) } });
    const order = await t.app.inject({ method: 'GET', url: `/api/portal/${DEMO.c.slug}/es/orders/${mine.json().data.offer.order_token}` });
    expect(order.json().data).toMatchObject({ status: 'pending', expires_at: mine.json().data.offer.expires_at });
    const res = await join(sessionId, { email: list.email('fifth'), quantity: 1 });
    expect(res.json().data.position).toBe(3); // third and fourth wait ahead
    const organiser = await admin.get(`/sessions/${sessionId}/waiting-list`);
    expect(organiser.status).toBe(200);
    expect(organiser.body.data.figures).toMatchObject({ waiting: 3, offered: 2, converted: 0, lapsed: 0, offers: 2, conversion_rate: null });
    expect(organiser.body.data.entries.map((e: { email: string; status: string; position: number | null }) => [e.email, e.status, e.position])).toEqual([
      [list.email('first'), 'offered', null],
      [list.email('second'), 'offered', null],
      [list.email('third'), 'waiting', 1],
      [list.email('fourth'), 'waiting', 2],
      [list.email('fifth'), 'waiting', 3],
    ]);
  });

  it('an offer not taken passes to the next in the list; one taken completes a purchase and counts as converted', async ({ list }) => {
    const { sessionId } = list;
    // second@ (demo-c) takes nothing; first@ (demo-c) too: after 30 minutes both lapse and the
    // next two entries get the seats.
    const tokens = await offersPassedOn(list);
    const state = () => listEntries(t.ctx, sessionId);
    expect((await state()).map((r) => [r.email, r.status])).toEqual([
      [list.email('first'), 'lapsed'],
      [list.email('second'), 'lapsed'],
      [list.email('third'), 'offered'],
      [list.email('fourth'), 'offered'],
      [list.email('fifth'), 'waiting'],
    ]);
    const fifth = await readEntry(tokens.fifth!);
    expect(fifth.json().data).toMatchObject({ status: 'waiting', position: 1 });
    await processEmailQueue(t.ctx);
    expect(mailsTo(list.email('third'))).toHaveLength(1);
    expect(mailsTo(list.email('first'))).toHaveLength(1);
    expect((await thirdTakesTheOffer(list)).statusCode).toBe(200);
    const figures = await admin.get(`/sessions/${sessionId}/waiting-list`);
    expect(figures.body.data.figures).toMatchObject({ waiting: 1, offered: 1, converted: 1, converted_tickets: 1, lapsed: 2, offers: 4, conversion_rate: 0.333 });
    await offerFreedSeats(t.ctx);
    expect((await state()).find((r) => r.email === list.email('third'))!.status).toBe('converted');
  });

  it("the sales overview (D66) carries the event's waiting-list figures", async ({ list }) => {
    await thirdConverted(list);
    const res = await admin.get(`/events/${list.eventId}/sales`);
    expect(res.status).toBe(200);
    expect(res.body.data.waiting_list).toMatchObject({ waiting: 1, offered: 1, converted: 1, lapsed: 2, sessions: [{ session_id: list.sessionId, converted: 1 }] });
  });

  it("the dashboard shows the figures on the sales page and the session's list on its own page", async ({ list }) => {
    const { sessionId } = list;
    await thirdConverted(list);
    await account(t.ctx, 'clerk@taquilla.test');
    const client = new DashboardClient(t.app);
    expect((await client.login('clerk@taquilla.test', PASSWORD)).statusCode).toBe(303);
    const overview = await client.get(`/admin/events/${list.eventId}/sales`);
    expect(overview.statusCode).toBe(200);
    expect(overview.body).toContain('Waiting list');
    expect(overview.body).toContain(`/admin/sessions/${sessionId}/waiting-list`);
    const page = await client.get(`/admin/sessions/${sessionId}/waiting-list`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(list.email('fifth'));
    expect(page.body).toContain('offer not taken');
    expect(page.body).toContain('33 %');
  });
});
