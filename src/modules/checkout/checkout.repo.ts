import { sql } from 'drizzle-orm';
import { hotStatement, parseJson, type Db } from '../../db/client.js';
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
function codeArrayText(codes: readonly string[]): string {
  if (!codes.every((c) => /^[0-9A-Za-z]+$/.test(c))) throw new Error('ticket codes must be base62');
  return `{${codes.join(',')}}`;
}
const codeArray = (codes: readonly string[]) => sql`${codeArrayText(codes)}::text[]`;

/** The integration policy's modes that get the ticket e-mail, as a text[] parameter of close_order. */
const emailModes = `{${TICKET_EMAIL_MODES.join(',')}}`;

const closeOrderStatement = hotStatement<{ r: Record<string, unknown> | string }>(
  'close_order',
  'SELECT close_order($1::bigint, $2::text, $3::int, $4::timestamptz, $5::boolean, $6::int, $7::text, $8::text, $9::text, $10::text, $11::text, $12::text, $13::text[], $14::boolean, $15::text[]) AS r',
);

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
  const [row] = await closeOrderStatement(db, [
    byId ? (c.ref as { orderId: number }).orderId : null,
    byId ? null : (c.ref as { orderToken: string }).orderToken,
    byId ? null : (c.ref as { channelId: number }).channelId,
    c.now, c.allowExpired, c.expectedAmount, c.buyer.name, c.buyer.surname, c.buyer.email, c.buyer.phone ?? null,
    c.paymentMethod, c.transactionId, codeArrayText(c.codes), c.withRows, emailModes,
  ]);
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
