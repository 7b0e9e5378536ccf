import type { AppContext } from '../../app-context.js';
import type { UserRole } from '../../db/schema/index.js';
import { AppError, invalidData, notFound } from '../../http/errors.js';
import { emailProblem } from '../../lib/email-address.js';
import { isoWithOffset } from '../../lib/time.js';
import { conflictOnDuplicate, requireAdmin, type Actor } from '../../platform/actor.js';
import { recordAudit } from '../../platform/audit.js';
import { organiserExists } from '../../platform/organisers.repo.js';
import * as accountsRepo from './accounts.repo.js';
import { createUser, normaliseEmail } from './accounts.service.js';
import { issueInvitation } from './invitations.service.js';
import * as repo from './self-service.repo.js';
import { dbIso } from '../../db/instants.js';

// Accounts in the dashboard (D65): an admin lists every account, creates admins and promoters (with
// a password, or with an invitation link), disables and enables them and sends new links. A
// promoter sees only its own account and changes nothing here (403).

/** An id a row may have (int32, D47): anything else is no row, and never reaches the database. */
export const isId = (n: number | null | undefined): n is number => Number.isInteger(n) && n! >= 1 && n! <= 2_147_483_647;

export interface AccountView {
  id: number;
  email: string;
  role: UserRole;
  organiser_id: number | null;
  organiser_name: string | null;
  status: 'active' | 'disabled' | 'invited' | 'invitation_expired';
  invitation_expires_at: string | null;
  created_at: string;
}

export async function listAccountsFor(ctx: AppContext, actor: Actor): Promise<AccountView[]> {
  const rows = await repo.listAccounts(ctx.db, actor.role === 'admin' ? null : actor.userId ?? -1);
  const now = ctx.clock.now().getTime();
  return rows.map((r) => {
    const expires = r.invitation_expires_at === null ? null : new Date(r.invitation_expires_at);
    const status = r.disabled_at ? 'disabled' : !r.invited ? 'active' : expires && expires.getTime() > now ? 'invited' : 'invitation_expired';
    return {
      id: Number(r.id),
      email: r.email,
      role: r.role,
      organiser_id: r.organiser_id === null ? null : Number(r.organiser_id),
      organiser_name: r.organiser_name,
      status,
      invitation_expires_at: r.invited ? dbIso(r.invitation_expires_at) : null,
      created_at: dbIso(r.created_at),
    };
  });
}

export interface NewAccount {
  email: string;
  role: string;
  organiserId: number | undefined;
  /** 'password' sets `password` now; 'invitation' makes a 72-hour link for the person to set it. */
  method: string;
  password: string;
}

/** Creates an account (admins only); with an invitation, the link comes back once. */
export async function createAccountAs(
  ctx: AppContext,
  actor: Actor,
  input: NewAccount,
): Promise<{ id: number; email: string; role: UserRole; organiser_id: number | null; created_at: string; invitation: { link: string; expires_at: string } | null }> {
  requireAdmin(actor);
  const fields: Record<string, string[]> = {};
  if (input.role !== 'admin' && input.role !== 'promoter') fields.role = ['must be admin or promoter'];
  if (input.method !== 'password' && input.method !== 'invitation') fields.method = ['must be password or invitation'];
  if (input.role === 'promoter' && input.organiserId === undefined) fields.organiser_id = ['is required for a promoter'];
  if (input.organiserId !== undefined && !isId(input.organiserId)) fields.organiser_id = ['must be an organiser'];
  const email = normaliseEmail(input.email);
  const badEmail = emailProblem(email);
  if (badEmail) fields.email = [badEmail];
  if (Object.keys(fields).length) throw invalidData(fields);
  const role = input.role as UserRole;
  const organiserId = role === 'promoter' ? input.organiserId! : null;
  // Checked here too (the writes check again) so that the form shows them beside their fields.
  if (organiserId !== null && !(await organiserExists(ctx.db, organiserId))) fields.organiser_id = ['must be an organiser'];
  if (await accountsRepo.findUserByEmail(ctx.db, email)) fields.email = ['an account with this e-mail already exists'];
  if (Object.keys(fields).length) throw invalidData(fields);
  if (input.method === 'password') {
    const user = await createUser(ctx, actor, { email, password: input.password, role, organiserId });
    return { ...user, role, invitation: null };
  }
  const now = ctx.clock.now();
  return conflictOnDuplicate(() => new AppError('conflict.account_email', { email }), () =>
    ctx.db.transaction(async (tx) => {
      if (organiserId !== null && !(await organiserExists(tx, organiserId))) throw invalidData({ organiser_id: ['must be an organiser'] });
      if (await accountsRepo.findUserByEmail(tx, email)) throw invalidData({ email: ['an account with this e-mail already exists'] });
      const user = await accountsRepo.insertUser(tx, { email, passwordHash: repo.INVITED_PASSWORD_HASH, role, organiserId, createdAt: now });
      const invitation = await issueInvitation(ctx, tx, actor, { id: user.id, email }, now);
      await recordAudit(tx, { actor, action: 'user.create', targetType: 'user', targetId: user.id, organiserId, details: { email, role, invited: true }, at: now });
      return { id: user.id, email, role, organiser_id: organiserId, created_at: isoWithOffset(now)!, invitation };
    }),
  );
}

/** A new invitation link for an account that has not set its password yet (the older links stop working). */
export async function resendInvitationAs(ctx: AppContext, actor: Actor, userId: number) {
  requireAdmin(actor);
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const user = await repo.findUser(tx, userId);
    if (!user) throw notFound('Account');
    if (user.passwordHash !== repo.INVITED_PASSWORD_HASH) throw new AppError('conflict.account_has_password', { email: user.email });
    if (user.disabledAt) throw new AppError('conflict.account_disabled', { email: user.email });
    const invitation = await issueInvitation(ctx, tx, actor, { id: userId, email: user.email }, now);
    await recordAudit(tx, { actor, action: 'user.invitation_resend', targetType: 'user', targetId: userId, organiserId: user.organiserId, details: { email: user.email }, at: now });
    return { email: user.email, invitation };
  });
}

/** Disables (sign-in, sessions and API tokens stop at once) or enables an account; never one's own. */
export async function setAccountDisabledAs(ctx: AppContext, actor: Actor, userId: number, disabled: boolean) {
  requireAdmin(actor);
  if (userId === actor.userId) throw new AppError('conflict', 'You cannot disable your own account');
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    const user = await repo.findUser(tx, userId);
    if (!user) throw notFound('Account');
    await repo.setUserDisabled(tx, userId, disabled ? now : null);
    await recordAudit(tx, {
      actor,
      action: disabled ? 'user.disable' : 'user.enable',
      targetType: 'user',
      targetId: userId,
      organiserId: user.organiserId,
      details: { email: user.email },
      at: now,
    });
  });
}
