import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { apiAs } from '../admin/admin-helpers.js';
import { bearer, tokenFor } from '../helpers.js';
import { expectNumberFromPoll, queueCall } from '../queue/queue-calls.js';
import { exampleHostForFile, newWidgetPage, SHOTS } from './example-host.js';

// The waiting room in the widget (D60), in Chromium on the example host page (another origin), with
// the service's clock in the test's hand: countdown and "join the queue" (with the proof of work),
// the place kept over a reload, the number and the wait, then the map at the buyer's turn and a
// cart created with the Queue-Pass header; at 390 and 1280 px.

const W = 'taquilla-widget';
let start: number;
const host = exampleHostForFile(async ({ t, sessionId }) => {
  start = Math.ceil(t.clock.now().getTime() / 1000) * 1000 + 5 * 60_000;
  const admin = await apiAs(t, 'queue-widget@taquilla.test');
  const saved = await admin.patch(`/sessions/${sessionId}`, {
    sales_start_at: new Date(start).toISOString(),
    queue: { enabled: true, admission_per_minute: 60, challenge: 'proof_of_work' },
  });
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
});

const stage = (page: Page) => page.locator(`${W} [data-queue]`).getAttribute('data-queue');
const statusText = (page: Page) => page.locator(`${W} [data-queue-status]`).innerText();
/** The countdown to the sales start, in seconds. */
async function secondsLeft(page: Page): Promise<number> {
  const m = /La venta empieza en (\d\d):(\d\d)/.exec(await statusText(page));
  return m ? Number(m[1]) * 60 + Number(m[2]) : NaN;
}

async function shots(page: Page, name: string) {
  for (const [label, size] of [['phone', { width: 390, height: 844 }], ['desktop', { width: 1280, height: 1000 }]] as const) {
    await page.setViewportSize(size);
    await page.screenshot({ path: `${SHOTS}/${name}-${label}.png`, fullPage: true });
  }
}

describe('the waiting room in the widget (D60)', { timeout: 120_000 }, () => {
  it('joins before the sales start, keeps the place over a reload, waits its turn, then holds a seat with the pass', async () => {
    const page = await newWidgetPage(host, { width: 390, height: 844 });
    const creates: Record<string, string>[] = [];
    const queueCalls: string[] = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && /\/api\/sales-channel\/v1\/demo-d\/es\/orders$/.test(r.url())) creates.push(r.headers());
      if (r.url().includes('/api/queue/v1/')) queueCalls.push(queueCall(r));
    });
    await page.goto(`${host.examplesUrl}/model-d.html?session=${host.sessionId}`);

    await expect.poll(() => stage(page), { timeout: 30_000 }).toBe('preOpen');
    expect(await statusText(page)).toMatch(/La venta empieza en 0[45]:\d\d\. Entra ya en la cola/);
    // The map waits behind the queue, and the empty cart does not point to it.
    expect(await page.locator(`${W} polygon[data-id]`).count()).toBe(0);
    expect(await page.locator(`${W} [data-empty-cart]`).innerText()).toBe('Tu carrito está vacío.');
    await shots(page, 'queue-pre-open');

    await page.locator(`${W} [data-queue-join]`).click();
    await expect.poll(() => stage(page), { timeout: 30_000 }).toBe('inPre');
    expect(await page.locator(`${W} [data-queue-join]`).count()).toBe(0);

    await page.reload();
    await expect.poll(() => stage(page), { timeout: 30_000 }).toBe('inPre');
    await shots(page, 'queue-joined');

    // The countdown keeps the service's time while the document stays the same (polls answered 304,
    // the stored document's server_time old): the Date header, which the widget reads across origins.
    const before = await secondsLeft(page);
    host.t.clock.advance(60_000);
    await expect.poll(() => secondsLeft(page), { timeout: 10_000 }).toBeLessThanOrEqual(before - 55);

    // The draw (a queue of one): number 1, nobody ahead, not admitted in the sale's first second.
    const beforeDraw = queueCalls.length;
    host.t.clock.set(new Date(start));
    await expect.poll(() => stage(page), { timeout: 10_000 }).toBe('position');
    expectNumberFromPoll(queueCalls.slice(beforeDraw));
    expect(await statusText(page)).toBe('Tu número: 1. Personas delante de ti: 0.');
    expect(await page.locator(`${W} .queue .sub`).innerText()).toMatch(/Espera estimada: unos 1 min/);
    await shots(page, 'queue-position');

    host.t.clock.set(new Date(start + 3_000));
    await expect.poll(() => stage(page), { timeout: 10_000 }).toBe('admitted');
    expect(await statusText(page)).toMatch(/Tu acceso caduca en (09|10):\d\d/);
    const seat = page.locator(`${W} polygon.s.a`).first();
    await seat.waitFor();
    expect(await page.locator(`${W} [data-empty-cart]`).innerText()).toBe('Tu carrito está vacío. Elige asientos en el mapa.');
    await seat.click();
    await page.waitForFunction(`document.querySelector('${W}').shadowRoot.querySelectorAll('.cart li[data-item]').length === 1`, undefined, { timeout: 15_000 });
    // The cart's countdown counts from now, like the bar's: not from when the page opened (minutes
    // earlier on the service's clock), which showed 20:04 on a 15-minute hold until its next tick.
    const [cartLeft, barLeft] = await page.evaluate(
      (w) => ['[data-countdown] time', '[data-bar-countdown]'].map((q) => document.querySelector(w)!.shadowRoot!.querySelector(q)!.textContent!),
      W,
    );
    const seconds = (mmss: string) => Number(mmss.slice(0, 2)) * 60 + Number(mmss.slice(3, 5));
    expect(Math.abs(seconds(cartLeft!) - seconds(barLeft!)), `${cartLeft} against ${barLeft}`).toBeLessThanOrEqual(1);
    expect(creates.length).toBe(1);
    expect(creates[0]!['queue-pass']).toMatch(/\S{20,}/);
    // With seats in the cart, the cart's countdown is the one shown: the pass's panel steps aside.
    expect(await page.locator(`${W} [data-queue]`).count()).toBe(0);
    expect(await page.locator(`${W} [data-countdown]`).innerText()).toMatch(/\d\d:\d\d/);
    await shots(page, 'queue-admitted-cart');
    // The cart emptied, the turn's panel and its countdown come back.
    await page.locator(`${W} .cart li[data-item] button`).click();
    await expect.poll(() => stage(page), { timeout: 10_000 }).toBe('admitted');
    // A seat again, then the pass runs out while the cart holds it: the panel says so within seconds.
    await page.locator(`${W} polygon.s.a`).first().click();
    await expect.poll(() => page.locator(`${W} [data-queue]`).count(), { timeout: 10_000 }).toBe(0);
    host.t.clock.advance(601_000);
    await expect.poll(() => page.locator(`${W} [data-queue]`).count(), { timeout: 10_000 }).toBe(1);
    expect(await stage(page)).toBe('passExpired');
    expect(await page.locator(`${W} .cart li[data-item]`).count()).toBe(1);
    await page.context().close();
  });
});

