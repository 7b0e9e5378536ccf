import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { notify, type Listener } from '../../db/notifications.js';
import { tokenCache } from './auth.token-cache.js';

// Instant revocation on a fleet (D42). Whoever revokes tokens calls `announceRevocation` inside the
// revoking transaction: the database delivers the notification on commit to every instance on the
// same database (this one too), and each drops the tokens from its token cache at once. A rolled
// back revocation announces nothing. The cache window (AUTH_CACHE_MS) is only the fallback for
// notifications lost while an instance's listening connection was down, and that instance clears
// its whole cache when it reconnects.

export const REVOCATIONS_CHANNEL = 'taquilla_revocations';

/** What a revocation makes every instance forget. */
export interface Revocation {
  /** Hashes of the revoked tokens (as the revoking UPDATE returned them). */
  tokenHashes?: readonly string[];
  /**
   * Channels whose cached tokens must all be forgotten: a key revoked, the channel's mode or
   * settings changed. Also the cheap way to announce thousands of tokens of one channel: the ones
   * still live are verified again against the database on their next request.
   */
  channelIds?: readonly number[];
}

interface Payload {
  tokens?: string[];
  channels?: number[];
}

/** A NOTIFY payload must stay under 8000 bytes: 100 hashes of 64 characters are about 6.7 KB. */
export const HASHES_PER_NOTIFICATION = 100;

/**
 * Announces a revocation to every instance sharing the database; call it inside the transaction
 * that revokes (`db` is that transaction), so that it is heard only if that commits. This instance
 * forgets the tokens at once as well, so that its next request never waits for the notification.
 */
export async function announceRevocation(ctx: AppContext, db: Db, revocation: Revocation): Promise<void> {
  const tokens = [...(revocation.tokenHashes ?? [])];
  const channels = [...(revocation.channelIds ?? [])];
  if (!tokens.length && !channels.length) return;
  applyRevocation(ctx, { tokens, channels });
  if (channels.length) await notify(db, REVOCATIONS_CHANNEL, JSON.stringify({ channels } satisfies Payload));
  for (let i = 0; i < tokens.length; i += HASHES_PER_NOTIFICATION) {
    const chunk = tokens.slice(i, i + HASHES_PER_NOTIFICATION);
    await notify(db, REVOCATIONS_CHANNEL, JSON.stringify({ tokens: chunk } satisfies Payload));
  }
}

/**
 * This instance forgets tokens revoked by a statement that announced them itself (issue_access_token,
 * src/db/functions, sends announceRevocation's payload from inside the database).
 */
export const forgetRevokedHere = (ctx: AppContext, tokenHashes: readonly string[]) => {
  if (tokenHashes.length) applyRevocation(ctx, { tokens: [...tokenHashes] });
};

function applyRevocation(ctx: AppContext, payload: Payload): void {
  const cache = tokenCache(ctx);
  if (payload.tokens?.length) cache.drop(payload.tokens);
  for (const channelId of payload.channels ?? []) cache.dropChannel(channelId);
}

function parsePayload(text: string): Payload | null {
  try {
    const value = JSON.parse(text) as Payload;
    const tokensOk = value.tokens === undefined || (Array.isArray(value.tokens) && value.tokens.every((t) => typeof t === 'string'));
    const channelsOk = value.channels === undefined || (Array.isArray(value.channels) && value.channels.every(Number.isInteger));
    return value && typeof value === 'object' && tokensOk && channelsOk ? value : null;
  } catch {
    return null;
  }
}

/** Listens for revocations while the app is up: started when it is ready, stopped when it closes. */
export function listenForRevocations(app: FastifyInstance): void {
  let listener: Listener | null = null;
  app.addHook('onReady', async () => {
    const { ctx } = app;
    listener = await ctx.database.listen(REVOCATIONS_CHANNEL, {
      onNotification(text) {
        const payload = parsePayload(text);
        if (payload) return applyRevocation(ctx, payload);
        // Not ours or malformed: forgetting everything is always safe.
        app.log.warn('unreadable revocation notification; token cache cleared');
        tokenCache(ctx).clear();
      },
      onConnected() {
        // Revocations announced while the connection was down were lost: verify every token again.
        tokenCache(ctx).clear();
      },
      onConnectionLost(err) {
        app.log.warn({ err: { message: err.message, code: (err as { code?: string }).code } }, 'revocation listener disconnected; reconnecting');
      },
    });
  });
  app.addHook('onClose', async () => {
    await listener?.close();
  });
}
