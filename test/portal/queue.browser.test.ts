import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { account, api, apiAs } from '../admin/admin-helpers.js';
import { DEMO } from '../helpers.js';
import { demoSession } from '../orders/cart-helpers.js';
import { expectNumberFromPoll, queueCall } from '../queue/queue-calls.js';
import { screenshots, VIEWPORTS } from './browser-helpers.js';
import { portalForFile } from './portal-file.js';

// The waiting room on the portal (D60), in Chromium, with the service's clock in the test's hand:
// before the sales start a countdown and "join the queue" (the browser solves the proof of work);
// a reload keeps the place; after the draw the number, the people ahead and the wait; at the
// buyer's turn the pass, and the seat map buys with it (Queue-Pass); later the pass has expired.

let start: number;
const slug = DEMO.a.slug;
const portal = portalForFile(async ({ t, s }) => {
  start = Math.ceil(t.clock.now().getTime() / 1000) * 1000 + 5 * 60_000;
  const admin = await apiAs(t, 'queue-portal@taquilla.test');
  const saved = await admin.patch(`/sessions/${s.sessionId}`, {
    sales_start_at: new Date(start).toISOString(),
    queue: { enabled: true, admission_per_minute: 60, pass_ttl_seconds: 300, challenge: 'proof_of_work' },
  });
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
});

const status = (page: Page) => page.locator('#queue-status');
const queueState = (page: Page) => status(page).getAttribute('data-queue');
/** The countdown to the sales start, in seconds. */
async function secondsLeft(page: Page): Promise<number> {
  const m = /La venta empieza en (\d\d):(\d\d)/.exec(await status(page).innerText());
  return m ? Number(m[1]) * 60 + Number(m[2]) : NaN;
}

