import { sql } from 'drizzle-orm';
import type { AppContext } from '../../app-context.js';
import { parseJson, queryRows } from '../../db/client.js';
import type { OrderStatus, OrderType } from '../../db/schema/index.js';
import { AppError } from '../../http/errors.js';
import { toAmount } from '../../lib/money.js';
import { isoWithMillis, isoWithOffset } from '../../lib/time.js';
import { eventName, labelsOfSessions, rateName, type SessionLabels } from './orders.labels.js';

// The order as every interface shows it (DECISIONS D35): the B2B routes, the portal, the widget,
// confirm. Amounts are JSON numbers (toAmount), timestamps ISO 8601 with offset.

interface OrderItemView {
  id: number;
  /** The seat's inventory id; null for a place of an unnumbered zone. */
  session_seat_id: number | null;
  sector_id: number;
  sector_name: string;
  row: string | null;
  number: string | null;
  rate_id: number;
  rate_name: string;
  base_amount: number;
  discount_amount: number;
  fee_amount: number;
  total_amount: number;
}

export interface OrderView {
  order_token: string;
  reference: string;
  type: OrderType;
  status: OrderStatus;
  currency: string;
  base_amount: number;
  discount_amount: number;
  fee_amount: number;
  total_amount: number;
  expires_at: string | null;
  events: {
    id: number;
    name: string;
    sessions: { id: number; start_datetime: string; items: OrderItemView[] }[];
  }[];
  vouchers: { code: string; kind: 'percent' | 'fixed'; value: number; discount_amount: number }[];
}

/**
 * order_rows_json (src/db/functions): the order's own data, as the driver returns it (parsed or text).
 * Its columns carry the view's names; amounts are integer minor units (the view's are toAmount()).
 */
export type OrderRows =
  | (Pick<OrderView, 'order_token' | 'reference' | 'type' | 'status' | 'currency' | 'base_amount' | 'discount_amount' | 'fee_amount' | 'total_amount' | 'expires_at'> & {
      vouchers: { code: string; kind: 'percent' | 'fixed'; value: number }[] | null;
      /** [id, event_id, session_id, sector_id, session_seat_id, rate_id, base, discount, fee, total], by id. */
      items: [number, number, number, number, number, number, number, number, number, number][] | null;
    })
  | string
  | null;

/**
 * The D35 view of one order, names in `lang` by the language fallback rule (platform/i18n).
 * With `now`, a pending cart whose time has run out shows as `expired` even before the sweep.
 */
export async function buildOrderView(ctx: AppContext, orderId: number, lang: string, now?: Date): Promise<OrderView> {
  const [row] = await queryRows<{ rows: OrderRows }>(ctx.db, sql`SELECT order_rows_json(${orderId}) AS rows`);
  return orderViewFromRows(ctx, row?.rows ?? null, lang, now);
}

/**
 * Assembles the D35 view from the order's rows (order_rows_json) and the labels of its sessions
 * (orders.labels.ts). Items are grouped by event and session, in event id, session date, session id
 * and item id order.
 */
export async function orderViewFromRows(ctx: AppContext, raw: OrderRows, lang: string, now?: Date): Promise<OrderView> {
  const order = raw === null ? null : parseJson(raw);
  if (!order) throw new AppError('not_found', 'Order not found');
  const items = (order.items ?? []).map(([id, eventId, sessionId, sectorId, sessionSeatId, rateId, base, discount, fee, total]) => ({
    id: Number(id),
    eventId,
    sessionId,
    sectorId,
    sessionSeatId,
    rateId,
    amounts: { base, discount, fee, total },
    // Set once the labels are read: declared here so that every item keeps one shape (an object
    // spread per item to add it took the engine's slow path, issue 27).
    labels: undefined as SessionLabels | undefined,
  }));

  const sessionIds = items.map((i) => i.sessionId);
  let labels = await labelsOfSessions(ctx, sessionIds);
  // A rate, sector or seat made after the session's labels were read: read them again, once.
  const lacking = new Set(
    items
      .filter((i) => {
        const l = labels.get(i.sessionId);
        const sector = l?.names.sectors.get(i.sectorId);
        return !l || !sector || !l.names.rates.has(i.rateId) || (sector.numbered && !l.seats.has(i.sessionSeatId));
      })
      .map((i) => i.sessionId),
  );
  if (lacking.size) labels = new Map([...labels, ...(await labelsOfSessions(ctx, lacking, lacking))]);

  for (const i of items) i.labels = labels.get(i.sessionId);
  const start = (i: (typeof items)[number]) => i.labels?.names.startDatetime.getTime() ?? 0;
  items.sort((a, b) => a.eventId - b.eventId || start(a) - start(b) || a.sessionId - b.sessionId || a.id - b.id);

  const events: OrderView['events'] = [];
  for (const it of items) {
    const names = it.labels?.names;
    let event = events.at(-1);
    if (!event || event.id !== it.eventId) events.push((event = { id: it.eventId, name: names ? eventName(names, lang) : '', sessions: [] }));
    let session = event.sessions.at(-1);
    if (!session || session.id !== it.sessionId) {
      event.sessions.push((session = { id: it.sessionId, start_datetime: isoWithOffset(names?.startDatetime ?? null)!, items: [] }));
    }
    const sector = names?.sectors.get(it.sectorId);
    const seat = sector?.numbered ? it.labels?.seats.get(it.sessionSeatId) : undefined;
    session.items.push({
      id: it.id,
      session_seat_id: sector?.numbered ? it.sessionSeatId : null,
      sector_id: it.sectorId,
      sector_name: sector?.name ?? '',
      row: seat?.row ?? null,
      number: seat?.number ?? null,
      rate_id: it.rateId,
      rate_name: names ? rateName(names, it.rateId, lang) : '',
      base_amount: toAmount(it.amounts.base),
      discount_amount: toAmount(it.amounts.discount),
      fee_amount: toAmount(it.amounts.fee),
      total_amount: toAmount(it.amounts.total),
    });
  }

  const expiresAt = order.expires_at === null ? null : new Date(order.expires_at);
  const timedOut = order.status === 'pending' && now !== undefined && expiresAt !== null && expiresAt <= now;
  return {
    order_token: order.order_token,
    reference: order.reference,
    type: order.type,
    status: timedOut ? 'expired' : order.status,
    currency: order.currency,
    base_amount: toAmount(order.base_amount),
    discount_amount: toAmount(order.discount_amount),
    fee_amount: toAmount(order.fee_amount),
    total_amount: toAmount(order.total_amount),
    expires_at: isoWithMillis(expiresAt),
    events,
    // One voucher per order (docs/cart.md): its discount is the order's.
    vouchers: (order.vouchers ?? []).map((v) => ({
      code: v.code,
      kind: v.kind,
      // percent: the percentage (10 for 10 %); fixed: the amount off the order.
      value: v.kind === 'percent' ? v.value / 100 : toAmount(v.value),
      discount_amount: toAmount(order.discount_amount),
    })),
  };
}
