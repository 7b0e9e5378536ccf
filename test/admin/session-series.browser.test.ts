import type { Page } from 'playwright-core';
import { beforeAll, describe, expect } from 'vitest';
import { browserAppTest, checkPage as checkScreen } from '../browser-app.js';
import { firstDemoSession } from '../helpers.js';
import { account, previewSeries, signInToDashboard } from './admin-helpers.js';

// Issue 29 in Chromium at 390 and 1280 px: the event page's series form with its preview, the
// session page's rates (delete, copy from a picker) and the invitation page: no sideways scroll,
// every control labelled, no serious or critical axe finding. Screenshots in test-results/admin.

const SHOTS = 'test-results/admin';
const { it, app } = browserAppTest({ shots: SHOTS });
let eventId: number;
let sessionId: number;

beforeAll(async () => {
  const { t } = app();
  await account(t.ctx, 'root@taquilla.test');
  ({ sessionId, eventId } = await firstDemoSession(t));
});

/** No sideways scroll, every field labelled, no serious or critical axe finding; a screenshot. */
const checkPage = (page: Page, shot: string) => checkScreen(page, { labelled: true, shot: `${SHOTS}/${shot}.png` });

describe.each([390, 1280])('at %i px', (width) => {
  it.scoped({ contextOptions: { viewport: { width, height: 900 } } });
  it('series preview, session rates and an invitation page', async ({ app: { base }, page }) => {
    await signInToDashboard(page, base, 'root@taquilla.test');

    await previewSeries(page, base, { eventId, firstDay: '2031-10-10', count: 8, ratesFrom: sessionId });
    expect(await page.getByText('2031-10-31 21:00 CET').count()).toBe(1);
    await checkPage(page, `series-preview-${width}`);

    await page.goto(`${base}/admin/sessions/${sessionId}`);
    expect(await page.getByRole('heading', { name: 'Copy rates from another session' }).count()).toBe(1);
    await checkPage(page, `session-rates-${width}`);

    await page.goto(`${base}/admin/accounts`);
    await page.getByLabel('E-mail').fill(`invitee${width}@example.com`);
    await page.getByLabel('Role').selectOption('admin');
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect.poll(() => page.getByText(`on its way to invitee${width}@example.com by e-mail`).count()).toBe(1);
    await checkPage(page, `invitation-sent-${width}`);
  });
});
