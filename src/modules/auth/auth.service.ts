import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { AppError, invalidData, SPEC_MESSAGES } from '../../http/errors.js';
import type { CredentialScope } from '../../lib/integration-policy.js';
import { generateAccessToken, generateServerKey, generateWidgetKey, sha256 } from '../../lib/secrets.js';
import type { ChannelRecord } from '../../db/channel-record.js';
import * as keysRepo from './channel-keys.repo.js';
import * as repo from './auth.repo.js';
import { announceRevocation, forgetRevokedHere, HASHES_PER_NOTIFICATION, REVOCATIONS_CHANNEL } from './auth.revocations.js';
import { tokenCache, type LiveToken } from './auth.token-cache.js';
import { integrationChecklistRecording, recordIntegrationStep, recordTokenIssued } from '../../platform/integration-checklist.js';

export type { LiveToken } from './auth.token-cache.js';
export { announceRevocation } from './auth.revocations.js';

const invalidCredentials = () => new AppError('invalid_credentials', 'Invalid sales channel credentials');

export interface IssuedToken {
  access_token: string;
  token_type: 'Bearer';
  sales_channel_slug: string;
  expires_at: Date;
  expires_in: number;
  /** `widget` or `server`: which kind of key the token was issued for (D39). */
  scope: CredentialScope;
}

/** The credential of a token request: exactly one of the two keys (D39); 422 with field messages otherwise. */
function presentedCredential(input: { widgetKey?: string; serverKey?: string }): { scope: CredentialScope; key: string } {
  if (input.widgetKey !== undefined && input.serverKey !== undefined) {
    const both = 'give either widget_key or server_key, not both';
    throw invalidData({ widget_key: [both], server_key: [both] });
  }
  if (input.serverKey !== undefined) return { scope: 'server', key: input.serverKey };
  if (input.widgetKey !== undefined) return { scope: 'widget', key: input.widgetKey };
  const neither = 'widget_key or server_key is required';
  throw invalidData({ widget_key: [neither], server_key: [neither] });
}

/**
 * Exchanges a channel's widget key or server key for a bearer token of that scope; revokes the
 * previous live token of the same channel, scope and client group (SPEC Authentication 3, D38),
 * and the oldest of that scope beyond the cap (D41: the two scopes are capped apart).
 */
export async function issueToken(
  ctx: AppContext,
  input: { slug: string; widgetKey?: string; serverKey?: string; clientId?: string },
): Promise<IssuedToken> {
  const { scope, key } = presentedCredential(input);
  const now = ctx.clock.now();
  const clientId = input.clientId ?? '';
  const token = generateAccessToken();
  const tokenHash = sha256(token);
  const expiresAt = new Date(now.getTime() + ctx.config.tokenTtlSeconds * 1000);
  // One statement (issue_access_token_for_key): the key lookup, compared with every active key of
  // the slug whatever the slug (D6), then the group lock, the revocations and their announcement,
  // the insert. A token request is the first step of every buyer, so its round trips count.
  const cache = tokenCache(ctx);
  const epoch = cache.epoch;
  const issued = await repo.issueTokenForKey(ctx.db, {
    slug: input.slug,
    scope,
    keyHash: sha256(key),
    clientId,
    tokenHash,
    createdAt: now,
    expiresAt,
    cap: ctx.config.maxLiveTokensPerChannel,
    notify: { channel: REVOCATIONS_CHANNEL, perNotification: HASHES_PER_NOTIFICATION },
  });
  if (!issued) throw invalidCredentials();
  const { channel, revoked } = issued;
  const channelId = channel.id;
  forgetRevokedHere(ctx, revoked);
  // The buyer's next request (usually to this instance) needs no database read to trust it; a
  // revocation announced meanwhile moved the epoch, and then nothing is cached.
  cache.set(tokenHash, { channel, credential: { scope, clientId } }, expiresAt.getTime(), now.getTime(), epoch);
  // Pre-production checklist: a token after a refused one is the renewal a client must make. The
  // checklist is advisory: a failure to record it never fails the token request.
  await recordTokenIssued(ctx.db, channelId, now).catch(() => undefined);
  return {
    access_token: token,
    token_type: 'Bearer',
    sales_channel_slug: input.slug,
    expires_at: expiresAt,
    expires_in: ctx.config.tokenTtlSeconds,
    scope,
  };
}

/**
 * The channel and credential of a bearer token, given by its hash (http/bearer.ts: parsed and hashed
 * once per request); 401 when it is missing (null), unknown, expired or revoked.
 */
