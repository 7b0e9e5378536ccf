import type { AppContext } from '../../app-context.js';
import { AppError, SPEC_MESSAGES } from '../../http/errors.js';
import { generateAccessToken, generateWidgetKey, safeEqual, sha256 } from '../../lib/secrets.js';
import { findChannelById, insertWidgetKey, type ChannelRecord } from '../channels/channels.repo.js';
import * as repo from './auth.repo.js';
import { TokenCache, type TokenHolder } from './token-cache.js';

const caches = new WeakMap<AppContext, TokenCache>();

/** The token cache of one app instance. */
export function tokenCache(ctx: AppContext): TokenCache {
  let cache = caches.get(ctx);
  if (!cache) caches.set(ctx, (cache = new TokenCache(ctx.config.authCacheMs)));
  return cache;
}

// Compared against when the slug is unknown, so that both answers take the same time (D6).
const DUMMY_KEY_HASH = sha256('wk_no-such-channel-dummy-key-for-constant-time');

const invalidCredentials = () => new AppError('invalid_credentials', 'Invalid sales channel credentials');

export interface IssuedToken {
  access_token: string;
  token_type: 'Bearer';
  sales_channel_slug: string;
  expires_at: Date;
  expires_in: number;
}

/**
 * Exchanges a channel's widget key for a bearer token; revokes the previous live token of the same
 * channel and client group (SPEC Authentication 3, D38).
 */
export async function issueToken(
  ctx: AppContext,
  input: { slug: string; widgetKey: string; clientId?: string },
): Promise<IssuedToken> {
  const presentedHash = sha256(input.widgetKey);
  const keys = await repo.activeKeysForSlug(ctx.db, input.slug);
  let match: (typeof keys)[number] | undefined;
  // Compare against every candidate (or the dummy) in constant time; never stop early.
  for (const key of keys.length ? keys : [{ keyId: 0, keyHash: DUMMY_KEY_HASH, channelId: 0 }]) {
    if (safeEqual(key.keyHash, presentedHash) && key.keyId !== 0) match = key;
  }
  if (!match) throw invalidCredentials();

  const now = ctx.clock.now();
  const clientId = input.clientId ?? '';
  const token = generateAccessToken();
  const tokenHash = sha256(token);
  const expiresAt = new Date(now.getTime() + ctx.config.tokenTtlSeconds * 1000);
  const { channelId, keyId } = match;
  const revoked = await ctx.db.transaction(async (tx) => {
    await repo.lockTokenGroup(tx, channelId, clientId);
    const previous = await repo.revokeGroupTokens(tx, channelId, clientId, now);
    await repo.insertToken(tx, { channelId, widgetKeyId: keyId, clientId, tokenHash, createdAt: now, expiresAt });
    const beyondCap = await repo.revokeTokensBeyondCap(tx, channelId, ctx.config.maxLiveTokensPerChannel, now);
    return [...previous, ...beyondCap];
  });
  tokenCache(ctx).drop(revoked);
  return {
    access_token: token,
    token_type: 'Bearer',
    sales_channel_slug: input.slug,
    expires_at: expiresAt,
    expires_in: ctx.config.tokenTtlSeconds,
  };
}

/** The channel and client_id of a bearer token; 401 when it is missing, unknown, expired or revoked. */
export async function authenticate(ctx: AppContext, authorization: string | undefined): Promise<TokenHolder> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match) throw new AppError('unauthenticated', 'A bearer token is required (Authorization: Bearer <token>)');
  const tokenHash = sha256(match[1]!);
  const now = ctx.clock.now();
  const cache = tokenCache(ctx);
  const cached = cache.get(tokenHash, now.getTime());
  if (cached) return cached;
  const live = await repo.findLiveToken(ctx.db, tokenHash, now);
  const channel = live && (await findChannelById(ctx.db, live.channelId));
  if (!live || !channel) throw new AppError('invalid_token', 'The access token is invalid, expired or revoked');
  const holder = { channel, clientId: live.clientId };
  cache.set(tokenHash, holder, live.expiresAt.getTime(), now.getTime());
  return holder;
}

/** 403 "Unauthorized sales channel" unless the token's channel is the one in the path (SPEC rule 5). */
export function assertSameChannel(channel: ChannelRecord, slugInPath: string): void {
  if (channel.slug !== slugInPath) throw new AppError('unauthorized_sales_channel', SPEC_MESSAGES.unauthorizedChannel);
}

/** Generates a widget key for a channel; the plain key is returned once and never stored (D7). */
export async function generateKeyForChannel(ctx: AppContext, channelId: number, fixedKey?: string) {
  const key = fixedKey ?? generateWidgetKey();
  const row = await insertWidgetKey(ctx.db, channelId, sha256(key), key.slice(-4));
  return { id: row.id, widget_key: key, last_four: row.lastFour, created_at: row.createdAt };
}

/** Revokes a widget key; every token of the channel stops working at once (D7, D38). */
export async function revokeWidgetKey(ctx: AppContext, channelId: number, keyId: number): Promise<void> {
  const now = ctx.clock.now();
  const revoked = await ctx.db.transaction(async (tx) => {
    if (!(await repo.revokeWidgetKeyRow(tx, channelId, keyId, now))) return null;
    return repo.revokeChannelTokens(tx, channelId, now);
  });
  if (revoked === null) throw new AppError('not_found', 'Widget key not found or already revoked');
  tokenCache(ctx).drop(revoked);
}
