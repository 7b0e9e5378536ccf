import crypto from 'node:crypto';
import fc from 'fast-check';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { AppError } from '../../src/http/errors.js';
import type { ChannelRecord } from '../../src/db/channel-record.js';
import { findChannelBySlug } from '../../src/modules/channels/channels.repo.js';
import { addItem, addItemsBulk, addSectorItems, createOrder, holdSeatFast } from '../../src/modules/orders/orders.service.js';
import { priceItems } from '../../src/modules/orders/orders.pricing.js';
import { applyVoucher } from '../../src/modules/vouchers/vouchers.service.js';
import { buildTestApp, DEMO, type TestApp } from '../helpers.js';

// The two ways of calling the cart's hold must price and refuse alike (issue 15; since issue 26
// both call the one SQL hold, cart_hold_seats in src/db/functions/031_cart_hold_seats.sql, which
// prices with ticket_fee and checks with rate_fits_seat and seat_is_free). The one-statement call
// (holdSeatFast: its own transaction, one commit) serves createOrder and addItem; the
// in-transaction call (a caller-chosen order_token, the bulk add, any cart with a voucher) runs it
// inside the cart change's transaction and reprices the voucher's discounts (orders.pricing.ts).
//
// Each generated cart (rate prices, fee rules fixed and percent, seat states, a session cap, a
// session on sale or not, then steps: seats, zone places, vouchers) is played twice from the same
// starting state: once with every seat step sent to the fast path first (as buyers' requests are),
// once with every seat step forced onto the full path (a caller-chosen order_token for the first,
// the bulk add for the others). After every step both carts must hold the same items with the
// same amounts and the same order totals, or both requests must be refused with the same code.
// The one-statement call declines (nothing written) only for a cart with a voucher: every other
// request, valid or not, it must answer by itself.

const SEATS = 8; // numbered seats in play (the session's first ones)
const MAX_ITEMS = 4;
const RUNS = 80;

let t: TestApp;
let channel: ChannelRecord;
let fx: {
  eventId: number;
  sessionId: number;
  otherSessionId: number;
  organiserId: number;
  zoneSectorId: number;
  seats: { id: number; sectorId: number }[];
  zonePlaceId: number;
  /** general, reduced (no sector), sector-scoped (the first seat's sector), another session's. */
  rates: { id: number; sessionId: number; sectorId: number | null }[];
  blockerOrderId: number;
};

