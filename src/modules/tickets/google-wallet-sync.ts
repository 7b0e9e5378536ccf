import { importPKCS8, SignJWT } from 'jose';
import { appSingleton, type AppContext } from '../../app-context.js';
import { isoWithOffset } from '../../lib/time.js';
import type { Job } from '../../platform/scheduler.js';
import type { GoogleWalletConfig } from '../../platform/wallet.config.js';
import { retryDelayMs } from './email-queue.service.js';
import * as objects from './google-wallet.repo.js';
import { qrSecretOf } from './ticket-keys.service.js';
import { ticketById } from './tickets.repo.js';
import { googleClassId } from './wallet.service.js';

// Saved Google Wallet passes follow their tickets (D70, docs/wallet.md "Google Wallet"): with a
// configured issuer, a refund or reissue PATCHes the ticket's EventTicketObject (and a moved session
// its EventTicketClass's dateTime) through the Wallet
// REST API (GOOGLE_WALLET_API_URL) with a service-account token (OAuth 2.0 JWT bearer grant at
// GOOGLE_OAUTH_TOKEN_URL). The google_wallet_objects rows are the durable record: the job sends
// each change once it succeeds, and retries a failure with the e-mail queue's backoff.

const SCOPE = 'https://www.googleapis.com/auth/wallet_object.issuer';
const BATCH = 50;
const INTERVAL_MS = 15_000;
const TIMEOUT_MS = 10_000;

/** The service account's access token, reused until a minute before it expires. */
const tokenCache = appSingleton('tickets.google-wallet-token', () => ({ token: '', expiresAt: 0 }));

async function accessToken(ctx: AppContext, google: GoogleWalletConfig): Promise<string> {
  const cache = tokenCache(ctx);
  const now = Date.now();
  if (cache.token && cache.expiresAt - 60_000 > now) return cache.token;
  const tokenUrl = ctx.config.wallet.googleTokenUrl;
  const assertion = await new SignJWT({ scope: SCOPE })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
    .setIssuer(google.clientEmail)
    .setAudience(tokenUrl)
    .setIssuedAt(Math.floor(now / 1000))
    .setExpirationTime(Math.floor(now / 1000) + 3600)
    .sign(await importPKCS8(google.privateKey, 'RS256'));
  const res = await fetch(tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString(),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const body = (await res.json().catch(() => ({}))) as { access_token?: unknown; expires_in?: unknown };
  if (!res.ok || typeof body.access_token !== 'string') throw new Error(`Google token endpoint answered ${res.status}`);
  cache.token = body.access_token;
  cache.expiresAt = now + (typeof body.expires_in === 'number' ? body.expires_in : 3600) * 1000;
  return cache.token;
}

/** What the object must say now: INACTIVE once refunded; else ACTIVE with the current barcode (a reissue). */
async function patchOf(ctx: AppContext, ticketId: number): Promise<Record<string, unknown> | null> {
  const ticket = await ticketById(ctx.db, ticketId);
  if (!ticket) return null;
  if (ticket.status === 'void') return { state: 'INACTIVE' };
  const secret = await qrSecretOf(ctx, ticket);
  return { state: 'ACTIVE', ticketNumber: ticket.code, barcode: { type: 'QR_CODE', value: secret, alternateText: ticket.code } };
}

/** One pass: every object whose ticket changed since its last update, due now. */
export async function syncGoogleObjects(ctx: AppContext, log: { warn(obj: object, msg: string): void }): Promise<{ sent: number; failed: number }> {
  const google = ctx.config.wallet.google;
  if (google === null || google === 'development') return { sent: 0, failed: 0 };
  let sent = 0;
  let failed = 0;
  /** PATCHes one resource of the Wallet API; 404 (the buyer never saved the pass: nothing to change) is done. */
  const patchAt = async (path: string, patch: Record<string, unknown>) => {
    const res = await fetch(`${ctx.config.wallet.googleApiUrl}/${path}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${await accessToken(ctx, google)}`, 'content-type': 'application/json' },
      body: JSON.stringify(patch),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (res.status === 401) tokenCache(ctx).token = '';
    if (!res.ok && res.status !== 404) throw new Error(`Google Wallet answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
  };
  // A moved session (D74): its class (one per session) gets the new dateTime once per run.
  const classesMoved = new Set<number>();
  for (const pending of await objects.pendingObjects(ctx.db, ctx.clock.now(), BATCH)) {
    try {
      const patch = await patchOf(ctx, pending.ticketId);
      if (patch) await patchAt(`eventTicketObject/${encodeURIComponent(pending.objectId)}`, patch);
      if (pending.classMoved && !classesMoved.has(pending.sessionId)) {
        const dateTime = { start: isoWithOffset(pending.start)!, ...(pending.end ? { end: isoWithOffset(pending.end)! } : {}) };
        await patchAt(`eventTicketClass/${encodeURIComponent(googleClassId(google, pending.sessionId))}`, { dateTime });
        classesMoved.add(pending.sessionId);
      }
      await objects.markSynced(ctx.db, pending);
      sent++;
    } catch (err) {
      failed++;
      await objects.markFailed(ctx.db, pending.ticketId, (err as Error).message, new Date(ctx.clock.now().getTime() + retryDelayMs(pending.attempts + 1)));
      log.warn({ err, objectId: pending.objectId }, 'Google Wallet object update failed; retried later');
    }
  }
  return { sent, failed };
}

/** The scheduler's job: only with a configured Google issuer (the development signer has no objects at Google). */
export function googleWalletSyncJob(ctx: AppContext, log: { warn(obj: object, msg: string): void }): Job | null {
  const google = ctx.config.wallet.google;
  if (google === null || google === 'development') return null;
  return {
    name: 'google-wallet-sync',
    intervalMs: INTERVAL_MS,
    describe: () => `Google Wallet REST API at ${ctx.config.wallet.googleApiUrl}`,
    async run() {
      await syncGoogleObjects(ctx, log);
    },
  };
}
