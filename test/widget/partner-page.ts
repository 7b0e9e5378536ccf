import Fastify from 'fastify';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { channelSessionIds, startBrowserApp, type BrowserApp } from '../browser-app.js';
import { bearer, serverTokenFor, type TestApp } from '../helpers.js';

// A partner's site for the widget's browser tests: its own origin (a second HTTP server) serving a
// shop page under a strict Content-Security-Policy with Trusted Types, and a model D purchase run
// on it as the partner's page and server would.

export const W = 'taquilla-widget';

interface PartnerSite {
  /** http://127.0.0.1:<port> */
  url: string;
  close(): Promise<void>;
}

/**
 * Starts the partner's site: /shop.html loads the widget (`widgetScript`, the tag's attributes
 * after `<script `) and then /shop.js (`hostJs`, the page's own script) under
 * `default-src 'self'; script-src 'self' <service>; style-src 'self' <service>; connect-src
 * <service>; require-trusted-types-for 'script'`. `html` is the <html> tag's attributes, `head` and
 * `body` extra markup before the widget's container; `css` is served as /shop.css.
 */
async function startPartnerSite(opts: {
  serviceUrl: string;
  hostJs: string;
  widgetScript: () => Promise<string>;
  html: string;
  head?: string;
  body?: string;
  css?: string;
}): Promise<PartnerSite> {
  const { serviceUrl } = opts;
  const partner = Fastify({ logger: false });
  partner.get('/shop.html', async (_request, reply) => {
    const csp = [
      "default-src 'self'",
      `script-src 'self' ${serviceUrl}`,
      `style-src 'self' ${serviceUrl}`,
      `connect-src ${serviceUrl}`,
      "require-trusted-types-for 'script'",
    ].join('; ');
    return reply
      .header('content-security-policy', csp)
      .type('text/html; charset=utf-8')
      .send(
        `<!doctype html><html ${opts.html}><head><meta charset="utf-8"><title>Partner</title>${opts.head ?? ''}</head>` +
          `<body>${opts.body ?? ''}<section id="tickets"></section>` +
          `<script ${await opts.widgetScript()}></script><script src="/shop.js"></script></body></html>`,
      );
  });
  if (opts.css !== undefined) partner.get('/shop.css', (_request, reply) => reply.type('text/css').send(opts.css));
  // Chromium asks every page for its icon; a 404 there would be logged as a console error.
  partner.get('/favicon.ico', (_request, reply) => reply.status(204).send());
  partner.get('/shop.js', (_request, reply) => reply.type('text/javascript').send(opts.hostJs));
  const url = await partner.listen({ port: 0, host: '127.0.0.1' });
  return { url, close: () => partner.close() };
}

export interface PartnerShop {
  t: TestApp;
  browser: Browser;
  /** Where the service listens (the widget's and the API's origin). */
  serviceUrl: string;
  /** demo-d's first session, as the channel API lists them. */
  sessionId: number;
  partner: PartnerSite;
}

/**
 * For a test file: before its tests the app and Chromium start (startBrowserApp; `publicBase`: the
 * service's public address is the one the browser reaches), demo-d's first session is read and the
 * partner's site `site(serviceUrl)` starts; after them all is closed. The fields are set when the
 * file's tests run.
 */
export function partnerShopForFile(opts: {
  publicBase?: boolean;
  site: (serviceUrl: string) => Omit<Parameters<typeof startPartnerSite>[0], 'serviceUrl'>;
}): PartnerShop {
  const shop = {} as PartnerShop;
  let started: BrowserApp | undefined;
  let partner: PartnerSite | undefined;
  beforeAll(async () => {
    started = await startBrowserApp({ publicBase: opts.publicBase });
    const { t, base: serviceUrl, browser } = started;
    const sessionId = (await channelSessionIds(t, 'demo-d', await serverTokenFor(t.app, 'demo-d', 'sk_demo_d', 'partner-setup')))[0]!;
    partner = await startPartnerSite({ serviceUrl, ...opts.site(serviceUrl) });
    Object.assign(shop, { t, browser, serviceUrl, sessionId, partner });
  }, 180_000);
  afterAll(async () => {
    await partner?.close();
    await started?.close();
  });
  return shop;
}

/**
 * Records the CSP violations of every page of `target` (the event is composed, so shadow-root
 * elements report here too); read them with cspViolations. Also defines esbuild's keepNames helper:
 * tsx compiles functions passed to the page with it.
 */
export async function recordCspViolations(target: BrowserContext | Page): Promise<void> {
  await target.addInitScript('globalThis.__name = (f) => f;');
  await target.addInitScript(`
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + (e.sample || '')), true);
  `);
}

export const cspViolations = (page: Page) => page.evaluate(() => (window as unknown as { __violations: string[] }).__violations);

/**
 * The purchase on the partner's page (window.widget): two seats into the cart, the channel's server
 * (credential `clientId`) confirms in `lang`, the page hands the confirm response to
 * notifyPaymentComplete and the widget says the purchase is complete.
 */
export async function buyTwoSeats(page: Page, t: TestApp, opts: { lang: string; clientId: string }): Promise<void> {
  for (const n of [1, 2]) {
    await page.locator(`${W} polygon.s.a`).first().click();
    // A function, not a string: Playwright evaluates a string predicate with eval, which the page's CSP refuses.
    await page.waitForFunction(([w, count]) => document.querySelector(w as string)!.shadowRoot!.querySelectorAll('.cart li[data-item]').length === count, [W, n] as const);
  }
  const order = await page.evaluate(() => (window as unknown as { widget: { getOrder(): { order_token: string; total_amount: number } } }).widget.getOrder());
  const server = await serverTokenFor(t.app, 'demo-d', 'sk_demo_d', opts.clientId);
  const confirm = await t.app.inject({
    method: 'POST',
    url: `/api/sales-channel/v1/demo-d/${opts.lang}/orders/${order.order_token}/confirm`,
    headers: bearer(server),
    payload: { amount: order.total_amount, name: 'Ana', surname: 'García', email: 'ana@example.com', transaction_id: `${opts.clientId}-${Date.now()}` },
  });
  expect(confirm.statusCode).toBe(200);
  await page.evaluate((data) => (window as unknown as { widget: { notifyPaymentComplete(o: unknown): void } }).widget.notifyPaymentComplete(data), confirm.json().data);
  await page.locator(`${W} [data-notice="completed"]`).waitFor();
}
