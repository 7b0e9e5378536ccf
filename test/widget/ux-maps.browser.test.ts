import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserApp, type BrowserApp } from '../browser-app.js';

// Issue 16, part 3 in the widget (model D example page) at a phone's and a desktop's size: row
// names and the stage drawn, "zoom to sector" gives seats of >= 24 CSS px, the map's controls
// never cover a seat, the sector's free count follows the cart, and on the phone a sticky bar keeps
// the total and the countdown in view. Screenshots in test-results/ux-maps/.

const SHOTS = path.resolve('test-results/ux-maps');
const SIZES = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } } as const;
const W = 'taquilla-widget';

let started: BrowserApp;
let examplesUrl: string;
let browser: Browser;

beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  ({ browser, examplesUrl } = started = await startBrowserApp({ examples: true }));
}, 180_000);
afterAll(() => started?.close());

type Rect = { x: number; y: number; width: number; height: number };
const overlaps = (a: Rect, b: Rect) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** Bounding boxes (page pixels) of the shadow root's elements matching `selector`. */
const rects = (page: Page, selector: string) =>
  page.evaluate(
    ([w, sel]) => [...document.querySelector(w!)!.shadowRoot!.querySelectorAll(sel!)].map((e) => e.getBoundingClientRect().toJSON() as { x: number; y: number; width: number; height: number }),
    [W, selector],
  );

describe('widget seat map at phone and desktop sizes', { timeout: 120_000 }, () => {
  for (const size of ['phone', 'desktop'] as const) {
    it(`${size}: rows and stage drawn; zoom to a sector gives >= 24 px seats; controls never cover seats; counts and the cart follow`, async () => {
      const context = await browser.newContext({ viewport: SIZES[size], locale: 'es-ES', hasTouch: size === 'phone', isMobile: size === 'phone' });
      await context.addInitScript('globalThis.__name = (f) => f;');
      const page = await context.newPage();
      await page.goto(`${examplesUrl}/model-d.html`);
      await page.locator(`${W} polygon[data-id]`).first().waitFor();

      // Row names of both sectors (Platea A-T, Anfiteatro A-H) and the stage before row A.
      const rows = await page.locator(`${W} text.row-label`).allTextContents();
      expect(rows.length).toBe(28);
      expect(rows.slice(0, 3)).toEqual(['A', 'B', 'C']);
      expect(await page.locator(`${W} text.stage-label`).textContent()).toBe('Escenario');
      const [stage] = await rects(page, 'rect.stage');
      const [firstSeat] = await rects(page, 'polygon[data-id]');
      expect(stage!.y + stage!.height).toBeLessThanOrEqual(firstSeat!.y);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(SIZES[size].width);
      await page.screenshot({ path: path.join(SHOTS, `widget-map-${size}.png`), fullPage: true });

      // Zoom to the sector: every free seat shown is at least 24 x 24 CSS px.
      const platea = page.locator(`${W} button[data-sector-zoom]`).first();
      const free = Number(await page.locator(`${W} [data-free]`).first().textContent());
      expect(free).toBeGreaterThan(390);
      expect(await platea.getAttribute('aria-label')).toBe(`Platea ${free} libres: ver de cerca`);
      await platea.click();
      const map = (await rects(page, 'svg.map'))[0]!;
      await expect
        .poll(async () => {
          const shown = (await rects(page, 'polygon.s.a')).filter((r) => overlaps(r, map));
          return shown.length > 0 && Math.min(...shown.map((r) => Math.min(r.width, r.height)));
        })
        .toBeGreaterThanOrEqual(24);
      // The controls (sector and zoom buttons) lie outside the map, over no seat.
      const seats = (await rects(page, 'polygon[data-id]')).filter((r) => overlaps(r, map));
      const controls = await rects(page, '.maptools button');
      expect(controls.length).toBe(5);
      for (const c of controls) {
        expect(overlaps(c, map)).toBe(false);
        expect(seats.some((s) => overlaps(c, s))).toBe(false);
      }
      await page.screenshot({ path: path.join(SHOTS, `widget-zoomed-${size}.png`) });

      // A seat into the cart: Platea's count drops by one; on the phone the bar shows total and countdown.
      await page.locator(`${W} polygon.s.a`).first().click();
      await page.locator(`${W} .cart li[data-item]`).first().waitFor();
      await expect.poll(() => page.locator(`${W} [data-free]`).first().textContent()).toBe(String(free - 1));
      if (size === 'phone') {
        const bar = page.locator(`${W} [data-cartbar]`);
        await bar.waitFor();
        expect((await page.locator(`${W} [data-bar-total]`).innerText()).replace(/\s/g, ' ')).toMatch(/\d,\d\d €/);
        expect(await page.locator(`${W} [data-bar-countdown]`).innerText()).toMatch(/^1[45]:\d\d$/);
        // Sticky: with the page at the map, the bar sits at the bottom of the screen.
        await page.evaluate(() => window.scrollTo(0, 0));
        const b = (await bar.boundingBox())!;
        expect(b.y + b.height).toBeLessThanOrEqual(SIZES.phone.height + 1);
        expect(b.y).toBeGreaterThan(SIZES.phone.height - 120);
        await page.screenshot({ path: path.join(SHOTS, `widget-cart-${size}.png`) });
        await bar.getByRole('button', { name: 'Ver carrito' }).click();
        await expect.poll(async () => (await page.locator(`${W} .cart h3`).boundingBox())!.y).toBeLessThan(SIZES.phone.height);
      } else {
        expect(await page.locator(`${W} [data-cartbar]`).isVisible()).toBe(false);
        await page.screenshot({ path: path.join(SHOTS, `widget-cart-${size}.png`) });
      }
      await context.close();
    });
  }

  it('pinch with two fingers zooms the map', async () => {
    const context = await browser.newContext({ viewport: SIZES.phone, hasTouch: true, isMobile: true });
    await context.addInitScript('globalThis.__name = (f) => f;');
    const page = await context.newPage();
    await page.goto(`${examplesUrl}/model-d.html`);
    await page.locator(`${W} polygon[data-id]`).first().waitFor();
    const svg = page.locator(`${W} svg.map`);
    const width = async () => Number((await svg.getAttribute('viewBox'))!.split(' ')[2]);
    const before = await width();
    const b = (await svg.boundingBox())!;
    const cx = b.x + b.width / 2;
    const cy = b.y + b.height / 2;
    // Two pointers moving apart, as Chromium reports two fingers.
    await svg.evaluate(
      (el, [x, y]) => {
        const fire = (type: string, id: number, px: number) =>
          el.dispatchEvent(new PointerEvent(type, { pointerId: id, pointerType: 'touch', clientX: px, clientY: y, bubbles: true, isPrimary: id === 1, button: 0 }));
        fire('pointerdown', 1, x! - 20);
        fire('pointerdown', 2, x! + 20);
        for (let i = 1; i <= 5; i++) {
          fire('pointermove', 1, x! - 20 - i * 16);
          fire('pointermove', 2, x! + 20 + i * 16);
        }
        fire('pointerup', 1, x! - 100);
        fire('pointerup', 2, x! + 100);
      },
      [cx, cy],
    );
    await expect.poll(width).toBeLessThan(before / 2);
    expect(await page.locator(`${W} .cart li[data-item]`).count()).toBe(0);
    await context.close();
  });
});
