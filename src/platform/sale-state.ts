import { sql } from 'drizzle-orm';
import { queryRows, type Db } from '../db/client.js';
import { AppError, notOnSale } from '../http/errors.js';
import { isoWithOffset } from '../lib/time.js';
import { dbDate, type DbTime } from '../db/instants.js';

// Whether a session is on sale (D59 sales windows, D74 "only on sale is sold"). The rule that
// decides a sale lives in SQL (session_is_on_sale, src/db/functions/015_session_is_on_sale.sql), so
// that the hold and the closing check it under the order's lock; this module reads the window for
// the 409's data and computes the catalogue's `sale_state` with the same rule.

export type SaleState = 'scheduled' | 'on_sale' | 'ended' | 'sold_out';

export interface SaleWindow {
  salesStartAt: Date | null;
  salesEndAt: Date | null;
}

/**
 * The catalogue's `sale_state` (D59) of a session of a published event: `ended` once it is cancelled
 * or closed (D74: never sold again; the session detail and the live map still answer for it), once
 * its window has closed or once it has started; else `scheduled` before its sales start, `sold_out`
 * inside the window with nothing free, and `on_sale`.
 */
export function saleStateOf(s: SaleWindow & { status: string; startDatetime: Date; available: number }, now: Date): SaleState {
  if (s.status === 'cancelled' || s.status === 'closed') return 'ended';
  if (s.salesStartAt && now < s.salesStartAt) return 'scheduled';
  if ((s.salesEndAt && now >= s.salesEndAt) || s.startDatetime <= now) return 'ended';
  return s.available > 0 ? 'on_sale' : 'sold_out';
}

/** The sales window as the API shows it (D12). */
export const windowJson = (w: SaleWindow) => ({ sales_start_at: isoWithOffset(w.salesStartAt), sales_end_at: isoWithOffset(w.salesEndAt) });

/** The 409 `not_on_sale` of a session, with its sales window in `data` (D59). */
export async function notOnSaleError(db: Db, sessionId: number): Promise<AppError> {
  const [row] = await queryRows<{ sales_start_at: DbTime | null; sales_end_at: DbTime | null }>(
    db,
    sql`SELECT sales_start_at, sales_end_at FROM sessions WHERE id = ${sessionId}`,
  );
  const w = windowJson({ salesStartAt: dbDate(row?.sales_start_at ?? null), salesEndAt: dbDate(row?.sales_end_at ?? null) });
  return notOnSale(sessionId, { salesStartAt: w.sales_start_at, salesEndAt: w.sales_end_at });
}

