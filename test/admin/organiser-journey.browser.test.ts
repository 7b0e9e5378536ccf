import { sql } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { processEmailQueue } from '../../src/modules/tickets/email-queue.service.js';
import { checkPage, startBrowserApp, type BrowserApp } from '../browser-app.js';
import { fillBuyer, payWithCard } from '../portal/browser-helpers.js';
import { freePort, SmtpPeer } from '../smtp-peer.js';
import { account, PASSWORD, previewSeries, signInToDashboard } from './admin-helpers.js';

// Issue 29's whole journey in Chromium at 1280 px, on an empty deployment (no demo data) with
// nothing but the first admin account: the admin makes an organiser and invites a promoter (the
// link arrives by e-mail through a real SMTP peer); the promoter accepts, makes a venue and draws
// its seat map in the designer (a curved sector of 10 rows of 20 seats, an unnumbered area of 300,
// two categories, two wheelchair places), creates an event, one session with rates and a series of
// three more that copy them, a model A channel with a key, puts a session on sale; a buyer buys a
// seat of that map in the portal and pays on the sandbox card page. No CLI, no JSON. Screenshots in
// test-results/journey (docs/venues.md shows some of them).

const SHOTS = 'test-results/journey';
const PROMOTER = 'lucia@teatro-sur.example';
let started: BrowserApp;
let peer: SmtpPeer;

beforeAll(async () => {
  peer = new SmtpPeer(await freePort());
  await peer.start();
  started = await startBrowserApp({ demo: false, portal: true, shots: SHOTS, env: { SMTP_URL: `smtp://127.0.0.1:${peer.port}`, MAIL_FROM: 'Taquilla <dashboard@taquilla.test>' } });
  await account(started.t.ctx, 'ops@taquilla.test');
}, 240_000);

afterAll(async () => {
  await started?.close();
  await peer?.stop();
});

/** A page fits the width, every field is labelled, axe finds nothing serious; a full-page screenshot. */
const look = (page: Page, name: string) => checkPage(page, { labelled: true, shot: `${SHOTS}/${name}.png` });

/** The status line after a dashboard form: the notice the page shows. */
const notice = (page: Page) => page.getByRole('status').first().textContent();

