import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect } from 'vitest';
import { createAccountAs } from '../../src/modules/admin/accounts-admin.service.js';
import { createOrganiser } from '../../src/modules/admin/organisers.service.js';
import { createLayoutAs, createVenueAs } from '../../src/modules/catalogue/layouts.service.js';
import { CLI_ACTOR } from '../../src/platform/actor.js';
import { browserAppTest, checkPage as checkScreen } from '../browser-app.js';
import { account, PASSWORD, signInToDashboard } from './admin-helpers.js';

// The self-service pages (D65) in a real browser at phone (390 px) and desktop (1280 px) widths:
// /admin/accounts and /admin/venues fit the width, every field is labelled, axe finds nothing
// serious; on the venue page a chosen layout file fills the text box and saves a new version.
// Screenshots land in test-results/admin/.

const SHOTS = 'test-results/admin';
const LAYOUT = {
  name: 'Sala',
  sectors: [
    { name: 'Platea', numbered: true, rows: [{ label: 'A', seats: [{ number: '1', x: 0, y: 0 }, { number: '2', x: 30, y: 0 }] }] },
    { name: 'Pista', numbered: false, capacity: 20 },
  ],
};

const { it, app } = browserAppTest({ demo: false, shots: SHOTS });
let venueId: number;

beforeAll(async () => {
  const { t } = app();
  await account(t.ctx, 'root@taquilla.test');
  const organiser = await createOrganiser(t.ctx, CLI_ACTOR, { name: 'Teatro del Mar' });
  await createAccountAs(t.ctx, CLI_ACTOR, { email: 'promoter@mar.test', role: 'promoter', organiserId: organiser.id, method: 'password', password: PASSWORD });
  await createAccountAs(t.ctx, CLI_ACTOR, { email: 'invited@mar.test', role: 'promoter', organiserId: organiser.id, method: 'invitation', password: '' });
  venueId = (await createVenueAs(t.ctx, CLI_ACTOR, { organiser_id: organiser.id, name: 'Sala del Mar', city: 'Cádiz' })).id;
  await createLayoutAs(t.ctx, CLI_ACTOR, venueId, { format: 'taquilla', plan: LAYOUT });
});

async function signIn(page: Page, email: string) {
  await signInToDashboard(page, app().base, email);
}

/** No sideways scroll, every field labelled, no serious or critical axe finding. */
const checkPage = (page: Page) => checkScreen(page, { labelled: true });

describe('self-service pages in a browser', () => {
  for (const [label, width, height] of [['phone', 390, 844], ['desktop', 1280, 900]] as const) {
    describe(`at ${width} px`, () => {
      it.scoped({ contextOptions: { viewport: { width, height }, ...(width < 500 ? { isMobile: true, hasTouch: true } : {}) } });
      it('accounts and venues', async ({ app: { base }, page }) => {
        await signIn(page, 'root@taquilla.test');
        await page.getByRole('link', { name: 'Accounts' }).click();
        await page.waitForURL(`${base}/admin/accounts`);
        await expect.poll(() => page.getByRole('cell', { name: 'invited@mar.test', exact: true }).count()).toBe(1);
        await checkPage(page);
        await page.screenshot({ path: `${SHOTS}/accounts-${label}.png`, fullPage: true });

        await page.getByRole('link', { name: 'Venues' }).click();
        await page.waitForURL(`${base}/admin/venues`);
        await expect.poll(() => page.getByRole('cell', { name: 'Teatro del Mar', exact: true }).count()).toBe(1);
        await checkPage(page);
        await page.screenshot({ path: `${SHOTS}/venues-${label}.png`, fullPage: true });

        // The venue page: a layout file chosen fills the text box; saving makes the next version.
        await page.getByRole('link', { name: 'Sala del Mar' }).click();
        await page.waitForURL(`${base}/admin/venues/${venueId}`);
        const file = path.join(SHOTS, `layout-${label}.json`);
        fs.writeFileSync(file, JSON.stringify({ ...LAYOUT, sectors: [...LAYOUT.sectors, { name: `Palco ${label}`, numbered: false, capacity: 4 }] }));
        await page.getByLabel('Layout file').setInputFiles(file);
        await expect.poll(() => page.getByLabel('Layout (JSON)').inputValue()).toContain(`Palco ${label}`);
        await checkPage(page);
        await page.getByRole('button', { name: 'Save as a new version' }).click();
        await page.waitForURL(/notice=layout_saved/);
        await expect.poll(() => page.getByRole('status').textContent()).toContain('Layout version saved');
        await page.screenshot({ path: `${SHOTS}/venue-${label}.png`, fullPage: true });
      });
    });
  }

  describe('at phone width', () => {
    it.scoped({ contextOptions: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } });
    it('a promoter sees its own account only, and no organisers page', async ({ app: { base }, page }) => {
      await signIn(page, 'promoter@mar.test');
      await expect.poll(() => page.getByRole('link', { name: 'Organisers' }).count()).toBe(0);
      await page.goto(`${base}/admin/accounts`);
      await expect.poll(() => page.getByRole('cell', { name: 'promoter@mar.test', exact: true }).count()).toBe(1);
      expect(await page.getByRole('cell', { name: 'root@taquilla.test' }).count()).toBe(0);
      await page.screenshot({ path: `${SHOTS}/accounts-promoter-phone.png`, fullPage: true });
    });
  });
});
