import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect } from 'vitest';
import { browserAppTest } from '../browser-app.js';
import { api, promoterOfNewOrganiser, signInToDashboard } from '../admin/admin-helpers.js';
import { makeBlock } from '../../designer/src/plan/geometry.js';

// The seat-map designer in a real browser (D65), at desktop and phone widths: sign in, open the
// designer of a new venue, draw a block of 3 rows x 10 seats, curve it, mark a wheelchair place,
// undo and redo, move with the keyboard, save, and find the new version through the venues API.
// Screenshots land in test-results/designer/.

const SHOTS = 'test-results/designer';
const { it, app } = browserAppTest({ demo: false, shots: SHOTS });
let token: string;

beforeAll(async () => {
  token = (await promoterOfNewOrganiser(app().t.ctx, 'promoter@taquilla.test', 'Uno')).token;
});

async function signIn(page: Page) {
  await signInToDashboard(page, app().base, 'promoter@taquilla.test');
}

/** A point of the plan as a position inside the canvas element (for locator.click). */
async function canvasPosition(page: Page, x: number, y: number) {
  return page.locator('svg.canvas').evaluate(
    (svg, p) => {
      const el = svg as SVGSVGElement;
      const pt = el.createSVGPoint();
      pt.x = p.x;
      pt.y = p.y;
      const screen = pt.matrixTransform(el.getScreenCTM()!);
      const box = el.getBoundingClientRect();
      return { x: screen.x - box.left, y: screen.y - box.top };
    },
    { x, y },
  );
}

const WIDTHS = [
  { name: 'desktop', viewport: { width: 1280, height: 900 }, mobile: false },
  { name: 'phone', viewport: { width: 390, height: 844 }, mobile: true },
];