describe('the organiser\'s hour (issue 29)', () => {
  it('from an invitation to a seat sold in the portal, in the dashboard only', { timeout: 300_000 }, async () => {
    const { base, browser, t } = started;
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const failures: string[] = [];
    page.on('pageerror', (e) => failures.push(e.message));
    try {
      // The admin: an organiser, then a promoter account for it, invited by e-mail.
      await signInToDashboard(page, base, 'ops@taquilla.test');
      await page.goto(`${base}/admin/organisers`);
      await page.getByLabel('Name', { exact: true }).fill('Teatro del Sur');
      await page.getByRole('button', { name: 'Create organiser' }).click();
      await expect.poll(() => page.getByRole('cell', { name: 'Teatro del Sur', exact: true }).count()).toBe(1);
      await page.goto(`${base}/admin/accounts`);
      await page.getByLabel('E-mail').fill(PROMOTER);
      await page.getByLabel('Role').selectOption('promoter');
      await page.getByLabel('Organiser (promoters)').selectOption({ label: 'Teatro del Sur' });
      await page.getByRole('button', { name: 'Create account' }).click();
      await expect.poll(() => page.getByText(`on its way to ${PROMOTER} by e-mail`).count()).toBe(1);
      await look(page, '01-invitation-sent');
      await page.getByRole('button', { name: 'Sign out' }).click();

      expect((await processEmailQueue(t.ctx)).sent).toBe(1);
      const mail = peer.received.find((m) => m.to.includes(PROMOTER))!;
      const link = new RegExp(`${base}/admin/invitations/[A-Za-z0-9_-]{43}`).exec(mail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '='))?.[0];
      expect(link).toBeTruthy();

      // The promoter accepts and lands on the venues page, signed in.
      await page.goto(link!);
      await page.getByLabel('New password').fill(PASSWORD);
      await page.getByLabel('Repeat the password').fill(PASSWORD);
      await look(page, '02-invitation-accept');
      await page.getByRole('button', { name: 'Set password and sign in' }).click();
      await page.waitForURL(`${base}/admin/venues?notice=welcome`);
      expect(await page.locator('header').textContent()).toContain(`${PROMOTER} (promoter of Teatro del Sur)`);

      // A venue, then its seat map in the designer.
      await page.getByLabel('Name', { exact: true }).fill('Sala Sur');
      await page.getByLabel('City').fill('Sevilla');
      await page.getByRole('button', { name: 'Create venue' }).click();
      await page.getByRole('link', { name: 'Open in designer' }).click();
      await page.waitForURL(/\/admin\/venues\/\d+\/designer$/);
      const venueId = Number(/venues\/(\d+)\/designer/.exec(page.url())![1]);
      await page.getByRole('button', { name: 'Save as new version' }).waitFor();
      const status = page.locator('#designer-status');

      for (const category of ['Platea', 'Pista']) {
        await page.getByLabel('New category').fill(category);
        await page.getByRole('button', { name: 'Add category' }).click();
        await expect.poll(() => status.textContent()).toContain(`Category "${category}" added.`);
      }
      // The designer starts with one category, "Standard": this venue has its own two.
      await page.getByRole('button', { name: 'Remove category Standard' }).click();
      await page.getByRole('textbox', { name: /^Sector name/ }).fill('Platea');
      await page.getByLabel('Rows', { exact: true }).fill('10');
      await page.getByLabel('Seats per row').fill('20');
      await page.getByLabel('Seat category').selectOption('Platea');
      await page.getByRole('button', { name: 'Add sector', exact: true }).click();
      await expect.poll(() => status.textContent()).toContain('Sector "Platea" added: 10 rows of 20 seats.');
      await page.getByLabel('Curve by').fill('60');
      await page.getByRole('button', { name: 'Curve', exact: true }).click();
      await expect.poll(() => status.textContent()).toContain('curved by 60');

      // Two wheelchair places: seats 1 and 2 of row J, found by row and number.
      for (const seat of ['1', '2']) {
        await page.getByLabel('Row', { exact: true }).fill('J');
        await page.getByLabel('Seat', { exact: true }).fill(seat);
        await page.getByRole('button', { name: 'Select seat' }).click();
        await expect.poll(() => status.textContent()).toContain(`Seat ${seat} of row J selected.`);
        await page.getByRole('button', { name: 'Wheelchair', exact: true }).click();
        await expect.poll(() => status.textContent()).toContain('Wheelchair set on 1 seat.');
      }

      await page.getByLabel('Unnumbered sector name').fill('Pista');
      await page.getByRole('spinbutton', { name: 'Capacity' }).last().fill('300');
      await page.getByRole('button', { name: 'Add unnumbered sector' }).click();
      await expect.poll(() => status.textContent()).toContain('Unnumbered sector "Pista" added with 300 places.');
      await page.getByRole('button', { name: 'Fit' }).click();
      await look(page, '03-designer');
      await page.getByRole('button', { name: 'Save as new version' }).click();
      await expect.poll(() => status.textContent()).toMatch(/^Saved as version 1: 200 seats, 500 places in all/);

      // What was saved, as the service holds it.
      const plan = (await t.app.inject({ url: `/admin/venues/${venueId}/layouts/1/download?format=taquilla`, headers: { cookie: await cookieOf(page) } })).json() as Plan;
      const platea = plan.sectors.find((s) => s.name === 'Platea')!;
      expect(platea.rows!.map((r) => r.label)).toEqual(['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J']);
      expect(platea.rows!.every((r) => r.seats.length === 20)).toBe(true);
      const seats = platea.rows!.flatMap((r) => r.seats.map((s) => ({ row: r.label, ...s })));
      expect(seats.filter((s) => s.wheelchair).map((s) => `${s.row}${s.number}`)).toEqual(['J1', 'J2']);
      expect(new Set(seats.map((s) => s.category))).toEqual(new Set(['Platea']));
      // The curve: a row's middle seats lie off the line through its ends.
      const rowA = platea.rows![0]!.seats;
      expect(rowA[0]!.y).not.toBe(rowA[10]!.y);
      expect(plan.sectors.find((s) => s.name === 'Pista')).toMatchObject({ numbered: false, capacity: 300 });
      expect(plan.categories!.map((c) => c.name)).toEqual(['Platea', 'Pista']);

      // An event on that venue, a session with two rates, then a series of three that copies them.
      await page.goto(`${base}/admin/events`);
      await page.getByLabel('Venue').selectOption({ label: 'Sala Sur' });
      await page.getByLabel('Name (es)').fill('Noche de Flamenco');
      await page.getByLabel('Name (en)').fill('Flamenco Night');
      await page.getByRole('button', { name: 'Create event (draft)' }).click();
      await page.waitForURL(/\/admin\/events\/\d+\?notice=created$/);
      const eventId = Number(/events\/(\d+)/.exec(page.url())![1]);
      await page.getByRole('button', { name: 'Publish event' }).click();
      await page.getByLabel('Starts (Europe/Madrid time)').fill('2031-05-02T21:00');
      await page.getByRole('button', { name: 'Add session (draft)' }).click();
      await page.waitForURL(/\/admin\/sessions\/\d+\?notice=created$/);
      const sessionId = Number(/sessions\/(\d+)/.exec(page.url())![1]);
      for (const [name, price, sector] of [['Platea', '32.50', 'Platea'], ['Pista', '18', 'Pista']] as const) {
        const form = page.locator(`form[action="/admin/sessions/${sessionId}/rates"]`);
        await form.getByLabel('Name').fill(name);
        await form.getByLabel('Price').fill(price);
        await form.getByLabel('Sector').selectOption({ label: sector });
        await form.getByRole('button', { name: 'Add rate' }).click();
        await expect.poll(() => page.getByRole('button', { name: `Save rate ${name}` }).count()).toBe(1);
      }
      await look(page, '04-session-rates');

      await previewSeries(page, base, { eventId, firstDay: '2031-05-09', count: 3, ratesFrom: sessionId });
      await look(page, '05-series-preview');
      await page.getByRole('button', { name: 'Create sessions (drafts)' }).click();
      await page.waitForURL(/notice=series/);
      const series = await queryRows<{ start: string; rates: string }>(
        t.ctx.db,
        sql`SELECT to_char(s.start_datetime AT TIME ZONE 'Europe/Madrid', 'YYYY-MM-DD HH24:MI') AS start, (SELECT string_agg(r.name || ' ' || r.price, ', ' ORDER BY r.name) FROM rates r WHERE r.session_id = s.id) AS rates
              FROM sessions s WHERE s.event_id = ${eventId} ORDER BY s.start_datetime`,
      );
      expect(series).toEqual(['2031-05-02', '2031-05-09', '2031-05-16', '2031-05-23'].map((day) => ({ start: `${day} 21:00`, rates: 'Pista 1800, Platea 3250' })));

      // A portal channel (model A) that sells the event, with a widget key shown once.
      await page.goto(`${base}/admin/channels`);
      await page.getByLabel('Slug').fill('teatro-sur');
      await page.getByLabel('Name', { exact: true }).fill('Teatro del Sur en línea');
      await page.getByLabel('Integration model').selectOption('portal_only');
      await page.getByLabel('Flamenco Night', { exact: false }).check();
      await page.getByRole('button', { name: 'Create channel' }).click();
      await page.waitForURL(/\/admin\/channels\/\d+\?notice=created$/);
      await page.getByRole('button', { name: 'Generate a widget key' }).click();
      await expect.poll(async () => (await page.getByLabel('Widget key for teatro-sur').inputValue()).length).toBeGreaterThan(20);
      await look(page, '06-channel-key');

      // On sale.
      await page.goto(`${base}/admin/sessions/${sessionId}`);
      await page.getByRole('button', { name: 'Put on sale' }).click();
      await expect.poll(() => notice(page)).toBeTruthy();
      const [session] = await queryRows<{ status: string }>(t.ctx.db, sql`SELECT status FROM sessions WHERE id = ${sessionId}`);
      expect(session!.status).toBe('on_sale');

      // A buyer, on a phone, buys a seat of the new map in the portal and pays by card.
      const buyer = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, locale: 'es-ES' });
      const shop = await buyer.newPage();
      shop.on('pageerror', (e) => failures.push(e.message));
      await shop.goto(`${base}/teatro-sur/es/events`);
      await shop.getByRole('link', { name: /Ver sesiones/ }).first().click();
      await shop.waitForURL(new RegExp(`/events/${eventId}$`));
      await shop.goto(`${base}/teatro-sur/es/events/${eventId}/sessions/${sessionId}`);
      expect(await shop.locator('button.seat').count()).toBe(200);
      // The drawn map on the portal's grid: a curved row straight on a line of its own, its 20 seats
      // side by side (seat-layout's sectorGrid counts in seat pitches, not in the designer's units).
      const rowE = await shop.locator('button.seat[data-row="E"]').evaluateAll((els) => els.map((e) => [getComputedStyle(e).gridRowStart, Number(getComputedStyle(e).gridColumnStart)] as const));
      expect(new Set(rowE.map(([line]) => line)).size).toBe(1);
      const columns = rowE.map(([, col]) => col).sort((a, b) => a - b);
      expect(columns.map((col) => col - columns[0]!)).toEqual(Array.from({ length: 20 }, (_, i) => i));
      const seat = shop.locator('button.seat[data-row="E"]:not([disabled])').first();
      await seat.scrollIntoViewIfNeeded();
      await seat.click();
      await shop.locator('#cart-body li.item').first().waitFor();
      await look(shop, '07-portal-seat');
      await shop.getByRole('link', { name: 'Finalizar compra' }).click();
      await shop.waitForURL(/\/checkout\?order_token=/);
      await fillBuyer(shop, 'rocio@example.org', 'Rocío', 'Montoya');
      await shop.getByRole('button', { name: 'Pagar con tarjeta' }).click();
      await payWithCard(shop, '4242 4242 4242 4242');
      await shop.waitForURL(/\/teatro-sur\/es\/orders\//);
      await shop.getByText('¡Compra completada!').waitFor();
      await look(shop, '08-portal-paid');
      await buyer.close();

      const sold = await queryRows<{ sector: string; row: string; status: string; total: number }>(
        t.ctx.db,
        sql`SELECT sec.name AS sector, st.row, o.status, o.total_amount AS total
              FROM orders o JOIN order_items i ON i.order_id = o.id JOIN session_seats ss ON ss.id = i.session_seat_id
              JOIN seats st ON st.id = ss.seat_id JOIN sectors sec ON sec.id = ss.sector_id
             WHERE i.session_id = ${sessionId}`,
      );
      expect(sold).toEqual([{ sector: 'Platea', row: 'E', status: 'completed', total: 3250 }]);
      expect(failures).toEqual([]);
    } finally {
      await context.close();
    }
  });
});

interface Plan {
  categories?: { name: string }[];
  sectors: { name: string; numbered: boolean; capacity?: number; rows?: { label: string; seats: { number: string; x: number; y: number; category?: string; wheelchair?: boolean }[] }[] }[];
}

/** The page's cookies as a Cookie header, to read a dashboard download as the signed-in promoter. */
async function cookieOf(page: Page): Promise<string> {
  return (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
}
