import { and, eq, isNull, sql } from 'drizzle-orm';
import { queryRows, type Db } from '../../db/client.js';
import { accountInvitations, adminApiTokens, users } from '../../db/schema/index.js';
import type { DbTime } from '../../db/instants.js';

// SQL of the self-service pages (D65): accounts with their organiser and invitation state,
// invitations, admin API tokens, organisers with their counts. The services own the transactions.

/** The password_hash of an invited account until it sets its password: no scrypt hash matches it. */
export const INVITED_PASSWORD_HASH = '!invited';

export interface AccountRow {
  id: number;
  email: string;
  role: 'admin' | 'promoter';
  organiser_id: number | null;
  organiser_name: string | null;
  created_at: DbTime;
  disabled_at: DbTime | null;
  invited: boolean;
  invitation_expires_at: DbTime | null;
}

/** Every account, or only `onlyUserId`, with its organiser's name and its newest open invitation. */
export function listAccounts(db: Db, onlyUserId: number | null) {
  return queryRows<AccountRow>(
    db,
    sql`SELECT u.id, u.email, u.role, u.organiser_id, o.name AS organiser_name, u.created_at, u.disabled_at,
               (u.password_hash = ${INVITED_PASSWORD_HASH}) AS invited,
               (SELECT max(i.expires_at) FROM account_invitations i
                 WHERE i.user_id = u.id AND i.accepted_at IS NULL AND i.revoked_at IS NULL) AS invitation_expires_at
          FROM users u LEFT JOIN organisers o ON o.id = u.organiser_id
         WHERE ${onlyUserId === null ? sql`true` : sql`u.id = ${onlyUserId}`}
         ORDER BY u.role, o.name NULLS FIRST, u.email`,
  );
}

export async function findUser(db: Db, id: number) {
  const [row] = await db.select().from(users).where(eq(users.id, id));
  return row ?? null;
}

export async function setUserDisabled(db: Db, id: number, disabledAt: Date | null) {
  await db.update(users).set({ disabledAt }).where(eq(users.id, id));
}

/** Sets the first password of an invited account; false when it has one already. */
export async function setFirstPassword(db: Db, id: number, passwordHash: string): Promise<boolean> {
  const rows = await db
    .update(users)
    .set({ passwordHash })
    .where(and(eq(users.id, id), eq(users.passwordHash, INVITED_PASSWORD_HASH)))
    .returning({ id: users.id });
  return rows.length === 1;
}

export async function insertInvitation(db: Db, row: { userId: number; tokenHash: string; linkNonce: string; createdBy: number | null; createdAt: Date; expiresAt: Date }): Promise<number> {
  const [inserted] = await db.insert(accountInvitations).values(row).returning({ id: accountInvitations.id });
  return inserted!.id;
}

/** Revokes the account's open invitations (a new link replaces them). */
export async function revokeOpenInvitations(db: Db, userId: number, now: Date) {
  await db
    .update(accountInvitations)
    .set({ revokedAt: now })
    .where(and(eq(accountInvitations.userId, userId), isNull(accountInvitations.acceptedAt), isNull(accountInvitations.revokedAt)));
}

export async function findInvitation(db: Db, tokenHash: string) {
  const rows = await db
    .select({ invitation: accountInvitations, user: users })
    .from(accountInvitations)
    .innerJoin(users, eq(users.id, accountInvitations.userId))
    .where(eq(accountInvitations.tokenHash, tokenHash));
  return rows[0] ?? null;
}

/**
 * Marks the invitation accepted if it is still open at `now`: the one statement that makes a link
 * single-use. Of parallel acceptances exactly one gets the user id back (the others wait on the row
 * lock and then no longer match).
 */
export async function acceptInvitation(db: Db, tokenHash: string, now: Date): Promise<number | null> {
  const rows = await queryRows<{ user_id: number }>(
    db,
    sql`UPDATE account_invitations SET accepted_at = ${now}
         WHERE token_hash = ${tokenHash} AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > ${now}
         RETURNING user_id`,
  );
  return rows[0] ? Number(rows[0].user_id) : null;
}

export interface TokenRow {
  id: number;
  name: string;
  last_four: string;
  user_id: number;
  user_email: string;
  created_at: DbTime;
  last_used_at: DbTime | null;
  revoked_at: DbTime | null;
}

/** Admin API tokens, newest first: every one, or those of `onlyUserId`. */
export function listTokens(db: Db, onlyUserId: number | null) {
  return queryRows<TokenRow>(
    db,
    sql`SELECT t.id, t.name, t.last_four, t.user_id, u.email AS user_email, t.created_at, t.last_used_at, t.revoked_at
          FROM admin_api_tokens t JOIN users u ON u.id = t.user_id
         WHERE ${onlyUserId === null ? sql`true` : sql`t.user_id = ${onlyUserId}`}
         ORDER BY t.revoked_at IS NOT NULL, t.created_at DESC, t.id DESC`,
  );
}

export async function findToken(db: Db, id: number) {
  const [row] = await db.select().from(adminApiTokens).where(eq(adminApiTokens.id, id));
  return row ?? null;
}

/** Revokes a live token; false when it was revoked already. */
export async function revokeToken(db: Db, id: number, now: Date): Promise<boolean> {
  const rows = await db
    .update(adminApiTokens)
    .set({ revokedAt: now })
    .where(and(eq(adminApiTokens.id, id), isNull(adminApiTokens.revokedAt)))
    .returning({ id: adminApiTokens.id });
  return rows.length === 1;
}

/** Records a use of a token, at most once a minute (so that busy automation does not write on every call). */
export async function touchToken(db: Db, tokenHash: string, now: Date) {
  await db.execute(
    sql`UPDATE admin_api_tokens SET last_used_at = ${now}
         WHERE token_hash = ${tokenHash} AND (last_used_at IS NULL OR last_used_at < ${new Date(now.getTime() - 60_000)})`,
  );
}

export interface OrganiserSummaryRow {
  id: number;
  name: string;
  created_at: DbTime;
  events: number;
  venues: number;
  accounts: number;
}

/** Organisers by name with how many events, venues and accounts each has. */
export function organiserSummaries(db: Db, onlyId: number | null) {
  return queryRows<OrganiserSummaryRow>(
    db,
    sql`SELECT o.id, o.name, o.created_at,
               (SELECT count(*)::int FROM events e WHERE e.organiser_id = o.id) AS events,
               (SELECT count(*)::int FROM venues v WHERE v.organiser_id = o.id) AS venues,
               (SELECT count(*)::int FROM users u WHERE u.organiser_id = o.id) AS accounts
          FROM organisers o
         WHERE ${onlyId === null ? sql`true` : sql`o.id = ${onlyId}`}
         ORDER BY lower(o.name), o.id`,
  );
}
