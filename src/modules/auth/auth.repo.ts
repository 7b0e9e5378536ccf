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

/** The active keys of one kind of a channel with its channel's columns (ChannelRecord), by slug: one statement per scope. */
const keysForSlug = (table: 'widget_keys' | 'server_keys') =>
  hotStatement<{ key_id: number; key_hash: string } & ChannelRow>(
    `active_${table}_for_slug`,
    `SELECT k.id AS key_id, k.key_hash, ${CHANNEL_COLUMNS}
     FROM sales_channels c JOIN ${table} k ON k.channel_id = c.id AND k.revoked_at IS NULL
     WHERE c.slug = $1`,
  );
const KEYS_FOR_SLUG = { widget: keysForSlug('widget_keys'), server: keysForSlug('server_keys') };

/**
 * Active (not revoked) key hashes of one kind of the channel with this slug, with the channel; empty
 * when there is none. The first statement of every buyer: a hot statement (issue 27).
 */
export async function activeKeysForSlug(db: Db, scope: CredentialScope, slug: string) {
  const rows = await KEYS_FOR_SLUG[scope](db, [slug]);
  return rows.map(({ key_id, key_hash, ...channel }) => ({
    keyId: Number(key_id),
    keyHash: key_hash,
    channelId: Number(channel.id),
    channel: channelOf(channel),
  }));
}

/**
 * Issues a token in ONE statement (issue_access_token, src/db/functions): locks the token group,
 * revokes its live tokens (D38) and those beyond `cap` (D41), inserts the new one and announces
 * every revoked hash on `notify.channel` on commit. Returns the revoked hashes.
 */
const issueAccessToken = hotStatement<{ revoked: string[] | string }>(
  'issue_access_token',
  'SELECT issue_access_token($1::int, $2::text, $3::int, $4::int, $5::text, $6::text, $7::timestamptz, $8::timestamptz, $9::int, $10::text, $11::int) AS revoked',
);

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
  const [row] = await issueAccessToken(db, [
    t.channelId, t.scope, t.widgetKeyId, t.serverKeyId, t.clientId, t.tokenHash, t.createdAt, t.expiresAt, t.cap, t.notify.channel, t.notify.perNotification,
  ]);
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
