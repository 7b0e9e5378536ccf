import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { deviceClockOff } from '../device-clock.js';
import { exampleHostForFile, newWidgetPage } from './example-host.js';

// A phone whose clock is five minutes off, either way (set by hand): the widget's cart countdown
// still says the hold's 15 minutes, on the service's clock (the Date of its answers), and a live
// cart is not dropped as expired on the device's say-so, not even on a reload (before any answer).

const W = 'taquilla-widget';
const host = exampleHostForFile();

describe('the widget on a device whose clock is wrong', { timeout: 60_000 }, () => {
  for (const [label, offset] of [['five minutes fast', 5 * 60_000], ['five minutes slow', -5 * 60_000]] as const) {
    it(`counts the hold down on the service's clock: ${label}`, async () => {
      const page = await newWidgetPage(host, { width: 390, height: 844 });
      await deviceClockOff(page.context(), offset);
      await page.goto(`${host.examplesUrl}/model-d.html?session=${host.sessionId}`);
      // The device really is off: the page's clock says so.
      expect(((await page.evaluate(() => Date.now())) - Date.now()) / 60_000).toBeCloseTo(offset / 60_000, 0);
      const seat = page.locator(`${W} polygon.s.a`).first();
      await seat.waitFor();
      await seat.click();
      await page.locator(`${W} .cart li[data-item]`).first().waitFor();
      await expect.poll(() => page.locator(`${W} [data-countdown] time`).innerText()).toMatch(/^1[45]:\d\d$/);
      // And it stays: the cart is not ended by the device's clock.
      await page.waitForTimeout(1_500);
      expect(await page.locator(`${W} .cart li[data-item]`).count()).toBe(1);
      expect(await page.locator(`${W} [data-countdown] time`).innerText()).toMatch(/^1[45]:\d\d$/);
      await page.context().close();
    });
  }

  it('keeps a live cart over a reload on a device five minutes fast, with three minutes of the hold left', async () => {
    const page = await newWidgetPage(host, { width: 1280, height: 900 });
    await deviceClockOff(page.context(), 5 * 60_000);
    await page.goto(`${host.examplesUrl}/model-d.html?session=${host.sessionId}`);
    const seat = page.locator(`${W} polygon.s.a`).first();
    await seat.waitFor();
    await seat.click();
    await page.locator(`${W} .cart li[data-item]`).first().waitFor();
    const token = await page.evaluate(() => (window as unknown as { widget: { getOrder(): { order_token: string } } }).widget.getOrder().order_token);
    // Three minutes left on the service's clock (in the database and in the page's stored cart): past by the device's.
    const expiresAt = new Date(host.t.clock.now().getTime() + 3 * 60_000);
    await host.t.ctx.db.execute(sql`UPDATE orders SET expires_at = ${expiresAt} WHERE order_token = ${token}`);
    const stored = await page.evaluate((at) => {
      const key = Object.keys(localStorage).find((k) => k.startsWith('taquilla:order:demo-d:'))!;
      localStorage.setItem(key, JSON.stringify({ ...JSON.parse(localStorage.getItem(key)!), expiresAt: at }));
      return key;
    }, expiresAt.toISOString());
    expect(stored).toBeTruthy();
    await page.reload();
    await expect.poll(() => page.locator(`${W} [data-countdown] time`).innerText().catch(() => ''), { timeout: 15_000 }).toMatch(/^0[23]:\d\d$/);
    expect(await page.locator(`${W} .cart li[data-item]`).count()).toBe(1);
    await page.context().close();
  });
});
