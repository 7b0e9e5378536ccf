import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { sql } from 'drizzle-orm';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { startBrowserApp, type BrowserApp } from '../browser-app.js';
import type { TestApp } from '../helpers.js';


// Issue 16, parts 3 and 4 in a real browser at a phone's and a desktop's size: the storefront's
// images, "from" prices and search; the seat map's row names, stage, zoom and finger-sized seats,
// controls that never cover seats, the sticky cart on the phone, sector counts that follow the
// cart, the voucher's error beside its field. Screenshots in test-results/ux-maps/.

const SHOTS = path.resolve('test-results/ux-maps');
const SIZES = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } } as const;
type Size = keyof typeof SIZES;

let t: TestApp;
let started: BrowserApp;
let browser: Browser;
let base: string;
let images: http.Server;

// A small image host: the event's image comes from another origin, as a catalogue's would.
const SVG = `<svg xmlns="http://www.w3.org/2000/svg" width="640" height="360"><rect width="640" height="360" fill="#7b2d8e"/><circle cx="320" cy="180" r="120" fill="#f4c542"/></svg>`;

beforeAll(async () => {
  ({ t, base, browser } = started = await startBrowserApp({ portal: true }));
  images = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/svg+xml' }).end(SVG));
  await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
  const imagePort = (images.address() as { port: number }).port;
  await t.ctx.db.execute(sql`UPDATE events SET image_url = ${`http://127.0.0.1:${imagePort}/concierto.svg`} WHERE id = (SELECT min(id) FROM events)`);
  fs.mkdirSync(SHOTS, { recursive: true });
}, 120_000);
afterAll(async () => {
  await started?.close();
  await new Promise((resolve) => images?.close(resolve));
});

async function open(size: Size): Promise<Page> {
  const context = await browser.newContext({ viewport: SIZES[size], locale: 'es-ES', hasTouch: size === 'phone', isMobile: size === 'phone' });
  return context.newPage();
}

const shot = (page: Page, name: string, size: Size, fullPage = false) => page.screenshot({ path: path.join(SHOTS, `${name}-${size}.png`), fullPage });

async function box(l: Locator) {
  const b = await l.boundingBox();
  if (!b) throw new Error('not rendered');
  return b;
}

/** axe-core's serious and critical findings on the page (WCAG 2.2 A and AA rules). */
async function axeProblems(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']).analyze();
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
}

const overlaps = (a: { x: number; y: number; width: number; height: number }, b: typeof a) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

async function sessionPage(page: Page): Promise<void> {
  await page.goto(`${base}/demo-a/es/events`);
  await page.getByRole('link', { name: /Ver sesiones/ }).first().click();
  await page.getByRole('link', { name: /Elegir entradas/ }).first().click();
  await page.waitForURL(/\/sessions\/\d+$/);
}

describe('storefront and seat map at phone and desktop sizes', { timeout: 120_000 }, () => {
  for (const size of ['phone', 'desktop'] as const) {
    it(`${size}: storefront shows images, dates and "from" prices; search finds by name, venue and date`, async () => {
      const page = await open(size);
      await page.goto(`${base}/demo-a/es/events`);
      const cards = page.locator('.cards > li');
      expect(await cards.count()).toBe(2);
      // The first event has an image (another origin), the second a drawn placeholder.
      const img = cards.first().locator('img.card-img');
      await expect.poll(() => img.evaluate((el) => (el as HTMLImageElement).naturalWidth)).toBe(640);
      // Demo rates are 22,50 € and 30 €, and the first event has a 1,50 € fee: all in (D71), "Desde 24,00 €".
      expect((await cards.first().locator('.from').textContent())?.replace(/\s/g, ' ')).toMatch(/^Desde 24,00 €$/);
      expect(await cards.first().locator('.dates').textContent()).toMatch(/\d{4}/);
      await shot(page, 'storefront', size, true);
      expect(await axeProblems(page)).toEqual([]);

      await page.getByLabel('Evento, recinto o ciudad').fill('sueño');
      await page.getByRole('button', { name: 'Buscar' }).click();
      await page.waitForURL(/q=/);
      expect(await cards.count()).toBe(1);
      expect(await cards.first().locator('h2').textContent()).toBe('La vida es sueño');
      await shot(page, 'storefront-search', size, true);
      // Accents and case do not matter; the venue and the city are searched too.
      await page.goto(`${base}/demo-a/es/events?q=SUENO`);
      expect(await cards.count()).toBe(1);
      await page.goto(`${base}/demo-a/es/events?q=teatro+madrid`);
      expect(await cards.count()).toBe(2);
      await page.goto(`${base}/demo-a/es/events?q=nada+de+esto`);
      expect(await cards.count()).toBe(0);
      await page.getByText('Ningún evento coincide con tu búsqueda.').waitFor();
      // In English: the prices and the search's texts too.
      await page.goto(`${base}/demo-a/en/events?q=dream`);
      expect(await cards.count()).toBe(1);
      expect((await cards.first().locator('.from').textContent())?.replace(/\s/g, ' ')).toBe('From €23.63'); // 22.50 plus its 5 % fee (D71)
      await page.getByLabel('Event, venue or city').waitFor();
      await page.getByRole('link', { name: 'Show all' }).click();
      expect(await cards.count()).toBe(2);
      // By date: the day of the play's only session (in the deployment's time zone).
      const [play] = await queryRows<{ day: string }>(t.ctx.db, sql`SELECT to_char(s.start_datetime AT TIME ZONE ${t.config.timezone}, 'YYYY-MM-DD') AS day
        FROM sessions s JOIN event_translations tr ON tr.event_id = s.event_id AND tr.lang = 'es' WHERE tr.name = 'La vida es sueño'`);
      await page.goto(`${base}/demo-a/es/events`);
      expect(await page.getByLabel('Fecha').locator('option').count()).toBe(4); // any date + 3 days with sessions
      await page.getByLabel('Fecha').selectOption(play!.day);
      await page.getByRole('button', { name: 'Buscar' }).click();
      await page.waitForURL(/date=/);
      expect(await cards.count()).toBe(1);
      expect(await cards.first().locator('h2').textContent()).toBe('La vida es sueño');
      await page.context().close();
    });

    it(`${size}: the map has row names and a stage; zoomed seats are >= 24 px; controls never cover seats; the cart follows`, async () => {
      const page = await open(size);
      await sessionPage(page);
      const platea = page.locator('.sector').first();
      // Row names from the data, and the stage on the side of the front rows (row A at the top).
      expect(await platea.locator('.rl').allTextContents()).toEqual(Array.from({ length: 20 }, (_, i) => String.fromCharCode(65 + i)));
      const stage = page.locator('.stage');
      expect(await stage.textContent()).toBe('Escenario');
      expect((await box(stage)).y).toBeLessThan((await box(platea.locator('.seat').first())).y);
      // The page never scrolls sideways.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(SIZES[size].width);
      await shot(page, 'seatmap', size, true);

      // Zoomed into the sector, every seat is at least 24 x 24 CSS px. A phone opens the sectors
      // zoomed (fitted to 390 px they would be smaller); a desktop fits them and zooms on demand.
      if (size === 'desktop') await platea.getByRole('button', { name: /Ampliar/ }).click();
      const zoom = platea.getByRole('button', { name: /Reducir/ });
      expect(await zoom.getAttribute('aria-pressed')).toBe('true');
      const sizes = await platea.locator('.seat').evaluateAll((els) => els.map((e) => e.getBoundingClientRect()).map((r) => Math.min(r.width, r.height)));
      expect(Math.min(...sizes)).toBeGreaterThanOrEqual(24);
      // No control lies over a seat: the zoom buttons and row names are beside them.
      const seatBoxes = await page.locator('.seat').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON() as DOMRect));
      for (const control of await page.locator('.sector-head button, .rl, .stage').all()) {
        const c = await control.boundingBox();
        if (!c) continue;
        // (Scrolled sideways, the frozen row names pass over the seats scrolled out at the left.)
        expect(seatBoxes.some((s) => overlaps(c, s))).toBe(false);
      }
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(SIZES[size].width);
      await shot(page, 'seatmap-zoomed', size);

      // Add a seat: the sector's count drops by one, the cart (and on the phone its bar) shows total and countdown.
      const count = platea.locator('[data-avail]');
      const before = Number(await count.textContent());
      const seat = platea.locator('button.seat:not([disabled])').first();
      await seat.click();
      await expect.poll(() => seat.getAttribute('aria-pressed')).toBe('true');
      await expect.poll(async () => Number(await count.textContent())).toBe(before - 1);
      if (size === 'phone') {
        const bar = page.locator('#cart-bar');
        await bar.waitFor();
        await expect.poll(() => page.locator('#bar-total').textContent()).toMatch(/Total: 31,50/);
        await expect.poll(() => page.locator('#bar-countdown').textContent()).toMatch(/^\d\d:\d\d$/);
        // Sticky: after scrolling, still at the bottom of the screen.
        await page.evaluate(() => window.scrollTo(0, 0));
        const b = await box(bar);
        expect(b.y + b.height).toBeLessThanOrEqual(SIZES.phone.height + 1);
        expect(b.y).toBeGreaterThan(SIZES.phone.height - 120);
      } else {
        await expect(page.locator('#cart-bar').isVisible()).resolves.toBe(false);
        await expect.poll(() => page.locator('#cart-total').textContent()).toMatch(/31,50/);
        await expect.poll(() => page.locator('#countdown').textContent()).toMatch(/caduca en \d\d:\d\d/);
        const cart = await box(page.locator('#cart'));
        expect(cart.y).toBeGreaterThanOrEqual(0);
      }
      await shot(page, 'seatmap-cart', size);
      expect(await axeProblems(page)).toEqual([]);
      // Removing it gives the place back.
      await seat.click();
      await expect.poll(async () => Number(await count.textContent())).toBe(before);
      // "Zoom out": the whole sector fits the width (the overview), and zooms back in.
      await zoom.click();
      const scroller = platea.locator('.seatscroll');
      await expect.poll(() => scroller.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
      await shot(page, 'seatmap-overview', size);
      await platea.getByRole('button', { name: /Ampliar/ }).click();
      expect(await platea.locator('button.zoom').getAttribute('aria-pressed')).toBe('true');
      await page.context().close();
    });

    it(`${size}: the voucher box comes before the checkout button; its error beside the field, in view`, async () => {
      const page = await open(size);
      await sessionPage(page);
      await page.locator('button.seat:not([disabled])').first().click();
      await page.locator('#checkout-link').waitFor();
      const input = page.getByLabel('Código de descuento');
      expect((await box(input)).y).toBeLessThan((await box(page.locator('#checkout-link'))).y);
      await input.scrollIntoViewIfNeeded();
      await input.fill('NOPE');
      await page.getByRole('button', { name: 'Aplicar' }).click();
      const error = page.locator('#voucher-error');
      await error.waitFor();
      const e = await box(error);
      const i = await box(input);
      // Right under its field, and on the screen with it.
      expect(e.y - (i.y + i.height)).toBeLessThan(60);
      expect(e.y + e.height).toBeLessThanOrEqual(SIZES[size].height);
      expect(await input.getAttribute('aria-invalid')).toBe('true');
      await expect(page.locator('#cart-error').isVisible()).resolves.toBe(false);
      await shot(page, 'voucher-error', size);
      await page.context().close();
    });
  }
});
