import type { AppContext } from '../../app-context.js';
import type { organisers } from '../../db/schema/index.js';
import { invalidData } from '../../http/errors.js';
import { isoWithOffset } from '../../lib/time.js';
import { organiserScope, requireAdmin, type Actor } from '../../platform/actor.js';
import { recordAudit } from '../../platform/audit.js';
import { insertOrganiser, listOrganisers } from '../../platform/organisers.repo.js';

const view = (o: typeof organisers.$inferSelect) => ({ id: o.id, name: o.name, created_at: isoWithOffset(o.createdAt)! });

/** Organisers the actor may see: all for an admin, its own for a promoter. */
export async function listOrganisersFor(ctx: AppContext, actor: Actor) {
  return (await listOrganisers(ctx.db, organiserScope(actor))).map(view);
}

/** Creates an organiser (admins only); promoters are then created for it. */
export async function createOrganiser(ctx: AppContext, actor: Actor, input: { name: string }) {
  requireAdmin(actor);
  const name = input.name?.trim();
  if (!name || name.length > 200) throw invalidData({ name: ['must have 1 to 200 characters'] });
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const row = await insertOrganiser(tx, name, now);
    await recordAudit(tx, { actor, action: 'organiser.create', targetType: 'organiser', targetId: row.id, organiserId: row.id, details: { name }, at: now });
    return view(row);
  });
}
