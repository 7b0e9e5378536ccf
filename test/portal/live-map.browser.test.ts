import { sql } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { DEMO } from '../helpers.js';
import { demoSession, type DemoSession } from '../orders/cart-helpers.js';
import { screenshots, VIEWPORTS } from './browser-helpers.js';
import { portalForFile } from './portal-file.js';

// D62 and D59 on the portal, in Chromium: two pages on one session, a hold on one shows on the other
// within 2 s (Server-Sent Events); the loser of a race sees the seat taken where it tapped, with the
// message beside it; the hold's last minute and its end are said; a scheduled session counts down
// to its sales start, an ended one says so.

const slug = DEMO.a.slug;
const portal = portalForFile();

async function sessionPage(sess: DemoSession, viewport: { width: number; height: number } = VIEWPORTS.desktop, before?: (page: Page) => Promise<unknown>): Promise<Page> {
  const context = await portal.browser.newContext({ viewport, locale: 'es-ES' });
  const page = await context.newPage();
  await before?.(page);
  await page.goto(`${portal.base}/${slug}/es/events/${sess.eventId}/sessions/${sess.sessionId}`);
  return page;
}

const seatButton = (page: Page, id: number) => page.locator(`button.seat[data-seat="${id}"]`);

describe('live seat map on the portal (D62)', { timeout: 90_000 }, () => {
  it('a hold on one page shows on the other within 2 s', async () => {
    const a = await sessionPage(portal.s);
    const b = await sessionPage(portal.s, VIEWPORTS.phone);
    const seat = portal.s.seats[2]!.id;
    await expect.poll(() => seatButton(b, seat).isDisabled()).toBe(false);
    // B's stream is open (its first event marked every seat) before A taps.
    await b.locator('button.seat[data-status]').first().waitFor();
    await seatButton(a, seat).click();
    await a.locator(`button.seat[data-seat="${seat}"][aria-pressed="true"]`).waitFor();
    const began = Date.now();
    await b.locator(`button.seat[data-seat="${seat}"][disabled]`).waitFor({ timeout: 2_000 });
    console.log(`[D62] portal: page B showed page A's hold ${Date.now() - began} ms after A's cart showed it`);
    expect(await seatButton(b, seat).getAttribute('data-status')).toBe('held');
    await screenshots(b, 'live-map-other-hold');
    await a.context().close();
    await b.context().close();
  });

  it('the loser of a race sees the seat taken where it tapped, with the message beside it', async () => {
    // Both tap at the same moment: the loser's map has not heard of the winner's hold yet.
    const loser = await sessionPage(portal.s, VIEWPORTS.phone, (page) => page.route('**/availability**', (route) => route.abort()));
    const seat = portal.s.seats[4]!.id;
    const winner = await sessionPage(portal.s);
    await seatButton(winner, seat).click();
    await winner.locator(`button.seat[data-seat="${seat}"][aria-pressed="true"]`).waitFor();
    expect(await seatButton(loser, seat).isDisabled()).toBe(false);
    await seatButton(loser, seat).click();
    const note = loser.locator('.seat-note[role="alert"]');
    await note.waitFor();
    expect(await note.textContent()).toMatch(/\S/);
    await loser.locator(`button.seat[data-seat="${seat}"][disabled]`).waitFor();
    // Beside the seat: in the same scrolling box, just under it, in view on a phone.
    const [seatBox, noteBox] = [await seatButton(loser, seat).boundingBox(), await note.boundingBox()];
    expect(noteBox!.y - (seatBox!.y + seatBox!.height)).toBeLessThan(20);
    expect(Math.abs(noteBox!.x - seatBox!.x)).toBeLessThan(200);
    expect(noteBox!.y + noteBox!.height).toBeLessThan(VIEWPORTS.phone.height * 2);
    await loser.screenshot({ path: 'test-results/portal/live-map-race-loser-phone.png' });
    await loser.setViewportSize(VIEWPORTS.desktop);
    await loser.screenshot({ path: 'test-results/portal/live-map-race-loser-desktop.png' });
    await loser.context().close();
    await winner.context().close();
  });

  it('the cart warns in its last minute and says when it has expired', async () => {
    const page = await sessionPage(portal.s);
    const seat = portal.s.seats[6]!.id;
    await seatButton(page, seat).click();
    await page.locator(`button.seat[data-seat="${seat}"][aria-pressed="true"]`).waitFor();
    const token = await page.evaluate((key) => localStorage.getItem(key), `taquilla.portal.${slug}.order`);
    // The cart's clock moved on: 50 s left (the browser counts on the service's clock, ui/service-clock.ts).
    await portal.t.ctx.db.execute(sql`UPDATE orders SET expires_at = ${new Date(portal.t.clock.now().getTime() + 50_000)} WHERE order_token = ${token}`);
    await page.reload();
    const countdown = page.locator('#countdown.warn[role="alert"]');
    await countdown.waitFor();
    expect(await countdown.textContent()).toMatch(/menos de un minuto/);
    await screenshots(page, 'live-map-expiry-warning');
    await portal.t.ctx.db.execute(sql`UPDATE orders SET expires_at = ${new Date(portal.t.clock.now().getTime() + 2_000)} WHERE order_token = ${token}`);
    await page.reload();
    const expired = page.locator('#countdown.expired[role="alert"]');
    await expired.waitFor({ timeout: 5_000 });
    expect(await expired.textContent()).toMatch(/ha caducado/);
    await screenshots(page, 'live-map-expired');
    await page.context().close();
  });
});

describe('sales windows on the portal (D59)', { timeout: 90_000 }, () => {
  it('a scheduled session counts down to its sales start; an ended one says so', async () => {
    const later = await demoSession(portal.t, 1);
    await portal.t.ctx.db.execute(sql`UPDATE sessions SET sales_start_at = ${new Date(portal.t.clock.now().getTime() + 3_600_000 + 5_000)} WHERE id = ${later.sessionId}`);
    const page = await sessionPage(later);
    const notice = page.locator('#sale-state');
    await expect.poll(() => notice.textContent()).toMatch(/La venta empieza en 0[01]:\d\d:\d\d/);
    await screenshots(page, 'live-map-sales-countdown');
    await page.context().close();

    const play = await demoSession(portal.t, 2);
    await portal.t.ctx.db.execute(sql`UPDATE sessions SET sales_end_at = ${new Date(portal.t.clock.now().getTime() - 60_000)} WHERE id = ${play.sessionId}`);
    const ended = await sessionPage(play, VIEWPORTS.phone);
    await expect.poll(() => ended.locator('#sale-state').textContent()).toMatch(/ha terminado/);
    await screenshots(ended, 'live-map-sales-ended');
    await ended.context().close();
  });
});