export async function authenticate(ctx: AppContext, tokenHash: string | null): Promise<LiveToken> {
  if (tokenHash === null) throw new AppError('unauthenticated', 'A bearer token is required (Authorization: Bearer <token>)');
  const now = ctx.clock.now();
  const cache = tokenCache(ctx);
  const cached = cache.get(tokenHash, now.getTime());
  if (cached) return cached;
  const epoch = cache.epoch;
  const live = await repo.findLiveToken(ctx.db, tokenHash, now);
  if (!live) {
    if (integrationChecklistRecording(ctx.db)) await noteRejectedToken(ctx, tokenHash, now);
    throw new AppError('invalid_token', 'The access token is invalid, expired or revoked');
  }
  const token: LiveToken = { channel: live.channel, credential: { scope: live.scope, clientId: live.clientId } };
  cache.set(tokenHash, token, live.expiresAt.getTime(), now.getTime(), epoch);
  return token;
}

/**
 * Outside production: a token of a channel that has been revoked or has expired met its 401, the
 * first half of the checklist's "token renewed after a 401" (advisory: never fails the request).
 */
async function noteRejectedToken(ctx: AppContext, tokenHash: string, now: Date): Promise<void> {
  try {
    const channelId = await repo.channelOfToken(ctx.db, tokenHash);
    if (channelId !== null) await recordIntegrationStep(ctx.db, channelId, 'token_rejected', now);
  } catch {
    // The next refused token tries again.
  }
}

/** 403 "Unauthorized sales channel" unless the token's channel is the one in the path (SPEC rule 5). */
export function assertSameChannel(channel: ChannelRecord, slugInPath: string): void {
  if (channel.slug !== slugInPath) throw new AppError('unauthorized_sales_channel', SPEC_MESSAGES.unauthorizedChannel);
}

/** Every key of one kind of a channel, live and revoked (hashes only; the plain key is never stored). */
export const listChannelKeys = (ctx: AppContext, scope: CredentialScope, channelId: number) => keysRepo.listKeys(ctx.db, scope, channelId);

/** One key of a channel, or null; `lock` holds it until the transaction ends (a second revocation waits). */
export const findChannelKey = (ctx: AppContext, scope: CredentialScope, channelId: number, keyId: number, opts: { lock?: boolean } = {}) =>
  keysRepo.findKey(ctx.db, scope, channelId, keyId, opts);

const KEY_GENERATORS: Record<CredentialScope, () => string> = { widget: generateWidgetKey, server: generateServerKey };

/**
 * Generates a key of either kind for a channel (D7, D39); the plain key is returned once and never
 * stored. `fixedKey`: the demo and imported keys (D37, D43), never generated ones.
 */
export async function generateChannelKey(ctx: AppContext, scope: CredentialScope, channelId: number, fixedKey?: string) {
  const key = fixedKey ?? KEY_GENERATORS[scope]();
  const row = await keysRepo.insertKey(ctx.db, scope, channelId, sha256(key), key.slice(-4));
  return { id: row.id, key, last_four: row.lastFour, created_at: row.createdAt };
}

/** Generates a widget key for a channel; the plain key is returned once and never stored (D7). */
export async function generateKeyForChannel(ctx: AppContext, channelId: number, fixedKey?: string) {
  const { key, ...rest } = await generateChannelKey(ctx, 'widget', channelId, fixedKey);
  return { ...rest, widget_key: key };
}

/**
 * Revokes a key of a channel and the tokens it stands behind, at once: a widget key every
 * widget-scope token of the channel (D7, D38: they all act with the published key), a server key
 * the tokens issued from it (D39: the channel's other server keys, being rotated in, keep theirs).
 */
export async function revokeChannelKey(ctx: AppContext, scope: CredentialScope, channelId: number, keyId: number): Promise<void> {
  const now = ctx.clock.now();
  const revoked = await ctx.db.transaction(async (tx) => {
    if (!(await keysRepo.revokeKeyRow(tx, scope, channelId, keyId, now))) return false;
    if (scope === 'widget') {
      await repo.revokeScopeTokens(tx, channelId, 'widget', now);
      // Up to the cap of D38 tokens: one notification for the channel instead of their hashes.
      await announceRevocation(ctx, tx, { channelIds: [channelId] });
    } else {
      await announceRevocation(ctx, tx, { tokenHashes: await repo.revokeServerKeyTokens(tx, keyId, now) });
    }
    return true;
  });
  if (!revoked) throw new AppError('not_found.key_or_revoked', { key: scope === 'widget' ? 'Widget' : 'Server' });
}

/** Revokes a widget key; every widget-scope token of the channel stops working at once (D7, D38). */
export const revokeWidgetKey = (ctx: AppContext, channelId: number, keyId: number) => revokeChannelKey(ctx, 'widget', channelId, keyId);

/**
 * Revokes every token of a channel (both scopes) inside the caller's transaction: its mode changed
 * (D42), so what an old token was allowed no longer holds. Old tokens then answer 401.
 */
export async function revokeChannelTokensIn(tx: Db, channelId: number, now: Date): Promise<void> {
  await repo.revokeScopeTokens(tx, channelId, 'widget', now);
  await repo.revokeScopeTokens(tx, channelId, 'server', now);
}
