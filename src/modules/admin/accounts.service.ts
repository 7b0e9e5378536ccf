import crypto from 'node:crypto';
import type { AppContext } from '../../app-context.js';
import type { UserRole } from '../../db/schema/index.js';
import { AppError, invalidData } from '../../http/errors.js';
import { emailProblem } from '../../lib/email-address.js';
import { randomBase62, sha256 } from '../../lib/secrets.js';
import { isoWithOffset } from '../../lib/time.js';
import { conflictOnDuplicate, type Actor } from '../../platform/actor.js';
import { recordAudit } from '../../platform/audit.js';
import type { Db } from '../../db/client.js';
import * as repo from './accounts.repo.js';
import { touchToken } from './self-service.repo.js';
import { organiserExists } from '../../platform/organisers.repo.js';
import { dummyPasswordHash, hashPassword, passwordProblem, verifyPassword } from './accounts.password.js';

/** Dashboard sessions last 12 hours; then the user signs in again. */
export const SESSION_TTL_SECONDS = 12 * 3600;
export const normaliseEmail = (email: string) => email.trim().toLowerCase();

type UserRow = NonNullable<Awaited<ReturnType<typeof repo.findUserByEmail>>>;
const actorOf = (user: UserRow): Actor => ({ userId: user.id, email: user.email, role: user.role, organiserId: user.organiserId });

export interface NewUser {
  email: string;
  password: string;
  role: UserRole;
  organiserId?: number | null;
}

/**
 * The API's refusals of a new account (admin API and CLI, password or invitation alike): 404 for an
 * organiser that does not exist, 409 conflict for an e-mail address that has an account. The
 * dashboard's form shows the same two beside their fields instead (accounts-admin.service.ts).
 */
export async function refuseTakenAccount(db: Db, email: string, organiserId: number | null): Promise<void> {
  if (organiserId !== null && !(await organiserExists(db, organiserId))) throw new AppError('not_found', 'Organiser not found');
  if (await repo.findUserByEmail(db, email)) throw new AppError('conflict.account_email', { email });
}

/** Creates an admin or a promoter account (operator CLI, or an admin). */
export async function createUser(ctx: AppContext, actor: Actor, input: NewUser) {
  const email = normaliseEmail(input.email);
  const fields: Record<string, string[]> = {};
  const badEmail = emailProblem(email);
  if (badEmail) fields.email = [badEmail];
  const weak = passwordProblem(input.password);
  if (weak) fields.password = [weak];
  if (input.role === 'promoter' && input.organiserId == null) fields.organiser_id = ['is required for a promoter'];
  if (Object.keys(fields).length) throw invalidData(fields);
  const organiserId = input.role === 'promoter' ? input.organiserId! : null;
  const passwordHash = await hashPassword(input.password);
  const now = ctx.clock.now();
  return conflictOnDuplicate(() => new AppError('conflict.account_email', { email }), () => ctx.db.transaction(async (tx) => {
    await refuseTakenAccount(tx, email, organiserId);
    const user = await repo.insertUser(tx, { email, passwordHash, role: input.role, organiserId, createdAt: now });
    await recordAudit(tx, {
      actor,
      action: 'user.create',
      targetType: 'user',
      targetId: user.id,
      organiserId,
      details: { email, role: user.role },
      at: now,
    });
    return { id: user.id, email: user.email, role: user.role, organiser_id: user.organiserId, created_at: isoWithOffset(user.createdAt)! };
  }));
}

export interface LoginResult {
  /** The plain session id for the cookie; only its hash is stored. */
  sessionId: string;
  actor: Actor;
}

/**
 * Checks e-mail and password for the dashboard; an unknown e-mail costs the same time as a wrong
 * password. The route throttles failures (src/http/rate-limits.ts, `adminLoginCounters`).
 */
export async function login(ctx: AppContext, input: { email: string; password: string }): Promise<LoginResult> {
  const email = normaliseEmail(input.email);
  const now = ctx.clock.now();
  const user = await repo.findUserByEmail(ctx.db, email);
  const valid = await verifyPassword(input.password, user?.passwordHash ?? (await dummyPasswordHash()));
  if (!user || !valid || user.disabledAt) throw new AppError('invalid_credentials', 'Wrong e-mail or password');
  const sessionId = await ctx.db.transaction((tx) => startSession(tx, user.id, now));
  return { sessionId, actor: actorOf(user) };
}

/** Opens a dashboard session for a user (sign-in, an accepted invitation); returns the plain id for the cookie. */
export async function startSession(db: Db, userId: number, now: Date): Promise<string> {
  const sessionId = crypto.randomBytes(32).toString('base64url');
  await repo.insertSession(db, {
    idHash: sha256(sessionId),
    userId,
    csrfToken: crypto.randomBytes(32).toString('base64url'),
    createdAt: now,
    expiresAt: new Date(now.getTime() + SESSION_TTL_SECONDS * 1000),
  });
  return sessionId;
}

/** The actor and CSRF token of a live dashboard session, or null. */
export async function sessionActor(ctx: AppContext, sessionId: string): Promise<{ actor: Actor; csrfToken: string; organiserName: string | null } | null> {
  const found = await repo.findLiveSession(ctx.db, sha256(sessionId), ctx.clock.now());
  return found && { actor: actorOf(found.user), csrfToken: found.csrfToken, organiserName: found.organiserName };
}

export const logout = (ctx: AppContext, sessionId: string) => repo.deleteSession(ctx.db, sha256(sessionId));

/** Issues an admin API token for a user; the plain token is returned once and never stored. */
export async function createApiToken(ctx: AppContext, actor: Actor, input: { email: string; name: string }) {
  const name = input.name.trim();
  if (!name || name.length > 100) {
    throw invalidData({ name: ['must have 1 to 100 characters'] });
  }
  const token = `at_${randomBase62(44)}`;
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const user = await repo.findUserByEmail(tx, normaliseEmail(input.email));
    if (!user) throw new AppError('not_found', 'User not found');
    const row = await repo.insertApiToken(tx, { userId: user.id, name, tokenHash: sha256(token), lastFour: token.slice(-4), createdAt: now });
    await recordAudit(tx, {
      actor,
      action: 'admin_token.create',
      targetType: 'admin_api_token',
      targetId: row.id,
      organiserId: user.organiserId,
      details: { user_email: user.email, name, last_four: row.lastFour },
      at: now,
    });
    return { id: row.id, token, name, user_email: user.email };
  });
}

/**
 * The actor of an admin API bearer token, given by its hash (`request.bearer`, null without a bearer
 * header); 401 when missing, unknown, revoked or its user disabled.
 */
export async function authenticateApiToken(ctx: AppContext, tokenHash: string | null): Promise<Actor> {
  if (tokenHash === null) throw new AppError('unauthenticated', 'An admin API token is required (Authorization: Bearer <token>)');
  const user = await repo.findUserByApiToken(ctx.db, tokenHash);
  if (!user) throw new AppError('invalid_token', 'The admin API token is invalid or revoked');
  // "Last used" of the dashboard's token list, written at most once a minute per token.
  await touchToken(ctx.db, tokenHash, ctx.clock.now());
  return actorOf(user);
}
