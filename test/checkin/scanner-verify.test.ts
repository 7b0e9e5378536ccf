import nodeCrypto from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { decideOffline, entryAfter, type LocalEntry } from '../../checkin/src/decide.js';
import { setupToken } from '../../checkin/src/scanner.js';
import { fromB64url, importPublicKeys, legacyCodeHash, parseSecret, toB64url, verifySignature, type SignedSecret } from '../../checkin/src/secret.js';
import type { CheckinList, ListTicket } from '../../checkin/src/types.js';

// The scanner's offline verification (checkin/src/secret.ts, decide.ts) with Node's WebCrypto,
// against secrets signed as the contract says (D53): the same code the browser runs.

let pair: CryptoKeyPair;
let other: CryptoKeyPair;
let keys: Map<string, CryptoKey>;

async function sign(key: CryptoKey, kid: string, payload: string): Promise<string> {
  const head = `tq2.${kid}.${toB64url(new TextEncoder().encode(payload))}`;
  const sig = new Uint8Array(await crypto.subtle.sign({ name: 'Ed25519' }, key, new TextEncoder().encode(head)));
  return `${head}.${toB64url(sig)}`;
}

const publicKey = async (k: CryptoKeyPair) => toB64url(new Uint8Array(await crypto.subtle.exportKey('raw', k.publicKey)));

beforeAll(async () => {
  pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  other = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  keys = await importPublicKeys([
    { kid: 'a1b2c3d4', public_key: await publicKey(pair) },
    { kid: 'broken', public_key: 'too-short' },
  ]);
});

async function check(secret: string): Promise<{ parsed: SignedSecret | null; ok: boolean }> {
  const parsed = parseSecret(secret);
  if (!parsed || parsed.format !== 2) return { parsed: null, ok: false };
  return { parsed, ok: await verifySignature(parsed, keys) };
}

describe('parsing and signatures', () => {
  it('reads a format-2 secret and verifies its signature', async () => {
    const secret = await sign(pair.privateKey, 'a1b2c3d4', '1234:56:2');
    const { parsed, ok } = await check(secret);
    expect(parsed).toMatchObject({ format: 2, kid: 'a1b2c3d4', ticketId: '1234', sessionId: '56', version: 2 });
    expect(ok).toBe(true);
    // Whitespace from a keyboard wedge is ignored.
    expect((await check(`  ${secret}\n`)).ok).toBe(true);
  });

  it('refuses an altered payload, a signature by another key, a swapped kid and a cut signature', async () => {
    const secret = await sign(pair.privateKey, 'a1b2c3d4', '1234:56:1');
    const [, kid, , sig] = secret.split('.');
    const altered = `tq2.${kid}.${toB64url(new TextEncoder().encode('1235:56:1'))}.${sig}`;
    expect(await check(altered)).toMatchObject({ ok: false });
    expect((await check(await sign(other.privateKey, 'a1b2c3d4', '1234:56:1'))).ok).toBe(false);
    const unknownKid = parseSecret(await sign(pair.privateKey, 'ffffffff', '1234:56:1')) as SignedSecret;
    expect(await verifySignature(unknownKid, keys)).toBe(false);
    // A flipped bit in the signature.
    const bytes = fromB64url(sig!)!;
    bytes[10]! ^= 1;
    expect((await check(`tq2.${kid}.${secret.split('.')[2]}.${toB64url(bytes)}`)).ok).toBe(false);
    expect(parseSecret(secret.slice(0, -4))).toBeNull();
  });

  it('answers null for what is not a ticket code', async () => {
    for (const text of ['', 'tq2.', 'tq2.a.b.c.d', 'tq2.k!d.AAAA.AAAA', 'hello world', 'tq2.a1b2.' + toB64url(new TextEncoder().encode('1:2')) + '.' + 'A'.repeat(86), 'short']) {
      expect(parseSecret(text), text).toBeNull();
    }
    // A payload with a zero id, or not UTF-8.
    const zero = await sign(pair.privateKey, 'a1b2c3d4', '0:5:1');
    expect(parseSecret(zero)).toBeNull();
    expect(parseSecret(`tq2.a1b2c3d4.${toB64url(new Uint8Array([0xff, 0xfe]))}.${'A'.repeat(86)}`)).toBeNull();
    // Only usable keys are imported.
    expect([...keys.keys()]).toEqual(['a1b2c3d4']);
  });

  it('reads format-1 codes, also inside a link, and hashes them as the list download does', async () => {
    expect(parseSecret('Ab3dEf6hIj9kLm2nOp5qRs8t')).toEqual({ format: 1, code: 'Ab3dEf6hIj9kLm2nOp5qRs8t' });
    expect(parseSecret('https://taquilla.test/t/Ab3dEf6hIj9kLm2nOp5qRs8t?x=1')).toEqual({ format: 1, code: 'Ab3dEf6hIj9kLm2nOp5qRs8t' });
    expect(await legacyCodeHash('Ab3dEf6hIj9kLm2nOp5qRs8t')).toBe(nodeCrypto.createHash('sha256').update('Ab3dEf6hIj9kLm2nOp5qRs8t').digest('base64url'));
  });

  it('round-trips base64url of every length', () => {
    for (let n = 0; n < 70; n++) {
      const bytes = nodeCrypto.randomBytes(n);
      expect(toB64url(bytes)).toBe(bytes.toString('base64url'));
      expect(Buffer.from(fromB64url(bytes.toString('base64url'))!)).toEqual(bytes);
    }
    expect(fromB64url('A')).toBeNull();
    expect(fromB64url('AB+/')).toBeNull();
  });
});

