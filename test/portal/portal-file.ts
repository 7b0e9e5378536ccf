import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { startBrowserApp, type BrowserApp } from '../browser-app.js';
import type { TestApp } from '../helpers.js';
import { demoSession, type DemoSession } from '../orders/cart-helpers.js';

interface PortalFile {
  t: TestApp;
  /** Where the portal listens (its PUBLIC_BASE_URL). */
  base: string;
  browser: Browser;
  /** The first demo session (demoSession(t, 0)). */
  s: DemoSession;
}

/**
 * The portal's browser tests on one session: before the file's tests the app (portal: true) and
 * Chromium start, the first demo session is read and `setup` runs; after them all is closed. The
 * fields are set when the file's tests run.
 */
export function portalForFile(setup?: (portal: PortalFile) => Promise<void>): PortalFile {
  const portal = {} as PortalFile;
  let started: BrowserApp | undefined;
  beforeAll(async () => {
    started = await startBrowserApp({ portal: true });
    const { t, base, browser } = started;
    Object.assign(portal, { t, base, browser, s: await demoSession(t, 0) });
    await setup?.(portal);
  }, 120_000);
  afterAll(() => started?.close());
  return portal;
}
