import { sql } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { exampleHostForFile, newWidgetPage, SHOTS } from './example-host.js';

// The waiting list in the widget (D69), in Chromium on the example host page (model D, another
// origin): a sold-out session (every place blocked through SQL) offers "join the waiting list";
// a quantity past the session's cap shows the validation text and marks the field; joining shows
// the position the API answers; the same address again says it is already on the list; a 429
// (the service's rate limit, answered by the test's route) says to wait. At 390 and 1280 px.

const W = 'taquilla-widget';
const host = exampleHostForFile(async ({ t, sessionId }) => {
  // Sold out: every seat and zone place of the session gone; at most 4 tickets per buyer.
  await t.ctx.db.execute(sql`UPDATE session_seats SET status = 'blocked' WHERE session_id = ${sessionId} AND status = 'available'`);
  await t.ctx.db.execute(sql`UPDATE sessions SET max_tickets_per_buyer = 4 WHERE id = ${sessionId}`);
});

const panel = (page: Page) => page.locator(`${W} [data-waitlist]`);
const field = (page: Page, label: RegExp) => panel(page).getByLabel(label);

async function join(page: Page, email: string, quantity: number) {
  await field(page, /Correo/).fill(email);
  await field(page, /Cantidad/).fill(String(quantity));
  await panel(page).locator('[data-waitlist-join]').click();
}

describe('the waiting list in the widget (D69)', { timeout: 120_000 }, () => {
  for (const [width, height] of [[390, 844], [1280, 1000]] as const) {
    it(`a sold-out session: validation, joining with the position, already on the list, rate limited (${width} px)`, async () => {
      const page = await newWidgetPage(host, { width, height });
      await page.goto(`${host.examplesUrl}/model-d.html?session=${host.sessionId}`);
      await panel(page).waitFor({ timeout: 30_000 });
      expect(await panel(page).innerText()).toMatch(/Agotado\. Apúntate a la lista de espera/);
      // The sector picker: "any", then every sold-out sector and zone.
      const options = await field(page, /Sector o zona/).locator('option').allInnerTexts();
      expect(options[0]).toBe('Cualquiera');
      expect(options.length).toBeGreaterThan(1);

      // Past the session's cap of 4: the API's 422, the field marked.
      await join(page, `wl-${width}@example.com`, 5);
      await expect.poll(() => panel(page).locator('[data-waitlist-error]').getAttribute('data-waitlist-error')).toBe('wlInvalid');
      expect(await field(page, /Cantidad/).getAttribute('aria-invalid')).toBe('true');
      await page.screenshot({ path: `${SHOTS}/waiting-list-invalid-${width}.png`, fullPage: true });

      // The service's rate limit (429): answered here by the route, as the service would.
      await page.route('**/waiting-list', (route) =>
        route.fulfill({ status: 429, contentType: 'application/json', body: JSON.stringify({ status: 429, success: false, code: 'rate_limited', message: 'Too many requests' }) }), { times: 1 });
      await join(page, `wl-${width}@example.com`, 2);
      await expect.poll(() => panel(page).locator('[data-waitlist-error]').innerText()).toMatch(/Demasiados intentos seguidos/);

      // Joined: the position the API answers (the 1280 run is second in the list).
      await join(page, `wl-${width}@example.com`, 2);
      const joined = panel(page).locator('[data-waitlist-joined]');
      await joined.waitFor({ timeout: 10_000 });
      expect(await joined.innerText()).toBe(`Estás en la lista de espera: eres el número ${width === 390 ? 1 : 2}. Te escribiremos cuando haya entradas para ti.`);
      await panel(page).scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${SHOTS}/waiting-list-joined-${width}.png`, fullPage: true });

      // The same address again (a new page): already on the list.
      await page.reload();
      await panel(page).waitFor({ timeout: 30_000 });
      await join(page, `WL-${width}@example.com`, 1);
      await expect.poll(() => panel(page).locator('[data-waitlist-error]').innerText()).toBe('Este correo ya está en la lista de espera de esta sesión.');
      await page.screenshot({ path: `${SHOTS}/waiting-list-already-${width}.png`, fullPage: true });
      await page.context().close();
    });
  }

  it('the entries the widget made are in the list, in order, with their quantities', async () => {
    const rows = await queryRows<{ email: string; quantity: number; status: string }>(
      host.t.ctx.db,
      sql`SELECT email, quantity, status FROM waiting_list_entries WHERE session_id = ${host.sessionId} ORDER BY id`,
    );
    expect(rows).toEqual([
      { email: 'wl-390@example.com', quantity: 2, status: 'waiting' },
      { email: 'wl-1280@example.com', quantity: 2, status: 'waiting' },
    ]);
  });
});
