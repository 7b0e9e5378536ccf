// What a ticket's QR code holds, read and checked without a network (DECISIONS D53).
// Format 2: "tq2." + kid + "." + b64url(payload) + "." + b64url(Ed25519 signature over everything
// before the last dot); payload = "<ticketId>:<sessionId>:<issueVersion>". Format 1 (older tickets):
// the plain ticket code, matched offline by its SHA-256 so the device never holds the codes.
// Only WebCrypto is used, so the same module runs in the scanner, in Node's tests and in the bench.

export interface SignedSecret {
  format: 2;
  kid: string;
  ticketId: string;
  sessionId: string;
  version: number;
  /** The bytes the signature covers. */
  signed: Uint8Array<ArrayBuffer>;
  signature: Uint8Array<ArrayBuffer>;
}

interface LegacySecret {
  format: 1;
  code: string;
}

export type ParsedSecret = SignedSecret | LegacySecret;

export interface PublicKeyEntry {
  kid: string;
  /** b64url of the 32-byte raw Ed25519 public key. */
  public_key: string;
}

const B64URL = /^[A-Za-z0-9_-]*$/;
const ID = /^[1-9][0-9]{0,18}$/;
// A plain ticket code: the service's are 24 base62 characters; anything up to 64 of them is looked up.
const LEGACY = /^[A-Za-z0-9]{8,64}$/;

/** Bytes of base64url without padding; null when the text is not base64url. */
export function fromB64url(text: string): Uint8Array<ArrayBuffer> | null {
  if (!B64URL.test(text) || text.length % 4 === 1) return null;
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((text.length + 3) % 4);
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export function toB64url(bytes: Uint8Array): string {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * The code a scan produced: a format-2 secret, a legacy code (also when the QR holds a link that
 * ends in the code), or null for anything else (a wrong QR, a typo).
 */
export function parseSecret(raw: string): ParsedSecret | null {
  const text = raw.trim();
  if (text.startsWith('tq2.')) {
    const parts = text.split('.');
    if (parts.length !== 4) return null;
    const [, kid, payloadPart, sigPart] = parts as [string, string, string, string];
    if (!/^[A-Za-z0-9_-]{1,32}$/.test(kid)) return null;
    const payload = fromB64url(payloadPart);
    const signature = fromB64url(sigPart);
    if (!payload || !signature || signature.length !== 64) return null;
    let fields: string[];
    try {
      fields = new TextDecoder('utf-8', { fatal: true }).decode(payload).split(':');
    } catch {
      return null;
    }
    if (fields.length !== 3) return null;
    const [ticketId, sessionId, version] = fields as [string, string, string];
    if (!ID.test(ticketId) || !ID.test(sessionId) || !/^[1-9][0-9]{0,8}$/.test(version)) return null;
    const signed = new TextEncoder().encode(`tq2.${kid}.${payloadPart}`);
    return { format: 2, kid, ticketId, sessionId, version: Number(version), signed, signature };
  }
  // A link to the ticket (format 1 QR codes of some channels): its last path segment.
  const code = /^https?:\/\//i.test(text) ? (text.split(/[?#]/)[0]!.split('/').filter(Boolean).pop() ?? '') : text;
  return LEGACY.test(code) ? { format: 1, code } : null;
}

/** The published public keys by kid, imported once for verification. */
export async function importPublicKeys(entries: readonly PublicKeyEntry[]): Promise<Map<string, CryptoKey>> {
  const keys = new Map<string, CryptoKey>();
  for (const entry of entries) {
    const raw = fromB64url(entry.public_key);
    if (!raw || raw.length !== 32) continue;
    keys.set(entry.kid, await crypto.subtle.importKey('raw', raw, { name: 'Ed25519' }, false, ['verify']));
  }
  return keys;
}

/** True when the secret carries a good signature by one of the published keys. */
export async function verifySignature(secret: SignedSecret, keys: ReadonlyMap<string, CryptoKey>): Promise<boolean> {
  const key = keys.get(secret.kid);
  if (!key) return false;
  try {
    return await crypto.subtle.verify({ name: 'Ed25519' }, key, secret.signature, secret.signed);
  } catch {
    return false;
  }
}

/** What the list download carries for a format-1 ticket: b64url(SHA-256(code)). */
export async function legacyCodeHash(code: string): Promise<string> {
  return toB64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(code))));
}
