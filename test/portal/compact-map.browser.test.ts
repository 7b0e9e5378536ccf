import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect } from 'vitest';
import { browserAppTest } from '../browser-app.js';
import { DEMO } from '../helpers.js';
import { screenshots } from './browser-helpers.js';
import { firstStorefrontSession } from './fixtures.js';

// Issue 29: a session above PORTAL_COMPACT_MAP_ABOVE seats (here 10, so that the demo session is
// one) gets the UI kit's compact map: per sector a compact seat list and one canvas, hydrated by
// the page's script, instead of one <button> per seat. A buyer picks and gives back seats by
// pointer and by keyboard; the live map greys a seat another buyer holds.

const { it, app } = browserAppTest({ portal: true, env: { PORTAL_COMPACT_MAP_ABOVE: '10' } });
let path: string;

beforeAll(async () => {
  const { eventId, sessionId } = await firstStorefrontSession(app().t, { numberedSeatsAbove: 10 });
  path = `/${DEMO.a.slug}/es/events/${eventId}/sessions/${sessionId}`;
}, 120_000);

interface Seat {
  id: number;
  sector: number;
  row: string;
  number: string;
  /** The seat's centre and a point inside its fill, in the page's coordinates. */
  x: number;
  y: number;
  fillX: number;
  fillY: number;
}

/** The free seats of the first compact sector, where they are drawn (from the page's own seat list). */
async function freeSeats(page: Page): Promise<Seat[]> {
  return page.evaluate(() => {
    const section = document.querySelector('.sector.compact') as HTMLElement;
    const canvas = section.querySelector('canvas') as HTMLCanvasElement;
    const list = JSON.parse(document.getElementById(`seats-${section.dataset.sector}`)!.textContent!) as {
      cols: number;
      lines: [string, number, number[], number[], number | string[], string][];
    };
    const box = canvas.getBoundingClientRect();
    const cell = (canvas.clientWidth - 24) / list.cols;
    const out: Seat[] = [];
    for (const [row, r, ids, cols, numbers, free] of list.lines) {
      let id = 0;
      let c = 0;
      ids.forEach((d, i) => {
        id = i ? id + d : d;
        c = i ? c + cols[i]! : cols[0]!;
        if (free[i] !== '1') return;
        const left = box.left + 24 + c * cell;
        const top = box.top + r * cell;
        out.push({ id, sector: Number(section.dataset.sector), row, number: typeof numbers === 'number' ? String(numbers + i) : numbers[i]!, x: left + cell / 2, y: top + cell / 2, fillX: left + cell * 0.22, fillY: top + cell * 0.22 });
      });
    }
    return out;
  });
}

/** The colour drawn at a point of the canvas (page coordinates), as #rrggbb. */
async function colourAt(page: Page, x: number, y: number): Promise<string> {
  return page.evaluate(
    ([px, py]) => {
      const canvas = document.querySelector('.sector.compact canvas') as HTMLCanvasElement;
      const box = canvas.getBoundingClientRect();
      const scale = canvas.width / box.width;
      const [r, g, b] = canvas.getContext('2d')!.getImageData(Math.floor((px! - box.left) * scale), Math.floor((py! - box.top) * scale), 1, 1).data;
      return `#${[r, g, b].map((v) => v!.toString(16).padStart(2, '0')).join('')}`;
    },
    [x, y],
  );
}

