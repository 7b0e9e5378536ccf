import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { AppError, invalidData } from '../../http/errors.js';
import type { Actor } from '../../platform/actor.js';
import { recordAudit } from '../../platform/audit.js';
import { invitationLink, invitationToken, invitationTokenHash, newLinkNonce } from '../../platform/invitation-link.js';
import { queueInvitationEmail } from '../tickets/email-queue.service.js';
import { hashPassword, passwordProblem } from './accounts.password.js';
import { startSession } from './accounts.service.js';
import * as repo from './self-service.repo.js';

// Invitation links of new dashboard accounts (D65, docs/admin.md "Starting from zero"): a 256-bit
// token in the link derived from a random nonce and SIGNING_SECRET (src/platform/invitation-link.ts),
// stored only as the nonce and the token's HMAC, valid 72 hours and once, and e-mailed to the
// invitee through the durable e-mail queue (one e-mail per link). Accepting sets the account's
// first password and signs the invitee in.

export const INVITATION_TTL_HOURS = 72;

const tokenHash = (ctx: AppContext, token: string) => invitationTokenHash(ctx.config, token);
/** A token as the link carries it: base64url, 43 characters. Anything else is no invitation. */
const wellFormed = (token: string) => /^[A-Za-z0-9_-]{43}$/.test(token);

/**
 * Issues a new link for an invited account (revoking its open ones) and queues its e-mail, inside
 * the caller's transaction: the e-mail exists exactly when the invitation does.
 */
export async function issueInvitation(ctx: AppContext, tx: Db, actor: Actor, user: { id: number; email: string }, now: Date) {
  const linkNonce = newLinkNonce();
  const token = invitationToken(ctx.config, linkNonce);
  const expiresAt = new Date(now.getTime() + INVITATION_TTL_HOURS * 3600_000);
  await repo.revokeOpenInvitations(tx, user.id, now);
  const invitationId = await repo.insertInvitation(tx, { userId: user.id, tokenHash: tokenHash(ctx, token), linkNonce, createdBy: actor.userId, createdAt: now, expiresAt });
  await queueInvitationEmail(tx, { invitationId, recipient: user.email, at: now });
  return { link: invitationLink(ctx.config, token), expires_at: expiresAt.toISOString() };
}

export type InvitationState =
  | { state: 'open'; email: string; expiresAt: Date }
  | { state: 'unknown' | 'expired' | 'used' | 'replaced' | 'disabled' };

/** What the page at the link shows: the form, or why the link no longer works. */
export async function invitationState(ctx: AppContext, token: string): Promise<InvitationState> {
  if (!wellFormed(token)) return { state: 'unknown' };
  const found = await repo.findInvitation(ctx.db, tokenHash(ctx, token));
  if (!found) return { state: 'unknown' };
  const { invitation, user } = found;
  if (invitation.acceptedAt) return { state: 'used' };
  if (invitation.revokedAt) return { state: 'replaced' };
  if (user.disabledAt) return { state: 'disabled' };
  if (invitation.expiresAt.getTime() <= ctx.clock.now().getTime()) return { state: 'expired' };
  return { state: 'open', email: user.email, expiresAt: invitation.expiresAt };
}

export const INVITATION_MESSAGES: Record<Exclude<InvitationState['state'], 'open'>, string> = {
  unknown: 'This invitation link is not valid. Check that you copied the whole link, or ask an administrator for a new one.',
  expired: `This invitation has expired (links are valid for ${INVITATION_TTL_HOURS} hours). Ask an administrator to send you a new one.`,
  used: 'This invitation has already been used. Sign in with your e-mail and password.',
  replaced: 'A newer invitation was sent for this account; use the newest link, or ask an administrator for a new one.',
  disabled: 'This account has been disabled. Ask an administrator.',
};

/**
 * Accepts an invitation: sets the first password and opens a dashboard session (the plain session
 * id is returned for the cookie). The link is single-use by the conditional UPDATE of
 * repo.acceptInvitation; a link that is not open any more answers 410 with the reason.
 */
export async function acceptInvitation(ctx: AppContext, token: string, input: { password: string; confirm: string }): Promise<string> {
  const fields: Record<string, string[]> = {};
  const weak = passwordProblem(input.password);
  if (weak) fields.password = [weak];
  else if (input.password !== input.confirm) fields.confirm = ['must be the same password'];
  if (Object.keys(fields).length) throw invalidData(fields);
  const before = await invitationState(ctx, token);
  if (before.state !== 'open') throw new AppError(before.state === 'unknown' ? 'not_found' : 'invitation_gone', INVITATION_MESSAGES[before.state]);
  const passwordHash = await hashPassword(input.password);
  const now = ctx.clock.now();
  const sessionId = await ctx.db.transaction(async (tx) => {
    const userId = await repo.acceptInvitation(tx, tokenHash(ctx, token), now);
    if (userId === null) return null;
    const user = await repo.findUser(tx, userId);
    if (!user || user.disabledAt || !(await repo.setFirstPassword(tx, userId, passwordHash))) {
      throw new AppError('invitation_gone', INVITATION_MESSAGES.used);
    }
    await recordAudit(tx, {
      actor: { userId, email: user.email },
      action: 'user.invitation_accept',
      targetType: 'user',
      targetId: userId,
      organiserId: user.organiserId,
      details: { email: user.email },
      at: now,
    });
    return startSession(tx, userId, now);
  });
  if (sessionId === null) {
    // Another acceptance came first, or the link expired meanwhile.
    const after = await invitationState(ctx, token);
    throw new AppError('invitation_gone', INVITATION_MESSAGES[after.state === 'open' ? 'used' : after.state]);
  }
  return sessionId;
}
