import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import { channelSessionIds, startBrowserApp, type BrowserApp } from '../browser-app.js';
import { bearer, serverTokenFor, tokenFor, type TestApp } from '../helpers.js';

/**
 * What a buyer sees: the example host pages (served by the example channel server on its own
 * origin, so every widget call is cross-origin) with the widget loaded from a real service on a
 * random port, in Debian's Chromium.
 */

const SHOTS = 'test-results/widget';
let t: TestApp;
let started: BrowserApp;
let examplesUrl: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let sessions: number[] = [];

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  ({ t, browser, examplesUrl } = started = await startBrowserApp({ examples: true }));
  sessions = await channelSessionIds(t, 'demo-d', await tokenFor(t.app, 'demo-d', 'wk_demo_d', 'test-setup'));
}, 180_000); // a fresh database with demo data is slow on a loaded machine

afterAll(() => started?.close());

const consoleLines: string[] = [];
beforeEach(async () => {
  context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  // tsx compiles functions passed to page.evaluate with esbuild's keepNames helper; define it.
  await context.addInitScript('globalThis.__name = (f) => f;');
  page = await context.newPage();
  consoleLines.length = 0;
  page.on('console', (m) => consoleLines.push(`${m.type()}: ${m.text()}`));
});
afterEach(async () => {
  await context.close();
});

const W = 'taquilla-widget';

async function open(model: 'c' | 'd', query = '') {
  await page.goto(`${examplesUrl}/model-${model}.html${query}`);
  await page.locator(`${W} polygon[data-id]`).first().waitFor();
}

/** Waits until `fn(shadowRoot)` is true in the page. */
async function waitShadow(fn: string, timeout = 30_000) {
  await page.waitForFunction(`(() => { const root = document.querySelector('${W}')?.shadowRoot; return !!root && (${fn}); })()`, undefined, { timeout });
}

const cartCount = () => page.locator(`${W} .cart li[data-item]`).count();
// Intl writes a no-break space before the currency sign.
const total = async () => (await page.locator(`${W} [data-total]`).innerText()).replace(/\s/g, ' ');

async function clickFreeSeat(): Promise<number> {
  const before = await cartCount();
  const seat = page.locator(`${W} polygon.s.a`).first();
  const id = Number(await seat.getAttribute('data-id'));
  await seat.click();
  await waitShadow(`root.querySelectorAll('.cart li[data-item]').length === ${before + 1}`);
  return id;
}

/** The order's status as the channel's server sees it (a buyer's cart is its own to other widget tokens, D57). */
async function orderStatus(token: string): Promise<string> {
  const bearerToken = await serverTokenFor(t.app, 'demo-d', 'sk_demo_d', 'checker');
  return (await t.app.inject({ url: `/api/sales-channel/v1/demo-d/es/orders/${token}`, headers: bearer(bearerToken) })).json().data.status;
}

