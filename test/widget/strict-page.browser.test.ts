import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { buyTwoSeats, cspViolations, partnerShopForFile, recordCspViolations, W } from './partner-page.js';

/**
 * Issue 26 item 8: the widget on a strict partner page. The page is served by a second HTTP server
 * (another origin, as a partner's site) under
 * `default-src 'self'; script-src 'self' <widget>; style-src 'self' <widget>; connect-src <api>;
 * require-trusted-types-for 'script'`, loads the widget by its pinned address with the Subresource
 * Integrity value of the service's manifest, and has `dir="rtl"`. A model D purchase runs there:
 * seats picked, the channel's server confirms, the page calls notifyPaymentComplete. Not one CSP
 * violation may be reported (the page's `securitypolicyviolation` events, its console errors).
 */

// The host page's own script: a file from its origin ('self'), no inline script. It records the
// widget's callbacks for the test.
const HOST_JS = `
window.widgetEvents = [];
const q = new URLSearchParams(location.search);
window.widget = TicketWidget.init({
  container: '#tickets',
  channelSlug: 'demo-d',
  apiKey: 'wk_demo_d',
  sessionId: Number(q.get('session')),
  lang: 'es',
  onOrderUpdate(order) { window.widgetEvents.push({ type: 'update', order }); },
  onOrderComplete(order) { window.widgetEvents.push({ type: 'complete', order }); },
  onError(error) { window.widgetEvents.push({ type: 'error', code: error.code }); },
});
`;

const shop = partnerShopForFile({
  site: (serviceUrl) => ({
    hostJs: HOST_JS,
    // The partner pins the build the alias serves now, with its integrity value (the manifest).
    widgetScript: async () => {
      const manifest = (await (await fetch(`${serviceUrl}/widget/v1/manifest.json`)).json()) as { url: string; integrity: string };
      const src = new URL(new URL(manifest.url).pathname, serviceUrl).href;
      return `src="${src}" integrity="${manifest.integrity}" crossorigin="anonymous"`;
    },
    html: 'lang="ar" dir="rtl"',
    head: '<link rel="stylesheet" href="/shop.css">',
    body: '<h1>Entradas</h1>',
    css: 'body { direction: rtl; font-family: serif; max-width: 70rem; margin: 1rem auto; }',
  }),
});

/** A page of `context` whose CSP violations are recorded, with its console errors, page errors and failed responses. */
async function strictPage(context: BrowserContext): Promise<{ page: Page; problems: string[] }> {
  await recordCspViolations(context);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`response: ${r.status()} ${r.url()}`);
  });
  return { page, problems };
}

const inShadow = <T,>(page: Page, fn: string) => page.evaluate(`(() => { const root = document.querySelector('${W}').shadowRoot; return ${fn}; })()`) as Promise<T>;

describe('the widget on a strict partner page (CSP, Trusted Types, another origin, rtl)', { timeout: 120_000 }, () => {
  it('is styled, draws every seat and runs a model D purchase without one violation', async () => {
    const context = await shop.browser.newContext({ viewport: { width: 1280, height: 1000 } });
    const { page, problems } = await strictPage(context);
    await page.goto(`${shop.partner.url}/shop.html?session=${shop.sessionId}`);
    await page.locator(`${W} polygon[data-id]`).first().waitFor({ timeout: 30_000 });

    // Trusted Types enforced: the seats are built without markup strings.
    expect(await page.locator(`${W} polygon[data-id]`).count()).toBe(560);
    // Styled: the widget's own rules apply (a blocked stylesheet leaves the browser's defaults).
    expect(await inShadow(page, `getComputedStyle(root.querySelector('.tw')).borderTopLeftRadius`)).toBe('10px');
    expect(await inShadow(page, `getComputedStyle(root.querySelector('svg.map')).height`)).toBe('420px');
    expect(await inShadow(page, `getComputedStyle(root.querySelector('polygon.s.a')).fill`)).not.toBe('rgb(0, 0, 0)');
    // Its own direction on a right-to-left page.
    expect(await page.evaluate(() => getComputedStyle(document.body).direction)).toBe('rtl');
    expect(await inShadow(page, `getComputedStyle(root.querySelector('.tw')).direction`)).toBe('ltr');

    // The purchase: two seats into the cart, the channel's server confirms, the page says so.
    await buyTwoSeats(page, shop.t, { lang: 'es', clientId: 'strict-partner' });
    const events = await page.evaluate(() => (window as unknown as { widgetEvents: { type: string; order?: { status: string } }[] }).widgetEvents);
    expect(events.find((e) => e.type === 'complete')?.order?.status).toBe('completed');
    expect(events.some((e) => e.type === 'error')).toBe(false);

    expect(await cspViolations(page)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('a failed start shows "try again" and tells the host (onError); the retry loads the map', async () => {
    const context = await shop.browser.newContext({ viewport: { width: 390, height: 900 } });
    const { page, problems } = await strictPage(context);
    // The service cannot be reached for the token until the test lets it through.
    let down = true;
    await page.route('**/api/sales-channel/v1/auth/token', (route) => (down ? route.abort('connectionrefused') : route.continue()));
    await page.goto(`${shop.partner.url}/shop.html?session=${shop.sessionId}`);
    const retry = page.locator(`${W} [data-retry]`);
    await retry.waitFor({ timeout: 30_000 });
    expect(await retry.innerText()).toBe('Reintentar');
    expect(await page.locator(`${W} [data-notice="network"]`).count()).toBe(1);
    const errors = await page.evaluate(() => (window as unknown as { widgetEvents: { type: string; code?: string }[] }).widgetEvents.filter((e) => e.type === 'error'));
    expect(errors[0]).toEqual({ type: 'error', code: 'network_error' });
    down = false;
    // The buyer's click, unless the automatic retry (1 s, 3 s, 9 s) got there first.
    await retry.click({ timeout: 5_000 }).catch(() => undefined);
    await page.locator(`${W} polygon[data-id]`).first().waitFor({ timeout: 30_000 });
    expect(await page.locator(`${W} [data-retry]`).count()).toBe(0);
    expect(await cspViolations(page)).toEqual([]);
    // The refused connections are the only console errors.
    expect(problems.filter((p) => !p.includes('ERR_CONNECTION_REFUSED'))).toEqual([]);
    await context.close();
  });
});
