import { describe, expect, it } from 'vitest';
import { isoToZonedInput, wallToIsoWithOffset, zonedToIso } from '../../src/lib/zoned-time.js';

// Times typed and shown in the deployment's zone (D12, D65), and the overview's buckets with their
// offset (D66): one conversion from a wall-clock time to an instant, across Madrid's clock changes.
const MADRID = 'Europe/Madrid';

describe('wall-clock times of a zone', () => {
  it('a form value is the instant that zone shows it at, in winter and in summer', () => {
    expect(zonedToIso('2026-12-07T21:00', MADRID)).toBe('2026-12-07T20:00:00.000Z');
    expect(zonedToIso('2026-07-01T21:00', MADRID)).toBe('2026-07-01T19:00:00.000Z');
    expect(isoToZonedInput('2026-07-01T19:00:00.000Z', MADRID)).toBe('2026-07-01T21:00');
    expect(zonedToIso('', MADRID)).toBeNull();
    expect(zonedToIso('not a time', MADRID)).toBe('not a time');
  });

  it('a bucket carries the offset of its own day; a skipped time takes the offset after the change', () => {
    expect(wallToIsoWithOffset('2026-12-07T05:00', MADRID)).toBe('2026-12-07T05:00:00+01:00');
    expect(wallToIsoWithOffset('2026-07-01T05:00', MADRID)).toBe('2026-07-01T05:00:00+02:00');
    // 29 March 2026: 02:00 becomes 03:00 in Madrid; 02:30 never shows.
    expect(wallToIsoWithOffset('2026-03-29T02:30', MADRID)).toBe('2026-03-29T02:30:00+02:00');
    expect(wallToIsoWithOffset('2026-12-07', MADRID)).toBe('2026-12-07');
  });
});