describe('the waiting room on the portal (D60)', { timeout: 120_000 }, () => {
  it('joins before the sales start, keeps the place over a reload, waits its turn, then buys with the pass', async () => {
    const context = await portal.browser.newContext({ viewport: VIEWPORTS.phone, locale: 'es-ES' });
    const page = await context.newPage();
    const creates: Record<string, string | undefined>[] = [];
    const queueCalls: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith(`/api/portal/${slug}/es/orders`)) creates.push(r.headers());
      if (r.url().includes('/api/queue/v1/')) queueCalls.push(queueCall(r));
    });
    await page.goto(`${portal.base}/${slug}/es/events/${portal.s.eventId}/sessions/${portal.s.sessionId}`);

    // Before the sales start: the countdown and the button; the map waits behind the queue.
    await expect.poll(() => queueState(page)).toBe('queuePreOpen');
    expect(await status(page).innerText()).toMatch(/La venta empieza en 0[45]:\d\d\. Entra ya en la cola/);
    expect(await page.locator('#queue-join').isVisible()).toBe(true);
    expect(await page.locator('.maps').isVisible()).toBe(false);
    await screenshots(page, 'queue-pre-open');

    await page.locator('#queue-join').click();
    await expect.poll(() => queueState(page), { timeout: 30_000 }).toBe('queueInPre');
    expect(await page.locator('#queue-join').isVisible()).toBe(false);
    await screenshots(page, 'queue-joined');

    // A reload keeps the place (sessionStorage): no button, still in the pre-queue.
    await page.reload();
    await expect.poll(() => queueState(page)).toBe('queueInPre');
    expect(await page.locator('#queue-join').isVisible()).toBe(false);

    // The countdown keeps the service's time while nothing in the document changes (the polls are
    // answered 304, and the browser hands back the stored document with its old server_time): a
    // minute later on the service's clock, a minute less to wait, within a poll or two.
    const before = await secondsLeft(page);
    portal.t.clock.advance(60_000);
    await expect.poll(() => secondsLeft(page), { timeout: 10_000 }).toBeLessThanOrEqual(before - 55);

    // Nine other buyers in the pre-queue, then the draw: the buyer gets a number among ten.
    for (let i = 0; i < 9; i++) {
      const challenge = await portal.t.app.inject({ url: `/api/queue/v1/sessions/${portal.s.sessionId}/challenge` });
      expect(challenge.statusCode).toBe(200);
      const { solveChallenge } = await import('altcha-lib');
      const { deriveKey } = await import('altcha-lib/algorithms/sha');
      const c = challenge.json().data;
      const solution = await solveChallenge({ challenge: c, deriveKey });
      const joined = await portal.t.app.inject({
        method: 'POST',
        url: `/api/queue/v1/sessions/${portal.s.sessionId}/join`,
        payload: { client_id: `other-${i}`, challenge_solution: Buffer.from(JSON.stringify({ challenge: c, solution })).toString('base64') },
      });
      expect(joined.statusCode, joined.body).toBe(200);
    }
    const beforeDraw = queueCalls.length;
    portal.t.clock.set(new Date(start));
    await expect.poll(() => queueState(page), { timeout: 10_000 }).toBe('queuePosition');
    expectNumberFromPoll(queueCalls.slice(beforeDraw));
    const text = await status(page).innerText();
    const number = Number(/Tu número: (\d+)/.exec(text)![1]);
    expect(number).toBeGreaterThanOrEqual(1);
    expect(number).toBeLessThanOrEqual(10);
    expect(text).toContain(`Personas delante de ti: ${number - 1}.`);
    expect(await page.locator('#queue-detail').innerText()).toMatch(/Espera estimada: unos 1 min/);
    expect(await page.locator('.maps').isVisible()).toBe(false);
    await screenshots(page, 'queue-position');

    // A seat tapped with no pass (from another page's script) would be refused: the service wants the pass.
    const refused = await page.evaluate(async ([url, body]) => (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).json(), [
      `/api/portal/${slug}/es/orders`,
      JSON.stringify({ session_seat_id: portal.s.seats[0]!.id, rate_id: portal.s.rates.general }),
    ] as const);
    expect(refused.code).toBe('queue_pass_required');

    // Its turn: the pass, the map, and a seat bought with Queue-Pass.
    portal.t.clock.set(new Date(start + 11_000));
    await expect.poll(() => queueState(page), { timeout: 10_000 }).toBe('queueAdmitted');
    expect(await status(page).innerText()).toMatch(/Tu acceso caduca en 0[45]:\d\d/);
    await page.locator('.maps').waitFor();
    const seat = page.locator(`button.seat[data-seat="${portal.s.seats[0]!.id}"]`);
    await seat.scrollIntoViewIfNeeded();
    await seat.click();
    await page.locator(`button.seat[data-seat="${portal.s.seats[0]!.id}"][aria-pressed="true"]`).waitFor();
    expect(creates.length).toBeGreaterThan(0);
    expect(creates.at(-1)!['queue-pass']).toMatch(/\S{20,}/);
    expect(await page.locator('#cart-error').isVisible()).toBe(false);
    // With seats in the cart, the cart's countdown is the one shown: the pass's box steps aside.
    await expect.poll(() => page.locator('#queue').isVisible()).toBe(false);
    expect(await page.locator('#countdown').innerText()).toMatch(/\d\d:\d\d/);
    await screenshots(page, 'queue-admitted-cart');

    // The pass expires (pass_ttl_seconds 300): a new cart is refused, and the page says why. (The
    // cart there is needs no pass to grow: the test forgets it, as another tab's buyer would start one.)
    portal.t.clock.set(new Date(start + 11_000 + 301_000));
    await page.evaluate((key) => localStorage.removeItem(key), `taquilla.portal.${slug}.order`);
    await page.reload();
    await page.locator('.maps').waitFor();
    const second = page.locator(`button.seat[data-seat="${portal.s.seats[5]!.id}"]`);
    await second.scrollIntoViewIfNeeded();
    await second.click();
    await expect.poll(() => queueState(page)).toBe('queuePassExpired');
    expect(await status(page).innerText()).toContain('Tu turno ha caducado');
    expect(await page.locator('#cart-error').innerText()).toContain('Tu turno ha caducado');
    await screenshots(page, 'queue-pass-expired');
    await context.close();
  });

  it('in English at 1280 px: a session whose waiting room has not opened counts down to it', async () => {
    const other = await demoSession(portal.t, 1);
    const admin = api(portal.t.app, (await account(portal.t.ctx, 'queue-portal-2@taquilla.test')).token);
    const later = portal.t.clock.now().getTime() + 2 * 3600_000;
    expect((await admin.patch(`/sessions/${other.sessionId}`, { sales_start_at: new Date(later).toISOString(), queue: { enabled: true, admission_per_minute: 30 } })).status).toBe(200);
    const context = await portal.browser.newContext({ viewport: VIEWPORTS.desktop, locale: 'en-GB' });
    const page = await context.newPage();
    await page.goto(`${portal.base}/${slug}/en/events/${other.eventId}/sessions/${other.sessionId}`);
    await expect.poll(() => queueState(page)).toBe('queueNotOpen');
    expect(await status(page).innerText()).toMatch(/The waiting room opens at \d\d:\d\d\. Sales open in 0[12]:\d\d:\d\d\./);
    expect(await page.locator('#queue-join').isVisible()).toBe(false);
    await screenshots(page, 'queue-not-open-en');
    // A session without a waiting room shows no queue box.
    const plain = await demoSession(portal.t, 2);
    await page.goto(`${portal.base}/${slug}/en/events/${plain.eventId}/sessions/${plain.sessionId}`);
    await page.locator('.maps').waitFor();
    await page.waitForTimeout(500);
    expect(await page.locator('#queue').isVisible()).toBe(false);
    await context.close();
  });
});
