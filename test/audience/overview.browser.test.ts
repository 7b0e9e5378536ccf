import type { Page } from 'playwright-core';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { account, apiAs, signInToDashboard } from '../admin/admin-helpers.js';
import { flashSaleCatalogue } from '../../bench/bench-catalogue.js';
import { importCatalogue } from '../../src/modules/catalogue/import.service.js';
import { createPendingOrder } from '../checkout/fixtures.js';
import { VIEWPORTS } from '../portal/browser-helpers.js';
import { browserAppTest, checkPage } from '../browser-app.js';
import { forgetTokens, sell } from './audience-fixtures.js';

// The sales overview (D66) in Chromium at a phone's and a desktop's width: the event's page and a
// session's page with its heat map. Nothing scrolls sideways, axe-core finds no serious or
// critical violation, the charts' labels are text of a readable size (the SVG charts once shrank
// them to 5 px on a phone), the heat map's colours are the legend's, the tables keep their first
// column in view. Screenshots land in test-results/ux-overview/.

const SHOTS = 'test-results/ux-overview';
const { it, app } = browserAppTest({ shots: SHOTS });
let eventId: number;
let sessionId: number;

beforeAll(async () => {
  const { t } = app();
  forgetTokens();
  await account(t.ctx, 'overview-clerk@taquilla.test');
  const admin = await apiAs(t, 'overview-root@taquilla.test');
  // A sale on the first demo session: two channels, a zone, a refund, a live cart, a blocked seat.
  const a = await sell(t, 'b', { name: 'Ana', surname: 'Uno', email: 'ana@example.com' }, { seats: 4 });
  await sell(t, 'd', { name: 'Bea', surname: 'Dos', email: 'bea@example.com' }, { seats: 2 });
  await sell(t, 'd', { name: 'Carla', surname: 'Tres', email: 'carla@example.com' }, { seats: 3, zone: true });
  await createPendingOrder(t.ctx, { channel: 'demo-b', seats: 3 });
  expect((await admin.post(`/orders/${a.reference}/refund`, { reason: 'test' })).status).toBe(201);
  sessionId = a.sessionId;
  await t.ctx.db.execute(sql`UPDATE session_seats SET status = 'blocked' WHERE id IN (SELECT id FROM session_seats WHERE session_id = ${sessionId} AND seat_id IS NOT NULL AND status = 'available' ORDER BY id DESC LIMIT 6)`);
  const [s] = await queryRows<{ event_id: number }>(t.ctx.db, sql`SELECT event_id FROM sessions WHERE id = ${sessionId}`);
  eventId = Number(s!.event_id);
}, 240_000);

/** Nothing scrolls sideways; axe finds no serious or critical violation; a full-page screenshot. */
const check = (page: Page, shot: string) => checkPage(page, { shot: `${SHOTS}/${shot}.png` });

/** The smallest rendered font size and text height of the charts' labels and figures, in CSS px. */
const smallestChartText = (page: Page) =>
  page.evaluate(() => {
    const nodes = [...document.querySelectorAll('.bar-label, .bar-figures, ul.legend li, figure.heatmap figcaption')];
    return {
      count: nodes.length,
      font: Math.min(...nodes.map((n) => parseFloat(getComputedStyle(n).fontSize))),
      // SVG text would shrink with its drawing: there is none left in the charts.
      svgText: document.querySelectorAll('figure svg text').length,
    };
  });