describe('the compact seat map of a big session (issue 29)', () => {
  it('the page carries a compact seat list and a canvas per sector, no seat buttons', async ({ app: { t } }) => {
    const res = await t.app.inject({ url: path });
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toMatch(/<button[^>]*class="seat"/);
    expect(res.body).toMatch(/<section class="sector compact"/);
    expect(res.body).toMatch(/<script type="application\/json" id="seats-\d+">/);
    expect(res.body).toMatch(/<canvas[^>]*role="application"/);
  });

  for (const size of ['phone', 'desktop'] as const) {
    describe(`at ${size} size`, () => {
      it.scoped({ contextOptions: { viewport: size === 'phone' ? { width: 390, height: 844 } : { width: 1280, height: 900 }, locale: 'es-ES' } });
      it('the keyboard picks a seat, a click another and a second click gives it back; the free count follows; no serious axe finding', async ({ app: { base }, page }) => {
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(e.message));
        await page.goto(base + path);
        await page.locator('.sector.compact[data-ready]').first().waitFor();
        await page.locator('#cart[data-ready]').waitFor();
        const canvas = page.locator('.sector.compact canvas').first();
        await canvas.evaluate((el) => el.scrollIntoView({ block: 'start' }));
        const seats = await freeSeats(page);
        const count = page.locator(`[data-avail="${seats[0]!.sector}"]`);
        const before = Number(await count.textContent());

        // The keyboard: the map takes the focus with its cursor on the first free seat, said by the
        // live region; Enter picks it; the arrows move the cursor.
        await canvas.focus();
        await expect.poll(() => page.locator('.bigmap [aria-live]').first().textContent()).toBe(`Fila ${seats[0]!.row}, Asiento ${seats[0]!.number}: libre`);
        await page.keyboard.press('Enter');
        await page.locator('#cart-body li.item').first().waitFor();
        await expect.poll(() => page.locator('#cart-body').textContent()).toContain(`Fila ${seats[0]!.row} · Asiento ${seats[0]!.number}`);
        await expect.poll(() => colourAt(page, seats[0]!.fillX, seats[0]!.fillY)).toBe('#0b6b34');
        await expect.poll(() => page.locator('.bigmap [aria-live]').first().textContent()).toBe(`Fila ${seats[0]!.row}, Asiento ${seats[0]!.number}: en tu carrito`);
        await page.keyboard.press('ArrowRight');
        await expect.poll(() => page.locator('.bigmap [aria-live]').first().textContent()).not.toContain(`Asiento ${seats[0]!.number}:`);

        // A click (a tap) on another free seat picks it; the sector's free count follows the cart.
        const seat = seats[1]!;
        expect(await colourAt(page, seat.fillX, seat.fillY)).toBe('#ffffff');
        await page.mouse.click(seat.x, seat.y);
        await expect.poll(() => page.locator('#cart-body li.item').count()).toBe(2);
        await expect.poll(() => page.locator('#cart-body').textContent()).toContain(`Fila ${seat.row} · Asiento ${seat.number}`);
        await expect.poll(() => colourAt(page, seat.fillX, seat.fillY)).toBe('#0b6b34');
        await expect.poll(async () => Number(await count.textContent())).toBe(before - 2);
        await screenshots(page, `compact-map-${size}`);

        // The same seat again (found again: the screenshots resized and scrolled the page): out of the cart.
        await canvas.evaluate((el) => el.scrollIntoView({ block: 'start' }));
        const again = (await freeSeats(page)).find((s) => s.id === seat.id)!;
        await page.mouse.click(again.x, again.y);
        await expect.poll(() => page.locator('#cart-body li.item').count()).toBe(1);
        await expect.poll(() => colourAt(page, again.fillX, again.fillY)).toBe('#ffffff');

        const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']).analyze();
        expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`)).toEqual([]);
        expect(errors).toEqual([]);
      });
    });
  }

  it('the live map greys a seat another buyer holds (D62)', async ({ app: { base }, page }) => {
    await page.goto(base + path);
    await page.locator('.sector.compact[data-ready]').first().waitFor();
    await page.locator('.sector.compact canvas').first().evaluate((el) => el.scrollIntoView({ block: 'start' }));
    const seat = (await freeSeats(page)).at(-1)!;
    expect(await colourAt(page, seat.fillX, seat.fillY)).toBe('#ffffff');
    const rate = Number(await page.locator('#seat-rate option').first().getAttribute('value'));
    const other = await fetch(`${base}/api/portal/${DEMO.a.slug}/es/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ session_seat_id: seat.id, rate_id: rate }),
    });
    expect(other.status).toBeLessThan(300);
    await expect.poll(() => colourAt(page, seat.fillX, seat.fillY), { timeout: 10_000 }).toBe('#d5d8dd');
  });
});
