import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBrowserApp, type BrowserApp } from '../browser-app.js';
import { DEMO, type TestApp } from '../helpers.js';

// The Content-Security-Policy of each page kind (D50) in a real browser: a policy that forgot
// something the page loads shows up as a violation here, not as a quietly unstyled page.

let t: TestApp;
let base: string;
let browser: Browser;
let started: BrowserApp;
beforeAll(async () => {
  ({ t, base, browser } = started = await startBrowserApp({ publicBase: true, env: { APP_ENV: 'development' } }));
}, 180_000);
afterAll(() => started?.close());

/** Opens `url`, waits for `ready`, and returns every CSP violation the page reported. */
async function violationsOf(url: string, ready: string, check?: (page: import('playwright-core').Page) => Promise<void>) {
  const context = await browser.newContext();
  await context.addInitScript('globalThis.__name = (f) => f;');
  const page = await context.newPage();
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  await page.exposeFunction('reportViolation', (text: string) => violations.push(text));
  await page.addInitScript(() =>
    document.addEventListener('securitypolicyviolation', (e) =>
      (window as unknown as { reportViolation(t: string): void }).reportViolation(`${e.violatedDirective} ${e.blockedURI}`),
    ),
  );
  try {
    await page.goto(`${base}${url}`);
    await page.waitForSelector(ready, { timeout: 30_000, state: 'attached' });
    await check?.(page);
    await page.waitForTimeout(300);
    return violations;
  } finally {
    await context.close();
  }
}

describe('no page of the service breaks its own policy', () => {
  it('storefront and the session page with its seat map (portal.js, the brand colour, seat positions)', async () => {
    expect(await violationsOf(`/${DEMO.a.slug}/en/events`, 'main h1')).toEqual([]);
    const sessionLink = (await t.app.inject({ url: `/${DEMO.a.slug}/en/events/1` })).body.match(/href="(\/demo-a\/en\/events\/1\/sessions\/\d+)"/)![1]!;
    expect(
      await violationsOf(sessionLink, 'button.seat', async (page) => {
        // The brand colour (nonce'd inline style) and the seat grid (style attributes) took effect.
        expect(await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--primary').trim())).toMatch(/^#[0-9a-f]{6}$/i);
        expect(await page.$eval('button.seat', (el) => getComputedStyle(el).gridColumnStart)).not.toBe('auto');
      }),
    ).toEqual([]);
  }, 120_000);

  it('the dashboard sign-in page and the API docs', async () => {
    expect(await violationsOf('/admin/login', 'form')).toEqual([]);
    expect(await violationsOf('/api/docs', '.swagger-ui .info')).toEqual([]);
  }, 120_000);

  it('the widget example page: the widget loads, styles its shadow root, and talks to the API', async () => {
    const violations = await violationsOf('/widget/examples/model-d.html', '#session option', async (page) => {
      await page.waitForFunction(() => document.querySelector('taquilla-widget')?.shadowRoot?.querySelector('.tw h2'), undefined, { timeout: 30_000 });
      const radius = await page.evaluate(() => getComputedStyle(document.querySelector('taquilla-widget')!.shadowRoot!.querySelector('.tw')!).borderTopLeftRadius);
      expect(radius).toBe('10px');
    });
    expect(violations).toEqual([]);
  }, 120_000);
});
