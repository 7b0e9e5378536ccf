// The waiting room's proof of work (D60, `challenge: proof_of_work`): solves the service's ALTCHA
// v2 challenge in the browser. The key of a counter is SHA-256 iterated `cost` times over
// salt + nonce + counter (4 bytes, big endian); the answer is the first counter whose key starts
// with `keyPrefix`. A synchronous SHA-256 (each key is one block) is many times faster here than
// crypto.subtle's promises. Part of the UI kit (ui/): the widget's waiting room and the portal's use this one copy.

export interface PowChallenge {
  parameters: { algorithm: string; nonce: string; salt: string; cost: number; keyLength?: number; keyPrefix: string; [k: string]: unknown };
  signature?: string;
}

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
  0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
  0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
  0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const W = new Uint32Array(64);

/** SHA-256 of `data` (any length), as 32 bytes. */
function sha256(data: Uint8Array): Uint8Array {
  const bitLen = data.length * 8;
  const blocks = Math.ceil((data.length + 9) / 64);
  const buf = new Uint8Array(blocks * 64);
  buf.set(data);
  buf[data.length] = 0x80;
  const view = new DataView(buf.buffer);
  view.setUint32(buf.length - 4, bitLen >>> 0, false);
  view.setUint32(buf.length - 8, Math.floor(bitLen / 0x100000000), false);
  let h0 = 0x6a09e667, h1 = 0xbb67ae85, h2 = 0x3c6ef372, h3 = 0xa54ff53a, h4 = 0x510e527f, h5 = 0x9b05688c, h6 = 0x1f83d9ab, h7 = 0x5be0cd19;
  for (let off = 0; off < buf.length; off += 64) {
    for (let i = 0; i < 16; i++) W[i] = view.getUint32(off + i * 4, false);
    for (let i = 16; i < 64; i++) {
      const a = W[i - 15]!, b = W[i - 2]!;
      const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
      const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
      W[i] = (W[i - 16]! + s0 + W[i - 7]! + s1) | 0;
    }
    let a = h0, b = h1, c = h2, d = h3, e = h4, f = h5, g = h6, h = h7;
    for (let i = 0; i < 64; i++) {
      const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      const t1 = (h + S1 + ((e & f) ^ (~e & g)) + K[i]! + W[i]!) | 0;
      const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      h = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
    }
    h0 = (h0 + a) | 0; h1 = (h1 + b) | 0; h2 = (h2 + c) | 0; h3 = (h3 + d) | 0; h4 = (h4 + e) | 0; h5 = (h5 + f) | 0; h6 = (h6 + g) | 0; h7 = (h7 + h) | 0;
  }
  const out = new Uint8Array(32);
  const ov = new DataView(out.buffer);
  [h0, h1, h2, h3, h4, h5, h6, h7].forEach((v, i) => ov.setUint32(i * 4, v >>> 0, false));
  return out;
}

const fromHex = (hex: string) => Uint8Array.from(hex.match(/../g) ?? [], (b) => parseInt(b, 16));
const toHex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

/**
 * Solves an ALTCHA v2 challenge ({parameters: {algorithm, nonce, salt, cost, keyLength, keyPrefix}, signature})
 * and resolves with the `challenge_solution` of a join (base64 JSON of {challenge, solution}).
 * Yields to the page every 50 ms, so that the countdown keeps ticking.
 */
export async function solveChallenge(challenge: PowChallenge, maxMs = 120_000): Promise<string> {
  const p = challenge.parameters;
  if (p.algorithm !== 'SHA-256') throw new Error(`unsupported challenge algorithm ${p.algorithm}`);
  const salt = fromHex(p.salt);
  const nonce = fromHex(p.nonce);
  const keyLength = p.keyLength || 32;
  const prefix = String(p.keyPrefix).toLowerCase();
  const cost = Math.max(1, p.cost);
  const first = new Uint8Array(salt.length + nonce.length + 4);
  first.set(salt, 0);
  first.set(nonce, salt.length);
  const counterView = new DataView(first.buffer, salt.length + nonce.length, 4);
  const started = performance.now();
  let slice = started;
  for (let counter = 0; ; counter++) {
    counterView.setUint32(0, counter, false);
    let key = sha256(first);
    for (let i = 1; i < cost; i++) key = sha256(key);
    const hex = toHex(key.subarray(0, keyLength));
    if (hex.startsWith(prefix)) {
      const solution = { counter, derivedKey: hex, time: Math.round(performance.now() - started) };
      return btoa(JSON.stringify({ challenge, solution }));
    }
    if (performance.now() - slice > 50) {
      if (performance.now() - started > maxMs) throw new Error('the challenge took too long');
      await new Promise((resolve) => setTimeout(resolve, 0));
      slice = performance.now();
    }
  }
}
