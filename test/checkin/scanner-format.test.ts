// The scanner's times (last sync, first scan, conflicts) in the deployment's zone, whatever the
// phone's, with the zone's abbreviation where the local time happens twice.
import { describe, expect, it } from 'vitest';
import { formatMoment } from '../../checkin/src/format.js';

describe('scanner times', () => {
  it("are in the zone given, not the machine's", () => {
    expect(formatMoment('2026-12-31T19:30:05Z', 'es', 'Europe/Madrid')).toBe('31/12/26, 20:30:05');
    expect(formatMoment('2026-12-31T19:30:05Z', 'es', 'Asia/Tokyo')).toBe('1/1/27, 4:30:05');
  });

  it('carry CEST/CET on the night the clocks go back in Madrid, where 02:30 happens twice', () => {
    expect(formatMoment('2026-10-25T00:30:00Z', 'es', 'Europe/Madrid')).toBe('25/10/26, 2:30:00 CEST');
    expect(formatMoment('2026-10-25T01:30:00Z', 'es', 'Europe/Madrid')).toBe('25/10/26, 2:30:00 CET');
    expect(formatMoment('2026-10-25T03:30:00Z', 'es', 'Europe/Madrid')).toBe('25/10/26, 4:30:00');
  });
});
