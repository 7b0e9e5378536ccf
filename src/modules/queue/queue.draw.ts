import crypto from 'node:crypto';

/**
 * The draw of a waiting room (D60), written so that anyone can recompute it from what the queue
 * publishes (docs/onsale.md "Checking the draw" says the same in words):
 *
 * - `seed` is 64 hexadecimal characters; the status document shows `seed_sha256`, the SHA-256 of
 *   the seed's text (UTF-8), from the moment the queue is enabled, and the seed itself after the draw.
 * - The input is the pre-queue's ticket ids sorted ascending by their characters (all are ASCII
 *   letters and digits, so code-unit and byte order agree); the join order plays no part.
 * - Fisher-Yates from the end: for i = n-1 down to 1, j is drawn uniformly from 0..i and the items
 *   at i and j are swapped. Each draw takes the next value of a counter c (0, 1, 2, ...):
 *   h = HMAC-SHA256(key = seed text, message = c written in decimal), r = the first 6 bytes of h as
 *   an unsigned big-endian integer (0 <= r < 2^48); r is used when r < 2^48 - (2^48 mod (i+1)),
 *   and then j = r mod (i+1), else the next counter value is tried (no modulo bias).
 * - The result is the drawn order: the first ticket gets number 1.
 */
export function drawOrder(seed: string, ticketIds: readonly string[]): string[] {
  const ids = [...ticketIds].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const RANGE = 2 ** 48;
  let counter = 0;
  for (let i = ids.length - 1; i > 0; i--) {
    const span = i + 1;
    const limit = RANGE - (RANGE % span);
    let r: number;
    do {
      r = crypto.createHmac('sha256', seed).update(String(counter++)).digest().readUIntBE(0, 6);
    } while (r >= limit);
    const j = r % span;
    [ids[i], ids[j]] = [ids[j]!, ids[i]!];
  }
  return ids;
}

/** A new secret seed: 32 random bytes in hexadecimal. */
export const newSeed = () => crypto.randomBytes(32).toString('hex');

/** The commitment the status document publishes before the draw. */
export const seedCommitment = (seed: string) => crypto.createHash('sha256').update(seed, 'utf8').digest('hex');