beforeAll(async () => {
  t = await buildTestApp({ env: { MAX_ITEMS_PER_ORDER: String(MAX_ITEMS) } });
  channel = (await findChannelBySlug(t.ctx.db, DEMO.c.slug))!;
  const db = t.ctx.db;
  const [s0, s1] = await queryRows<{ id: number; event_id: number }>(db, sql`SELECT id, event_id FROM sessions ORDER BY id LIMIT 2`);
  const [ev] = await queryRows<{ organiser_id: number }>(db, sql`SELECT organiser_id FROM events WHERE id = ${s0!.event_id}`);
  const seats = await queryRows<{ id: number; sector_id: number }>(
    db,
    sql`SELECT id, sector_id FROM session_seats WHERE session_id = ${s0!.id} AND seat_id IS NOT NULL ORDER BY id LIMIT ${SEATS}`,
  );
  const [zone] = await queryRows<{ id: number; sector_id: number }>(
    db,
    sql`SELECT id, sector_id FROM session_seats WHERE session_id = ${s0!.id} AND seat_id IS NULL ORDER BY id LIMIT 1`,
  );
  // Seats of two sectors, so that a sector-scoped rate fits some and not others.
  const other = await queryRows<{ id: number; sector_id: number }>(
    db,
    sql`SELECT id, sector_id FROM session_seats WHERE session_id = ${s0!.id} AND seat_id IS NOT NULL AND sector_id <> ${seats[0]!.sector_id}
        ORDER BY id LIMIT ${SEATS / 2}`,
  );
  const inPlay = [...seats.slice(0, SEATS / 2), ...other].map((r) => ({ id: r.id, sectorId: r.sector_id }));
  const baseRates = await queryRows<{ id: number }>(db, sql`SELECT id FROM rates WHERE session_id = ${s0!.id} ORDER BY sort_order, id LIMIT 2`);
  const [scoped] = await queryRows<{ id: number }>(
    db,
    sql`INSERT INTO rates (session_id, sector_id, name, price) VALUES (${s0!.id}, ${seats[0]!.sector_id}, 'Sector only', 1000) RETURNING id`,
  );
  const [foreign] = await queryRows<{ id: number }>(db, sql`SELECT id FROM rates WHERE session_id = ${s1!.id} ORDER BY id LIMIT 1`);
  const [blocker] = await queryRows<{ id: number }>(
    db,
    sql`INSERT INTO orders (order_token, reference, channel_id, lang, currency, expires_at, created_at, updated_at)
        VALUES (${crypto.randomUUID()}, 'TQ-BLOCKER', ${channel.id}, 'en', 'EUR', ${new Date(t.clock.now().getTime() + 3_600_000)}, now(), now())
        RETURNING id`,
  );
  fx = {
    eventId: s0!.event_id,
    sessionId: s0!.id,
    otherSessionId: s1!.id,
    organiserId: ev!.organiser_id,
    zoneSectorId: zone!.sector_id,
    seats: inPlay,
    zonePlaceId: zone!.id,
    rates: [
      { id: baseRates[0]!.id, sessionId: s0!.id, sectorId: null },
      { id: baseRates[1]!.id, sessionId: s0!.id, sectorId: null },
      { id: scoped!.id, sessionId: s0!.id, sectorId: seats[0]!.sector_id },
      { id: foreign!.id, sessionId: s1!.id, sectorId: null },
    ],
    blockerOrderId: Number(blocker!.id),
  };
}, 120_000);

afterAll(() => t?.close());

type SeatState = 'available' | 'sold' | 'held' | 'expired' | 'blocked';
type FeeScope = 'event' | 'session' | 'other_session';
type VoucherScope = 'none' | 'event' | 'session' | 'rate' | 'other_session';

interface SeatStep {
  kind: 'seat';
  /** 0..SEATS-1: a numbered seat; SEATS: a zone place; SEATS+1: no such seat. */
  seat: number;
  /** Index in fx.rates; 4: no such rate. */
  rate: number;
}
type Step =
  | SeatStep
  | { kind: 'zone'; rate: number; quantity: number }
  | { kind: 'voucher'; voucherKind: 'percent' | 'fixed'; value: number; scope: VoucherScope };

interface Cart {
  prices: number[];
  fees: { scope: FeeScope; kind: 'fixed' | 'percent'; amount: number }[];
  seatStates: SeatState[];
  sessionCap: number | null;
  onSale: boolean;
  steps: Step[];
}

