import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import type { IntegrationMode } from '../../db/schema/index.js';
import { policyOf } from '../../lib/integration-policy.js';
import { AppError } from '../../http/errors.js';
import { toAmount } from '../../lib/money.js';
import { inventoryChanged } from '../../lib/inventory-events.js';
import { countOrderCompleted } from '../../platform/metrics.js';
import type { OrderRows } from '../orders/orders.view.js';
import { withdrawVoucherAtConfirm } from '../orders/orders.service.js';
import { newTicketCode } from '../tickets/tickets.service.js';
import * as repo from './checkout.repo.js';
import { notOnSaleError } from '../../platform/sale-state.js';
import type { Buyer } from './checkout.repo.js';

export type { Buyer } from './checkout.repo.js';

/** Ticket codes drawn before knowing the order's size: enough for most orders (of 1 to 4 tickets). */
const FIRST_CODES = 4;
const firstCodeCount = (ctx: AppContext) => Math.min(FIRST_CODES, ctx.config.maxItemsPerOrder);

export interface CloseOrderInput {
  /** The order to close; confirm may name it by token within its channel instead (`orderRef`). */
  orderId?: number;
  orderRef?: repo.OrderRef;
  buyer: Buyer;
  paymentMethod?: string | null;
  transactionId?: string | null;
  /** The amount the payer declared or paid, in minor units; checked against the total under the lock. */
  expectedAmount?: number;
  /**
   * Complete the order even though its cart expired, provided every one of its seats is still free
   * (a card payment that was already taken when the notification arrives late).
   */
  allowExpired?: boolean;
  /** Also return the order's rows for its view (confirm answers with the view). */
  withRows?: boolean;
  /** The language of the answer's order view where one is sent with an error (voucher_withdrawn). */
  lang?: string;
}

export interface ClosedOrder {
  orderId: number;
  /** True when the order was already completed: nothing ran again (D22). */
  alreadyCompleted: boolean;
  /** Ticket codes in item order. */
  ticketCodes: string[];
  /** The order's rows after closing, when `withRows` was set (for orderViewFromRows). */
  rows: OrderRows;
}

/** close_order's outcome once it had codes enough. */
export type ClosingOutcome = Exclude<repo.CloseResult, { outcome: 'need_codes' }>;

/**
 * close_order with ticket codes made here (crypto) and handed in: as many as most orders have
 * (issue 27: not MAX_ITEMS_PER_ORDER on every confirm); a bigger order answers need_codes with its
 * count, and the second call costs one more round trip (a read under the order's lock, no commit of data).
 */
async function closeWithCodes(
  ctx: AppContext,
  db: Db,
  ref: repo.OrderRef,
  input: CloseOrderInput,
): Promise<ClosingOutcome> {
  const now = ctx.clock.now();
  let codeCount = firstCodeCount(ctx);
  for (;;) {
    const result = await repo.closeOrderInDatabase(db, {
      ref,
      now,
      allowExpired: input.allowExpired ?? false,
      expectedAmount: input.expectedAmount ?? null,
      buyer: input.buyer,
      paymentMethod: input.paymentMethod ?? null,
      transactionId: input.transactionId ?? null,
      codes: Array.from({ length: codeCount }, newTicketCode),
      withRows: input.withRows ?? false,
    });
    if (result.outcome !== 'need_codes') return result;
    codeCount = result.count;
  }
}

/**
 * The one closing process (D21), shared by confirm and the portal's payment notification: one
 * statement, so one transaction and one round trip (close_order, src/db/functions). It locks the
 * order, returns the existing result if it is completed already, sells its held seats (all of them
 * or nothing), writes the buyer, issues one ticket per item, completes the order and queues the
 * ticket e-mail (not in model D). Concurrent calls for one order queue on the row lock, so exactly
 * one of them closes and the others see its result.
 */
export async function closeOrder(ctx: AppContext, input: CloseOrderInput): Promise<ClosedOrder> {
  const result = await closeWithCodes(ctx, ctx.db, input.orderRef ?? { orderId: input.orderId! }, input);
  switch (result.outcome) {
    case 'closed':
      announceClosed(ctx, result.sessionIds);
      return { orderId: result.orderId, alreadyCompleted: false, ticketCodes: result.codes, rows: result.rows };
    case 'already_completed':
      return { orderId: result.orderId, alreadyCompleted: true, ticketCodes: result.codes, rows: result.rows };
    case 'not_found':
      throw new AppError('not_found', 'Order not found');
    case 'cancelled':
      throw new AppError('order_not_modifiable', 'The order was cancelled and cannot be confirmed');
    case 'empty':
      throw new AppError('order_empty', 'The order has no items');
    case 'expired':
      throw new AppError('order_expired', 'The order has expired');
    case 'amount_mismatch':
      throw new AppError('amount_mismatch', 'The declared amount does not match the order total', {
        amount: [`must equal the order total ${toAmount(result.totalAmount).toFixed(2)}`],
      });
    case 'seat_unavailable':
      throw new AppError('seat_unavailable', 'Some seats of the order are no longer available');
    case 'voucher_withdrawn':
      // D75: confirm (by token) of a cart whose voucher the organiser withdrew: removed, 409 with the new total.
      throw await withdrawVoucherAtConfirm(ctx, result.orderId, input.lang ?? 'en');
    case 'not_on_sale':
      throw await notOnSaleError(ctx.db, result.sessionId);
  }
}

/**
 * The closing process inside the caller's transaction `tx`, which already holds the order's row
 * lock and has decided that it may close (a card payment's completion, D73). Returns close_order's
 * outcome as it is (nothing written unless `closed`); the caller announces a `closed` one with
 * `announceClosed` once it has committed.
 */
export async function closeOrderWithin(
  ctx: AppContext,
  tx: Db,
  input: Omit<CloseOrderInput, 'orderRef' | 'withRows'> & { orderId: number },
): Promise<ClosingOutcome> {
  return closeWithCodes(ctx, tx, { orderId: input.orderId }, { ...input, withRows: false });
}

/** After a closing by closeOrderWithin has committed: inventory news and the metric, as closeOrder does. */
export function announceClosed(ctx: AppContext, sessionIds: number[]): void {
  inventoryChanged(ctx, sessionIds);
  countOrderCompleted('purchase');
}

/**
 * The part of closing after the seats are sold, for reservations (which sell their seats as they
 * create the order): buyer record, tickets, order completed, ticket e-mail queued when the model's
 * policy sends it (complete_order, the same function close_order runs). Inside the caller's transaction.
 */
export async function completeOrder(
  tx: Db,
  o: {
    orderId: number;
    mode: IntegrationMode;
    items: { id: number }[];
    buyer: Buyer;
    paymentMethod: string | null;
    transactionId: string | null;
    at: Date;
  },
): Promise<string[]> {
  const codes = o.items.map(() => newTicketCode());
  await repo.completeOrderInDatabase(tx, {
    orderId: o.orderId,
    itemIds: o.items.map((i) => i.id),
    codes,
    sendEmail: policyOf(o.mode).sendsTicketEmail,
    buyer: o.buyer,
    paymentMethod: o.paymentMethod,
    transactionId: o.transactionId,
    at: o.at,
  });
  return codes;
}
