import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import { channelColumns } from '../../db/channel-record.js';
import { queryRows, type Db } from '../../db/client.js';
import { accessTokens, salesChannels, serverKeys, widgetKeys } from '../../db/schema/index.js';
import type { CredentialScope } from '../../lib/integration-policy.js';

/** Active (not revoked) key hashes of one kind of the channel with this slug, with the channel; empty when there is none. */
export async function activeKeysForSlug(db: Db, scope: CredentialScope, slug: string) {
  const keys = scope === 'widget' ? widgetKeys : (serverKeys as unknown as typeof widgetKeys);
  return db
    .select({ keyId: keys.id, keyHash: keys.keyHash, channelId: salesChannels.id, channel: channelColumns })
    .from(salesChannels)
    .innerJoin(keys, and(eq(keys.channelId, salesChannels.id), isNull(keys.revokedAt)))
    .where(eq(salesChannels.slug, slug));
}

/**
 * Issues a token in ONE statement (issue_access_token, src/db/functions): locks the token group,
 * revokes its live tokens (D38) and those beyond `cap` (D41), inserts the new one and announces
 * every revoked hash on `notify.channel` on commit. Returns the revoked hashes.
 */
export async function issueTokenInOneStatement(
  db: Db,
  t: {
    channelId: number;
    scope: CredentialScope;
    widgetKeyId: number | null;
    serverKeyId: number | null;
    clientId: string;
    tokenHash: string;
    createdAt: Date;
    expiresAt: Date;
    cap: number;
    notify: { channel: string; perNotification: number };
  },
): Promise<string[]> {
  const [row] = await queryRows<{ revoked: string[] | string }>(
    db,
    sql`SELECT issue_access_token(${t.channelId}::int, ${t.scope}::text, ${t.widgetKeyId}::int, ${t.serverKeyId}::int, ${t.clientId}::text,
      ${t.tokenHash}::text, ${t.createdAt}::timestamptz, ${t.expiresAt}::timestamptz, ${t.cap}::int, ${t.notify.channel}::text, ${t.notify.perNotification}::int) AS revoked`,
  );
  return parseTextArray(row!.revoked);
}

/** A text[] as a driver returns it: node-postgres parses it, PGlite may hand back its literal (hashes: hex, never quoted). */
const parseTextArray = (value: string[] | string): string[] =>
  Array.isArray(value) ? value : value.replace(/^\{|\}$/g, '').split(',').filter(Boolean);

const live = (channelId: number, scope: CredentialScope) =>
  and(eq(accessTokens.channelId, channelId), eq(accessTokens.scope, scope), isNull(accessTokens.revokedAt));

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
