import type { AppContext } from '../../app-context.js';
import type { organisers } from '../../db/schema/index.js';
import { invalidData, notFound } from '../../http/errors.js';
import { isoWithOffset } from '../../lib/time.js';
import { canSee, organiserScope, requireAdmin, type Actor } from '../../platform/actor.js';
import { recordAudit } from '../../platform/audit.js';
import { insertOrganiser, listOrganisers, updateOrganiserRow } from '../../platform/organisers.repo.js';
import { organiserSummaries } from './self-service.repo.js';

const view = (o: typeof organisers.$inferSelect) => ({
  id: o.id,
  name: o.name,
  refund_fees: o.refundFees,
  reply_to_email: o.replyToEmail ?? null,
  created_at: isoWithOffset(o.createdAt)!,
});

/** Organisers the actor may see: all for an admin, its own for a promoter. */
export async function listOrganisersFor(ctx: AppContext, actor: Actor) {
  return (await listOrganisers(ctx.db, organiserScope(actor))).map(view);
}

/** Creates an organiser (admins only); promoters are then created for it. */
export async function createOrganiser(ctx: AppContext, actor: Actor, input: { name: string; refund_fees?: boolean; reply_to_email?: string | null }) {
  requireAdmin(actor);
  const name = input.name?.trim();
  if (!name || name.length > 200) throw invalidData({ name: ['must have 1 to 200 characters'] });
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const row = await insertOrganiser(tx, name, now, { refundFees: input.refund_fees ?? true, replyToEmail: input.reply_to_email ?? null });
    await recordAudit(tx, { actor, action: 'organiser.create', targetType: 'organiser', targetId: row.id, organiserId: row.id, details: { name }, at: now });
    return view(row);
  });
}

/**
 * Changes an organiser's name or settings: `refund_fees` (D58), the box office address (Reply-To of
 * its buyers' e-mails). An admin any organiser, a promoter its own (another is 404).
 */
export async function updateOrganiser(ctx: AppContext, actor: Actor, id: number, input: { name?: string; refund_fees?: boolean; reply_to_email?: string | null }) {
  if (!canSee(actor, id)) throw notFound('Organiser');
  const name = input.name?.trim();
  if (input.name !== undefined && (!name || name.length > 200)) throw invalidData({ name: ['must have 1 to 200 characters'] });
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const row = await updateOrganiserRow(tx, id, { name, refundFees: input.refund_fees, replyToEmail: input.reply_to_email });
    if (!row) throw notFound('Organiser');
    await recordAudit(tx, { actor, action: 'organiser.update', targetType: 'organiser', targetId: id, organiserId: id, details: { ...input }, at: now });
    return view(row);
  });
}

/** Organisers with how many events, venues and accounts each has (the dashboard's list). */
export async function organiserSummariesFor(ctx: AppContext, actor: Actor) {
  return (await organiserSummaries(ctx.db, organiserScope(actor))).map((o) => ({
    id: Number(o.id),
    name: o.name,
    events: Number(o.events),
    venues: Number(o.venues),
    accounts: Number(o.accounts),
    created_at: isoWithOffset(new Date(o.created_at))!,
  }));
}
