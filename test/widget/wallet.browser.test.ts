import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { screenshots, VIEWPORTS } from '../portal/browser-helpers.js';
import { buyTwoSeats, cspViolations, partnerShopForFile, recordCspViolations, W } from './partner-page.js';

/**
 * Issue 31 / D70: the widget's confirmation offers the wallet passes the order page offers. A model
 * D purchase on a partner page under a strict CSP (no inline script or style, Trusted Types): seats
 * picked, the channel's server confirms, the page hands the confirm response to
 * notifyPaymentComplete; the confirmation shows "Add to Apple Wallet" and "Add to Google Wallet" for
 * each ticket, named for the ticket, in the buyer's language; the .pkpass link answers a pass.
 */

const HOST_JS = `
const q = new URLSearchParams(location.search);
window.widget = TicketWidget.init({ container: '#tickets', channelSlug: 'demo-d', apiKey: 'wk_demo_d', sessionId: Number(q.get('session')), lang: q.get('lang') });
`;

// The service's public address is the one the browser reaches, so the wallet links work as given.
const shop = partnerShopForFile({
  publicBase: true,
  site: (serviceUrl) => ({ hostJs: HOST_JS, widgetScript: async () => `src="${serviceUrl}/widget/v1/widget.iife.js"`, html: 'lang="es"' }),
});

/** The partner's page in `lang`, CSP violations recorded; then two seats bought (buyTwoSeats). */
async function buy(page: Page, lang: string): Promise<void> {
  await recordCspViolations(page);
  await page.goto(`${shop.partner.url}/shop.html?session=${shop.sessionId}&lang=${lang}`);
  await page.locator(`${W} polygon.s.a`).first().waitFor({ timeout: 30_000 });
  await buyTwoSeats(page, shop.t, { lang, clientId: `wallet-${lang}` });
}

describe("the widget's confirmation offers the wallet passes (D70)", { timeout: 120_000 }, () => {
  for (const c of [
    { lang: 'es', viewport: VIEWPORTS.desktop, heading: 'Tus entradas en el móvil', apple: 'Añadir a Apple Wallet', google: 'Añadir a Google Wallet', seat: /^Añadir a Apple Wallet: .+, fila \S+, asiento \S+$/ },
    { lang: 'en', viewport: VIEWPORTS.phone, heading: 'Your tickets on your phone', apple: 'Add to Apple Wallet', google: 'Add to Google Wallet', seat: /^Add to Apple Wallet: .+, row \S+, seat \S+$/ },
  ]) {
    it(`${c.lang} at ${c.viewport.width} px: both wallet links per ticket, named for the ticket; the .pkpass answers a pass`, async () => {
      const context = await shop.browser.newContext({ viewport: c.viewport });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(m.text());
      });
      page.on('pageerror', (e) => problems.push(e.message));
      await buy(page, c.lang);

      const passes = page.locator(`${W} section[data-passes]`);
      expect(await passes.locator('h3').innerText()).toBe(c.heading);
      // Accessible names: the visible text first (WCAG 2.5.3), then which ticket.
      const apple = passes.getByRole('link', { name: c.seat });
      const google = passes.getByRole('link', { name: new RegExp(`^${c.google}: `) });
      expect(await apple.count()).toBe(2);
      expect(await google.count()).toBe(2);
      expect(await apple.first().innerText()).toBe(c.apple);
      expect(await google.first().innerText()).toBe(c.google);
      const names = await apple.evaluateAll((links) => links.map((a) => a.getAttribute('aria-label')));
      expect(new Set(names).size).toBe(2);

      await screenshots(page, `widget-wallet-${c.lang}`);

      // The .pkpass link, as the buyer's browser follows it.
      const appleHref = (await apple.first().getAttribute('href'))!;
      expect(appleHref.startsWith(`${shop.serviceUrl}/api/tickets/wallet/apple/`)).toBe(true);
      const pass = await page.request.get(appleHref);
      expect(pass.status()).toBe(200);
      expect(pass.headers()['content-type']).toBe('application/vnd.apple.pkpass');
      expect((await pass.body()).subarray(0, 2).toString('latin1')).toBe('PK');
      // The Google link leads to Google Wallet's save page with the signed JWT.
      const googleHref = (await google.first().getAttribute('href'))!;
      const save = await page.request.get(googleHref, { maxRedirects: 0 });
      expect(save.status()).toBe(302);
      expect(save.headers().location).toMatch(/^https:\/\/pay\.google\.com\/gp\/v\/save\/[\w-]+\.[\w-]+\.[\w-]+$/);

      expect(await cspViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    });
  }
});
