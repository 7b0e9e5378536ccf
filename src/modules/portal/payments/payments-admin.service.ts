import { sql, type SQL } from 'drizzle-orm';
import type { AppContext } from '../../../app-context.js';
import { queryRows } from '../../../db/client.js';
import type { PaymentStatus } from '../../../db/schema/index.js';
import { toAmount } from '../../../lib/money.js';
import { organiserScope, type Actor } from '../../../platform/actor.js';
import { dbIso, type DbTime } from '../../../db/instants.js';

// The card payments for the back office (D73): above all those that took money but completed no
// order (`refund_required`) until the scheduler has refunded them. Read-only.

export interface PaymentFilter {
  status?: PaymentStatus;
  channelId?: number;
  /** Keyset pagination: payments created before this payment (its id). */
  before?: string;
  limit?: number;
}

interface Raw {
  id: string;
  order_id: string | number;
  order_reference: string;
  channel_id: number;
  slug: string;
  provider: string;
  provider_ref: string | null;
  status: PaymentStatus;
  amount: number;
  currency: string;
  buyer_name: string;
  buyer_surname: string;
  buyer_email: string;
  failure_reason: string | null;
  created_at: DbTime;
  updated_at: DbTime;
  closed_at: DbTime | null;
  refund_attempts: number;
  refund_next_at: DbTime | null;
  refund_error: string | null;
  refunded_at: DbTime | null;
  refund_ref: string | null;
}

/** Payments of the channels the actor may see, newest first (at most 200 per call). */
export async function listPaymentsFor(ctx: AppContext, actor: Actor, f: PaymentFilter = {}) {
  const where: SQL[] = [sql`TRUE`];
  const organiser = organiserScope(actor);
  if (organiser !== null) where.push(sql`c.organiser_id = ${organiser}`);
  if (f.status) where.push(sql`p.status = ${f.status}`);
  if (f.channelId) where.push(sql`p.channel_id = ${f.channelId}`);
  if (f.before) where.push(sql`(p.created_at, p.id) < (SELECT b.created_at, b.id FROM payments b WHERE b.id = ${f.before})`);
  const rows = await queryRows<Raw>(
    ctx.db,
    sql`SELECT p.id, p.order_id, o.reference AS order_reference, p.channel_id, c.slug, p.provider, p.provider_ref, p.status,
               p.amount, p.currency, p.buyer_name, p.buyer_surname, p.buyer_email, p.failure_reason, p.created_at, p.updated_at,
               p.closed_at, p.refund_attempts, p.refund_next_at, p.refund_error, p.refunded_at, p.refund_ref
          FROM payments p JOIN orders o ON o.id = p.order_id JOIN sales_channels c ON c.id = p.channel_id
         WHERE ${sql.join(where, sql` AND `)}
         ORDER BY p.created_at DESC, p.id DESC
         LIMIT ${Math.min(f.limit ?? 50, 200)}`,
  );
  return rows.map((r) => ({
    id: r.id,
    order_id: Number(r.order_id),
    order_reference: r.order_reference,
    channel_id: r.channel_id,
    sales_channel_slug: r.slug,
    provider: r.provider,
    provider_ref: r.provider_ref,
    status: r.status,
    amount: toAmount(Number(r.amount)),
    currency: r.currency,
    buyer_name: `${r.buyer_name} ${r.buyer_surname}`.trim(),
    buyer_email: r.buyer_email,
    failure_reason: r.failure_reason,
    created_at: dbIso(r.created_at),
    updated_at: dbIso(r.updated_at),
    closed_at: dbIso(r.closed_at),
    refund_attempts: r.refund_attempts,
    refund_next_at: r.status === 'refund_required' ? dbIso(r.refund_next_at) : null,
    refund_error: r.refund_error,
    refunded_at: dbIso(r.refunded_at),
    refund_ref: r.refund_ref,
  }));
}
