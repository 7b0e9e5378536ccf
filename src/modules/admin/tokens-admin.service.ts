import type { AppContext } from '../../app-context.js';
import { AppError, invalidData, notFound } from '../../http/errors.js';
import type { Actor } from '../../platform/actor.js';
import { recordAudit } from '../../platform/audit.js';
import { isId } from './accounts-admin.service.js';
import { createApiToken } from './accounts.service.js';
import * as repo from './self-service.repo.js';
import { dbIso } from '../../db/instants.js';

// Admin API tokens in the dashboard (D65): an admin lists, creates (for any account) and revokes
// every token; a promoter only its own. Creation is the accounts service's (the secret is shown
// once and stored as a SHA-256 hash).

const ownOnly = (actor: Actor) => (actor.role === 'admin' ? null : (actor.userId ?? -1));

export async function listTokensFor(ctx: AppContext, actor: Actor) {
  return (await repo.listTokens(ctx.db, ownOnly(actor))).map((t) => ({
    id: Number(t.id),
    name: t.name,
    last_four: t.last_four,
    user_email: t.user_email,
    created_at: dbIso(t.created_at),
    last_used_at: dbIso(t.last_used_at),
    revoked_at: dbIso(t.revoked_at),
  }));
}

/** A new token for `userId` (a promoter: itself only; another account is 404). */
export async function createTokenAs(ctx: AppContext, actor: Actor, input: { userId: number | undefined; name: string }) {
  const userId = actor.role === 'admin' ? input.userId : actor.userId;
  if (userId === undefined || userId === null) throw invalidData({ user_id: ['is required'] });
  if (!isId(userId)) throw invalidData({ user_id: ['must be an account'] });
  const user = await repo.findUser(ctx.db, userId);
  if (!user || (actor.role !== 'admin' && user.id !== actor.userId)) throw invalidData({ user_id: ['must be an account'] });
  if (user.disabledAt) throw invalidData({ user_id: ['is disabled'] });
  return createApiToken(ctx, actor, { email: user.email, name: input.name });
}

/** Revokes a token at once (409 when it was revoked already). */
export async function revokeTokenAs(ctx: AppContext, actor: Actor, id: number) {
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    const token = await repo.findToken(tx, id);
    if (!token || (actor.role !== 'admin' && token.userId !== actor.userId)) throw notFound('Token');
    if (!(await repo.revokeToken(tx, id, now))) throw new AppError('conflict', 'The token was revoked already');
    const owner = await repo.findUser(tx, token.userId);
    await recordAudit(tx, {
      actor,
      action: 'admin_token.revoke',
      targetType: 'admin_api_token',
      targetId: id,
      organiserId: owner?.organiserId ?? null,
      details: { name: token.name, last_four: token.lastFour, user_email: owner?.email ?? null },
      at: now,
    });
  });
}
