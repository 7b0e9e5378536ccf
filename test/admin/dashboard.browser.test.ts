import { sql } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { startBrowserApp, type BrowserApp } from '../browser-app.js';
import type { TestApp } from '../helpers.js';
import { account, api, PASSWORD } from './admin-helpers.js';

// A real browser on the real app: sign in, create a channel, generate a key, use it for a token,
// revoke it, and see the token refused. Screenshots at phone and desktop widths land in
// test-results/admin/.

const SHOTS = 'test-results/admin';
let t: TestApp;
let base: string;
let browser: Browser;
let started: BrowserApp;
let promoterToken: string;

beforeAll(async () => {
  // No demo catalogue: one organiser is all the dashboard needs here, and it keeps setup light.
  ({ t, base, browser } = started = await startBrowserApp({ demo: false, shots: SHOTS }));
  const [organiser] = await queryRows<{ id: number }>(t.ctx.db, sql`INSERT INTO organisers (name) VALUES ('Uno') RETURNING id`);
  promoterToken = (await account(t.ctx, 'promoter@taquilla.test', organiser!.id)).token;
}, 240_000);

afterAll(() => started?.close());

async function config(slug: string, token: string) {
  return fetch(`${base}/api/sales-channel/v1/${slug}/config`, { headers: { authorization: `Bearer ${token}` } });
}

async function signIn(page: Page) {
  await page.goto(`${base}/admin/channels`);
  await expect.poll(() => page.url()).toBe(`${base}/admin/login`);
  await page.getByLabel('E-mail').fill('promoter@taquilla.test');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${base}/admin/channels`);
}

describe('dashboard in a browser', () => {
  it('sign in, create a channel, generate a key, get a token, revoke the key, token refused', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    const page = await context.newPage();
    try {
      await signIn(page);
      await page.screenshot({ path: `${SHOTS}/channels-desktop.png`, fullPage: true });

      await page.getByLabel('Slug').fill('browser-shop');
      await page.getByLabel('Name', { exact: true }).fill('Browser shop');
      await page.getByLabel('Integration model').selectOption('widget_external_payment');
      await page.getByRole('button', { name: 'Create channel' }).click();
      await page.waitForURL(/\/admin\/channels\/\d+/);
      await expect.poll(() => page.getByRole('status').textContent()).toContain('Created.');

      await page.getByRole('button', { name: 'Generate a widget key' }).click();
      const keyInput = page.getByLabel('Widget key for browser-shop');
      const key = await keyInput.inputValue();
      expect(key).toMatch(/^wk_[A-Za-z0-9]{40}$/);
      await page.getByRole('button', { name: 'Copy', exact: true }).click();
      await expect.poll(() => page.locator('#copy-status').textContent()).toMatch(/Copied|Selected/);
      await page.screenshot({ path: `${SHOTS}/new-key-desktop.png`, fullPage: true });

      const tokenRes = await fetch(`${base}/api/sales-channel/v1/auth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sales_channel_slug: 'browser-shop', widget_key: key }),
      });
      expect(tokenRes.status).toBe(200);
      const token = (await tokenRes.json()).data.access_token as string;
      expect((await config('browser-shop', token)).status).toBe(200);

      await page.getByRole('link', { name: 'Back to the channel' }).click();
      await expect.poll(() => page.getByRole('cell', { name: `…${key.slice(-4)}` }).count()).toBe(1);
      await page.getByRole('button', { name: `Revoke widget key ending ${key.slice(-4)}` }).click();
      await expect.poll(() => page.getByRole('status').textContent()).toContain('revoked');

      const refused = await config('browser-shop', token);
      expect(refused.status).toBe(401);
      expect((await refused.json()).code).toBe('invalid_token');
    } finally {
      await context.close();
    }
  });

  it('is usable at phone width: no horizontal overflow, visible focus, labelled fields', async () => {
    const context = await browser.newContext({ viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    try {
      // Its own channel: this test does not count on the one the test above makes.
      expect((await api(t.app, promoterToken).post('/channels', { slug: 'phone-shop', name: 'Phone shop', integration_mode: 'portal_only' })).status).toBe(201);
      await page.goto(`${base}/admin/login`);
      await page.screenshot({ path: `${SHOTS}/login-phone.png`, fullPage: true });
      await signIn(page);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await page.screenshot({ path: `${SHOTS}/channels-phone.png`, fullPage: true });
      await page.keyboard.press('Tab');
      const skip = await page.evaluate(() => ({ text: document.activeElement?.textContent, outline: getComputedStyle(document.activeElement!).outlineStyle }));
      expect(skip).toEqual({ text: 'Skip to content', outline: 'solid' });
      const unlabelled = await page.evaluate(
        () => [...document.querySelectorAll('input:not([type=hidden]), select')].filter((el) => !(el as HTMLInputElement).labels?.length).length,
      );
      expect(unlabelled).toBe(0);
      await page.getByRole('link', { name: 'phone-shop' }).click();
      await page.waitForURL(/\/admin\/channels\/\d+/);
      await page.screenshot({ path: `${SHOTS}/channel-phone.png`, fullPage: true });
      const overflowChannel = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflowChannel).toBeLessThanOrEqual(0);
    } finally {
      await context.close();
    }
  });
});
