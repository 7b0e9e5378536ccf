import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { seatRows } from '../checkout/fixtures.js';
import { DEMO } from '../helpers.js';
import { screenshots, VIEWPORTS } from './browser-helpers.js';
import { portalForFile } from './portal-file.js';

// "N best seats" on the portal (D61), in Chromium on a phone: the service chooses and holds them;
// they are the cart's, pressed on the map and brought into view (the phone's zoomed sector scrolls
// sideways, and the best seats of a row stand in its middle); "choose others" holds new ones and
// gives the first ones back.

const slug = DEMO.a.slug;
const portal = portalForFile();

/** The seats pressed on the map (the cart's), by session seat id. */
const pressed = (page: Page) => page.locator('button.seat[aria-pressed="true"]').evaluateAll((seats) => seats.map((s) => Number((s as HTMLElement).dataset.seat)));

/** Whether the seat is wholly in the viewport, above the phone's cart bar. */
const inView = (page: Page, id: number) =>
  page.locator(`button.seat[data-seat="${id}"]`).evaluate((seat) => {
    const r = seat.getBoundingClientRect();
    const floor = document.querySelector('.cart-bar:not([hidden])')?.getBoundingClientRect().top ?? window.innerHeight;
    return r.left >= 0 && r.right <= window.innerWidth && r.top >= 0 && r.bottom <= floor;
  });

describe('best available on the portal (D61)', { timeout: 90_000 }, () => {
  it('holds the best seats, shows them on the map in view, and swaps them for others', async () => {
    const context = await portal.browser.newContext({ viewport: VIEWPORTS.phone, locale: 'es-ES' });
    const page = await context.newPage();
    await page.goto(`${portal.base}/${slug}/es/events/${portal.s.eventId}/sessions/${portal.s.sessionId}`);
    await page.locator('#best-qty').fill('2');
    await page.getByRole('button', { name: 'Mejores butacas' }).click();
    await expect.poll(() => pressed(page)).toHaveLength(2);
    const first = await pressed(page);
    expect((await seatRows(portal.t.ctx.db, first)).map((r) => r.status)).toEqual(['held', 'held']);
    for (const id of first) expect(await inView(page, id), `seat ${id} in view`).toBe(true);
    await screenshots(page, 'best-available');

    await page.getByRole('button', { name: 'Elegir otras' }).click();
    await expect.poll(async () => (await pressed(page)).filter((id) => !first.includes(id))).toHaveLength(2);
    const second = await pressed(page);
    expect(second).toHaveLength(2);
    expect((await seatRows(portal.t.ctx.db, first)).map((r) => r.status)).toEqual(['available', 'available']);
    expect((await seatRows(portal.t.ctx.db, second)).map((r) => r.status)).toEqual(['held', 'held']);
    for (const id of second) expect(await inView(page, id), `seat ${id} in view`).toBe(true);
    await context.close();
  });
});