describe('the widget follows the live map (D62) and shows all-in prices (D71)', { timeout: 120_000 }, () => {
  it('a seat held in one widget turns grey in another within 2 s; rates include the fees; the cart breaks the total down', async () => {
    const token = await tokenFor(host.t.app, 'demo-d', 'wk_demo_d', 'live-setup');
    const events = (await host.t.app.inject({ url: '/api/sales-channel/v1/demo-d/es/events', headers: bearer(token) })).json().data as { sessions: { id: number }[] }[];
    const other = events.flatMap((e) => e.sessions.map((s) => s.id)).find((id) => id !== host.sessionId)!;
    const pages: Page[] = [];
    for (const viewport of [{ width: 1280, height: 1000 }, { width: 390, height: 844 }]) {
      const page = await newWidgetPage(host, viewport);
      await page.goto(`${host.examplesUrl}/model-d.html?session=${other}`);
      await page.locator(`${W} polygon[data-id]`).first().waitFor();
      pages.push(page);
    }
    const [a, b] = pages as [Page, Page];
    // D71: the rate picker's price includes the booking fee and names it.
    const zoneRate = a.locator(`${W} .zone select option`).first();
    expect(await zoneRate.innerText()).toMatch(/^General · 31,50\s€ \(gastos de gestión incluidos: 1,50\s€\)$/);

    const seat = a.locator(`${W} polygon.s.a`).nth(3);
    const id = Number(await seat.getAttribute('data-id'));
    await seat.click();
    await a.waitForFunction(`document.querySelector('${W}').shadowRoot.querySelectorAll('.cart li[data-item]').length === 1`);
    const began = Date.now();
    await b.locator(`${W} polygon.s.h[data-id="${id}"]`).waitFor({ timeout: 2_500 });
    console.log(`[D62] widget: B showed A's hold ${Date.now() - began} ms after A's cart showed it`);
    // The cart's breakdown: tickets, fees, total.
    const breakdown = (await a.locator(`${W} [data-breakdown]`).innerText()).replace(/\s+/g, ' ');
    expect(breakdown).toMatch(/Entradas 30,00 € Gastos de gestión 1,50 €/);
    expect((await a.locator(`${W} [data-total]`).innerText()).replace(/\s/g, ' ')).toBe('31,50 €');
    // Exactly one primary button in the cart (the host pays in model D: none).
    expect(await a.locator(`${W} button.primary`).count()).toBeLessThanOrEqual(1);
    await shots(a, 'live-map-all-in-cart');
    // Released in A: free again in B.
    await a.locator(`${W} polygon[data-id="${id}"]`).click();
    await b.locator(`${W} polygon.s.a[data-id="${id}"]`).waitFor({ timeout: 2_500 });
    for (const p of pages) await p.context().close();
  });
});
