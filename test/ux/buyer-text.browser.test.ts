import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { account, signInToDashboard } from '../admin/admin-helpers.js';
import { startBrowserApp, type BrowserApp } from '../browser-app.js';
import { bearer, tokenFor, type TestApp } from '../helpers.js';

// Issue 16, parts 1, 2 and 7, as a buyer sees them in Chromium: the BROWSER runs in New York while
// the deployment is in Madrid; both languages; phone (390x844) and desktop (1280x800) widths.

const SHOTS = path.resolve('test-results/ux');
const WIDTHS = { 390: { width: 390, height: 844 }, 1280: { width: 1280, height: 800 } } as const;
const W = 'taquilla-widget';
const PARTNER = 'https://partner.example/tickets';

let t: TestApp;
let base: string;
let browser: Browser;
let examplesUrl: string;
let started: BrowserApp;

beforeAll(async () => {
  ({ t, base, browser, examplesUrl } = started = await startBrowserApp({ portal: true, examples: true, env: { TIMEZONE: 'Europe/Madrid' }, shots: SHOTS }));
  await t.ctx.db.execute(sql`UPDATE sales_channels SET website_url = ${PARTNER} WHERE slug = 'demo-c'`);
}, 180_000);
afterAll(() => started?.close());

async function newPage(width: keyof typeof WIDTHS, lang = 'es'): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: WIDTHS[width], timezoneId: 'America/New_York', locale: lang === 'en' ? 'en-US' : 'es-ES' });
  await context.addInitScript('globalThis.__name = (f) => f;');
  return { context, page: await context.newPage() };
}

/** A screenshot of the whole page: test-results/ux/<name>-<width>.png. */
const shot = (page: Page, name: string, width: number) => page.screenshot({ path: path.join(SHOTS, `${name}-${width}.png`), fullPage: true });

/** "20:00": the hour of `iso` in the deployment's zone. */
const madridTime = (iso: string | Date) =>
  new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'Europe/Madrid' }).format(new Date(iso));
const newYorkTime = (iso: string | Date) =>
  new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone: 'America/New_York' }).format(new Date(iso));

/** A held model A cart of one free seat, made through the portal API. */
async function portalCart(lang = 'es'): Promise<string> {
  const [seat] = await queryRows<{ id: number; rate_id: number }>(
    t.ctx.db,
    sql`SELECT ss.id::int AS id, (SELECT r.id FROM rates r WHERE r.session_id = ss.session_id ORDER BY r.sort_order, r.id LIMIT 1)::int AS rate_id
          FROM session_seats ss WHERE ss.status = 'available' AND ss.seat_id IS NOT NULL ORDER BY random() LIMIT 1`,
  );
  const res = await t.app.inject({ method: 'POST', url: `/api/portal/demo-a/${lang}/orders`, payload: { session_seat_id: seat!.id, rate_id: seat!.rate_id } });
  expect(res.statusCode).toBe(201);
  return res.json().data.order_token;
}

async function payWithCard(page: Page, card: string) {
  await page.waitForURL(/\/sandbox\/pay\/pay_/);
  await page.locator('#card_number').fill(card);
  await page.locator('#expiry').fill('12/34');
  await page.locator('#cvc').fill('123');
  await page.locator('form.card-form button[type=submit]').click();
}

