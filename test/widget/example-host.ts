import type { Browser, Page } from 'playwright-core';
import { channelSessionIds } from '../browser-app.js';
import { tokenFor, type TestApp } from '../helpers.js';
import { browserAppForFile } from '../portal/portal-file.js';

// The widget's browser tests on the example host page of model D (the example channel server, on
// another origin than the service).

export const SHOTS = 'test-results/widget';

export interface ExampleHost {
  t: TestApp;
  browser: Browser;
  examplesUrl: string;
  /** demo-d's first session, as the channel API lists them. */
  sessionId: number;
}

/**
 * For a test file: before its tests the app, Chromium and the example channel server start
 * (startBrowserApp), demo-d's first session is read and `setup` runs; after them all is closed.
 * The fields are set when the file's tests run.
 */
export function exampleHostForFile(setup?: (host: ExampleHost) => Promise<void>): ExampleHost {
  return browserAppForFile({ examples: true, shots: SHOTS }, async ({ t, browser, examplesUrl }) => {
    const sessionId = (await channelSessionIds(t, 'demo-d', await tokenFor(t.app, 'demo-d', 'wk_demo_d', 'test-setup')))[0]!;
    const host = { t, browser, examplesUrl, sessionId };
    await setup?.(host);
    return host;
  });
}

/** A page in a new browser context of `viewport`, ready for tsx-compiled page functions (esbuild's keepNames helper). */
export async function newWidgetPage(host: ExampleHost, viewport: { width: number; height: number }): Promise<Page> {
  const context = await host.browser.newContext({ viewport });
  await context.addInitScript('globalThis.__name = (f) => f;');
  return context.newPage();
}