describe('the set-up link', () => {
  it('takes the token from the device QR link, a typed link or the bare token', () => {
    const token = 'cd_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
    expect(setupToken(`https://taquilla.test/checkin/#setup=${token}`)).toBe(token);
    expect(setupToken(`  #setup=${token}&x=1 `)).toBe(token);
    expect(setupToken(token)).toBe(token);
    expect(setupToken('https://taquilla.test/checkin/#setup=')).toBeNull();
    expect(setupToken('not a token!')).toBeNull();
  });
});

describe('the offline answer', () => {
  const list: CheckinList = {
    id: 7,
    name: 'Puerta norte',
    allow_reentry: false,
    sessions: [{ id: 56, event_name: 'Concierto', starts_at: '2026-12-01T20:00:00Z' }],
    sector_ids: null,
    opens_minutes_before: 360,
  };
  const ticket: ListTicket = { id: 1234, v: 1, session_id: 56, sector_id: 3, sector: 'Platea', row: 'A', seat: '7', rate: 'General', buyer_name: 'Ana Ruiz', status: 'valid' };

  async function decide(payload: string, opts: { ticket?: ListTicket | null; local?: LocalEntry; list?: CheckinList; direction?: 'entry' | 'exit'; key?: CryptoKey } = {}) {
    const secret = parseSecret(await sign(opts.key ?? pair.privateKey, 'a1b2c3d4', payload));
    const ok = secret?.format === 2 && (await verifySignature(secret, keys));
    return decideOffline({
      secret,
      signatureOk: ok,
      keyKnown: true,
      list: opts.list ?? list,
      ticket: opts.ticket === null ? undefined : (opts.ticket ?? ticket),
      local: opts.local,
      direction: opts.direction ?? 'entry',
      now: new Date('2026-12-01T19:00:00Z'),
    });
  }

  it('valid with the seat, rate and buyer; then already used with the first time', async () => {
    const first = await decide('1234:56:1');
    expect(first).toMatchObject({ result: 'valid', reason: 'entry', ticketId: '1234', ticket: { event_name: 'Concierto', seat: '7', rate: 'General', buyer_name: 'Ana Ruiz' } });
    const entry = entryAfter(undefined, 'valid', '2026-12-01T19:30:00.000Z', 'Puerta 1')!;
    expect(await decide('1234:56:1', { local: entry })).toMatchObject({
      result: 'already_used',
      reason: 'used',
      first_scan: { scanned_at: '2026-12-01T19:30:00.000Z', device_name: 'Puerta 1' },
    });
    // A check-in another device made, learnt from the list download.
    expect(await decide('1234:56:1', { ticket: { ...ticket, checked_in_at: '2026-12-01T19:00:00Z' } })).toMatchObject({
      result: 'already_used',
      first_scan: { scanned_at: '2026-12-01T19:00:00Z' },
    });
  });

  it('refuses a forged secret, a revoked or reissued ticket, another session or sector', async () => {
    expect(await decide('1234:56:1', { key: other.privateKey })).toMatchObject({ result: 'invalid', reason: 'forged' });
    expect(await decide('1234:56:1', { ticket: { ...ticket, status: 'revoked' } })).toMatchObject({ result: 'refunded', reason: 'revoked' });
    expect(await decide('1234:56:1', { ticket: { ...ticket, v: 2 } })).toMatchObject({ result: 'invalid', reason: 'reissued' });
    expect(await decide('1234:56:2', { ticket: { ...ticket, v: 2 } })).toMatchObject({ result: 'valid' });
    expect(await decide('1234:99:1', { ticket: null })).toMatchObject({ result: 'wrong_list', reason: 'other_session' });
    expect(await decide('1234:56:1', { list: { ...list, sector_ids: [4] } })).toMatchObject({ result: 'wrong_list', reason: 'other_sector' });
    expect(await decide('1234:56:1', { list: { ...list, sector_ids: [3] } })).toMatchObject({ result: 'valid' });
    const unknownKey = decideOffline({ secret: parseSecret(await sign(pair.privateKey, 'zz', '1:56:1')), signatureOk: false, keyKnown: false, list, ticket: undefined, local: undefined, direction: 'entry', now: new Date() });
    expect(unknownKey).toMatchObject({ result: 'invalid', reason: 'unknown_key' });
    expect(decideOffline({ secret: null, signatureOk: false, keyKnown: false, list, ticket: undefined, local: undefined, direction: 'entry', now: new Date() })).toMatchObject({
      result: 'invalid',
      reason: 'unreadable',
    });
  });

  it('not yet valid before the list opens admission to the session', async () => {
    const opens = { ...list, opens_minutes_before: 30 };
    expect(await decide('1234:56:1', { list: opens })).toMatchObject({ result: 'not_yet_valid', reason: 'too_early' });
    expect(await decide('1234:56:1', { list: { ...list, opens_minutes_before: 60 } })).toMatchObject({ result: 'valid' });
    // A refund is said first, as the server does.
    expect(await decide('1234:56:1', { list: opens, ticket: { ...ticket, status: 'revoked' } })).toMatchObject({ result: 'refunded' });
  });

  it('a signed ticket sold after the last sync is let in, unless the list is limited to sectors', async () => {
    expect(await decide('9999:56:1', { ticket: null })).toMatchObject({ result: 'valid', ticketId: '9999', ticket: { event_name: 'Concierto' } });
    expect(await decide('9999:56:1', { ticket: null, list: { ...list, sector_ids: [3] } })).toMatchObject({ result: 'invalid', reason: 'unknown_ticket' });
  });

  it('a legacy code must be in the list', async () => {
    const legacy = parseSecret('Ab3dEf6hIj9kLm2nOp5qRs8t');
    const base = { secret: legacy, signatureOk: false, keyKnown: false, list, local: undefined, direction: 'entry' as const, now: new Date('2026-12-01T19:00:00Z') };
    expect(decideOffline({ ...base, ticket: undefined })).toMatchObject({ result: 'invalid', reason: 'unknown_ticket' });
    expect(decideOffline({ ...base, ticket })).toMatchObject({ result: 'valid', ticketId: '1234' });
  });

  it('re-entry after an exit where the list allows it, never where it does not', async () => {
    const reentry = { ...list, allow_reentry: true };
    const inside = entryAfter(undefined, 'valid', '2026-12-01T19:30:00.000Z', 'Puerta 1')!;
    expect(await decide('1234:56:1', { list: reentry, direction: 'exit' })).toMatchObject({ result: 'exited' });
    expect(await decide('1234:56:1', { list: reentry, local: inside, direction: 'exit' })).toMatchObject({ result: 'exited' });
    const out = entryAfter(inside, 'exited', '2026-12-01T21:00:00.000Z', 'Puerta 1')!;
    expect(out).toMatchObject({ first_at: '2026-12-01T19:30:00.000Z', inside: false });
    expect(await decide('1234:56:1', { list: reentry, local: out })).toMatchObject({ result: 'valid', reason: 'reentry' });
    expect(await decide('1234:56:1', { list: reentry, local: inside })).toMatchObject({ result: 'already_used' });
    expect(await decide('1234:56:1', { local: inside, direction: 'exit' })).toMatchObject({ result: 'invalid', reason: 'no_exit' });
  });
});