describe('widget in the browser', () => {
  it('loads the map of a valid session from another origin, labelled and keyboard operable', async () => {
    await open('d');
    expect(await page.locator(`${W} polygon[data-id]`).count()).toBe(560);
    expect(await page.locator(`${W} svg.map`).getAttribute('aria-label')).toBe('Mapa de asientos');
    expect(await page.locator(`${W} .legend li`).count()).toBe(4);
    expect(await page.locator(`${W} [data-countdown]`).count()).toBe(0);
    await page.screenshot({ path: `${SHOTS}/model-d-map.png` });

    // Keyboard: the one seat in the tab order, arrows to move, Enter to select.
    const tabStop = page.locator(`${W} polygon[tabindex="0"]`);
    expect(await tabStop.count()).toBe(1);
    expect(await tabStop.getAttribute('aria-label')).toMatch(/^Platea, fila A, asiento 1: libre$/);
    await tabStop.focus();
    await page.keyboard.press('ArrowRight');
    const focused = page.locator(`${W} polygon[tabindex="0"]`);
    expect(await focused.getAttribute('aria-label')).toMatch(/asiento 2: libre$/);
    await page.keyboard.press('Enter');
    await waitShadow(`root.querySelectorAll('.cart li[data-item]').length === 1`);
    expect(await page.locator(`${W} polygon[tabindex="0"]`).getAttribute('aria-checked')).toBe('true');
    expect(await page.locator(`${W} .cart li`).first().innerText()).toContain('Platea, fila A, asiento 2');
  });

  it('pans by dragging and zooms by button without selecting seats', async () => {
    await open('d');
    const svg = page.locator(`${W} svg.map`);
    const viewBox = async () => (await svg.getAttribute('viewBox'))!.split(' ').map(Number);
    const [x0, y0, w0] = await viewBox();
    const box = (await svg.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    for (let i = 1; i <= 10; i++) await page.mouse.move(box.x + box.width / 2 + i * 10, box.y + box.height / 2 + i * 5);
    await page.mouse.up();
    const [x1, y1, w1] = await viewBox();
    expect(x1).toBeLessThan(x0!);
    expect(y1).toBeLessThan(y0!);
    expect(w1).toBe(w0);
    // The drag moved the pan layer by a transform, folded into the viewBox at the end.
    expect(await page.locator(`${W} .mapbox .pan`).evaluate((el) => (el as HTMLElement).style.transform)).toBe('');
    expect(await page.locator(`${W} .mapbox .shield`).isHidden()).toBe(true);
    expect(await cartCount()).toBe(0);
    await page.locator(`${W} .zoom button`).first().click();
    await page.waitForFunction(`document.querySelector('${W}').shadowRoot.querySelector('svg.map').getAttribute('viewBox').split(' ')[2] < ${w0}`);
  });

  it('selecting and unselecting seats updates the cart and the total; the countdown hides when empty', async () => {
    await open('d');
    const first = await clickFreeSeat();
    expect(await page.locator(`${W} [data-countdown]`).innerText()).toMatch(/1[45]:\d\d/);
    await clickFreeSeat();
    expect(await total()).toBe('63,00 €');
    expect(await page.locator(`${W} polygon.s.m[data-id]`).count()).toBe(2);
    // The host's own pay button follows onOrderUpdate.
    expect(await page.locator('#pay').isDisabled()).toBe(false);
    await page.screenshot({ path: `${SHOTS}/model-d-two-seats.png` });

    await page.locator(`${W} polygon[data-id="${first}"]`).click();
    await waitShadow(`root.querySelectorAll('.cart li[data-item]').length === 1`);
    // Only that seat changed back to free on the map.
    expect(await page.locator(`${W} polygon.s.m[data-id]`).count()).toBe(1);
    expect(await page.locator(`${W} polygon.s.a[data-id="${first}"]`).count()).toBe(1);
    expect(await total()).toBe('31,50 €');
    await page.locator(`${W} .cart li button`).click();
    await waitShadow(`root.querySelectorAll('.cart li[data-item]').length === 0`);
    expect(await total()).toBe('0,00 €');
    expect(await page.locator(`${W} [data-countdown]`).count()).toBe(0);
    expect(await page.locator('#pay').isDisabled()).toBe(true);
    await clickFreeSeat();
    expect(await page.locator(`${W} [data-countdown]`).count()).toBe(1);
  });

  it('a seat taken meanwhile: the message, and the refreshed map changes that seat only', async () => {
    await open('d');
    const seats = page.locator(`${W} polygon.s.a`);
    const taken = Number(await seats.nth(5).getAttribute('data-id'));
    const other = await tokenFor(t.app, 'demo-d', 'wk_demo_d', 'another-buyer');
    const detail = (await t.app.inject({ url: `/api/sales-channel/v1/demo-d/es/events`, headers: bearer(other) })).json().data as {
      id: number;
      sessions: { id: number }[];
    }[];
    const event = detail.find((e) => e.sessions.some((s) => s.id === sessions[0]))!;
    const session = (await t.app.inject({ url: `/api/sales-channel/v1/demo-d/es/events/${event.id}/sessions/${sessions[0]}`, headers: bearer(other) })).json().data as {
      elements: { seats: { id: number; rates: { id: number }[] }[] };
    };
    const rateId = session.elements.seats.find((s) => s.id === taken)!.rates[0]!.id;
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/sales-channel/v1/demo-d/es/orders',
      headers: bearer(other),
      payload: { session_seat_id: taken, rate_id: rateId },
    });
    expect(res.statusCode).toBe(201);
    // Each seat element is tagged, to tell an update in place from a redraw.
    const drawn = async () =>
      page.evaluate(() =>
        [...document.querySelector('taquilla-widget')!.shadowRoot!.querySelectorAll('[data-id]')].map((el) => {
          const tagged = el as Element & { tag?: boolean };
          const line = `${el.getAttribute('data-id')}:${el.getAttribute('class')}:${tagged.tag ? 'same' : 'new'}`;
          tagged.tag = true;
          return line;
        }),
      );
    const before = (await drawn()).map((line) => line.replace(/new$/, 'same'));
    await page.locator(`${W} polygon[data-id="${taken}"]`).click();
    await page.locator(`${W} [data-notice="seatTaken"]`).waitFor();
    await page.locator(`${W} polygon.s.h[data-id="${taken}"]`).waitFor();
    const after = await drawn();
    expect(after.filter((x, i) => x !== before[i])).toEqual([`${taken}:s h:same`]);
    expect(await cartCount()).toBe(0);
    expect(await page.locator(`${W} polygon[tabindex="0"]`).count()).toBe(1);
    expect(await page.locator(`${W} polygon[tabindex="0"]`).getAttribute('data-id')).toBe(String(taken));
    // The clicked seat is the tab stop, labelled with its new state.
    expect(await page.locator(`${W} polygon[tabindex="0"]`).getAttribute('aria-label')).toMatch(/reservado por otra persona$/);
    // The keyboard moves the tab stop away; a click on the held seat, which changes nothing, still
    // leaves exactly one tab stop: that seat, marked unavailable.
    await page.locator(`${W} polygon[tabindex="0"]`).focus();
    await page.keyboard.press('ArrowRight');
    expect(await page.locator(`${W} polygon[tabindex="0"]`).getAttribute('data-id')).not.toBe(String(taken));
    await page.locator(`${W} polygon[data-id="${taken}"]`).click();
    expect(await page.locator(`${W} polygon[tabindex="0"]`).count()).toBe(1);
    expect(await page.locator(`${W} polygon[tabindex="0"]`).getAttribute('data-id')).toBe(String(taken));
    expect(await page.locator(`${W} polygon[tabindex="0"]`).getAttribute('aria-disabled')).toBe('true');
    expect(await cartCount()).toBe(0);
  });

  it('zone quantity picker and per-item rate choice', async () => {
    await open('d');
    await clickFreeSeat();
    const zone = page.locator(`${W} .zone`);
    await zone.getByRole('button', { name: 'Añadir una' }).click();
    await zone.getByRole('button', { name: 'Añadir una' }).click();
    expect(await zone.locator('input').inputValue()).toBe('3');
    await zone.getByRole('button', { name: 'Añadir', exact: true }).click();
    await waitShadow(`root.querySelectorAll('.cart li[data-item]').length === 4`);
    expect(await page.locator(`${W} .cart li`).nth(1).innerText()).toContain('Pista');
    // The widget reloads availability after the zone claim.
    await waitShadow(`root.querySelector('.zone').textContent.includes('197 plazas libres')`);
    expect(await total()).toBe('126,00 €');
    // Reduced rate on the seat: 22.50 + 1.50.
    const select = page.locator(`${W} .cart li`).first().locator('select');
    const reduced = await select.locator('option').nth(1).getAttribute('value');
    await select.selectOption(reduced!);
    await waitShadow(`root.querySelector('[data-total]').textContent.includes('118,50')`);
    await page.screenshot({ path: `${SHOTS}/model-d-zone.png` });
  });

  it('vouchers apply and remove, with the error of a wrong code shown', async () => {
    await open('d');
    await clickFreeSeat();
    const input = page.locator(`${W} .voucher input`);
    await input.fill('WRONG');
    await page.locator(`${W} .voucher button`).click();
    await page.locator(`${W} .field-error`).waitFor();
    expect(await input.getAttribute('aria-invalid')).toBe('true');
    await input.fill('DEMO10');
    await page.locator(`${W} .voucher button`).click();
    await page.locator(`${W} [data-voucher="DEMO10"]`).waitFor();
    expect(await page.locator(`${W} .field-error`).count()).toBe(0);
    expect(await total()).toBe('28,50 €');
    await page.screenshot({ path: `${SHOTS}/model-d-voucher.png` });
    await page.locator(`${W} [data-voucher="DEMO10"]`).click();
    await waitShadow(`!root.querySelector('[data-voucher]')`);
    expect(await total()).toBe('31,50 €');
  });

  it('model C: the checkout button redirects to the portal with the order token', async () => {
    await page.route('http://taquilla.test/**', (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>portal checkout</h1>' }));
    await open('c', '?lang=en');
    expect(await page.locator(`${W} h3`).first().innerText()).toMatch(/Unnumbered areas|Your cart/);
    await clickFreeSeat();
    const token = await page.evaluate(() => (window as unknown as { widget: { getOrder(): { order_token: string } } }).widget.getOrder().order_token);
    expect(await page.evaluate(() => (window as unknown as { widget: { policy: unknown } }).widget.policy)).toEqual({
      integrationMode: 'widget_platform_payment',
      paymentHandler: 'portal',
    });
    await page.screenshot({ path: `${SHOTS}/model-c-cart.png` });
    await Promise.all([page.waitForURL(/taquilla\.test/), page.locator(`${W} button.primary`).click()]);
    expect(page.url()).toBe(`http://taquilla.test/demo-c/en/checkout?order_token=${token}`);
  });

  it('model D: no checkout button; after the channel server confirms, notifyPaymentComplete fires onOrderComplete', async () => {
    await open('d');
    expect(await page.locator(`${W} button.primary`).count()).toBe(0);
    await clickFreeSeat();
    const token = await page.evaluate(() => (window as unknown as { widget: { getOrder(): { order_token: string } } }).widget.getOrder().order_token);
    await page.evaluate(() => (window as unknown as { widget: { startCheckout(): void } }).widget.startCheckout());
    expect(consoleLines.some((l) => l.startsWith('warning:') && l.includes('model D'))).toBe(true);
    expect(page.url()).toContain('/model-d.html');

    await page.locator('#pay').click();
    await page.waitForFunction(() => (window as unknown as { widgetEvents: { type: string }[] }).widgetEvents.some((e) => e.type === 'complete'));
    const completed = await page.evaluate(
      () => (window as unknown as { widgetEvents: { type: string; order: { order_token: string; status: string } }[] }).widgetEvents.find((e) => e.type === 'complete')!.order,
    );
    expect(completed).toMatchObject({ order_token: token, status: 'completed' });
    expect(await orderStatus(token)).toBe('completed');
    await waitShadow(`root.querySelectorAll('.cart li[data-item]').length === 0`);
    expect(await page.locator(`${W} [data-notice="completed"]`).count()).toBe(1);
    expect(await page.evaluate(() => (window as unknown as { widget: { getOrder(): unknown } }).widget.getOrder())).toBeNull();
    await page.screenshot({ path: `${SHOTS}/model-d-completed.png` });
  });

  it('rehydrates the cart on reload; destroy and re-init with another session cancels the old order', async () => {
    await open('d');
    await clickFreeSeat();
    const token = await page.evaluate(() => (window as unknown as { widget: { getOrder(): { order_token: string } } }).widget.getOrder().order_token);
    await page.reload();
    await page.locator(`${W} polygon[data-id]`).first().waitFor();
    await waitShadow(`root.querySelectorAll('.cart li[data-item]').length === 1`);
    expect(await page.evaluate(() => (window as unknown as { widget: { getOrder(): { order_token: string } } }).widget.getOrder().order_token)).toBe(token);

    await page.locator('#session').selectOption(String(sessions[1]));
    await page.waitForFunction(() => document.querySelectorAll('taquilla-widget').length === 1);
    await page.locator(`${W} polygon[data-id]`).first().waitFor();
    await waitShadow(`root.querySelectorAll('polygon.s.m[data-id]').length === 0`);
    expect(await orderStatus(token)).toBe('cancelled');
    expect(await page.evaluate(() => (window as unknown as { widget: { getOrder(): unknown } }).widget.getOrder())).toBeNull();
    expect(await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('taquilla:order:')))).toEqual([]);
  });

  it('a hostile host stylesheet changes nothing in the widget, and the widget styles nothing outside', async () => {
    const measure = () =>
      page.evaluate(() => {
        const root = document.querySelector('taquilla-widget')!.shadowRoot!;
        const pick = (sel: string) => {
          const el = root.querySelector(sel)!;
          const cs = getComputedStyle(el);
          const r = el.getBoundingClientRect();
          // Widths of blocks follow the container, which the host page lays out: heights only.
          const fixedWidth = sel === '.zone button' || sel === '[data-total]' || sel === '.legend li';
          return [sel, cs.display, cs.fontFamily, cs.fontSize, cs.color, cs.backgroundColor, cs.padding, cs.borderTopWidth, fixedWidth ? Math.round(r.width) : '', Math.round(r.height)].join('|');
        };
        return ['.tw', 'svg.map', '.legend', '.legend li', '.zone button', '.zone select', '.cart', '[data-total]', 'h2', 'polygon.s.a', 'polygon.s.x'].map(pick);
      });
    await open('d');
    const normal = await measure();
    const pageStyle = () => page.evaluate(() => ['h1', 'header', '#log'].map((sel) => {
      const cs = getComputedStyle(document.querySelector(sel)!);
      return [cs.fontFamily, cs.fontSize, cs.color, cs.display, cs.padding].join('|');
    }));
    const pageBefore = await pageStyle();
    await open('d', '?hostile=1');
    expect(await page.locator('#hostile').count()).toBe(1);
    const hostile = await measure();
    expect(hostile).toEqual(normal);
    await page.locator(`${W} .tw`).screenshot({ path: `${SHOTS}/hostile-widget.png` });
    await page.screenshot({ path: `${SHOTS}/hostile-page.png` });
    // Still works under attack.
    await clickFreeSeat();
    // No widget rule reaches the page: its styles live only in the shadow root.
    await open('d');
    expect(await pageStyle()).toEqual(pageBefore);
    expect(await page.evaluate(() => [...document.querySelectorAll('style')].some((s) => s.textContent!.includes('.tw')))).toBe(false);
  });

  it('init needs a sessionId; a second init without destroy warns and replaces the first', async () => {
    await open('d');
    const error = await page.evaluate(() => {
      try {
        (window as unknown as { TicketWidget: { init(c: object): unknown } }).TicketWidget.init({ container: '#tickets', channelSlug: 'demo-d', apiKey: 'wk_demo_d' });
        return null;
      } catch (e) {
        return (e as Error).message;
      }
    });
    expect(error).toBe('TicketWidget.init: `sessionId` is required (the id of the session to sell)');
    expect(await page.evaluate(() => typeof (window as unknown as { TicketWidget: { init: unknown } }).TicketWidget.init)).toBe('function');
    await page.evaluate((sessionId) => {
      (window as unknown as { TicketWidget: { init(c: object): unknown } }).TicketWidget.init({ container: '#tickets', channelSlug: 'demo-d', apiKey: 'wk_demo_d', sessionId, lang: 'en' });
    }, sessions[0]!);
    expect(consoleLines.some((l) => l.startsWith('warning:') && l.includes('another instance is live'))).toBe(true);
    expect(await page.locator(W).count()).toBe(1);
    await page.locator(`${W} polygon[data-id]`).first().waitFor();
    expect(await page.locator(`${W} .cart h3`).innerText()).toBe('Your cart');
  });
});
