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

/** SHA-256 hex digest: credentials are high-entropy, so a fast hash is the right one to store. */
export function sha256(value: string): string {
  return crypto.createHash('sha256').update(value).digest('hex');
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
