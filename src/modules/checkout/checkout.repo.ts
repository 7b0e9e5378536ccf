import { sql } from 'drizzle-orm';
import { parseJson, queryRows, type Db } from '../../db/client.js';
import { TICKET_EMAIL_MODES } from '../../lib/integration-policy.js';
import type { OrderRows } from '../orders/orders.view.js';

export interface Buyer {
  name: string;
  surname: string;
  email: string;
  phone?: string | null;
}

/** An order named by its id, or by its token within a channel (confirm). */
export type OrderRef = { orderId: number } | { orderToken: string; channelId: number };

/** What close_order (src/db/functions) answered; every outcome but `closed` wrote nothing. */
export type CloseResult =
  | { outcome: 'closed'; orderId: number; codes: string[]; sessionIds: number[]; rows: OrderRows }
  | { outcome: 'already_completed'; orderId: number; codes: string[]; rows: OrderRows }
  | { outcome: 'not_found' | 'cancelled' | 'empty' | 'expired' | 'seat_unavailable' }
  | { outcome: 'amount_mismatch'; totalAmount: number }
  | { outcome: 'voucher_withdrawn'; orderId: number }
  | { outcome: 'not_on_sale'; sessionId: number }
  | { outcome: 'need_codes'; count: number };

/** Ticket codes are base62 (newTicketCode), so the array literal needs no quoting; checked anyway. */
function codeArray(codes: readonly string[]) {
  if (!codes.every((c) => /^[0-9A-Za-z]+$/.test(c))) throw new Error('ticket codes must be base62');
  return sql`${`{${codes.join(',')}}`}::text[]`;
}

/** The integration policy's modes that get the ticket e-mail, as a SQL array for close_order. */
const emailModes = sql`${`{${TICKET_EMAIL_MODES.join(',')}}`}::text[]`;

/**
 * The closing process in one statement, its own transaction (close_order, src/db/functions): lock
 * the order, check it, sell its seats (all or nothing), write the buyer, tickets, completion and
 * the e-mail of the models that send one (integration policy). `withRows` asks for the order's
 * rows (order_rows_json) in the answer, for its view.
 */
export async function closeOrderInDatabase(
  db: Db,
  c: {
    ref: OrderRef;
    now: Date;
    allowExpired: boolean;
    expectedAmount: number | null;
    buyer: Buyer;
    paymentMethod: string | null;
    transactionId: string | null;
    codes: string[];
    withRows: boolean;
  },
): Promise<CloseResult> {
  const byId = 'orderId' in c.ref;
  const [row] = await queryRows<{ r: Record<string, unknown> | string }>(
    db,
    sql`SELECT close_order(${byId ? (c.ref as { orderId: number }).orderId : null}::bigint,
          ${byId ? null : (c.ref as { orderToken: string }).orderToken}::text, ${byId ? null : (c.ref as { channelId: number }).channelId}::int,
          ${c.now}::timestamptz, ${c.allowExpired}::boolean, ${c.expectedAmount}::int,
          ${c.buyer.name}::text, ${c.buyer.surname}::text, ${c.buyer.email}::text, ${c.buyer.phone ?? null}::text,
          ${c.paymentMethod}::text, ${c.transactionId}::text, ${codeArray(c.codes)}, ${c.withRows}::boolean, ${emailModes}) AS r`,
  );
  const r = parseJson(row!.r) as {
    outcome: CloseResult['outcome'];
    order_id?: string | number;
    codes?: string[];
    session_ids?: number[];
    rows?: OrderRows;
    total_amount?: number;
    count?: number;
    session_id?: number;
  };
  switch (r.outcome) {
    case 'not_on_sale':
      return { outcome: 'not_on_sale', sessionId: Number(r.session_id) };
    case 'closed':
      return { outcome: 'closed', orderId: Number(r.order_id), codes: r.codes!, sessionIds: r.session_ids!, rows: r.rows ?? null };
    case 'already_completed':
      return { outcome: 'already_completed', orderId: Number(r.order_id), codes: r.codes ?? [], rows: r.rows ?? null };
    case 'amount_mismatch':
      return { outcome: 'amount_mismatch', totalAmount: Number(r.total_amount) };
    case 'need_codes':
      return { outcome: 'need_codes', count: Number(r.count) };
    case 'voucher_withdrawn':
      return { outcome: 'voucher_withdrawn', orderId: Number(r.order_id) };
    default:
      return { outcome: r.outcome };
  }
}

/**
 * The writes that complete an order whose seats are sold (complete_order, src/db/functions), inside
 * the caller's transaction: buyer, one ticket per item (codes in item order), order completed, and
 * the ticket e-mail queued when `sendEmail`.
 */
export async function completeOrderInDatabase(
  db: Db,
  o: {
    orderId: number;
    itemIds: number[];
    codes: string[];
    sendEmail: boolean;
    buyer: Buyer;
    paymentMethod: string | null;
    transactionId: string | null;
    at: Date;
  },
): Promise<void> {
  await db.execute(
    sql`SELECT complete_order(${o.orderId}::bigint, ${`{${o.itemIds.map((n) => Math.trunc(n)).join(',')}}`}::bigint[], ${codeArray(o.codes)},
          ${o.sendEmail}::boolean, ${o.buyer.name}::text, ${o.buyer.surname}::text, ${o.buyer.email}::text, ${o.buyer.phone ?? null}::text,
          ${o.paymentMethod}::text, ${o.transactionId}::text, ${o.at}::timestamptz)`,
  );
}