// Mostly valid requests (numbered seats, rates of the session), so that the fast path decides often.
const seatIndex = fc.oneof({ weight: 8, arbitrary: fc.nat(SEATS - 1) }, { weight: 1, arbitrary: fc.constantFrom(SEATS, SEATS + 1) });
const rateIndex = fc.oneof({ weight: 6, arbitrary: fc.nat(2) }, { weight: 1, arbitrary: fc.constantFrom(3, 4) });
const seatStep = fc.record<SeatStep>({ kind: fc.constant<'seat'>('seat'), seat: seatIndex, rate: rateIndex });
const cartArb: fc.Arbitrary<Cart> = fc.record({
  // Odd prices, so that percentages round (half away from zero) in both languages.
  prices: fc.array(fc.integer({ min: 0, max: 25_000 }), { minLength: 3, maxLength: 3 }),
  fees: fc.array(
    fc.oneof(
      fc.record({ scope: fc.constantFrom<FeeScope>('event', 'session', 'other_session'), kind: fc.constant<'fixed'>('fixed'), amount: fc.integer({ min: 0, max: 500 }) }),
      fc.record({ scope: fc.constantFrom<FeeScope>('event', 'session', 'other_session'), kind: fc.constant<'percent'>('percent'), amount: fc.integer({ min: 0, max: 2_500 }) }),
    ),
    { maxLength: 3 },
  ),
  seatStates: fc.array(fc.constantFrom<SeatState>('available', 'available', 'available', 'available', 'available', 'sold', 'held', 'expired', 'blocked'), {
    minLength: SEATS,
    maxLength: SEATS,
  }),
  sessionCap: fc.option(fc.integer({ min: 1, max: 4 }), { freq: 3 }),
  onSale: fc.constantFrom(true, true, true, true, false),
  steps: fc
    .tuple(
      seatStep,
      fc.array(
        fc.oneof(
          { weight: 5, arbitrary: seatStep },
          { weight: 1, arbitrary: fc.record({ kind: fc.constant<'zone'>('zone'), rate: rateIndex, quantity: fc.integer({ min: 1, max: 2 }) }) },
          {
            weight: 1,
            arbitrary: fc.record({
              kind: fc.constant<'voucher'>('voucher'),
              voucherKind: fc.constantFrom<'percent' | 'fixed'>('percent', 'fixed'),
              value: fc.integer({ min: 1, max: 12_000 }),
              scope: fc.constantFrom<VoucherScope>('none', 'event', 'session', 'rate', 'other_session'),
            }),
          },
        ),
        { maxLength: 5 },
      ),
    )
    .map(([first, rest]) => [first, ...rest]),
});

/** A seat, a 10 % voucher for the whole cart, a second seat: the fast path declines the second. */
const VOUCHER_THEN_SEAT: Cart = {
  prices: [3_001, 2_001, 1_001],
  fees: [],
  seatStates: Array.from({ length: SEATS }, () => 'available' as const),
  sessionCap: null,
  onSale: true,
  steps: [
    { kind: 'seat', seat: 0, rate: 0 },
    { kind: 'voucher', voucherKind: 'percent', value: 1_000, scope: 'none' },
    { kind: 'seat', seat: 1, rate: 0 },
  ],
};

const rateId = (i: number) => fx.rates[i]?.id ?? 999_999;
const seatId = (i: number) => (i < SEATS ? fx.seats[i]!.id : i === SEATS ? fx.zonePlaceId : 999_999);

/** The shared starting state of one cart: catalogue, fees, seat states, a voucher. */
async function setUp(cart: Cart, voucherCodes: string[]) {
  const db = t.ctx.db;
  const now = t.clock.now();
  for (const [i, price] of cart.prices.entries()) await db.execute(sql`UPDATE rates SET price = ${price} WHERE id = ${fx.rates[i]!.id}`);
  await db.execute(sql`DELETE FROM fees WHERE event_id = ${fx.eventId} OR session_id IN (${fx.sessionId}, ${fx.otherSessionId})`);
  for (const f of cart.fees) {
    const [eventId, sessionId] = f.scope === 'event' ? [fx.eventId, null] : [null, f.scope === 'session' ? fx.sessionId : fx.otherSessionId];
    await db.execute(sql`INSERT INTO fees (event_id, session_id, name, kind, amount) VALUES (${eventId}, ${sessionId}, 'Fee', ${f.kind}, ${f.amount})`);
  }
  await db.execute(
    sql`UPDATE sessions SET max_tickets_per_buyer = ${cart.sessionCap}, status = ${cart.onSale ? 'on_sale' : 'closed'} WHERE id = ${fx.sessionId}`,
  );
  // Both sessions: a zone step with the other session's rate claims that session's places.
  await db.execute(
    sql`UPDATE session_seats SET status = 'available', order_id = NULL, hold_expires_at = NULL WHERE session_id IN (${fx.sessionId}, ${fx.otherSessionId})`,
  );
  for (const [i, state] of cart.seatStates.entries()) {
    if (state === 'available') continue;
    const status = state === 'expired' ? 'held' : state;
    const orderId = state === 'blocked' ? null : fx.blockerOrderId;
    const until = state === 'held' ? new Date(now.getTime() + 600_000) : state === 'expired' ? new Date(now.getTime() - 60_000) : null;
    await db.execute(sql`UPDATE session_seats SET status = ${status}, order_id = ${orderId}, hold_expires_at = ${until} WHERE id = ${fx.seats[i]!.id}`);
  }
  for (const [i, step] of cart.steps.entries()) {
    if (step.kind !== 'voucher') continue;
    const scope = {
      event: step.scope === 'event' ? fx.eventId : null,
      session: step.scope === 'session' ? fx.sessionId : step.scope === 'other_session' ? fx.otherSessionId : null,
      rate: step.scope === 'rate' ? fx.rates[0]!.id : null,
    };
    const value = step.voucherKind === 'percent' ? Math.min(step.value, 10_000) : step.value;
    await db.execute(
      sql`INSERT INTO vouchers (organiser_id, code, kind, value, event_id, session_id, rate_id)
          VALUES (${fx.organiserId}, ${voucherCodes[i]!}, ${step.voucherKind}, ${value}, ${scope.event}, ${scope.session}, ${scope.rate})`,
    );
  }
}

