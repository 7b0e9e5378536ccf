import type { BrowserContext } from 'playwright-core';

/**
 * Puts the pages of `context` on a device clock `offsetMs` off the real one (Date.now and `new
 * Date()`), as on a phone whose clock was set by hand: the buyer's countdowns must run on the
 * service's clock all the same (ui/service-clock.ts).
 */
export async function deviceClockOff(context: BrowserContext, offsetMs: number): Promise<void> {
  await context.addInitScript((offset: number) => {
    const RealDate = Date;
    const realNow = RealDate.now.bind(RealDate);
    class DeviceDate extends RealDate {
      constructor(...args: unknown[]) {
        if (args.length === 0) super(realNow() + offset);
        else super(...(args as [string]));
      }
      static override now() {
        return realNow() + offset;
      }
    }
    globalThis.Date = DeviceDate as DateConstructor;
  }, offsetMs);
}
