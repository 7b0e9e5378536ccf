import { describe, expect, it } from 'vitest';
import { createServiceClock } from '../../ui/service-clock.js';

// The service's clock in a buyer's browser (ui/service-clock.ts): learnt from each answer's Date
// header (plus Age from a cache), else from a time the body gives; a device within 2 s is taken as right.

const headers = (h: Record<string, string>) => ({ get: (name: string) => h[name.toLowerCase()] ?? null });

describe('the service clock in the browser', () => {
  const device = Date.parse('2026-12-07T22:00:00.400Z');
  const clock = () => createServiceClock(() => device);

  it('follows a device that is minutes off', () => {
    const c = clock();
    c.observe(headers({ date: 'Mon, 07 Dec 2026 22:05:00 GMT' }));
    expect(c.now()).toBe(Date.parse('2026-12-07T22:05:00Z'));
    c.observe(headers({ date: 'Mon, 07 Dec 2026 21:57:00 GMT' }));
    expect(c.now()).toBe(Date.parse('2026-12-07T21:57:00Z'));
  });

  it('adds the Age of a cached answer', () => {
    const c = clock();
    c.observe(headers({ date: 'Mon, 07 Dec 2026 22:04:57 GMT', age: '3' }));
    expect(c.now()).toBe(Date.parse('2026-12-07T22:05:00Z'));
  });

  it('takes a device within 2 s as right (the header says whole seconds)', () => {
    const c = clock();
    c.observe(headers({ date: 'Mon, 07 Dec 2026 22:05:00 GMT' }));
    c.observe(headers({ date: 'Mon, 07 Dec 2026 22:00:01 GMT' }));
    expect(c.now()).toBe(device);
  });

  it('falls back to the body\'s time without a Date header, and keeps what it knew when an answer says nothing', () => {
    const c = clock();
    c.observe(null, '2026-12-07T23:30:00+01:00');
    expect(c.now()).toBe(Date.parse('2026-12-07T22:30:00Z'));
    c.observe(headers({ date: 'Mon, 07 Dec 2026 22:10:00 GMT' }), '2026-12-07T22:00:00Z');
    expect(c.now()).toBe(Date.parse('2026-12-07T22:10:00Z'));
    c.observe(headers({}));
    c.observe(headers({ date: 'not a date' }));
    expect(c.now()).toBe(Date.parse('2026-12-07T22:10:00Z'));
  });
});