/** The cart as the database holds it: order totals, and its items' amounts by inventory row. */
async function cartState(orderToken: string | null) {
  if (!orderToken) return null;
  const [order] = await queryRows<{ id: number; base_amount: number; discount_amount: number; fee_amount: number; total_amount: number }>(
    t.ctx.db,
    sql`SELECT id, base_amount, discount_amount, fee_amount, total_amount FROM orders WHERE order_token = ${orderToken}`,
  );
  if (!order) return null;
  const items = await queryRows<{ session_seat_id: number; rate_id: number; base_amount: number; discount_amount: number; fee_amount: number; total_amount: number }>(
    t.ctx.db,
    sql`SELECT session_seat_id, rate_id, base_amount, discount_amount, fee_amount, total_amount FROM order_items
        WHERE order_id = ${order.id} ORDER BY session_seat_id`,
  );
  const { id: _id, ...totals } = order;
  return { totals, items };
}

type Answer = { ok: true } | { ok: false; code: string };
const refused = (err: unknown): Answer => {
  if (err instanceof AppError) return { ok: false, code: err.code };
  throw err;
};

interface Tally {
  fastOk: number;
  fastRefused: number;
  declined: number;
}

/**
 * Plays the cart on one path. `fast`: seat steps go to holdSeatFast first and, when it declines,
 * to createOrder / addItem (what a buyer's request does); else they are forced onto the full path.
 * Returns, per step, the answer and the cart's state after it.
 */
