import { and, desc, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { accessTokens, salesChannels, widgetKeys } from '../../db/schema/index.js';

/** Active (not revoked) key hashes of the channel with this slug; empty when there is none. */
export async function activeKeysForSlug(db: Db, slug: string) {
  return db
    .select({ keyId: widgetKeys.id, keyHash: widgetKeys.keyHash, channelId: salesChannels.id })
    .from(salesChannels)
    .innerJoin(widgetKeys, and(eq(widgetKeys.channelId, salesChannels.id), isNull(widgetKeys.revokedAt)))
    .where(eq(salesChannels.slug, slug));
}

/** Serialises token issuance per (channel, client group) so that only one token of a group is live. */
export async function lockTokenGroup(db: Db, channelId: number, clientId: string) {
  await db.execute(sql`SELECT pg_advisory_xact_lock(${channelId}, hashtext(${clientId}))`);
}

/** Revokes the live tokens of one client group; returns their hashes (to drop them from caches). */
export async function revokeGroupTokens(db: Db, channelId: number, clientId: string, at: Date) {
  const rows = await db
    .update(accessTokens)
    .set({ revokedAt: at })
    .where(and(eq(accessTokens.channelId, channelId), eq(accessTokens.clientId, clientId), isNull(accessTokens.revokedAt)))
    .returning({ tokenHash: accessTokens.tokenHash });
  return rows.map((r) => r.tokenHash);
}

export async function insertToken(
  db: Db,
  token: { channelId: number; widgetKeyId: number; clientId: string; tokenHash: string; createdAt: Date; expiresAt: Date },
) {
  await db.insert(accessTokens).values(token);
}

/** Revokes the oldest live tokens of a channel beyond `cap`; returns their hashes. */
export async function revokeTokensBeyondCap(db: Db, channelId: number, cap: number, at: Date) {
  const excess = await db
    .select({ id: accessTokens.id })
    .from(accessTokens)
    .where(and(eq(accessTokens.channelId, channelId), isNull(accessTokens.revokedAt)))
    .orderBy(desc(accessTokens.id))
    .offset(cap)
    .limit(1000);
  if (excess.length === 0) return [];
  const rows = await db
    .update(accessTokens)
    .set({ revokedAt: at })
    .where(inArray(accessTokens.id, excess.map((r) => r.id)))
    .returning({ tokenHash: accessTokens.tokenHash });
  return rows.map((r) => r.tokenHash);
}

/** Revokes every live token of a channel (a widget key was revoked: D38). */
export async function revokeChannelTokens(db: Db, channelId: number, at: Date) {
  const rows = await db
    .update(accessTokens)
    .set({ revokedAt: at })
    .where(and(eq(accessTokens.channelId, channelId), isNull(accessTokens.revokedAt)))
    .returning({ tokenHash: accessTokens.tokenHash });
  return rows.map((r) => r.tokenHash);
}

/** The channel and client_id (D38; '' when none) of a live token, or nothing. */
export async function findLiveToken(db: Db, tokenHash: string, now: Date) {
  const rows = await db
    .select({ channelId: accessTokens.channelId, clientId: accessTokens.clientId, expiresAt: accessTokens.expiresAt })
    .from(accessTokens)
    .where(and(eq(accessTokens.tokenHash, tokenHash), isNull(accessTokens.revokedAt), gt(accessTokens.expiresAt, now)));
  return rows[0] ?? null;
}

/** Revokes a widget key of a channel; false when no such live key exists. */
export async function revokeWidgetKeyRow(db: Db, channelId: number, keyId: number, at: Date) {
  const rows = await db
    .update(widgetKeys)
    .set({ revokedAt: at })
    .where(and(eq(widgetKeys.id, keyId), eq(widgetKeys.channelId, channelId), isNull(widgetKeys.revokedAt)))
    .returning({ id: widgetKeys.id });
  return rows.length > 0;
}
