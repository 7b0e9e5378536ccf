import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { findChannelBySlug } from '../../src/modules/channels/channels.service.js';
import { queueWaitingListOfferEmail } from '../../src/modules/tickets/waiting-list.email.js';
import { joinWaitingList } from '../../src/modules/waitinglist/waitinglist.service.js';
import { DEMO, isPostgres, type TestApp } from '../helpers.js';
import { freedDuringPasses, listEntries, liveHolds, ownListTest, sellOut, twoInstances, type SoldOut, type TwoInstances } from './fixtures.js';

// D69 once-only: 50 entries, 20 seats freed side by side by expiry and cancellation while two
// instances (two apps on one PostgreSQL database) run the waiting-list job in parallel. Each seat
// goes to exactly one offer, in list order, with one e-mail each; offers that run out pass on
// (manual clock); nothing is ever held twice. Each test has a sold-out session of its own and plays
// the rounds before the one it checks itself, from the clock's time when it starts.

const MINUTE = 60_000;

describe.runIf(isPostgres)('waiting list under parallel passes on PostgreSQL (D69)', () => {
  let instances: TwoInstances;
  let t: TestApp;
  beforeAll(async () => {
    ({ t } = instances = await twoInstances());
  }, 300_000);
  afterAll(() => instances?.close());

  const passes = (n: number) => instances.passes(n);

  /** A session of the test's own: 20 one-seat carts of demo-c (the first 10 run out in 5 minutes, the other 10 are cancelled), and 50 entries of one seat. */
  const it = ownListTest(
    () => t,
    async (app, sessionId): Promise<Omit<SoldOut, 'sessionId'>> => {
      const { orders } = await sellOut(app.ctx, { channel: DEMO.c.slug, sessionId, carts: 20, ttlMs: (i) => (i < 10 ? 5 : 60) * MINUTE });
      const channel = (await findChannelBySlug(app.ctx, DEMO.c.slug))!;
      for (let i = 0; i < 50; i++) {
        await joinWaitingList(app.ctx, channel, 'es', sessionId, { email: `w${String(i).padStart(2, '0')}@example.com`, quantity: 1 });
      }
      return { orders };
    },
  );

  /** Every live offer of the session holds one seat of its own; every seat is held by at most one order. */
  async function expectNoSeatTwice(soldOut: SoldOut, offers: number) {
    const items = await queryRows<{ order_id: string; session_seat_id: number }>(
      t.ctx.db,
      sql`SELECT i.order_id, i.session_seat_id FROM order_items i
          JOIN waiting_list_entries e ON e.offer_order_id = i.order_id WHERE e.status = 'offered' AND e.session_id = ${soldOut.sessionId}`,
    );
    expect(items).toHaveLength(offers);
    expect(new Set(items.map((i) => i.session_seat_id)).size).toBe(offers);
    const holds = await liveHolds(t.ctx, soldOut.sessionId);
    expect(new Set(holds.map((h) => h.seat)).size).toBe(holds.length);
    for (const item of items) expect(holds).toContainEqual({ seat: item.session_seat_id, order: Number(item.order_id) });
  }

  /** The offer e-mails of the session's list in the outbox. */
  const emailRows = async (soldOut: SoldOut) =>
    queryRows<{ order_id: string; recipient: string }>(
      t.ctx.db,
      sql`SELECT m.order_id, m.recipient FROM email_outbox m JOIN waiting_list_entries e ON e.offer_order_id = m.order_id
          WHERE m.kind = 'waitinglist_offer' AND e.session_id = ${soldOut.sessionId} ORDER BY m.id`,
    );

  /** Round 2 after round 1: nobody takes the offers; 31 minutes on, 8 parallel passes. */
  async function offersLapsed(soldOut: SoldOut) {
    await freedDuringPasses(instances, soldOut.orders, 10);
    t.clock.advance(31 * MINUTE);
    await passes(8);
  }

  it('20 seats freed in parallel by expiry and cancellation go to the first 20 entries, one offer and one e-mail each', async ({ list: soldOut }) => {
    await freedDuringPasses(instances, soldOut.orders, 10);
    const rows = await listEntries(t.ctx, soldOut.sessionId);
    expect(rows.slice(0, 20).every((r) => r.status === 'offered')).toBe(true);
    expect(rows.slice(20).every((r) => r.status === 'waiting')).toBe(true);
    expect(new Set(rows.slice(0, 20).map((r) => r.offer_order_id)).size).toBe(20);
    await expectNoSeatTwice(soldOut, 20);
    const mails = await emailRows(soldOut);
    expect(mails).toHaveLength(20);
    expect(mails.map((m) => m.recipient).sort()).toEqual(rows.slice(0, 20).map((r) => r.email));
  });

  it('offers not taken run out and pass to the next 20 in order, under parallel passes again', async ({ list: soldOut }) => {
    await offersLapsed(soldOut);
    const rows = await listEntries(t.ctx, soldOut.sessionId);
    expect(rows.slice(0, 20).map((r) => r.status)).toEqual(Array(20).fill('lapsed'));
    expect(rows.slice(20, 40).map((r) => r.status)).toEqual(Array(20).fill('offered'));
    expect(rows.slice(40).map((r) => r.status)).toEqual(Array(10).fill('waiting'));
    await expectNoSeatTwice(soldOut, 20);
    expect(await emailRows(soldOut)).toHaveLength(40);
  });

  it('the last 10 get 10 of the 20 seats; the other 10 stay free (nothing oversold)', async ({ list: soldOut }) => {
    await offersLapsed(soldOut);
    t.clock.advance(31 * MINUTE);
    await passes(6);
    const rows = await listEntries(t.ctx, soldOut.sessionId);
    expect(rows.slice(40).map((r) => r.status)).toEqual(Array(10).fill('offered'));
    await expectNoSeatTwice(soldOut, 10);
    expect(await emailRows(soldOut)).toHaveLength(50);
    const [free] = await queryRows<{ n: string }>(
      t.ctx.db,
      sql`SELECT count(*) AS n FROM session_seats WHERE session_id = ${soldOut.sessionId} AND seat_id IS NOT NULL AND seat_is_free(status, hold_expires_at, ${t.clock.now()}::timestamptz)`,
    );
    expect(Number(free!.n)).toBe(10);
  });

  it('the database keeps the offer e-mail once per offer order, even when queued twice side by side', async ({ list: soldOut }) => {
    await freedDuringPasses(instances, soldOut.orders, 10);
    const [row] = await queryRows<{ offer_order_id: string; email: string; channel_id: number }>(
      t.ctx.db,
      sql`SELECT offer_order_id, email, channel_id FROM waiting_list_entries WHERE session_id = ${soldOut.sessionId} AND status = 'offered' ORDER BY id LIMIT 1`,
    );
    const offer = { orderId: Number(row!.offer_order_id), recipient: row!.email, channelId: row!.channel_id, lang: 'es', at: t.clock.now() };
    await Promise.all([t.ctx.db, instances.second.database.db].map((db) => queueWaitingListOfferEmail(db, offer)));
    const mails = (await emailRows(soldOut)).filter((m) => Number(m.order_id) === offer.orderId);
    expect(mails).toHaveLength(1);
  });
});
