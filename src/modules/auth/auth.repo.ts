import { and, eq, isNull } from 'drizzle-orm';
import type { ChannelRecord } from '../../db/channel-record.js';
import { hotStatement, parseJson, type Db, type Json } from '../../db/client.js';
import { accessTokens } from '../../db/schema/index.js';
import type { CredentialScope } from '../../lib/integration-policy.js';

/** The columns of a ChannelRecord, selected from `sales_channels c` by the hot statements below. */
const CHANNEL_COLUMNS = `c.id, c.organiser_id AS "organiserId", c.slug, c.name, c.integration_mode AS "integrationMode",
  c.checkout_url AS "checkoutUrl", c.website_url AS "websiteUrl", c.branding, c.cart_ttl_seconds AS "cartTtlSeconds", c.default_lang AS "defaultLang"`;
type ChannelRow = Omit<ChannelRecord, 'branding'> & { branding: Json<ChannelRecord['branding']> };
const channelOf = ({ branding, ...channel }: ChannelRow): ChannelRecord => ({ ...channel, id: Number(channel.id), branding: parseJson(branding) });

/**
 * A token request in ONE statement (issue_access_token_for_key, src/db/functions): finds the active
 * key of `scope` of the channel with this slug whose hash is `keyHash` (every candidate compared,
 * D6), then issues the token as issue_access_token does: locks the token group, revokes its live
 * tokens (D38) and those beyond `cap` (D41), inserts the new one and announces every revoked hash
 * on `notify.channel` on commit. Null when no active key matches (nothing written); otherwise the
 * channel and the revoked hashes. The first statement of every buyer: a hot statement (issue 27).
 */
const issueAccessTokenForKey = hotStatement<{ revoked: string[] | string } & ChannelRow>(
  'issue_access_token_for_key',
  `SELECT t.revoked, ${CHANNEL_COLUMNS}
   FROM issue_access_token_for_key($1::text, $2::text, $3::text, $4::text, $5::text, $6::timestamptz, $7::timestamptz, $8::int, $9::text, $10::int) t
   JOIN sales_channels c ON c.id = t.channel_id`,
);

export async function issueTokenForKey(
  db: Db,
  t: {
    slug: string;
    scope: CredentialScope;
    keyHash: string;
    clientId: string;
    tokenHash: string;
    createdAt: Date;
    expiresAt: Date;
    cap: number;
    notify: { channel: string; perNotification: number };
  },
): Promise<{ channel: ChannelRecord; revoked: string[] } | null> {
  const [row] = await issueAccessTokenForKey(db, [
    t.slug, t.scope, t.keyHash, t.clientId, t.tokenHash, t.createdAt, t.expiresAt, t.cap, t.notify.channel, t.notify.perNotification,
  ]);
  if (!row) return null;
  const { revoked, ...channel } = row;
  return { channel: channelOf(channel), revoked: parseTextArray(revoked) };
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

/**
 * A live token with its channel, by its hash (unique): the statement of every B2B request whose
 * token this instance has not cached (another instance issued it, or the cache window passed), so a
 * hot statement (issue 27). The expiry comes back in milliseconds (the cache keeps it as such).
 */
const liveToken = hotStatement<{ expires_ms: number | string; scope: CredentialScope; client_id: string } & ChannelRow>(
  'find_live_token',
  `SELECT (extract(epoch FROM t.expires_at) * 1000)::float8 AS expires_ms, t.scope, t.client_id, ${CHANNEL_COLUMNS}
   FROM access_tokens t JOIN sales_channels c ON c.id = t.channel_id
   WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND t.expires_at > $2::timestamptz`,
);

export async function findLiveToken(db: Db, tokenHash: string, now: Date): Promise<{ expiresAt: Date; scope: CredentialScope; clientId: string; channel: ChannelRecord } | null> {
  const [row] = await liveToken(db, [tokenHash, now]);
  if (!row) return null;
  const { expires_ms, scope, client_id, ...channel } = row;
  return { expiresAt: new Date(Number(expires_ms)), scope, clientId: client_id, channel: channelOf(channel) };
}

/** The channel a token was issued to, live or not (the checklist's `token_rejected`), or null. */
export async function channelOfToken(db: Db, tokenHash: string): Promise<number | null> {
  const rows = await db.select({ channelId: accessTokens.channelId }).from(accessTokens).where(eq(accessTokens.tokenHash, tokenHash)).limit(1);
  return rows[0]?.channelId ?? null;
}
