import type { Page } from 'playwright-core';
import { beforeAll, describe, expect } from 'vitest';
import { browserAppTest } from '../browser-app.js';
import { api, promoterOfNewOrganiser, signInToDashboard } from './admin-helpers.js';

// A real browser on the real app: sign in, create a channel, generate a key, use it for a token,
// revoke it, and see the token refused. Screenshots at phone and desktop widths land in
// test-results/admin/.

const SHOTS = 'test-results/admin';
// No demo catalogue: one organiser is all the dashboard needs here, and it keeps setup light.
const { it, app } = browserAppTest({ demo: false, shots: SHOTS });
let promoterToken: string;

beforeAll(async () => {
  promoterToken = (await promoterOfNewOrganiser(app().t.ctx, 'promoter@taquilla.test', 'Uno')).token;
});

async function config(slug: string, token: string) {
  return fetch(`${app().base}/api/sales-channel/v1/${slug}/config`, { headers: { authorization: `Bearer ${token}` } });
}

/** A visitor is sent to the login page first; then the promoter signs in. */
async function signIn(page: Page, base: string) {
  await page.goto(`${base}/admin/channels`);
  await expect.poll(() => page.url()).toBe(`${base}/admin/login`);
  await signInToDashboard(page, base, 'promoter@taquilla.test');
}

describe('dashboard in a browser', () => {
  it('sign in, create a channel, generate a key, get a token, revoke the key, token refused', async ({ app: { base }, page }) => {
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    await signIn(page, base);
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
  });

  describe('at phone width', () => {
    it.scoped({ contextOptions: { viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true } });
    it('is usable: no horizontal overflow, visible focus, labelled fields', async ({ app: { t, base }, page }) => {
      // Its own channel: this test does not count on the one the test above makes.
      expect((await api(t.app, promoterToken).post('/channels', { slug: 'phone-shop', name: 'Phone shop', integration_mode: 'portal_only' })).status).toBe(201);
      await page.goto(`${base}/admin/login`);
      await page.screenshot({ path: `${SHOTS}/login-phone.png`, fullPage: true });
      await signIn(page, base);
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
    });
  });
});
