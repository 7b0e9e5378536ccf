import crypto from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// Random bytes are drawn from the CSPRNG 4 KB at a time and each is used once (as crypto.randomUUID
// caches its entropy): a confirm makes twenty ticket codes, and one call per code showed in the
// flash-sale profile (bench:flash).
const randomPool = Buffer.alloc(4096);
let randomPoolNext = randomPool.length;

function randomByte(): number {
  if (randomPoolNext === randomPool.length) {
    crypto.randomFillSync(randomPool);
    randomPoolNext = 0;
  }
  return randomPool[randomPoolNext++]!;
}

/** Uniformly random base62 string (rejection sampling, no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

/** `length` characters of a 32-character alphabet, uniformly (256 is a multiple of 32: no bias). */
export function randomBase32(alphabet: string, length: number): string {
  if (alphabet.length !== 32) throw new Error('randomBase32 takes an alphabet of 32 characters');
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomByte() % 32];
  return out;
}

/**
 * SHA-256 hex digest: credentials are high-entropy, so a fast hash is the right one to store.
 * The one-shot crypto.hash (Node 20.12+) builds no Hash object: a purchase hashes five times
 * (the token and its key, the bearer of create and confirm, an Idempotency-Key's request).
 */
export function sha256(value: string): string {
  return crypto.hash('sha256', value, 'hex');
}

/** Constant-time comparison of two strings of any length. */
export function safeEqual(a: string, b: string): boolean {
  const ha = crypto.createHash('sha256').update(a).digest();
  const hb = crypto.createHash('sha256').update(b).digest();
  return crypto.timingSafeEqual(ha, hb) && a.length === b.length;
}

/** HMAC-SHA256, base64url. */
export function hmac(secret: string, value: string): string {
  return crypto.createHmac('sha256', secret).update(value).digest('base64url');
}

/** A widget key as D7 describes it: `wk_` + 40 base62 characters. */
export const generateWidgetKey = () => `wk_${randomBase62(40)}`;

/** A server key as D39 describes it: `sk_` + 40 base62 characters; it never leaves the channel's server. */
export const generateServerKey = () => `sk_${randomBase62(40)}`;

/** An opaque access token of 256+ bits (D8): 43 base62 characters carry ~256 bits. */
export const generateAccessToken = () => `tk_${randomBase62(44)}`;

// Secrets the service must use again, not just recognise (a webhook endpoint's signing secret):
// sealed with AES-256-GCM under a key derived from the deployment's SIGNING_SECRET, so that a copy
// of the database alone does not reveal them. `v1.` names the scheme for a later change of it.
const sealKey = (deploymentSecret: string) =>
  Buffer.from(crypto.hkdfSync('sha256', deploymentSecret, 'taquilla', 'recoverable secrets v1', 32));

/** Encrypts `plain` for storage (recover it with `openSecret` and the same deployment secret). */
export function sealSecret(plain: string, deploymentSecret: string): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', sealKey(deploymentSecret), iv);
  const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return `v1.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
}

/** The secret `sealSecret` stored; throws when it was sealed under another deployment secret. */
export function openSecret(sealed: string, deploymentSecret: string): string {
  if (!sealed.startsWith('v1.')) throw new Error('unknown sealed secret format');
  const raw = Buffer.from(sealed.slice(3), 'base64url');
  const decipher = crypto.createDecipheriv('aes-256-gcm', sealKey(deploymentSecret), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}

/** A webhook signing secret as Standard Webhooks writes it (D51): `whsec_` + base64 of 32 random bytes. */
export const generateWebhookSecret = () => `whsec_${crypto.randomBytes(32).toString('base64')}`;
