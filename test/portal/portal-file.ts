import type { Browser } from 'playwright-core';
import { beforeAll } from 'vitest';
import { startBrowserApp, type BrowserApp } from '../browser-app.js';
import { startedForFile, type TestApp } from '../helpers.js';
import { demoSession, type DemoSession } from '../orders/cart-helpers.js';

/**
 * A browser app for a test file: before its tests startBrowserApp(`opts`) runs and `read` reads
 * what the file's tests use from it; after them all is closed. The returned object's fields are
 * set when the file's tests run (not while the file is being collected).
 */
export function browserAppForFile<T extends object>(opts: Parameters<typeof startBrowserApp>[0], read: (started: BrowserApp) => Promise<T>): T {
  const file = {} as T;
  const started = startedForFile(() => startBrowserApp(opts));
  beforeAll(async () => {
    Object.assign(file, await read(started()));
  }, 180_000);
  return file;
}

interface PortalFile {
  t: TestApp;
  /** Where the portal listens (its PUBLIC_BASE_URL). */
  base: string;
  browser: Browser;
  /** The first demo session (demoSession(t, 0)). */
  s: DemoSession;
}

/** The portal's browser tests on one session: the app (portal: true), Chromium and the first demo session; then the file's `setup`. */
export function portalForFile(setup?: (portal: PortalFile) => Promise<void>): PortalFile {
  return browserAppForFile({ portal: true }, async ({ t, base, browser }) => {
    const portal = { t, base, browser, s: await demoSession(t, 0) };
    await setup?.(portal);
    return portal;
  });
}
