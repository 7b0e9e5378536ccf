import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserApp, type BrowserApp } from '../browser-app.js';
import { fillBuyer, payWithCard, VIEWPORTS } from '../portal/browser-helpers.js';

// Accessibility (issue 16): axe-core on the storefront, the seat map with a cart, the checkout,
// the order page and the widget (axe walks its open shadow root): no violation of impact serious
// or critical, at phone and desktop widths. The widget's seats are reachable by keyboard and named.
// (The dashboard's pages are checked the same way in office.browser.test.ts.)

const SHOTS = 'test-results/ux-office';
let base: string;
let browser: Browser;
let examplesUrl: string;

let started: BrowserApp;

beforeAll(async () => {
  ({ base, browser, examplesUrl } = started = await startBrowserApp({ portal: true, examples: true, shots: SHOTS }));
}, 240_000);
afterAll(() => started?.close());

/** How many checked nodes lay inside a shadow root at the last analysis (axe names them by nested selectors). */
let shadowNodes = 0;

/** Serious and critical axe violations of the page, as "rule: targets". */
async function axe(page: Page): Promise<string[]> {
  const { violations, passes } = await new AxeBuilder({ page }).analyze();
  shadowNodes = passes.flatMap((p) => p.nodes).filter((n) => Array.isArray(n.target[0])).length;
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

async function checkBoth(page: Page, name: string, found: Record<string, string[]>) {
  for (const [width, size] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(size);
    found[`${name}-${width}`] = await axe(page);
    await page.screenshot({ path: `${SHOTS}/a11y-${name}-${width}.png`, fullPage: true });
  }
}

describe('accessibility with axe-core', { timeout: 180_000 }, () => {
  it('storefront, seat map with a cart, checkout and order page: no serious or critical violations', async () => {
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop, locale: 'es-ES' });
    const page = await context.newPage();
    const found: Record<string, string[]> = {};
    try {
      await page.goto(`${base}/demo-a/es/events`);
      await checkBoth(page, 'storefront', found);
      await page.getByRole('link', { name: /Ver sesiones/ }).first().click();
      await page.waitForURL(/\/events\/\d+$/);
      await page.getByRole('link', { name: /Elegir entradas/ }).first().click();
      await page.waitForURL(/\/sessions\/\d+$/);
      const seat = page.locator('button.seat:not([disabled])[aria-pressed="false"]').first();
      const label = await seat.getAttribute('data-seat');
      await seat.focus();
      await page.keyboard.press('Enter');
      await page.locator(`button.seat[data-seat="${label}"][aria-pressed="true"]`).waitFor();
      await page.locator('#cart-body li.item').first().waitFor();
      await checkBoth(page, 'seat-map-cart', found);
      await page.getByRole('link', { name: 'Finalizar compra' }).click();
      await page.waitForURL(/\/checkout\?order_token=/);
      await page.locator('#cart-body li.item').first().waitFor();
      await checkBoth(page, 'checkout', found);
      await fillBuyer(page, 'lucia.a11y@example.com');
      await page.getByRole('button', { name: 'Pagar con tarjeta' }).click();
      await payWithCard(page, '4242 4242 4242 4242');
      await page.waitForURL(/\/demo-a\/es\/orders\//);
      await page.getByText('¡Compra completada!').waitFor();
      await checkBoth(page, 'order-page', found);
    } finally {
      await context.close();
    }
    expect(found).toEqual(Object.fromEntries(Object.keys(found).map((k) => [k, []])));
  });

  it("the widget: no serious or critical violations inside its shadow root; seats reachable by keyboard and named", async () => {
    const context = await browser.newContext({ viewport: VIEWPORTS.desktop });
    await context.addInitScript('globalThis.__name = (f) => f;');
    const page = await context.newPage();
    const found: Record<string, string[]> = {};
    try {
      await page.goto(`${examplesUrl}/model-c.html`);
      await page.locator('taquilla-widget polygon[data-id]').first().waitFor();
      // Tab into the map: the focused element is a seat with a role and a name.
      const focusedSeat = () =>
        page.evaluate(() => {
          const el = document.querySelector('taquilla-widget')?.shadowRoot?.activeElement;
          return el ? { tag: el.tagName.toLowerCase(), role: el.getAttribute('role'), name: el.getAttribute('aria-label') } : null;
        });
      let reached = null as Awaited<ReturnType<typeof focusedSeat>>;
      for (let i = 0; i < 40 && reached?.role !== 'checkbox'; i++) {
        await page.keyboard.press('Tab');
        reached = await focusedSeat();
      }
      expect(reached?.role).toBe('checkbox');
      expect(reached?.name).toBeTruthy();
      await page.keyboard.press('ArrowRight');
      const next = await focusedSeat();
      expect(next?.role).toBe('checkbox');
      expect(next?.name).toBeTruthy();
      expect(next?.name).not.toBe(reached?.name);
      // A free seat taken with the keyboard lands in the cart.
      await page.locator('taquilla-widget polygon.s.a').first().focus();
      await page.keyboard.press('Enter');
      await page.locator('taquilla-widget .cart li[data-item]').first().waitFor();
      await checkBoth(page, 'widget-cart', found);
      // axe did look inside the widget's shadow root
      expect(shadowNodes).toBeGreaterThan(10);
    } finally {
      await context.close();
    }
    expect(found).toEqual(Object.fromEntries(Object.keys(found).map((k) => [k, []])));
  });
});