describe('the designer in a browser', () => {
  for (const w of WIDTHS) {
    describe(`at ${w.viewport.width} px`, () => {
      it.scoped({ contextOptions: { viewport: w.viewport, isMobile: w.mobile, hasTouch: w.mobile } });
      it('draws, curves, flags, undoes, redoes and saves a sector', async ({ app: { t, base }, page }) => {
        const venue = (await api(t.app, token).post('/venues', { name: `Sala ${w.name}` })).body.data as { id: number };
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(e.message));
        page.on('response', (r) => {
          if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) errors.push(`${r.status()} ${r.url()}`);
        });
        await signIn(page);
        // From the venue's page (/admin/venues/{id}) to its designer.
        await page.goto(`${base}/admin/venues/${venue.id}`);
        await page.getByRole('link', { name: 'Open in designer' }).click();
        await page.waitForURL(`${base}/admin/venues/${venue.id}/designer`);
        await page.getByRole('button', { name: 'Save as new version' }).waitFor();
        const count = page.getByTestId('seat-count');
        expect(await count.textContent()).toBe('0');

        // A block of 3 rows x 10 seats.
        await page.getByLabel('Rows', { exact: true }).fill('3');
        await page.getByLabel('Seats per row').fill('10');
        await page.getByRole('button', { name: 'Add sector', exact: true }).click();
        await expect.poll(() => count.textContent()).toBe('30');
        await expect.poll(() => page.locator('#designer-status').textContent()).toContain('Sector "Sector 1" added: 3 rows of 10 seats.');

        // Curve it (the sector is active: its seats are selected).
        await page.getByLabel('Curve by').fill('40');
        await page.getByRole('button', { name: 'Curve', exact: true }).click();
        await expect.poll(() => page.locator('#designer-status').textContent()).toContain('curved by 40');
        await page.getByRole('button', { name: 'Fit' }).click();

        // Seat A1: the block starts at (80, 140); the curve moved the row's ends down by 40.
        await page.locator('svg.canvas').scrollIntoViewIfNeeded();
        await page.locator('svg.canvas').click({ position: await canvasPosition(page, 80, 180) });
        await expect.poll(() => page.getByRole('heading', { name: 'Selected seats (1)' }).count()).toBe(1);
        const wheelchair = page.getByRole('button', { name: 'Wheelchair', exact: true });
        await wheelchair.click();
        await expect.poll(() => wheelchair.getAttribute('aria-pressed')).toBe('true');
        await page.screenshot({ path: `${SHOTS}/designer-${w.name}.png`, fullPage: false });

        // Undo and redo from the keyboard.
        await page.keyboard.press('Control+z');
        await expect.poll(() => wheelchair.getAttribute('aria-pressed')).toBe('false');
        await page.keyboard.press('Control+Shift+Z');
        await expect.poll(() => wheelchair.getAttribute('aria-pressed')).toBe('true');

        // Arrows on the focused canvas move the selection; Ctrl+Z takes the move back.
        await page.locator('svg.canvas').focus();
        const focus = await page.evaluate(() => ({ tag: document.activeElement?.tagName, outline: getComputedStyle(document.activeElement!).outlineStyle }));
        expect(focus.tag).toBe('svg');
        await page.keyboard.press('ArrowRight');
        await expect.poll(() => page.getByRole('button', { name: 'Undo' }).isEnabled()).toBe(true);
        await page.keyboard.press('Control+z');

        const { violations } = await new AxeBuilder({ page }).analyze();
        expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
        if (w.mobile) {
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          expect(overflow).toBeLessThanOrEqual(0);
        }
        await page.getByRole('button', { name: 'Save as new version' }).click();
        await expect.poll(() => page.locator('#designer-status').textContent()).toMatch(/^Saved as version 1: 30 seats/);
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.screenshot({ path: `${SHOTS}/designer-${w.name}-saved.png` });

        const versions = await api(t.app, token).get(`/venues/${venue.id}/layouts`);
        expect(versions.body.data).toHaveLength(1);
        expect(versions.body.data[0]).toMatchObject({ version: 1, seats: 30, capacity: 30 });
        const layout = (await api(t.app, token).get(`/venues/${venue.id}/layouts/1`)).body.data.plan;
        const rows = layout.sectors[0].rows as { label: string; seats: { number: string; y: number; wheelchair?: boolean }[] }[];
        expect(rows.map((r) => r.label)).toEqual(['A', 'B', 'C']);
        expect(rows[0]!.seats.map((s) => s.number)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);
        expect(rows[0]!.seats[0]!.y).toBe(40);
        expect(rows[0]!.seats[0]!.wheelchair).toBe(true);
        expect(rows.flatMap((r) => r.seats).filter((s) => s.wheelchair)).toHaveLength(1);
        expect(errors).toEqual([]);
      });
    });
  }

  it('reaches every control with Tab and shows where the focus is', async ({ app: { t, base }, page }) => {
    const venue = (await api(t.app, token).post('/venues', { name: 'Sala teclado' })).body.data as { id: number };
    await signIn(page);
    await page.goto(`${base}/admin/venues/${venue.id}/designer`);
    await page.getByRole('button', { name: 'Save as new version' }).waitFor();
    await page.getByRole('button', { name: 'Add sector', exact: true }).click();
    await expect.poll(() => page.getByTestId('seat-count').textContent()).toBe('30');
    const controls = await page.evaluate(() =>
      [...document.querySelectorAll('#designer-root button:not([disabled]), #designer-root input, #designer-root select, #designer-root svg.canvas')].map((el) => el.outerHTML.slice(0, 80)),
    );
    const seen = new Set<string>();
    // From the skip link on, by Tab only.
    await page.keyboard.press('Tab');
    for (let i = 0; i < controls.length + 40; i++) {
      await page.keyboard.press('Tab');
      const here = await page.evaluate(() => {
        const el = document.activeElement!;
        const style = getComputedStyle(el);
        return { html: el.outerHTML.slice(0, 80), outline: style.outlineStyle, inRoot: Boolean(el.closest('#designer-root')) };
      });
      if (here.inRoot) {
        seen.add(here.html);
        expect(here.outline, here.html).not.toBe('none');
      }
    }
    for (const c of controls) expect(seen.has(c), c).toBe(true);
    const unlabelled = await page.evaluate(() => [...document.querySelectorAll('#designer-root input, #designer-root select')].filter((el) => !(el as HTMLInputElement).labels?.length).length);
    expect(unlabelled).toBe(0);

    // One seat by the keyboard: the sector's button, then its row and number; a flag; Delete on the canvas.
    await page.getByRole('button', { name: 'Sector 1', exact: true }).focus();
    await page.keyboard.press('Enter');
    await page.getByLabel('Row', { exact: true }).fill('B');
    await page.getByLabel('Seat', { exact: true }).fill('5');
    await page.getByRole('button', { name: 'Select seat' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('#designer-summary').textContent()).toContain(' 1 selected');
    const restricted = page.getByRole('button', { name: 'Restricted view' });
    await restricted.focus();
    await page.keyboard.press('Space');
    await expect.poll(() => restricted.getAttribute('aria-pressed')).toBe('true');
    await page.locator('svg.canvas').focus();
    await page.keyboard.press('Delete');
    await expect.poll(() => page.getByTestId('seat-count').textContent()).toBe('29');
    await page.keyboard.press('Control+z');
    await expect.poll(() => page.getByTestId('seat-count').textContent()).toBe('30');

    // A block drawn on the canvas: a rectangle of 270 x 72 units holds 3 rows of 10 seats.
    await page.getByRole('button', { name: 'Draw it on the canvas' }).click();
    const canvas = page.locator('svg.canvas');
    const box = (await canvas.boundingBox())!;
    const from = await canvasPosition(page, 100, 330);
    const to = await canvasPosition(page, 370, 402);
    await page.mouse.move(box.x + from.x, box.y + from.y);
    await page.mouse.down();
    await page.mouse.move(box.x + (from.x + to.x) / 2, box.y + (from.y + to.y) / 2);
    await page.mouse.move(box.x + to.x, box.y + to.y);
    await page.mouse.up();
    await expect.poll(() => page.getByTestId('seat-count').textContent()).toBe('60');
    await expect.poll(() => page.locator('#designer-status').textContent()).toContain('Sector "Sector 2" added: 3 rows of 10 seats.');
    await page.screenshot({ path: `${SHOTS}/designer-keyboard-and-draw.png` });
  });

  it('stays usable with 20,000 seats: draws the tiles on screen, pointer moves redraw no seat', async ({ app: { t, base }, page }) => {
    const venue = (await api(t.app, token).post('/venues', { name: 'Estadio' })).body.data as { id: number };
    const sectors = Array.from({ length: 8 }, (_, b) =>
      makeBlock({ name: `Bloque ${b + 1}`, rows: 50, seatsPerRow: 50, origin: { x: 40 + (b % 4) * 1600, y: 140 + Math.floor(b / 4) * 1900 }, direction: 'ltr', parity: 'all', category: 'General' }),
    );
    const saved = await api(t.app, token).post(`/venues/${venue.id}/layouts`, { format: 'taquilla', plan: { name: 'Estadio', categories: [{ name: 'General', color: '#15803d' }], sectors } });
    expect(saved.status).toBe(201);
    await signIn(page);
    const started = Date.now();
    await page.goto(`${base}/admin/venues/${venue.id}/designer`);
    await expect.poll(() => page.getByTestId('seat-count').textContent(), { timeout: 20_000 }).toBe('20000');
    const loadMs = Date.now() - started;
    const canvas = page.locator('svg.canvas');
    const tilesAll = Number(await canvas.getAttribute('data-tiles-total'));
    // Opened to show the whole plan: every tile is drawn (as dots at this zoom).
    await expect.poll(async () => Number(await canvas.getAttribute('data-tiles'))).toBe(tilesAll);
    expect(await canvas.getAttribute('data-lod')).toBe('0');
    // Zoomed in, only the tiles on screen are drawn.
    for (let i = 0; i < 6; i++) await page.getByRole('button', { name: 'Zoom in' }).click();
    await expect.poll(async () => Number(await canvas.getAttribute('data-tiles'))).toBeLessThan(tilesAll / 4);
    const seatNodes = await page.locator('svg.canvas g.seats path').count();
    expect(seatNodes).toBeLessThan(200);

    // Pointer moves while panning and while drawing a selection box change no seat drawing.
    await page.evaluate(() => {
      const w = window as unknown as { __mutations: number };
      w.__mutations = 0;
      new MutationObserver((list) => (w.__mutations += list.length)).observe(document.querySelector('svg.canvas g.seats')!, { childList: true, subtree: true, attributes: true, characterData: true });
    });
    const box = (await canvas.boundingBox())!;
    await page.getByRole('button', { name: 'Pan' }).click();
    await page.mouse.move(box.x + 400, box.y + 300);
    await page.mouse.down();
    for (let i = 1; i <= 20; i++) await page.mouse.move(box.x + 400 - i * 10, box.y + 300 - i * 5);
    const duringPan = await page.evaluate(() => (window as unknown as { __mutations: number }).__mutations);
    await page.mouse.up();
    expect(duringPan).toBe(0);
    // The whole plan in view (every tile drawn), a box from the empty band above the blocks.
    await page.getByRole('button', { name: 'Select' }).click();
    await page.getByRole('button', { name: 'Fit' }).click();
    await expect.poll(async () => Number(await canvas.getAttribute('data-tiles'))).toBe(tilesAll);
    const from = await canvasPosition(page, 100, 60);
    const to = await canvasPosition(page, 2000, 1000);
    await page.evaluate(() => ((window as unknown as { __mutations: number }).__mutations = 0));
    const t0 = Date.now();
    await page.mouse.move(box.x + from.x, box.y + from.y);
    await page.mouse.down();
    for (let i = 1; i <= 20; i++) await page.mouse.move(box.x + from.x + ((to.x - from.x) * i) / 20, box.y + from.y + ((to.y - from.y) * i) / 20);
    const duringBox = await page.evaluate(() => (window as unknown as { __mutations: number }).__mutations);
    await page.mouse.up();
    expect(duringBox).toBe(0);
    await expect.poll(() => page.locator('#designer-summary').textContent()).toMatch(/\d{3,} selected/);
    const selectMs = Date.now() - t0;
    // The wheel zooms around the pointer: closer in, seats get their flags and row labels.
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    for (let i = 0; i < 4; i++) await page.mouse.wheel(0, -400);
    await expect.poll(async () => Number(await canvas.getAttribute('data-lod'))).toBeGreaterThan(0);
    await page.screenshot({ path: `${SHOTS}/designer-20000.png` });
    console.log(`designer with 20,000 seats: loaded in ${loadMs} ms, ${tilesAll} tiles at full view, box selection in ${selectMs} ms`);
    expect(selectMs).toBeLessThan(5_000);
  }, 90_000);
});
