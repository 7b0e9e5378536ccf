import crypto from 'node:crypto';
import { hmac } from '../../lib/secrets.js';

// Signed ticket secrets, format 2 (D53, docs/checkin.md "Ticket secrets"):
//   "tq2." + kid + "." + b64url(`${ticketId}:${sessionId}:${issueVersion}`) + "." + b64url(Ed25519 signature)
// where the signature covers the UTF-8 bytes of everything before the last dot. Devices verify the
// same bytes with WebCrypto, so this layout is a contract with the scanner: change it only with a
// new prefix.

const PREFIX = 'tq2';
const SECRET_PATTERN = /^tq2\.([0-9a-f]{8})\.([A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{86})$/;
const PAYLOAD_PATTERN = /^([1-9][0-9]{0,15}):([1-9][0-9]{0,9}):([1-9][0-9]{0,9})$/;

export interface SecretClaims {
  kid: string;
  ticketId: number;
  sessionId: number;
  issueVersion: number;
}

export interface ParsedSecret extends SecretClaims {
  signed: Buffer;
  signature: Buffer;
}

const signedPart = (c: SecretClaims) => `${PREFIX}.${c.kid}.${Buffer.from(`${c.ticketId}:${c.sessionId}:${c.issueVersion}`).toString('base64url')}`;

/** The secret of `claims`, signed with `privateKey` (Ed25519 is deterministic: same ticket, same secret). */
export function signSecret(claims: SecretClaims, privateKey: crypto.KeyObject): string {
  const head = signedPart(claims);
  return `${head}.${crypto.sign(null, Buffer.from(head), privateKey).toString('base64url')}`;
}

/** The claims of a format-2 secret, unverified; null when it is not one. */
export function parseSecret(secret: string): ParsedSecret | null {
  const m = SECRET_PATTERN.exec(secret);
  if (!m) return null;
  const payload = PAYLOAD_PATTERN.exec(Buffer.from(m[2]!, 'base64url').toString('utf8'));
  if (!payload) return null;
  const claims = { kid: m[1]!, ticketId: Number(payload[1]), sessionId: Number(payload[2]), issueVersion: Number(payload[3]) };
  // Re-encoding must give the same text: a payload with padding bits or other spellings is refused.
  if (signedPart(claims) !== secret.slice(0, secret.lastIndexOf('.'))) return null;
  const signature = Buffer.from(m[3]!, 'base64url');
  // Base64 decoding ignores the unused low bits of the last character: only the one spelling counts.
  if (signature.toString('base64url') !== m[3]) return null;
  return { ...claims, signed: Buffer.from(signedPart(claims)), signature };
}

export const verifySecret = (parsed: ParsedSecret, publicKey: crypto.KeyObject): boolean =>
  crypto.verify(null, parsed.signed, publicKey, parsed.signature);

/** The public key from its b64url raw 32 bytes (the form devices receive). */
export function publicKeyFromRaw(raw: string): crypto.KeyObject {
  // SPKI DER of an Ed25519 key = this fixed 12-byte header + the 32 raw bytes.
  const der = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(raw, 'base64url')]);
  return crypto.createPublicKey({ key: der, format: 'der', type: 'spki' });
}

/** A new key pair: its kid, the b64url raw public key and the private key. */
export function generateKeyPair(): { kid: string; publicKey: string; privateKey: crypto.KeyObject } {
  const { publicKey, privateKey } = crypto.generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(12);
  const kid = crypto.createHash('sha256').update(raw).digest('hex').slice(0, 8);
  return { kid, publicKey: raw.toString('base64url'), privateKey };
}

// The private key rests encrypted (AES-256-GCM) under a key derived from SIGNING_SECRET, bound to
// its kid, so that a copy of the database alone cannot sign tickets.
const wrappingKey = (signingSecret: string) => Buffer.from(hmac(signingSecret, 'ticket-signing-key-v1'), 'base64url');

export function encryptPrivateKey(privateKey: crypto.KeyObject, kid: string, signingSecret: string): string {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv('aes-256-gcm', wrappingKey(signingSecret), iv).setAAD(Buffer.from(kid));
  const body = Buffer.concat([cipher.update(privateKey.export({ format: 'der', type: 'pkcs8' })), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

export function decryptPrivateKey(sealed: string, kid: string, signingSecret: string): crypto.KeyObject {
  const bytes = Buffer.from(sealed, 'base64url');
  const decipher = crypto.createDecipheriv('aes-256-gcm', wrappingKey(signingSecret), bytes.subarray(0, 12)).setAAD(Buffer.from(kid));
  decipher.setAuthTag(bytes.subarray(12, 28));
  const der = Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]);
  return crypto.createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
}

/** SHA-256 (b64url) of a format-1 code: what the list download carries instead of the code. */
export const legacyCodeHash = (code: string) => crypto.createHash('sha256').update(code).digest('base64url');
