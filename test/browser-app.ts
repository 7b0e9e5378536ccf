import fs from 'node:fs';
import { AxeBuilder } from '@axe-core/playwright';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { expect, test } from 'vitest';
import { channelExample } from '../examples/widget-channel-server.js';
import { buildTestApp, startedForFile, type TestApp } from './helpers.js';
import { freePort, launchChromium } from './portal/browser-helpers.js';

export interface BrowserApp {
  t: TestApp;
  /** Where the app listens, http://127.0.0.1:<port>. */
  base: string;
  browser: Browser;
  /** The example channel server (examples: true), on its own origin: every widget call is cross-origin. */
  examples: FastifyInstance | null;
  examplesUrl: string;
  /** Closes the browser, the example server and the app (its database dropped). */
  close(): Promise<void>;
}

/**
 * What a browser test file starts with: the test app listening on a port of 127.0.0.1, Debian's
 * Chromium and, if asked, the example channel server. `publicBase`: the app's PUBLIC_BASE_URL is the
 * address it listens on (the portal's links and redirects, the wallet links); `portal` adds the
 * portal's rate limit raised to 1000 a minute (a file's pages come from one address). `shots`: the
 * file's screenshot folder, made if missing. Call it in beforeAll and `close` in afterAll.
 */
export async function startBrowserApp(
  opts: { env?: Record<string, string>; demo?: boolean; publicBase?: boolean; portal?: boolean; examples?: boolean; shots?: string } = {},
): Promise<BrowserApp> {
  if (opts.shots) fs.mkdirSync(opts.shots, { recursive: true });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    ...(opts.publicBase || opts.portal ? { PUBLIC_BASE_URL: base } : {}),
    ...(opts.portal ? { PORTAL_RATE_LIMIT_PER_MINUTE: '1000' } : {}),
    ...opts.env,
  };
  const t = await buildTestApp({ env, demo: opts.demo });
  await t.app.listen({ port, host: '127.0.0.1' });
  let examples: FastifyInstance | null = null;
  let examplesUrl = '';
  if (opts.examples) {
    examples = Fastify({ logger: false });
    await examples.register(channelExample, { serviceUrl: base, widgetUrl: `${base}/widget` });
    examplesUrl = await examples.listen({ port: 0, host: '127.0.0.1' });
  }
  const browser = await launchChromium();
  return {
    t,
    base,
    browser,
    examples,
    examplesUrl,
    async close() {
      await browser.close();
      await examples?.close();
      await t.close();
    },
  };
}

/** What a browser test gets (browserAppTest). */
export interface BrowserFixtures {
  /** The file's app and Chromium (startBrowserApp), started before its first test. */
  app: BrowserApp;
  /** The test's browser context: the file's (1280 x 900 unless it says otherwise), or a describe's with `it.scoped({ contextOptions })`. */
  contextOptions: BrowserContextOptions;
  /** A page in a browser context of the test's own, closed after the test whatever its outcome. */
  page: Page;
}

/**
 * The browser test's fixtures (vitest test.extend): startBrowserApp(opts) in beforeAll and its close
 * in afterAll, registered here for the calling file, and a fresh `page` for each test in a context of
 * `contextOptions` (the file's default; a describe sets its own with `it.scoped`). Returns the
 * test function and `app()`, the started app for the file's own beforeAll hooks (they run after
 * this one).
 */
export function browserAppTest(opts: Parameters<typeof startBrowserApp>[0] = {}, contextOptions: BrowserContextOptions = { viewport: { width: 1280, height: 900 } }) {
  const app = startedForFile(() => startBrowserApp(opts), 240_000);
  const it = test.extend<BrowserFixtures>({
    // eslint-disable-next-line no-empty-pattern -- vitest reads a fixture's dependencies from its first parameter's pattern
    app: async ({}, use) => use(app()),
    contextOptions,
    page: async ({ app, contextOptions }, use) => {
      const context = await app.browser.newContext(contextOptions);
      try {
        await use(await context.newPage());
      } finally {
        await context.close();
      }
    },
  });
  return { it, app };
}

/**
 * The checks every screen of the dashboard and the portal passes: nothing scrolls sideways, every
 * form control is labelled (`labelled`), axe-core finds no serious or critical violation. A
 * full-page screenshot to `shot` (a .png path) when given.
 */
export async function checkPage(page: Page, opts: { shot?: string; labelled?: boolean } = {}): Promise<void> {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow, `${opts.shot ?? page.url()} overflows`).toBeLessThanOrEqual(0);
  if (opts.labelled) {
    const unlabelled = await page.evaluate(
      () => [...document.querySelectorAll('input:not([type=hidden]), select, textarea')].filter((el) => !(el as HTMLInputElement).labels?.length).length,
    );
    expect(unlabelled).toBe(0);
  }
  const { violations } = await new AxeBuilder({ page }).analyze();
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), opts.shot).toEqual([]);
  if (opts.shot) await page.screenshot({ path: opts.shot, fullPage: true });
}

/** The ids of the sessions of `slug`'s events, in the channel API's order, read with `token` (a widget or a server token). */
export async function channelSessionIds(t: TestApp, slug: string, token: string): Promise<number[]> {
  const res = await t.app.inject({ url: `/api/sales-channel/v1/${slug}/es/events`, headers: { authorization: `Bearer ${token}` } });
  expect(res.statusCode).toBe(200);
  return (res.json().data as { sessions: { id: number }[] }[]).flatMap((e) => e.sessions.map((s) => s.id));
}