describe('issue 16 in a real browser (browser in New York, deployment in Madrid)', { timeout: 120_000 }, () => {
  it('the widget writes session times in the deployment zone, as the portal does, in es and en', async () => {
    const [session] = await queryRows<{ start: Date }>(t.ctx.db, sql`SELECT start_datetime AS start FROM sessions ORDER BY start_datetime LIMIT 1`);
    const madrid = madridTime(session!.start);
    expect(madrid).not.toBe(newYorkTime(session!.start)); // else the test could not fail
    for (const lang of ['es', 'en'] as const) {
      for (const width of [390, 1280] as const) {
        const { context, page } = await newPage(width, lang);
        await page.goto(`${examplesUrl}/model-c.html?lang=${lang}`);
        await page.locator(`${W} polygon[data-id]`).first().waitFor();
        const when = await page.locator(`${W} .sub`).first().innerText();
        expect(when).toContain(madrid);
        expect(when).not.toContain(newYorkTime(session!.start));
        // The partner page's own session list (the example channel server) agrees.
        expect(await page.locator('#session option').first().innerText()).toContain(madrid);
        await shot(page, `widget-time-${lang}`, width);
        // The portal's pages of the same session say the same hour.
        await page.goto(`${base}/demo-a/${lang}/events`);
        expect(await page.locator('main').innerText()).toContain(madrid);
        await shot(page, `portal-events-${lang}`, width);
        await context.close();
      }
    }
  });

  it('checkout: a message per field in the page language; a declined card keeps the details', async () => {
    for (const [lang, required, badEmail] of [
      ['es', 'Este campo es obligatorio.', 'Escribe una dirección de correo válida'],
      ['en', 'This field is required.', 'Enter a valid e-mail address'],
    ] as const) {
      for (const width of [390, 1280] as const) {
        const token = await portalCart(lang);
        const { context, page } = await newPage(width, lang);
        await page.goto(`${base}/demo-a/${lang}/checkout?order_token=${token}`);
        await page.locator('#cart-body li.item').first().waitFor();
        await page.locator('#name').fill('Lucía');
        await page.locator('#email').fill('not-an-email');
        await page.locator('#pay-button').click();
        await page.locator('#surname-error:not([hidden])').waitFor();
        expect(await page.locator('#surname-error').innerText()).toBe(required);
        expect(await page.locator('#email-error').innerText()).toContain(badEmail);
        expect(await page.locator('#name-error').isHidden()).toBe(true);
        expect(await page.locator('#surname').getAttribute('aria-describedby')).toBe('surname-error');
        expect(await page.locator('#checkout-error').innerText()).not.toContain('The given data was invalid');
        await shot(page, `checkout-field-errors-${lang}`, width);

        // Declined: back on the checkout page with everything the buyer typed.
        await page.locator('#surname').fill('Fernández');
        await page.locator('#email').fill('lucia@example.com');
        await page.locator('#phone').fill('+34 600 000 000');
        await page.locator('#pay-button').click();
        await payWithCard(page, '4000 0000 0000 0002');
        await page.waitForURL(/payment=declined/);
        expect(await page.locator('#name').inputValue()).toBe('Lucía');
        expect(await page.locator('#surname').inputValue()).toBe('Fernández');
        expect(await page.locator('#email').inputValue()).toBe('lucia@example.com');
        expect(await page.locator('#phone').inputValue()).toBe('+34 600 000 000');
        await shot(page, `checkout-declined-${lang}`, width);
        await context.close();
      }
    }
  });

  it('the widget shows a wrong voucher in its language, without English appended', async () => {
    for (const [lang, expected] of [
      ['es', 'El código de descuento NOPE no existe.'],
      ['en', 'Voucher code NOPE is not valid'],
    ] as const) {
      for (const width of [390, 1280] as const) {
        const { context, page } = await newPage(width, lang);
        await page.goto(`${examplesUrl}/model-c.html?lang=${lang}`);
        const seat = page.locator(`${W} polygon.s.a`).first();
        await seat.waitFor();
        await seat.click();
        await page.locator(`${W} .cart li[data-item]`).first().waitFor();
        await page.locator(`${W} .voucher input`).fill('NOPE');
        await page.locator(`${W} .voucher button`).click();
        const error = page.locator(`${W} .field-error`);
        await error.waitFor();
        expect(await error.innerText()).toBe(expected);
        await shot(page, `widget-voucher-error-${lang}`, width);
        await context.close();
      }
    }
  });

  it("model C: after paying, the order page leads back to the partner's site; no link to a storefront that does not exist", async () => {
    for (const [lang, width] of [['es', 390], ['en', 1280]] as const) {
      const bearerToken = await tokenFor(t.app, 'demo-c', 'wk_demo_c');
      const [seat] = await queryRows<{ id: number; rate_id: number }>(
        t.ctx.db,
        sql`SELECT ss.id::int AS id, (SELECT r.id FROM rates r WHERE r.session_id = ss.session_id ORDER BY r.sort_order, r.id LIMIT 1)::int AS rate_id
              FROM session_seats ss WHERE ss.status = 'available' AND ss.seat_id IS NOT NULL ORDER BY random() LIMIT 1`,
      );
      const created = await t.app.inject({ method: 'POST', url: `/api/sales-channel/v1/demo-c/${lang}/orders`, headers: bearer(bearerToken), payload: { session_seat_id: seat!.id, rate_id: seat!.rate_id } });
      const token = created.json().data.order_token as string;
      const { context, page } = await newPage(width, lang);
      await page.goto(`${base}/demo-c/${lang}/checkout?order_token=${token}`);
      await page.locator('#cart-body li.item').first().waitFor();
      await shot(page, `c-checkout-${lang}`, width);
      await page.locator('#name').fill('Ana');
      await page.locator('#surname').fill('García');
      await page.locator('#email').fill('ana@example.com');
      await page.locator('#pay-button').click();
      await payWithCard(page, '4242 4242 4242 4242');
      await page.waitForURL(/\/demo-c\/\w+\/orders\//);
      await page.locator('#way-back').waitFor();
      expect(await page.locator('#way-back').getAttribute('href')).toBe(PARTNER);
      expect(await page.locator('#way-back').innerText()).toBe(lang === 'es' ? 'Volver a Demo C (widget, portal payment)' : 'Back to Demo C (widget, portal payment)');
      expect(await page.locator('header a.brand').getAttribute('href')).toBe(PARTNER);
      // Every same-origin link of the page answers (no 404 such as /demo-c/es/events).
      const links = await page.$$eval('a[href]', (as) => as.map((a) => (a as HTMLAnchorElement).href));
      for (const href of links.filter((h) => h.startsWith(base))) {
        const res = await t.app.inject({ url: href.slice(base.length) });
        expect([200, 302, 303], href).toContain(res.statusCode);
      }
      await shot(page, `c-order-way-back-${lang}`, width);
      await context.close();
    }
  });

  it('model D example: the ticket links of confirm are on the page', async () => {
    for (const width of [390, 1280] as const) {
      const { context, page } = await newPage(width, 'es');
      await page.goto(`${examplesUrl}/model-d.html`);
      const seat = page.locator(`${W} polygon.s.a`).first();
      await seat.waitFor();
      await seat.click();
      await page.locator('#pay:not([disabled])').waitFor();
      await page.locator('#pay').click();
      const links = page.locator('#ticket-links a');
      await links.first().waitFor();
      const href = (await links.first().getAttribute('href'))!;
      expect(href.startsWith(`${base}/api/tickets/`)).toBe(true);
      const pdf = await t.app.inject({ url: href.slice(base.length) });
      expect(pdf.statusCode).toBe(200);
      await shot(page, 'd-example-tickets', width);
      await context.close();
    }
  });

  it("model B: the example channel's checkout page pays, confirms and leads back to the portal's order page", async () => {
    await t.ctx.db.execute(sql`UPDATE sales_channels SET checkout_url = ${`${examplesUrl}/model-b/checkout`} WHERE slug = 'demo-b'`);
    const [seat] = await queryRows<{ id: number; rate_id: number }>(
      t.ctx.db,
      sql`SELECT ss.id::int AS id, (SELECT r.id FROM rates r WHERE r.session_id = ss.session_id ORDER BY r.sort_order, r.id LIMIT 1)::int AS rate_id
            FROM session_seats ss WHERE ss.status = 'available' AND ss.seat_id IS NOT NULL ORDER BY random() LIMIT 1`,
    );
    const created = await t.app.inject({ method: 'POST', url: '/api/portal/demo-b/es/orders', payload: { session_seat_id: seat!.id, rate_id: seat!.rate_id } });
    const token = created.json().data.order_token as string;
    for (const width of [390, 1280] as const) {
      const { context, page } = await newPage(width);
      await page.goto(`${examplesUrl}/model-b/checkout?order_token=${token}`);
      expect(await page.locator('#total').innerText()).toMatch(/€/);
      await shot(page, 'b-example-checkout', width);
      if (width === 1280) {
        await page.locator('button[type=submit]').click();
        await page.waitForURL(`${base}/demo-b/es/orders/${token}`);
        await page.locator('.tickets a').first().waitFor();
        expect(await page.locator('#way-back').getAttribute('href')).toBe('/demo-b/es/events');
        await shot(page, 'b-order', width);
      }
      await context.close();
    }
  });

  it("dashboard: the channel form sets the partner's site; times in the deployment's zone, as on the tickets", async () => {
    await account(t.ctx, 'ux-admin@taquilla.test');
    const [demoC] = await queryRows<{ id: number }>(t.ctx.db, sql`SELECT id::int AS id FROM sales_channels WHERE slug = 'demo-c'`);
    const [session] = await queryRows<{ id: number; start: Date }>(t.ctx.db, sql`SELECT id::int AS id, start_datetime AS start FROM sessions ORDER BY start_datetime LIMIT 1`);
    let saved = PARTNER;
    for (const width of [390, 1280] as const) {
      const { context, page } = await newPage(width, 'en');
      await signInToDashboard(page, base, 'ux-admin@taquilla.test');
      await page.goto(`${base}/admin/channels/${demoC!.id}`);
      const site = page.getByLabel('Partner web site');
      expect(await site.inputValue()).toBe(saved);
      saved = `${PARTNER}/${width}`;
      await site.fill(saved);
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.waitForURL(/notice=saved/);
      expect(await page.getByLabel('Partner web site').inputValue()).toBe(`${PARTNER}/${width}`);
      await shot(page, 'dashboard-channel-website', width);
      await page.goto(`${base}/admin/sessions/${session!.id}`);
      expect(await page.locator('main').innerText()).toContain(madridTime(session!.start));
      await shot(page, 'dashboard-session-time', width);
      await context.close();
    }
    await t.ctx.db.execute(sql`UPDATE sales_channels SET website_url = ${PARTNER} WHERE slug = 'demo-c'`);
  });

  it('`/` is a landing page of the deployment and `/demo-a` leads to its storefront', async () => {
    for (const width of [390, 1280] as const) {
      for (const lang of ['es', 'en'] as const) {
        const { context, page } = await newPage(width, lang);
        const res = await page.goto(`${base}/?lang=${lang}`);
        expect(res!.status()).toBe(200);
        expect(await page.locator('#landing-channels li').count()).toBe(4);
        expect(await page.locator('a[href="/admin"]').count()).toBe(1);
        expect(await page.locator('a[href="/api/docs"]').count()).toBe(1);
        await shot(page, `landing-${lang}`, width);
        await page.locator('#landing-channels a[href="/demo-a/' + lang + '/events"]').click();
        await page.waitForURL(`${base}/demo-a/${lang}/events`);
        await context.close();
      }
      const { context, page } = await newPage(width);
      await page.goto(`${base}/demo-a`);
      expect(page.url()).toBe(`${base}/demo-a/es/events`);
      const missing = await page.goto(`${base}/no-such-channel`);
      expect(missing!.status()).toBe(404);
      expect(missing!.headers()['content-type']).toContain('text/html');
      await shot(page, 'slug-not-found', width);
      await context.close();
    }
    // /demo-c has no storefront: it goes to the partner's site (not followed: it is not reachable here).
    const c = await t.app.inject({ url: '/demo-c' });
    expect(c.statusCode).toBe(302);
    expect(c.headers.location).toBe(PARTNER);
    // The API keeps its JSON 404.
    expect((await t.app.inject({ url: '/api' })).json()).toMatchObject({ code: 'route_not_found' });
  });
});
