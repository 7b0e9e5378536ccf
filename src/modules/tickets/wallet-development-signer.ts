import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import forge from 'node-forge';
import { appSingleton, type AppContext } from '../../app-context.js';
import { queryRows } from '../../db/client.js';
import { openSecret, sealSecret } from '../../lib/secrets.js';
import type { AppleWalletConfig, GoogleWalletConfig } from '../../platform/wallet.config.js';

// The development wallet signers (D70, docs/wallet.md "Development signer"). Outside production a
// provider left unconfigured signs with material generated at the first start and kept in the
// database (wallet_development_signers, migration 0340): a self-signed certificate and key for Apple,
// an RSA service account key for Google. Every later start, and every instance on the same database,
// reads the same row, so a pass saved yesterday still verifies with today's certificate. The private
// key is sealed under SIGNING_SECRET like the other recoverable secrets. Never made in production.

type Provider = 'apple' | 'google';

interface SignerRow {
  certificate: string | null;
  private_key_sealed: string;
}

interface Material {
  certificate: string | null;
  privateKey: string;
}

function selfSignedCertificate(commonName: string): { cert: string; key: string } {
  const { publicKey, privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  const key = privateKey.export({ type: 'pkcs1', format: 'pem' }) as string;
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicKey.export({ type: 'spki', format: 'pem' }) as string);
  cert.serialNumber = `01${crypto.randomBytes(8).toString('hex')}`;
  cert.validity.notBefore = new Date(Date.now() - 24 * 3600 * 1000);
  cert.validity.notAfter = new Date(Date.now() + 10 * 365 * 24 * 3600 * 1000);
  const attrs = [
    { name: 'commonName', value: commonName },
    { name: 'organizationName', value: 'Taquilla (development)' },
  ];
  cert.setSubject(attrs);
  cert.setIssuer(attrs);
  cert.sign(forge.pki.privateKeyFromPem(key), forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key };
}

function generate(provider: Provider): Material {
  if (provider === 'apple') {
    const signer = selfSignedCertificate('Taquilla development pass signer');
    return { certificate: signer.cert, privateKey: signer.key };
  }
  const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { certificate: null, privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string };
}

async function storedSigner(ctx: AppContext, provider: Provider): Promise<Material | null> {
  const rows = await queryRows<SignerRow>(ctx.db, sql`SELECT certificate, private_key_sealed FROM wallet_development_signers WHERE provider = ${provider}`);
  const row = rows[0];
  return row ? { certificate: row.certificate, privateKey: openSecret(row.private_key_sealed, ctx.config.signingSecret) } : null;
}

/** The provider's development material: the stored one, or made now (two instances at once keep one row). */
async function developmentMaterial(ctx: AppContext, provider: Provider): Promise<Material> {
  if (ctx.config.appEnv === 'production') throw new Error('the development wallet signer is never used in production');
  const stored = await storedSigner(ctx, provider);
  if (stored) return stored;
  const made = generate(provider);
  await ctx.db.execute(sql`
    INSERT INTO wallet_development_signers (provider, certificate, private_key_sealed, created_at)
    VALUES (${provider}, ${made.certificate}, ${sealSecret(made.privateKey, ctx.config.signingSecret)}, ${ctx.clock.now()})
    ON CONFLICT (provider) DO NOTHING`);
  // Whichever instance inserted first, its row is the signer of all.
  return (await storedSigner(ctx, provider))!;
}

// Read once per app; a failed read (database down) is forgotten so that the next use tries again.
const loaded = appSingleton('tickets.wallet-development-signers', () => new Map<Provider, Promise<Material>>());

function material(ctx: AppContext, provider: Provider): Promise<Material> {
  const cache = loaded(ctx);
  let pending = cache.get(provider);
  if (!pending) {
    pending = developmentMaterial(ctx, provider);
    pending.catch(() => cache.delete(provider));
    cache.set(provider, pending);
  }
  return pending;
}

export async function developmentAppleSigner(ctx: AppContext): Promise<AppleWalletConfig> {
  const m = await material(ctx, 'apple');
  // The development "WWDR" is the signer itself: Wallet would refuse it, which is the point.
  return { mode: 'development', passTypeId: 'pass.org.taquilla.development', teamId: 'DEVELOPMEN', cert: m.certificate!, key: m.privateKey, keyPassphrase: undefined, wwdr: m.certificate! };
}

export async function developmentGoogleSigner(ctx: AppContext): Promise<GoogleWalletConfig> {
  const m = await material(ctx, 'google');
  return { mode: 'development', issuerId: '3388000000000000000', clientEmail: 'taquilla-development@development.invalid', privateKey: m.privateKey };
}

/** At start: the development signers of the providers left unconfigured exist (made at the first start). */
export async function ensureDevelopmentSigners(ctx: AppContext): Promise<void> {
  const { apple, google } = ctx.config.wallet;
  if (apple === 'development') await developmentAppleSigner(ctx);
  if (google === 'development') await developmentGoogleSigner(ctx);
}
