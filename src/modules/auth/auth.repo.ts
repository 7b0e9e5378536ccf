import { and, desc, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import { channelColumns } from '../../db/channel-record.js';
import type { Db } from '../../db/client.js';
import { accessTokens, salesChannels, serverKeys, widgetKeys } from '../../db/schema/index.js';
import type { CredentialScope } from '../../lib/integration-policy.js';

/** Active (not revoked) key hashes of one kind of the channel with this slug; empty when there is none. */
export async function activeKeysForSlug(db: Db, scope: CredentialScope, slug: string) {
  const keys = scope === 'widget' ? widgetKeys : (serverKeys as unknown as typeof widgetKeys);
  return db
    .select({ keyId: keys.id, keyHash: keys.keyHash, channelId: salesChannels.id })
    .from(salesChannels)
    .innerJoin(keys, and(eq(keys.channelId, salesChannels.id), isNull(keys.revokedAt)))
    .where(eq(salesChannels.slug, slug));
}

/** Serialises token issuance per (channel, scope, client group) so that only one token of a group is live. */
export async function lockTokenGroup(db: Db, channelId: number, scope: CredentialScope, clientId: string) {
  await db.execute(sql`SELECT pg_advisory_xact_lock(${channelId}, hashtext(${`${scope}:${clientId}`}))`);
}

const live = (channelId: number, scope: CredentialScope) =>
  and(eq(accessTokens.channelId, channelId), eq(accessTokens.scope, scope), isNull(accessTokens.revokedAt));

/** Revokes the live tokens of one client group of one scope; returns their hashes (to drop them from caches). */
export async function revokeGroupTokens(db: Db, channelId: number, scope: CredentialScope, clientId: string, at: Date) {
  const rows = await db
    .update(accessTokens)
    .set({ revokedAt: at })
    .where(and(live(channelId, scope), eq(accessTokens.clientId, clientId)))
    .returning({ tokenHash: accessTokens.tokenHash });
  return rows.map((r) => r.tokenHash);
}

export async function insertToken(
  db: Db,
  token: {
    channelId: number;
    scope: CredentialScope;
    widgetKeyId: number | null;
    serverKeyId: number | null;
    clientId: string;
    tokenHash: string;
    createdAt: Date;
    expiresAt: Date;
  },
) {
  await db.insert(accessTokens).values(token);
}

/** Revokes the oldest live tokens of one scope of a channel beyond `cap` (D38, D41); returns their hashes. */
export async function revokeTokensBeyondCap(db: Db, channelId: number, scope: CredentialScope, cap: number, at: Date) {
  const excess = await db
    .select({ id: accessTokens.id })
    .from(accessTokens)
    .where(live(channelId, scope))
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

/** Revokes every live token of one scope of a channel (a widget key was revoked: D7, D38). */
export async function revokeScopeTokens(db: Db, channelId: number, scope: CredentialScope, at: Date) {
  const rows = await db.update(accessTokens).set({ revokedAt: at }).where(live(channelId, scope)).returning({ tokenHash: accessTokens.tokenHash });
  return rows.map((r) => r.tokenHash);
}

/** Revokes the live tokens issued from one server key (D39: the other server keys' tokens live on). */
export async function revokeServerKeyTokens(db: Db, serverKeyId: number, at: Date) {
  const rows = await db
    .update(accessTokens)
    .set({ revokedAt: at })
    .where(and(eq(accessTokens.serverKeyId, serverKeyId), isNull(accessTokens.revokedAt)))
    .returning({ tokenHash: accessTokens.tokenHash });
  return rows.map((r) => r.tokenHash);
}

/** The channel, scope and client group of a live token, or nothing. */
/** A live token with its channel (one query: the hot path of every B2B request). */
export async function findLiveToken(db: Db, tokenHash: string, now: Date) {
  const rows = await db
    .select({ expiresAt: accessTokens.expiresAt, scope: accessTokens.scope, clientId: accessTokens.clientId, channel: channelColumns })
    .from(accessTokens)
    .innerJoin(salesChannels, eq(salesChannels.id, accessTokens.channelId))
    .where(and(eq(accessTokens.tokenHash, tokenHash), isNull(accessTokens.revokedAt), gt(accessTokens.expiresAt, now)));
  return rows[0] ?? null;
}

/** The channel a token was issued to, live or not (the checklist's `token_rejected`), or null. */
export async function channelOfToken(db: Db, tokenHash: string): Promise<number | null> {
  const rows = await db.select({ channelId: accessTokens.channelId }).from(accessTokens).where(eq(accessTokens.tokenHash, tokenHash)).limit(1);
  return rows[0]?.channelId ?? null;
}
