import { afterEach, beforeEach } from 'vitest';
import type { ManualClock } from '../src/lib/clock.js';

/**
 * The manual clocks of the test apps open in this worker (buildTestApp adds its app's clock, and
 * takes it out when the app closes). On globalThis: the setup file that reads it runs again for
 * every test file, while the worker keeps the modules of the files before (vitest.config.ts).
 */
const KEY = Symbol.for('taquilla.test.openClocks');
const store = globalThis as { [KEY]?: Set<ManualClock> };
export const openClocks = (store[KEY] ??= new Set<ManualClock>());

/**
 * Registered at the top of every test file (test/setup-each-file.ts): each clock open when a test
 * starts (after the beforeAll hooks, before the beforeEach ones) is set back to that time once the
 * test and its afterEach hooks are done, whether it passed, failed or was interrupted. A test moves
 * the clock and need not move it back. What the app kept while the clock was ahead (a view of taken
 * seats, a cache entry) is not moved back with it.
 */
export function restoreClocksAfterEachTest(): void {
  const atStart = new Map<ManualClock, number>();
  beforeEach(() => {
    atStart.clear();
    for (const clock of openClocks) atStart.set(clock, clock.now().getTime());
  });
  afterEach(() => {
    for (const [clock, at] of atStart) clock.set(new Date(at));
    atStart.clear();
  });
}
