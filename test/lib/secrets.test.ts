import { describe, expect, it } from 'vitest';
import { generateAccessToken, randomBase32, randomBase62 } from '../../src/lib/secrets.js';
import { newReference } from '../../src/modules/orders/orders.service.js';

// randomBase62 draws from a pool of random bytes refilled 4 KB at a time: across many refills every
// string is new, every character of the alphabet comes up about equally often (no modulo bias), and
// lengths are exact.
describe('randomBase62', () => {
  it('gives exact lengths, base62 only, never the same string twice across many pool refills', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5_000; i++) {
      const s = randomBase62(24);
      expect(s).toMatch(/^[0-9A-Za-z]{24}$/);
      seen.add(s);
    }
    expect(seen.size).toBe(5_000);
    expect(generateAccessToken()).toMatch(/^tk_[0-9A-Za-z]{44}$/);
  });

  it('uses every character about equally often', () => {
    const counts = new Map<string, number>();
    const text = Array.from({ length: 2_000 }, () => randomBase62(62)).join('');
    for (const c of text) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // 124,000 characters: 2,000 expected each; a modulo-biased draw (256 % 62) would give the first
    // eight characters about 2,200, and a stuck pool far more.
    for (const n of counts.values()) {
      expect(n).toBeGreaterThan(1_800);
      expect(n).toBeLessThan(2_200);
    }
  });
});

describe('randomBase32 and order references', () => {
  it('draws every character of the alphabet about equally often, in exact lengths', () => {
    const alphabet = 'ABCDEFGHJKMNPQRSTVWXYZ0123456789';
    const counts = new Map<string, number>();
    for (let i = 0; i < 2_000; i++) {
      const s = randomBase32(alphabet, 32);
      expect(s).toMatch(/^[A-HJKMNP-TV-Z0-9]{32}$/);
      for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    // 64,000 characters: 2,000 expected each.
    expect(counts.size).toBe(32);
    for (const n of counts.values()) {
      expect(n).toBeGreaterThan(1_800);
      expect(n).toBeLessThan(2_200);
    }
    expect(() => randomBase32('ABC', 4)).toThrow(/32 characters/);
  });

  it('makes order references TQ- and 8 readable characters, new each time', () => {
    const seen = new Set(Array.from({ length: 5_000 }, () => newReference()));
    expect(seen.size).toBe(5_000);
    for (const r of seen) expect(r).toMatch(/^TQ-[A-HJKMNP-TV-Z0-9]{8}$/);
  });
});
