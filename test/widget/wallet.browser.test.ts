import Fastify, { type FastifyInstance } from 'fastify';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelSessionIds, startBrowserApp, type BrowserApp } from '../browser-app.js';
import { bearer, serverTokenFor, type TestApp } from '../helpers.js';
import { screenshots, VIEWPORTS } from '../portal/browser-helpers.js';

/**
 * Issue 31 / D70: the widget's confirmation offers the wallet passes the order page offers. A model
 * D purchase on a partner page under a strict CSP (no inline script or style, Trusted Types): seats
 * picked, the channel's server confirms, the page hands the confirm response to
 * notifyPaymentComplete; the confirmation shows "Add to Apple Wallet" and "Add to Google Wallet" for
 * each ticket, named for the ticket, in the buyer's language; the .pkpass link answers a pass.
 */

const W = 'taquilla-widget';
let t: TestApp;
let started: BrowserApp;
let serviceUrl: string;
let partner: FastifyInstance;
let partnerUrl: string;
let browser: Browser;
let sessionId: number;

const HOST_JS = `
const q = new URLSearchParams(location.search);
window.widget = TicketWidget.init({ container: '#tickets', channelSlug: 'demo-d', apiKey: 'wk_demo_d', sessionId: Number(q.get('session')), lang: q.get('lang') });
`;

beforeAll(async () => {
  // The service's public address is the one the browser reaches, so the wallet links work as given.
  ({ t, base: serviceUrl, browser } = started = await startBrowserApp({ publicBase: true }));
  sessionId = (await channelSessionIds(t, 'demo-d', await serverTokenFor(t.app, 'demo-d', 'sk_demo_d', 'wallet-setup')))[0]!;

  partner = Fastify({ logger: false });
  partner.get('/shop.html', async (_request, reply) => {
    const csp = ["default-src 'self'", `script-src 'self' ${serviceUrl}`, `style-src 'self' ${serviceUrl}`, `connect-src ${serviceUrl}`, "require-trusted-types-for 'script'"].join('; ');
    return reply
      .header('content-security-policy', csp)
      .type('text/html; charset=utf-8')
      .send(
        `<!doctype html><html lang="es"><head><meta charset="utf-8"><title>Partner</title></head><body><section id="tickets"></section>` +
          `<script src="${serviceUrl}/widget/v1/widget.iife.js"></script><script src="/shop.js"></script></body></html>`,
      );
  });
  partner.get('/favicon.ico', (_request, reply) => reply.status(204).send());
  partner.get('/shop.js', (_request, reply) => reply.type('text/javascript').send(HOST_JS));
  partnerUrl = await partner.listen({ port: 0, host: '127.0.0.1' });
}, 180_000);

afterAll(async () => {
  await partner?.close();
  await started?.close();
});

/** Two seats into the cart, the channel's server confirms, the page tells the widget. */
async function buy(page: Page, lang: string): Promise<void> {
  await page.addInitScript('globalThis.__name = (f) => f;');
  await page.addInitScript(`window.__violations = []; document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI), true);`);
  await page.goto(`${partnerUrl}/shop.html?session=${sessionId}&lang=${lang}`);
  await page.locator(`${W} polygon.s.a`).first().waitFor({ timeout: 30_000 });
  for (const n of [1, 2]) {
    await page.locator(`${W} polygon.s.a`).first().click();
    await page.waitForFunction(([w, count]) => document.querySelector(w as string)!.shadowRoot!.querySelectorAll('.cart li[data-item]').length === count, [W, n] as const);
  }
  const order = await page.evaluate(() => (window as unknown as { widget: { getOrder(): { order_token: string; total_amount: number } } }).widget.getOrder());
  const server = await serverTokenFor(t.app, 'demo-d', 'sk_demo_d', `wallet-${lang}`);
  const confirm = await t.app.inject({
    method: 'POST',
    url: `/api/sales-channel/v1/demo-d/${lang}/orders/${order.order_token}/confirm`,
    headers: bearer(server),
    payload: { amount: order.total_amount, name: 'Ana', surname: 'García', email: 'ana@example.com', transaction_id: `wallet-${lang}-${Date.now()}` },
  });
  expect(confirm.statusCode).toBe(200);
  await page.evaluate((data) => (window as unknown as { widget: { notifyPaymentComplete(o: unknown): void } }).widget.notifyPaymentComplete(data), confirm.json().data);
  await page.locator(`${W} [data-notice="completed"]`).waitFor();
}

describe("the widget's confirmation offers the wallet passes (D70)", { timeout: 120_000 }, () => {
  for (const c of [
    { lang: 'es', viewport: VIEWPORTS.desktop, heading: 'Tus entradas en el móvil', apple: 'Añadir a Apple Wallet', google: 'Añadir a Google Wallet', seat: /^Añadir a Apple Wallet: .+, fila \S+, asiento \S+$/ },
    { lang: 'en', viewport: VIEWPORTS.phone, heading: 'Your tickets on your phone', apple: 'Add to Apple Wallet', google: 'Add to Google Wallet', seat: /^Add to Apple Wallet: .+, row \S+, seat \S+$/ },
  ]) {
    it(`${c.lang} at ${c.viewport.width} px: both wallet links per ticket, named for the ticket; the .pkpass answers a pass`, async () => {
      const context = await browser.newContext({ viewport: c.viewport });
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
      expect(appleHref.startsWith(`${serviceUrl}/api/tickets/wallet/apple/`)).toBe(true);
      const pass = await page.request.get(appleHref);
      expect(pass.status()).toBe(200);
      expect(pass.headers()['content-type']).toBe('application/vnd.apple.pkpass');
      expect((await pass.body()).subarray(0, 2).toString('latin1')).toBe('PK');
      // The Google link leads to Google Wallet's save page with the signed JWT.
      const googleHref = (await google.first().getAttribute('href'))!;
      const save = await page.request.get(googleHref, { maxRedirects: 0 });
      expect(save.status()).toBe(302);
      expect(save.headers().location).toMatch(/^https:\/\/pay\.google\.com\/gp\/v\/save\/[\w-]+\.[\w-]+\.[\w-]+$/);

      expect(await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations)).toEqual([]);
      expect(problems).toEqual([]);
      await context.close();
    });
  }
});
