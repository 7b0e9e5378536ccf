import { mkdirSync, readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSyntheticService, syntheticSession } from '../../bench/widget-page.js';
import { launchChromium } from '../portal/browser-helpers.js';

/**
 * Issue 29: a 20,000-seat map in the widget. From CANVAS_FROM seats on the seats are painted on a
 * canvas (widget/src/ui/canvas-layer.ts): no element per seat, a click finds its seat through the
 * hit-test grid, and the keyboard's tab stop is the one seat element (role checkbox, its name).
 * The service is the benchmark's synthetic one (bench/widget-page.ts), with its minimal cart.
 */

const SEATS = 20_000;
const W = 'taquilla-widget';
const SHOTS = 'test-results/widget';
let browser: Browser;
let service: Awaited<ReturnType<typeof startSyntheticService>>;
const layout = syntheticSession(SEATS).elements.seats;
const byId = new Map(layout.map((s) => [s.id, s]));

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  const code = readFileSync(new URL('../../widget/dist/v1/widget.iife.js', import.meta.url), 'utf8');
  service = await startSyntheticService(code, SEATS);
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await service?.close();
});

async function openWidget(page: Page) {
  await page.addInitScript('globalThis.__name = (f) => f;');
  await page.goto(`${service.origin}/`);
  await page.evaluate(() => {
    const w = window as unknown as { TicketWidget: { init(c: object): unknown } };
    w.TicketWidget.init({ container: '#w', channelSlug: 'bench', sessionId: 1, apiKey: 'wk_bench', lang: 'es' });
  });
  await page.locator(`${W} canvas.seats[data-drawn="${SEATS}"]`).waitFor({ timeout: 20_000 });
}

describe('a 20,000-seat map in the widget (canvas layer)', () => {
  it('draws without an element per seat; a click and the keyboard select seats', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    try {
      await openWidget(page);
      // One seat element: the tab stop.
      expect(await page.locator(`${W} polygon[data-id]`).count()).toBe(1);
      const stop = page.locator(`${W} polygon[tabindex="0"]`);
      expect(await stop.getAttribute('role')).toBe('checkbox');
      expect(await stop.getAttribute('aria-label')).toMatch(/^Sector 1, fila \d+, asiento \d+: libre$/);

      // Zoom to the first sector (seats at a finger's size), then click a free seat of the tab
      // stop's row a few seats to its right: on the canvas, found by the grid.
      await page.getByRole('button', { name: /^Sector 1/ }).click();
      await page.waitForTimeout(100);
      const stopId = Number(await stop.getAttribute('data-id'));
      const from = byId.get(stopId)!;
      const target = layout.find((s) => s.sector_id === from.sector_id && s.y === from.y && s.x > from.x + 1 && s.x <= from.x + 6 && s.status === 'available')!;
      expect(target).toBeTruthy();
      const box = (await stop.boundingBox())!;
      const pxPerUnit = box.width / 0.72;
      await page.mouse.click(box.x + box.width / 2 + (target.x - from.x) * pxPerUnit, box.y + box.height / 2);
      await expect.poll(() => page.locator(`${W} [data-item]`).count()).toBe(1);
      // The clicked seat became the tab stop, checked.
      expect(Number(await stop.getAttribute('data-id'))).toBe(target.id);
      expect(await stop.getAttribute('aria-checked')).toBe('true');
      expect(await stop.getAttribute('class')).toBe('s m');

      // Keyboard: arrows move the tab stop over the painted seats; Enter takes a free one.
      await stop.focus();
      let guard = 0;
      do {
        await page.keyboard.press('ArrowRight');
        if (++guard > 20) throw new Error('no free seat to the right');
      } while ((await stop.getAttribute('aria-disabled')) === 'true' || (await stop.getAttribute('aria-checked')) === 'true');
      const keyed = Number(await stop.getAttribute('data-id'));
      expect(keyed).not.toBe(target.id);
      expect(await page.evaluate(() => document.querySelector('taquilla-widget')!.shadowRoot!.activeElement?.getAttribute('data-id'))).toBe(String(keyed));
      await page.keyboard.press('Enter');
      await expect.poll(() => page.locator(`${W} [data-item]`).count()).toBe(2);
      await expect.poll(() => stop.getAttribute('aria-checked')).toBe('true');
      expect(await page.locator(`${W} [data-total]`).textContent()).toMatch(/60,00/);
      await page.screenshot({ path: `${SHOTS}/canvas-20000-seats.png` });
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  }, 90_000);
});
