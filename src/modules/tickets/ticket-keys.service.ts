import type crypto from 'node:crypto';
import type { AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import { AppError } from '../../http/errors.js';
import { isoWithOffset } from '../../lib/time.js';
import { randomBase62 } from '../../lib/secrets.js';
import { appCache } from '../../platform/cache.js';
import * as repo from './ticket-keys.repo.js';
import type { SecretSource } from './tickets.repo.js';
import { decryptPrivateKey, encryptPrivateKey, generateKeyPair, parseSecret, publicKeyFromRaw, signSecret, verifySecret, type SecretClaims } from './ticket-secrets.js';

// The deployment's ticket signing keys (D53, docs/checkin.md "Key rotation"): one active key signs
// new tickets; retired keys keep verifying the tickets they signed.

interface LoadedKey {
  publicKey: crypto.KeyObject;
  privateKey: crypto.KeyObject;
  withdrawn: boolean;
}

// A key never changes once written except for being withdrawn, which is rare and operator-driven:
// a minute of staleness across instances is acceptable (a withdrawal in this instance drops it now).
const loadedKeys = appCache<string, LoadedKey, Db>('tickets.signing-keys', (ctx) => ({
  max: 50,
  ttl: 60_000,
  fetch: async (kid, db) => {
    const row = await repo.keyByKid(db, kid);
    if (!row) return undefined;
    return {
      publicKey: publicKeyFromRaw(row.public_key),
      privateKey: decryptPrivateKey(row.private_key_enc, row.kid, ctx.config.signingSecret),
      withdrawn: row.withdrawn_at !== null,
    };
  },
}));

const sealNew = (ctx: AppContext) => {
  const pair = generateKeyPair();
  return { kid: pair.kid, publicKey: pair.publicKey, sealed: encryptPrivateKey(pair.privateKey, pair.kid, ctx.config.signingSecret), at: ctx.clock.now() };
};

/** The active key's kid, creating the deployment's first key pair if there is none (first start). */
export async function ensureSigningKey(ctx: AppContext): Promise<string> {
  const active = await repo.activeKey(ctx.db);
  if (active) return active.kid;
  await repo.insertActiveKeyIfNone(ctx.db, sealNew(ctx));
  return (await repo.activeKey(ctx.db))!.kid;
}

/** A new key pair signs new tickets from now on; the old one is retired, still published while its tickets may scan. */
export async function rotateSigningKey(ctx: AppContext): Promise<{ kid: string; retired: string | null }> {
  const key = sealNew(ctx);
  const retired = await ctx.db.transaction(async (tx) => {
    const before = await repo.activeKey(tx);
    await repo.rotate(tx, key);
    return before?.kid ?? null;
  });
  return { kid: key.kid, retired };
}

/** Withdraws a retired key (e.g. one that leaked): its tickets stop scanning until reissued. */
export async function withdrawSigningKey(ctx: AppContext, kid: string): Promise<void> {
  if (!(await repo.withdraw(ctx.db, kid, ctx.clock.now()))) throw new AppError('not_found', 'No retired key with this id');
  loadedKeys(ctx).delete(kid);
}

export async function listSigningKeys(ctx: AppContext) {
  return (await repo.allKeys(ctx.db)).map((k) => ({
    kid: k.kid,
    public_key: k.public_key,
    created_at: isoWithOffset(new Date(k.created_at))!,
    state: k.withdrawn_at ? ('withdrawn' as const) : k.retired_at ? ('retired' as const) : ('active' as const),
  }));
}

/** The public keys devices import (the active one and retired ones still needed). */
export const publishedKeys = async (ctx: AppContext) =>
  (await repo.publishedKeys(ctx.db, ctx.clock.now())).map((k) => ({ kid: k.kid, public_key: k.public_key }));

/** What a ticket's QR code holds: the signed secret (format 2) or, for a format-1 ticket, its code. */
export async function qrSecretOf(ctx: AppContext, t: SecretSource): Promise<string> {
  if (t.secretFormat === 1) return t.code;
  const kid = t.signingKid ?? (await repo.assignKid(ctx.db, t.id, await ensureSigningKey(ctx)));
  const key = await loadedKeys(ctx).fetch(kid, { context: ctx.db });
  if (!key) throw new Error(`signing key ${kid} is missing`);
  const claims: SecretClaims = { kid, ticketId: t.id, sessionId: t.sessionId, issueVersion: t.issueVersion };
  return signSecret(claims, key.privateKey);
}

/** The claims of a format-2 secret whose signature a known, not withdrawn key verifies; else null. */
export async function verifiedClaims(ctx: AppContext, secret: string): Promise<SecretClaims | null> {
  const parsed = parseSecret(secret);
  if (!parsed) return null;
  const key = await loadedKeys(ctx).fetch(parsed.kid, { context: ctx.db });
  if (!key || key.withdrawn || !verifySecret(parsed, key.publicKey)) return null;
  return { kid: parsed.kid, ticketId: parsed.ticketId, sessionId: parsed.sessionId, issueVersion: parsed.issueVersion };
}

/** Reissues a valid ticket (new version, signed by the active key); 404 when not the organiser's or void. */
export async function reissueTicket(ctx: AppContext, ticketId: number, organiserId: number | null, db: Db = ctx.db) {
  // Without an active key (never after the first start) the first render assigns one (qrSecretOf).
  // A new printed code (24 base62 characters, as tickets.service newTicketCode): the old one stops scanning.
  const row = await repo.reissue(db, ticketId, organiserId, randomBase62(24));
  if (!row) throw new AppError('not_found', 'No valid ticket with this id');
  return { ticketId: Number(row.id), issueVersion: row.issue_version, organiserId: row.organiser_id };
}