async function play(cart: Cart, voucherCodes: string[], fast: boolean, tally: Tally) {
  const buyer = `test:${crypto.randomUUID()}`;
  let token: string | null = null;
  let hasVoucher = false;
  const trace: { answer: Answer; state: Awaited<ReturnType<typeof cartState>> }[] = [];
  for (const [i, step] of cart.steps.entries()) {
    let answer: Answer;
    if (step.kind === 'seat') {
      const item = { session_seat_id: seatId(step.seat), rate_id: rateId(step.rate) };
      try {
        if (fast) {
          // The one-statement call must answer by itself every request to a cart without a voucher.
          const plain = !hasVoucher;
          const target = token ? { create: false as const, orderToken: token } : { create: true as const, buyer };
          let view;
          try {
            view = await holdSeatFast(t.ctx, channel, 'en', target, item);
          } catch (err) {
            tally.fastRefused++;
            throw err;
          }
          if (view) {
            tally.fastOk++;
            token = view.order_token;
          } else {
            tally.declined++;
            expect(plain, `the fast path declined a plain request (step ${i}: ${JSON.stringify(step)})`).toBe(false);
            if (token) await addItem(t.ctx, channel, token, 'en', item);
            else token = (await createOrder(t.ctx, channel, buyer, 'en', item)).order.order_token;
          }
        } else if (token) {
          await addItemsBulk(t.ctx, channel, token, 'en', [item]);
        } else {
          const chosen = crypto.randomUUID();
          await createOrder(t.ctx, channel, buyer, 'en', { ...item, order_token: chosen });
          token = chosen;
        }
        answer = { ok: true };
      } catch (err) {
        answer = refused(err);
      }
    } else if (!token) {
      continue; // nothing to add to yet, on either path
    } else if (step.kind === 'zone') {
      answer = await addSectorItems(t.ctx, channel, token, 'en', { sector_id: fx.zoneSectorId, rate_id: rateId(step.rate), quantity: step.quantity }).then(
        () => ({ ok: true }) as const,
        refused,
      );
    } else {
      answer = await applyVoucher(t.ctx, channel, token, 'en', voucherCodes[i]!).then(() => ({ ok: true }) as const, refused);
      if (answer.ok) hasVoucher = true;
    }
    const state = await cartState(token);
    trace.push({ answer, state });
  }
  return trace;
}

it('the fast and the full hold path price and refuse alike', async () => {
  const tally: Tally = { fastOk: 0, fastRefused: 0, declined: 0 };
  let refusalsCompared = 0;
  await fc.assert(
    fc.asyncProperty(cartArb, async (cart) => {
      const voucherCodes = cart.steps.map(() => `P${crypto.randomBytes(5).toString('hex').toUpperCase()}`);
      await setUp(cart, voucherCodes);
      const viaFast = await play(cart, voucherCodes, true, tally);
      await setUp({ ...cart, steps: [] }, []);
      const viaFull = await play(cart, voucherCodes, false, tally);
      expect(viaFast).toEqual(viaFull);
      refusalsCompared += viaFull.filter((s) => !s.answer.ok).length;
    }),
    // Besides the random carts, one that surely reaches the fast path's decline: a voucher applied
    // between two seats (80 random carts missed it once in CI on PostgreSQL).
    { numRuns: RUNS, examples: [[VOUCHER_THEN_SEAT]] },
  );
  // The generator reaches every kind of answer of the fast path, and refusals of the full one.
  expect(tally.fastOk).toBeGreaterThan(0);
  expect(tally.fastRefused).toBeGreaterThan(0);
  expect(tally.declined).toBeGreaterThan(0);
  expect(refusalsCompared).toBeGreaterThan(0);
}, 120_000);

it('the SQL fee rule (fee_of_rule, ticket_fee) and orders.pricing.ts agree on every price and rule', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.record({ price: fc.integer({ min: 0, max: 2_000_000 }), kind: fc.constantFrom<'fixed' | 'percent'>('fixed', 'percent'), amount: fc.integer({ min: 0, max: 10_000 }) }), {
        minLength: 1,
        maxLength: 50,
      }),
      async (cases) => {
        const arr = (xs: (string | number)[]) => `{${xs.join(',')}}`;
        const rows = await queryRows<{ fee: number }>(
          t.ctx.db,
          sql`SELECT fee_of_rule(c.price, c.kind, c.amount) AS fee
              FROM unnest(${arr(cases.map((c) => c.price))}::int[], ${arr(cases.map((c) => c.kind))}::text[], ${arr(cases.map((c) => c.amount))}::int[])
                   WITH ORDINALITY AS c(price, kind, amount, n)
              ORDER BY c.n`,
        );
        const inTs = cases.map((c) => {
          const [item] = priceItems([{ id: 1, eventId: 1, sessionId: 1, rateId: 1, price: c.price }], [{ eventId: 1, sessionId: null, kind: c.kind, amount: c.amount }], null);
          return item!.fee;
        });
        expect(rows.map((r) => Number(r.fee))).toEqual(inTs);
      },
    ),
    { numRuns: 30 },
  );
}, 60_000);
