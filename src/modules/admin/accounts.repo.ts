import { and, eq, gt, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { adminApiTokens, organisers, userSessions, users, type UserRole } from '../../db/schema/index.js';

export async function findUserByEmail(db: Db, email: string) {
  const rows = await db.select().from(users).where(eq(users.email, email));
  return rows[0] ?? null;
}

export async function insertUser(db: Db, user: { email: string; passwordHash: string; role: UserRole; organiserId: number | null; createdAt: Date }) {
  const [row] = await db.insert(users).values(user).returning();
  return row!;
}

export async function insertSession(db: Db, session: { idHash: string; userId: number; csrfToken: string; createdAt: Date; expiresAt: Date }) {
  await db.insert(userSessions).values(session);
}

/** The live session with this id hash and its (enabled) user. */
export async function findLiveSession(db: Db, idHash: string, now: Date) {
  const rows = await db
    .select({ csrfToken: userSessions.csrfToken, user: users, organiserName: organisers.name })
    .from(userSessions)
    .innerJoin(users, eq(users.id, userSessions.userId))
    .leftJoin(organisers, eq(organisers.id, users.organiserId))
    .where(and(eq(userSessions.idHash, idHash), gt(userSessions.expiresAt, now), isNull(users.disabledAt)));
  return rows[0] ?? null;
}

export async function deleteSession(db: Db, idHash: string) {
  await db.delete(userSessions).where(eq(userSessions.idHash, idHash));
}

export async function insertApiToken(db: Db, token: { userId: number; name: string; tokenHash: string; lastFour: string; createdAt: Date }) {
  const [row] = await db.insert(adminApiTokens).values(token).returning();
  return row!;
}

/** The enabled user of a live admin API token. */
export async function findUserByApiToken(db: Db, tokenHash: string) {
  const rows = await db
    .select({ user: users })
    .from(adminApiTokens)
    .innerJoin(users, eq(users.id, adminApiTokens.userId))
    .where(and(eq(adminApiTokens.tokenHash, tokenHash), isNull(adminApiTokens.revokedAt), isNull(users.disabledAt)));
  return rows[0]?.user ?? null;
}
