import type { AppContext } from '../../app-context.js';
import { invalidData, notFound } from '../../http/errors.js';
import { emailProblem } from '../../lib/email-address.js';
import { isoWithOffset } from '../../lib/time.js';
import { randomBase62 } from '../../lib/secrets.js';
import { canSee, requireAdmin, type Actor } from '../../platform/actor.js';
import { recordAudit } from '../../platform/audit.js';
import type { Job } from '../../platform/scheduler.js';
import { organiserExists } from '../../platform/organisers.repo.js';
import * as repo from './personal-data.repo.js';

function checkedAddress(email: unknown): string {
  const address = typeof email === 'string' ? email.trim() : '';
  const problem = address ? emailProblem(address) : 'is required';
  if (problem) throw invalidData({ email: [problem] });
  return address;
}

/** A fresh stand-in address: unique per erasure, at a domain that can never receive mail (RFC 2606). */
const standIn = () => `erased-${randomBase62(12).toLowerCase()}@erased.invalid`;

/**
 * Erases one buyer by e-mail address everywhere personal data is kept (D68; docs/privacy.md),
 * keeping amounts, seats and tickets for accounting and the door. Admins only: a buyer's address
 * may span organisers. The audit entry records that an erasure happened and its counts, never the address.
 */
export async function eraseBuyer(ctx: AppContext, actor: Actor, email: unknown): Promise<repo.ErasureCounts> {
  requireAdmin(actor);
  const address = checkedAddress(email);
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const found = await repo.findByAddress(tx, address);
    const counts = await repo.erase(tx, { ...found, replacement: standIn(), scope: 'address' });
    await recordAudit(tx, { actor, action: 'personal_data.erase', targetType: 'personal_data', targetId: `erasure-${now.getTime()}`, details: { ...counts }, at: now });
    return counts;
  });
}

/** Everything kept about one buyer, as JSON (D68 export; GDPR article 15). Admins only. */
export async function exportBuyer(ctx: AppContext, actor: Actor, email: unknown) {
  requireAdmin(actor);
  const address = checkedAddress(email);
  const data = await repo.personalDataOf(ctx.db, address);
  await recordAudit(ctx.db, { actor, action: 'personal_data.export', targetType: 'personal_data', targetId: `export-${ctx.clock.now().getTime()}`, details: { orders: data.orders.length }, at: ctx.clock.now() });
  return { email: address, exported_at: isoWithOffset(ctx.clock.now())!, ...data };
}

/** An organiser's automatic erasure setting: days after each session, or null for never. */
export async function retentionFor(ctx: AppContext, actor: Actor, organiserId: number) {
  if (!canSee(actor, organiserId) || !(await organiserExists(ctx.db, organiserId))) throw notFound('Organiser');
  return { organiser_id: organiserId, erase_after_days: await repo.retentionOf(ctx.db, organiserId) };
}

/** Sets (or with null, turns off) an organiser's automatic erasure; audited. */
export async function setRetentionAs(ctx: AppContext, actor: Actor, organiserId: number, days: number | null) {
  if (!canSee(actor, organiserId) || !(await organiserExists(ctx.db, organiserId))) throw notFound('Organiser');
  if (days !== null && !(Number.isInteger(days) && days >= 1 && days <= 3650)) throw invalidData({ erase_after_days: ['must be a whole number of days from 1 to 3650, or null'] });
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    await repo.setRetention(tx, organiserId, days, now);
    await recordAudit(tx, { actor, action: 'organiser.privacy', targetType: 'organiser', targetId: organiserId, organiserId, details: { erase_after_days: days }, at: now });
  });
  return { organiser_id: organiserId, erase_after_days: days };
}

/** Orders erased per pass of the automatic erasure: small transactions, the rest at the next pass. */
const ERASURE_BATCH = 200;

/** One pass of the automatic erasure (D68): the orders whose sessions are past their organiser's days. */
export async function eraseDueOrders(ctx: AppContext): Promise<number> {
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const due = await repo.findDueForErasure(tx, now, ERASURE_BATCH);
    if (due.orderIds.length === 0) return 0;
    const counts = await repo.erase(tx, { ...due, replacement: standIn(), scope: 'orders' });
    await recordAudit(tx, {
      actor: { userId: null, email: 'system:retention' },
      action: 'personal_data.erase',
      targetType: 'personal_data',
      targetId: `retention-${now.getTime()}`,
      details: { automatic: true, ...counts },
      at: now,
    });
    return due.orderIds.length;
  });
}

/** The automatic erasure, hourly: the scheduler's job. */
export function personalDataRetentionJob(ctx: AppContext): Job {
  return {
    name: 'personal-data-retention',
    intervalMs: 60 * 60_000,
    async run() {
      while ((await eraseDueOrders(ctx)) === ERASURE_BATCH);
    },
  };
}