describe.each(Object.entries(VIEWPORTS))('the sales overview at %s width', (name, viewport) => {
  it.scoped({ contextOptions: { viewport } });
  it('event page and session page: readable charts, the heat map in the legend\'s colours, axe-clean', async ({ app: { base }, page }) => {
    await signInToDashboard(page, base, 'overview-clerk@taquilla.test');

    await page.goto(`${base}/admin/events/${eventId}/sales`);
    await expect.poll(() => page.getByRole('heading', { name: 'Sales overview' }).isVisible()).toBe(true);
    const text = await smallestChartText(page);
    expect(text.count).toBeGreaterThan(4);
    expect(text.font).toBeGreaterThanOrEqual(11);
    expect(text.svgText).toBe(0);
    // A table wider than its card scrolls inside it, its first column staying in view.
    expect(await page.locator('.overview .table-wrap th[scope="row"]').first().evaluate((n) => getComputedStyle(n).position)).toBe('sticky');
    await check(page, `event-${name}`);

    // From the event's page to the session's, by its row.
    await page.locator(`a[href="/admin/sessions/${sessionId}/sales"]`).first().click();
    await page.waitForURL(`${base}/admin/sessions/${sessionId}/sales`);
    await expect.poll(() => page.getByRole('heading', { name: 'Seat map: sold, held and free' }).isVisible()).toBe(true);
    const session = await smallestChartText(page);
    expect(session.font).toBeGreaterThanOrEqual(11);
    expect(session.svgText).toBe(0);

    // Each status drawn in its legend's colour; the sector maps are images named by their counts.
    const colours = await page.evaluate(() => {
      const out: Record<string, { path: string | null; legend: string | null }> = {};
      for (const s of ['sold', 'held', 'free', 'blocked']) {
        const path = document.querySelector(`path.heat-${s}`);
        const legend = document.querySelector(`ul.legend rect.bar-${s}`);
        out[s] = { path: path && getComputedStyle(path).stroke, legend: legend && getComputedStyle(legend).fill };
      }
      return out;
    });
    expect(new Set(Object.values(colours).map((c) => c.path)).size).toBe(4);
    for (const c of Object.values(colours)) expect(c.path).toBe(c.legend);
    const maps = page.locator('figure.heatmap svg[role="img"]');
    expect(await maps.count()).toBeGreaterThanOrEqual(2);
    expect(await maps.first().getAttribute('aria-label')).toMatch(/\d+ seats, \d+ sold, \d+ held in a cart, \d+ free, \d+ blocked/);
    // The seats are squares of at least 2 CSS px even on a phone (the demo's largest sector fits the width).
    const seat = await page.locator('figure.heatmap:not(.zone) svg').first().evaluate((svg) => {
      const box = svg.getBoundingClientRect();
      return box.width / Number(svg.getAttribute('viewBox')!.split(' ')[2]);
    });
    expect(seat).toBeGreaterThanOrEqual(2);
    await check(page, `session-${name}`);
  }, 120_000);
});

describe('a 20,000-seat session in Chromium', () => {
  it('draws every seat, each at least 2 CSS px on a phone, and paints in a moment', async ({ app: { t, base, browser } }) => {
    await importCatalogue(t.ctx, flashSaleCatalogue(20_000, { slug: 'overview-browser-20k', server_keys: ['sk_overview_browser_20k'] }));
    const [s] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT ses.id FROM sessions ses JOIN events e ON e.id = ses.event_id JOIN venues v ON v.id = e.venue_id WHERE v.name = 'Arena'`);
    const big = Number(s!.id);
    await t.ctx.db.execute(sql`UPDATE session_seats SET status = 'sold' WHERE session_id = ${big} AND (id % 7 = 0 OR (id / 100) % 9 = 0)`);
    await t.ctx.db.execute(sql`UPDATE session_seats SET status = 'blocked' WHERE session_id = ${big} AND id % 101 = 0 AND status = 'available'`);
    for (const [name, viewport] of Object.entries(VIEWPORTS)) {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      try {
        await signInToDashboard(page, base, 'overview-clerk@taquilla.test');
        const started = performance.now();
        await page.goto(`${base}/admin/sessions/${big}/sales`);
        const loaded = performance.now() - started;
        const seat = await page.locator('figure.heatmap svg').first().evaluate((svg) => svg.getBoundingClientRect().width / Number(svg.getAttribute('viewBox')!.split(' ')[2]));
        expect(seat).toBeGreaterThanOrEqual(2);
        expect(await page.locator('figure.heatmap svg path').count()).toBe(3);
        console.log(`20,000 seats in Chromium at ${name} width: page loaded in ${loaded.toFixed(0)} ms, a seat ${seat.toFixed(1)} CSS px`);
        await check(page, `session-20k-${name}`);
      } finally {
        await context.close();
      }
    }
  }, 180_000);
});
