import type { AppContext } from '../../app-context.js';
import { notFound } from '../../http/errors.js';
import { toAmount } from '../../lib/money.js';
import { isoWithOffset } from '../../lib/time.js';
import { wallToIsoWithOffset } from '../../lib/zoned-time.js';
import type { Actor } from '../../platform/actor.js';
import { visibleEvent, visibleSession } from '../catalogue/catalogue-admin.service.js';
import { queueFiguresOfEvent } from '../queue/queue.service.js';
import { waitingListFiguresOfEvent } from '../waitinglist/waitinglist.service.js';
import { eventOverview, sessionSeatMap, type InventoryFigures, type MoneyFigures } from './overview.repo.js';

const MONEY_KEYS = ['base_amount', 'discount_amount', 'fee_amount', 'gross_amount', 'refund_amount', 'net_amount'] as const;

/** Minor units to the API's amounts (D11), other figures as they are. */
function amounts<T extends MoneyFigures>(figures: T): T {
  const out = { ...figures } as unknown as Record<string, unknown>;
  for (const key of MONEY_KEYS) out[key] = toAmount(Number(figures[key]));
  for (const key of ['tickets', 'refunded_tickets'] as const) out[key] = Number(figures[key]);
  return out as unknown as T;
}

function sum<T extends Partial<MoneyFigures & InventoryFigures>>(rows: T[], keys: readonly (keyof MoneyFigures | keyof InventoryFigures | 'checked_in')[]) {
  const total: Record<string, number> = {};
  for (const key of keys) total[key] = rows.reduce((acc, r) => acc + Number((r as Record<string, unknown>)[key] ?? 0), 0);
  return total;
}

export interface OverviewQuery {
  session_id?: number;
  interval?: 'hour' | 'day';
  lang?: string;
}

/**
 * The sales overview of an event (D66): per session sold, held, free and capacity; gross, fees,
 * discounts, refunds and net; by channel, rate and sector; sales per hour or day in the
 * deployment's zone; check-in progress. A refunded ticket is counted apart, never as sold.
 */
export async function salesOverviewFor(ctx: AppContext, actor: Actor, eventId: number, query: OverviewQuery = {}) {
  // One lookup for the permission (not the whole event view: its sessions, translations and fees
  // were three more queries on every request); the figures' queries then run side by side.
  const event = await visibleEvent(ctx.db, actor, eventId);
  const sessionId = query.session_id ?? null;
  const [o, queue, waitingList] = await Promise.all([
    eventOverview(ctx.db, {
      eventId,
      sessionId,
      now: ctx.clock.now(),
      timezone: ctx.config.timezone,
      bucket: query.interval ?? 'day',
      lang: query.lang ?? event.defaultLang ?? 'es',
    }),
    queueFiguresOfEvent(ctx, eventId, sessionId),
    waitingListFiguresOfEvent(ctx, eventId, sessionId),
  ]);
  // The overview's sessions are the event's (with session_id: that one): none is a session of another event.
  if (sessionId !== null && o.sessions.length === 0) throw notFound('Session');
  const counts = ['capacity', 'sold', 'held', 'free', 'blocked', 'tickets', 'refunded_tickets', 'checked_in'] as const;
  const totals = sum(o.sessions, [...counts, ...MONEY_KEYS]);
  return {
    event_id: eventId,
    session_id: query.session_id ?? null,
    currency: ctx.config.currency,
    timezone: ctx.config.timezone,
    totals: amounts({ ...totals } as unknown as MoneyFigures & InventoryFigures & { checked_in: number }),
    sessions: o.sessions.map((s) => ({ ...amounts(s), start_datetime: isoWithOffset(s.start_datetime)!, checked_in: Number(s.checked_in) })),
    channels: o.channels.map(amounts),
    rates: o.rates.map(amounts),
    sectors: o.sectors.map(amounts),
    sales_over_time: { interval: query.interval ?? 'day', points: o.timeline.map((p) => ({ at: wallToIsoWithOffset(p.bucket, ctx.config.timezone), tickets: p.tickets, gross_amount: toAmount(p.gross_amount) })) },
    queue,
    waiting_list: waitingList,
  };
}

/**
 * The sales overview of one session (D66): the event's overview narrowed to it (salesOverviewFor
 * with session_id, as the admin API answers it) and the status of each of its places for the heat map.
 */
export async function sessionOverviewFor(ctx: AppContext, actor: Actor, sessionId: number, query: Omit<OverviewQuery, 'session_id'> = {}) {
  const { session } = await visibleSession(ctx.db, actor, sessionId);
  const [overview, seatMap] = await Promise.all([
    salesOverviewFor(ctx, actor, session.eventId, { ...query, session_id: sessionId }),
    sessionSeatMap(ctx.db, sessionId, ctx.clock.now()),
  ]);
  return { overview, seatMap };
}
