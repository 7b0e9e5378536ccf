import type { AppContext } from '../../app-context.js';
import type { organisers } from '../../db/schema/index.js';
import { AppError, invalidData } from '../../http/errors.js';
import { isoWithOffset } from '../../lib/time.js';
import { canSee, organiserScope, requireAdmin, type Actor } from '../../platform/actor.js';
import { recordAudit } from '../../platform/audit.js';
import { insertOrganiser, listOrganisers, updateOrganiserRow } from '../../platform/organisers.repo.js';

const view = (o: typeof organisers.$inferSelect) => ({ id: o.id, name: o.name, reply_to_email: o.replyToEmail ?? null, created_at: isoWithOffset(o.createdAt)! });

/** Organisers the actor may see: all for an admin, its own for a promoter. */
export async function listOrganisersFor(ctx: AppContext, actor: Actor) {
  return (await listOrganisers(ctx.db, organiserScope(actor))).map(view);
}

/** Creates an organiser (admins only); promoters are then created for it. */
export async function createOrganiser(ctx: AppContext, actor: Actor, input: { name: string; reply_to_email?: string | null }) {
  requireAdmin(actor);
  const name = input.name?.trim();
  if (!name || name.length > 200) throw invalidData({ name: ['must have 1 to 200 characters'] });
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const row = await insertOrganiser(tx, name, now, input.reply_to_email ?? null);
    await recordAudit(tx, { actor, action: 'organiser.create', targetType: 'organiser', targetId: row.id, organiserId: row.id, details: { name }, at: now });
    return view(row);
  });
}

/** Renames an organiser or sets its box office address (an admin, or a promoter for its own). */
export async function updateOrganiser(ctx: AppContext, actor: Actor, id: number, input: { name?: string; reply_to_email?: string | null }) {
  if (!canSee(actor, id)) throw new AppError('not_found', 'Organiser not found');
  const name = input.name?.trim();
  if (input.name !== undefined && (!name || name.length > 200)) throw invalidData({ name: ['must have 1 to 200 characters'] });
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const row = await updateOrganiserRow(tx, id, { name, replyToEmail: input.reply_to_email });
    if (!row) throw new AppError('not_found', 'Organiser not found');
    await recordAudit(tx, { actor, action: 'organiser.update', targetType: 'organiser', targetId: id, organiserId: id, details: { ...input }, at: now });
    return view(row);
  });
}
