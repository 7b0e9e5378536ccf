import type { OrderView } from '../../src/modules/orders/orders.view.js';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { queryRows } from '../../src/db/client.js';
import { createEventAs, createFeeAs, createRateAs, createSessionAs, getSessionFor } from '../../src/modules/catalogue/catalogue-admin.service.js';
import { linkChannelEvents } from '../../src/modules/channels/channels.repo.js';
import { CLI_ACTOR } from '../../src/platform/actor.js';
import { afterAll, beforeAll } from 'vitest';
import type { TestApp } from '../helpers.js';
import { bearer, buildTestApp, isPostgres } from '../helpers.js';

export const ordersUrl = (slug: string, lang = 'en') => `/api/sales-channel/v1/${slug}/${lang}/orders`;
export const orderUrl = (slug: string, token: string, suffix = '', lang = 'en') => `${ordersUrl(slug, lang)}/${token}${suffix}`;

export interface DemoSession {
  sessionId: number;
  eventId: number;
  /** Numbered seats of the session, ascending session_seat_id. */
  seats: { id: number; sectorName: string; row: string; number: string }[];
  zone: { sectorId: number; capacity: number };
  rates: { general: number; reduced: number };
  prices: { general: number; reduced: number };
}

/** What a race test plays with: the app, a bearer token for demo-d and the first demo session. */
export interface Race {
  t: TestApp;
  token: string;
  s0: DemoSession;
}

/**
 * A race test's start, on PostgreSQL only (PGlite has one connection and serialises every request):
 * the app with a pool of 30 connections (`opts` adds to buildTestApp's), the token `tokenOf` makes
 * and the first demo session. Started in the calling file's beforeAll, closed in its afterAll; the
 * getter gives it to the file's tests (run them in a `describe.skipIf(!isPostgres)`).
 */
export function raceOnPostgres(tokenOf: (t: TestApp) => Promise<string>, opts: Parameters<typeof buildTestApp>[0] = {}): () => Race {
  let t: TestApp | undefined;
  let race: Race | undefined;
  beforeAll(async () => {
    if (!isPostgres) return;
    t = await buildTestApp({ poolSize: 30, ...opts });
    race = { t, token: await tokenOf(t), s0: await demoSession(t, 0) };
  }, 180_000);
  afterAll(() => t?.close());
  return () => {
    if (!race) throw new Error('no race: it starts on PostgreSQL only, in beforeAll');
    return race;
  };
}

/** The demo catalogue's sessions, in id order (0, 1: the concert; 2: the play). */
export async function demoSession(t: TestApp, index: number): Promise<DemoSession> {
  const sessions = await queryRows<{ id: number; event_id: number }>(t.ctx.db, sql`SELECT id, event_id FROM sessions ORDER BY id`);
  return sessionOf(t, sessions[index]!);
}

/**
 * A session of its own for one test: a new published event of the demo organiser at Teatro Demo,
 * sold by the four demo channels, with the concert's fee and one on-sale session (after every
 * other, so the demo sessions keep their places by start time) with the demo's two rates. What a
 * test does to it (sells it out, fills its waiting list, keeps a view of it) and the event's figures
 * are its own, whatever the file's other tests did to theirs.
 */
export async function newDemoSession(t: TestApp): Promise<DemoSession> {
  const [concert] = await queryRows<{ id: number; venue_id: number; organiser_id: number; start: Date }>(
    t.ctx.db,
    sql`SELECT s.id, s.venue_id, e.organiser_id, (SELECT max(start_datetime) FROM sessions) AS start
        FROM sessions s JOIN events e ON e.id = s.event_id ORDER BY s.id LIMIT 1`,
  );
  const template = await getSessionFor(t.ctx, CLI_ACTOR, concert!.id);
  const event = await createEventAs(t.ctx, CLI_ACTOR, { organiser_id: concert!.organiser_id, venue_id: concert!.venue_id, names: { es: 'Sesión de una prueba', en: 'One test’s session' }, status: 'published' });
  for (const channel of await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id FROM sales_channels WHERE slug LIKE 'demo-_'`)) {
    await linkChannelEvents(t.ctx.db, channel.id, [event.id]);
  }
  for (const fee of template.fees.filter((f) => f.event_id !== null)) await createFeeAs(t.ctx, CLI_ACTOR, { eventId: event.id }, { name: fee.name, kind: fee.kind, amount: fee.amount });
  const start = new Date(new Date(concert!.start).getTime() + 24 * 3600_000);
  const session = await createSessionAs(t.ctx, CLI_ACTOR, event.id, { start_datetime: start.toISOString(), status: 'on_sale' });
  for (const rate of template.rates) await createRateAs(t.ctx, CLI_ACTOR, session.id, { name: rate.name, names: rate.names, price: rate.price, meta: rate.meta });
  return sessionOf(t, { id: session.id, event_id: event.id });
}

async function sessionOf(t: TestApp, s: { id: number; event_id: number }): Promise<DemoSession> {
  const seats = await queryRows<{ id: number; name: string; row: string; number: string }>(
    t.ctx.db,
    sql`SELECT ss.id, sec.name, st.row, st.number FROM session_seats ss JOIN seats st ON st.id = ss.seat_id
        JOIN sectors sec ON sec.id = ss.sector_id WHERE ss.session_id = ${s.id} ORDER BY ss.id`,
  );
  const [zone] = await queryRows<{ sector_id: number; capacity: number }>(
    t.ctx.db,
    sql`SELECT sec.id AS sector_id, sec.capacity FROM sectors sec JOIN sessions se ON se.venue_id = sec.venue_id
        WHERE se.id = ${s.id} AND NOT sec.numbered`,
  );
  const rates = await queryRows<{ id: number; name: string; price: number }>(
    t.ctx.db,
    sql`SELECT id, name, price FROM rates WHERE session_id = ${s.id} ORDER BY sort_order`,
  );
  return {
    sessionId: s.id,
    eventId: s.event_id,
    seats: seats.map((r) => ({ id: r.id, sectorName: r.name, row: r.row, number: r.number })),
    zone: { sectorId: zone!.sector_id, capacity: zone!.capacity },
    rates: { general: rates[0]!.id, reduced: rates[1]!.id },
    prices: { general: rates[0]!.price, reduced: rates[1]!.price },
  };
}

/** Creates an order through the API and returns its token (throws on any other status than 201). */
export async function createOrder(app: FastifyInstance, token: string, slug: string, body: Record<string, unknown>) {
  const res = await app.inject({ method: 'POST', url: ordersUrl(slug), headers: bearer(token), payload: body });
  if (res.statusCode !== 201) throw new Error(`create order: ${res.statusCode} ${res.body}`);
  return res.json().data as OrderJson;
}

// The order as the API shows it (D35): the service's own view types, not a copy of them.
export type OrderJson = OrderView;

export const itemsOf = (order: OrderJson) => order.events.flatMap((e) => e.sessions.flatMap((s) => s.items));

/** The inventory rows of one order as the database holds them. */
export async function heldRows(t: TestApp, orderToken: string) {
  return queryRows<{ id: number; status: string }>(
    t.ctx.db,
    sql`SELECT ss.id, ss.status FROM session_seats ss JOIN orders o ON o.id = ss.order_id WHERE o.order_token = ${orderToken} ORDER BY ss.id`,
  );
}
