import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { startBrowserApp, type BrowserApp } from '../browser-app.js';
import { DEMO, type TestApp } from '../helpers.js';
import { sellOut } from './fixtures.js';

// D69 as a buyer sees it: the storefront's seat page of a sold-out session offers the waiting
// list; joining shows the place in the list. Phone (390) and desktop (1280) widths.

const SHOTS = path.resolve('test-results/ux');

let t: TestApp;
let started: BrowserApp;
let base: string;
let browser: Browser;
let sessionId: number;
let eventId: number;

beforeAll(async () => {
  fs.mkdirSync(SHOTS, { recursive: true });
  ({ t, base, browser } = started = await startBrowserApp({ portal: true }));
  sessionId = (await sellOut(t.ctx, { channel: DEMO.a.slug, sessionIndex: 0, carts: 1 })).sessionId;
  eventId = (await queryRows<{ event_id: number }>(t.ctx.db, sql`SELECT event_id FROM sessions WHERE id = ${sessionId}`))[0]!.event_id;
}, 180_000);
afterAll(() => started?.close());

describe('the waiting list on the storefront (D69)', () => {
  for (const [width, height, lang] of [[390, 844, 'es'], [1280, 800, 'en']] as const) {
    it(`a sold-out session offers the list; joining shows the place (${width} px, ${lang})`, async () => {
      const context = await browser.newContext({ viewport: { width, height } });
      const page = await context.newPage();
      await page.goto(`${base}/${DEMO.a.slug}/${lang}/events/${eventId}/sessions/${sessionId}`);
      const form = page.locator('#waitlist-form');
      await expect.poll(() => form.isVisible()).toBe(true);
      await page.fill('#waitlist-email', `browser-${width}@example.com`);
      await page.fill('#waitlist-qty', '2');
      await form.locator('button').click();
      const result = page.locator('#waitlist-result');
      await expect.poll(() => result.textContent(), { timeout: 10_000 }).toMatch(lang === 'es' ? /puesto \d/ : /number \d/);
      await page.locator('#waitlist-title').scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(SHOTS, `waiting-list-${width}.png`) });
      const stored = await page.evaluate((key) => localStorage.getItem(key), `taquilla.portal.${DEMO.a.slug}.waitlist.${sessionId}`);
      expect(stored).toMatch(/^wl_/);
      await context.close();
    });
  }
});
