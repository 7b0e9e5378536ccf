import { and, desc, eq, lt } from 'drizzle-orm';
import type { Db } from '../db/client.js';
import { auditLog } from '../db/schema/index.js';
import { isoWithOffset } from '../lib/time.js';
import type { Actor } from './actor.js';

export interface AuditEntry {
  actor: Pick<Actor, 'userId' | 'email'>;
  /** dotted verb, e.g. widget_key.generate, widget_key.revoke, channel.mode_change, order.refund */
  action: string;
  targetType: string;
  targetId: string | number;
  /** The organiser whose data changed, so that its promoters can read the entry. */
  organiserId?: number | null;
  details?: Record<string, unknown>;
  /** From ctx.clock. */
  at: Date;
}

/**
 * Writes one audit entry. Pass the transaction of the change itself, so that the change and its
 * entry commit (or roll back) together.
 */
export async function recordAudit(db: Db, entry: AuditEntry): Promise<void> {
  await db.insert(auditLog).values({
    userId: entry.actor.userId,
    userEmail: entry.actor.email,
    action: entry.action,
    targetType: entry.targetType,
    targetId: String(entry.targetId),
    organiserId: entry.organiserId ?? null,
    details: entry.details ?? {},
    createdAt: entry.at,
  });
}

/** Newest entries first; a promoter sees only the entries about its organiser. */
export async function listAudit(db: Db, opts: { organiserId: number | null; beforeId?: number; limit: number }) {
  const conditions = [];
  if (opts.organiserId !== null) conditions.push(eq(auditLog.organiserId, opts.organiserId));
  if (opts.beforeId) conditions.push(lt(auditLog.id, opts.beforeId));
  const rows = await db
    .select()
    .from(auditLog)
    .where(conditions.length ? and(...conditions) : undefined)
    .orderBy(desc(auditLog.id))
    .limit(opts.limit);
  return rows.map((r) => ({
    id: r.id,
    user_id: r.userId,
    user_email: r.userEmail,
    action: r.action,
    target_type: r.targetType,
    target_id: r.targetId,
    organiser_id: r.organiserId,
    details: r.details,
    created_at: isoWithOffset(r.createdAt)!,
  }));
}
