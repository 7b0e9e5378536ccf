import { sql } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { deviceClockOff } from '../device-clock.js';
import { DEMO } from '../helpers.js';
import { demoSession, type DemoSession } from '../orders/cart-helpers.js';
import { VIEWPORTS } from './browser-helpers.js';
import { portalForFile } from './portal-file.js';

// A phone whose clock is five minutes off (set by hand): the portal's countdowns (the cart's hold,
// a scheduled sales start) run on the service's clock, which the page is drawn with and every answer's
// Date says, not on the device's.

const slug = DEMO.a.slug;
const portal = portalForFile();

async function sessionPage(sess: DemoSession, offsetMs: number): Promise<Page> {
  const context = await portal.browser.newContext({ viewport: VIEWPORTS.phone, locale: 'es-ES' });
  await deviceClockOff(context, offsetMs);
  const page = await context.newPage();
  await page.goto(`${portal.base}/${slug}/es/events/${sess.eventId}/sessions/${sess.sessionId}`);
  return page;
}

describe('the portal on a device whose clock is wrong', { timeout: 60_000 }, () => {
  for (const [label, offset] of [['five minutes fast', 5 * 60_000], ['five minutes slow', -5 * 60_000]] as const) {
    it(`counts the cart's hold down on the service's clock: ${label}`, async () => {
      const page = await sessionPage(portal.s, offset);
      await page.locator('button.seat:not([disabled])[aria-pressed="false"]').first().click();
      await page.locator('button.seat[aria-pressed="true"]').first().waitFor();
      await expect.poll(() => page.locator('#countdown').textContent()).toMatch(/caduca en 1[45]:\d\d$/);
      // And it stays: the cart is not ended by the device's clock.
      await page.waitForTimeout(1_500);
      expect(await page.locator('#countdown').textContent()).toMatch(/caduca en 1[45]:\d\d$/);
      expect(await page.locator('button.seat[aria-pressed="true"]').count()).toBe(1);
      await page.context().close();
    });
  }

  it('counts down to a scheduled sales start on the service\'s clock, before any call (the page says its time)', async () => {
    const later = await demoSession(portal.t, 1);
    await portal.t.ctx.db.execute(sql`UPDATE sessions SET sales_start_at = ${new Date(portal.t.clock.now().getTime() + 3_600_000 + 30_000)} WHERE id = ${later.sessionId}`);
    const page = await sessionPage(later, -5 * 60_000);
    await expect.poll(() => page.locator('#sale-state').textContent()).toMatch(/La venta empieza en 01:00:[0-3]\d/);
    await page.context().close();
  });
});
