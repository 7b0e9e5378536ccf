// The service's clock in a buyer's browser. Countdowns (a cart's hold, the sales start, the waiting
// room) run on it rather than on the device's: a phone whose clock is minutes off would otherwise
// show a hold ending minutes early or late, drop a live cart or keep a dead one, and count down to
// a sales start that has passed. Every answer's `Date` header is the service's clock (to the
// second; src/http/service-date.ts), plus `Age` when a cache answered. A poll answered 304 counts
// too: the browser takes the 304's headers, even though it hands back the stored body.

/** An answer's headers (a fetch Response's, or null where they cannot be read). */
interface HeaderSource {
  get(name: string): string | null;
}

/** A device clock within this of the service's is taken as right: a `Date` header says whole seconds. */
const TOLERANCE_MS = 2_000;

export interface ServiceClock {
  /**
   * Learns the service's time from an answer: its `Date` (and `Age`) header, else `fallback` (an
   * ISO time the answer's body gives, for a caller that cannot read the headers), else nothing.
   */
  observe(headers: HeaderSource | null | undefined, fallback?: string): void;
  /** The service's time now, in ms since the epoch. */
  now(): number;
}

export function createServiceClock(deviceNow: () => number = () => Date.now()): ServiceClock {
  let offset = 0;
  return {
    observe(headers, fallback) {
      const date = Date.parse(headers?.get('date') ?? '');
      const service = Number.isFinite(date) ? date + 1000 * (Number(headers?.get('age')) || 0) : Date.parse(fallback ?? '');
      if (!Number.isFinite(service)) return;
      const measured = service - deviceNow();
      offset = Math.abs(measured) < TOLERANCE_MS ? 0 : measured;
    },
    now: () => deviceNow() + offset,
  };
}
