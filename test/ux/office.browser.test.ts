import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.js';
import { refundDuePayments } from '../../src/modules/portal/payments/payments.refund-job.js';
import { processEmailQueue } from '../../src/modules/tickets/email-queue.service.js';
import { createHeldOrder, postSandboxNotification, sandboxNotification } from '../portal/fixtures.js';
import { account, signInToDashboard } from '../admin/admin-helpers.js';
import { buyer, confirmUrl, createPendingOrder } from '../checkout/fixtures.js';
import { freePort, SmtpPeer } from '../smtp-peer.js';
import { checkPage, startBrowserApp, type BrowserApp } from '../browser-app.js';
import { bearer, DEMO, tokenFor, type TestApp } from '../helpers.js';

// The box office as an operator sees it (issue 16 part 6), in Chromium at a phone's and a
// desktop's width: find an order by e-mail, read its page, resend its tickets to a real SMTP
// peer, refund it there (and only there), create a channel with its events, copy the embed
// snippet after generating a key, the report's date fields. No page scrolls sideways, and axe
// finds no serious or critical violation. Screenshots land in test-results/ux-office/.

const SHOTS = 'test-results/ux-office';
const WIDTHS = [
  { name: 'phone', viewport: { width: 390, height: 844 } },
  { name: 'desktop', viewport: { width: 1280, height: 800 } },
] as const;

let t: TestApp;
let base: string;
let browser: Browser;
let peer: SmtpPeer;
let widgetToken = '';
let started: BrowserApp;

beforeAll(async () => {
  peer = new SmtpPeer(await freePort());
  await peer.start();
  ({ t, base, browser } = started = await startBrowserApp({ env: { SMTP_URL: `smtp://127.0.0.1:${peer.port}`, MAIL_FROM: 'Taquilla <tickets@taquilla.test>' }, shots: SHOTS }));
  await account(t.ctx, 'clerk@taquilla.test');
  widgetToken = await tokenFor(t.app, DEMO.b.slug, DEMO.b.key);
}, 240_000);

afterAll(async () => {
  await started?.close();
  await peer?.stop();
});

async function completedOrder(email: string) {
  const o = await createPendingOrder(t.ctx, { channel: DEMO.b.slug, seats: 2 });
  const res = await t.app.inject({ method: 'POST', url: confirmUrl(DEMO.b.slug, o.token), headers: bearer(widgetToken), payload: { ...buyer, name: 'Marta', surname: 'Office', email, amount: o.total / 100 } });
  expect(res.statusCode).toBe(200);
  await processEmailQueue(t.ctx);
  return o;
}

/** Nothing scrolls sideways; axe finds no serious or critical violation; a full-page screenshot. */
const check = (page: Page, shot: string) => checkPage(page, { shot: `${SHOTS}/${shot}.png` });

describe.each(WIDTHS)('box office at $name width', ({ name, viewport }) => {
  it('finds an order by e-mail, shows it, resends its tickets, refunds it there; new channel with events; key snippet; report dates', async () => {
    const email = `marta.${name}@example.org`;
    const o = await completedOrder(email);
    const context = await browser.newContext({ viewport, timezoneId: 'America/New_York' });
    const page = await context.newPage();
    try {
      await signInToDashboard(page, base, 'clerk@taquilla.test');

      // the orders list: search by e-mail; no refund form on any row
      await page.goto(`${base}/admin/orders`);
      expect(await page.locator('form[action$="/refund"]').count()).toBe(0);
      await page.getByLabel('Find an order').fill(email);
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL(/q=/);
      await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
      expect(await page.locator('tbody').textContent()).toContain(email);
      await check(page, `orders-search-${name}`);

      // the order page: buyer, items, history
      await page.getByRole('link', { name: o.reference }).click();
      await page.waitForURL(`${base}/admin/orders/${o.reference}`);
      const main = page.locator('main');
      for (const text of ['Marta Office', email, 'Items and tickets', 'History', 'order created', 'order completed', 'Resend tickets']) expect(await main.textContent()).toContain(text);
      expect(await page.locator('section[aria-labelledby="items-h"] tbody tr').count()).toBe(2);
      await check(page, `order-page-${name}`);

      // resend: one more e-mail to the SMTP peer
      const before = peer.received.length;
      await page.getByRole('button', { name: 'Resend tickets' }).click();
      await page.waitForURL(/notice=resent/);
      expect(await page.getByRole('status').first().textContent()).toContain('Ticket e-mail queued');
      expect((await processEmailQueue(t.ctx)).sent).toBe(1);
      expect(peer.received.length).toBe(before + 1);
      expect(peer.received.at(-1)!.to).toEqual([email]);
      await page.reload();
      expect(await main.textContent()).toContain('order.resend_tickets');
      await check(page, `order-resent-${name}`);

      // refund from the order page
      // Two steps (D58): choose and give a reason, then confirm on the page that shows what goes back.
      await page.getByLabel('Reason for the refund').fill('Buyer cannot come');
      await page.getByRole('button', { name: 'Review the refund' }).click();
      await page.getByRole('button', { name: /^Refund \d+ ticket\(s\) now$/ }).click();
      await page.waitForURL(/notice=refunded/);
      expect(await main.textContent()).toContain(`${o.reference}-R`);
      expect(await main.textContent()).toContain('order.refund');
      await check(page, `order-refunded-${name}`);

      // a new channel with its events chosen in the same form
      await page.goto(`${base}/admin/channels`);
      await page.getByLabel('Slug').fill(`office-${name}`);
      await page.getByLabel('Name', { exact: true }).fill(`Office ${name}`);
      await page.getByLabel('Integration model').selectOption('widget_platform_payment');
      const firstEvent = page.locator('input[name="event_ids"]').first();
      const eventId = await firstEvent.getAttribute('value');
      await firstEvent.check();
      await check(page, `channels-new-${name}`);
      await page.getByRole('button', { name: 'Create channel' }).click();
      await page.waitForURL(/\/admin\/channels\/\d+\?notice=created/);
      expect(await page.locator(`input[name="event_ids"][value="${eventId}"]`).isChecked()).toBe(true);
      const channelUrl = page.url().split('?')[0]!;

      // after key generation: the snippet to copy
      await page.getByRole('button', { name: 'Generate a widget key' }).click();
      const key = await page.getByLabel(`Widget key for office-${name}`).inputValue();
      const snippet = await page.getByLabel("Code for the partner's page (model C or D)").inputValue();
      expect(snippet).toContain('<script src="');
      expect(snippet).toContain('/widget/v1/widget.iife.js"></script>');
      expect(snippet).toContain('TicketWidget.init({');
      expect(snippet).toContain(`apiKey: '${key}'`);
      expect(snippet).toContain(`channelSlug: 'office-${name}'`);
      await check(page, `key-snippet-${name}`);

      // the report's date fields: type=date with labels, no "Y-m-d"
      await page.goto(`${channelUrl}/report`);
      expect(await page.getByLabel('From date').getAttribute('type')).toBe('date');
      expect(await page.getByLabel('To date').getAttribute('type')).toBe('date');
      expect(await main.textContent()).not.toContain('Y-m-d');
      await check(page, `report-${name}`);
    } finally {
      await context.close();
    }
  });
});

/** A model A card checkout of a held cart: the payment's id. */
async function startCardPayment(email: string) {
  const held = await createHeldOrder(t, DEMO.a.slug, { seats: 2 });
  const res = await t.app.inject({ method: 'POST', url: `/api/portal/${DEMO.a.slug}/en/checkout`, payload: { order_token: held.token, name: 'Lola', surname: 'Card', email } });
  expect(res.statusCode).toBe(200);
  return { held, paymentId: res.json().data.payment_id as string };
}

/** A payment that captured the wrong amount (D73): refund_required until the scheduler refunds it. */
async function wrongAmountPayment(email: string) {
  const { held, paymentId } = await startCardPayment(email);
  const res = await postSandboxNotification(t, sandboxNotification(t, paymentId, 'succeeded', held.total + 150));
  expect(res.json().data.result).toBe('refund_required');
  return paymentId;
}

describe.each(WIDTHS)('payments and card refunds at $name width', ({ name, viewport }) => {
  it('the payments to refund and the refunded ones; a card order: the refund review, then the order with its refunds', async () => {
    // One payment refunded by the scheduler, one still to refund.
    const refunded = await wrongAmountPayment(`late.${name}@example.org`);
    await refundDuePayments(t.ctx);
    const due = await wrongAmountPayment(`due.${name}@example.org`);
    // A card order paid on the sandbox page.
    const { held, paymentId } = await startCardPayment(`card.${name}@example.org`);
    const pay = await t.app.inject({ method: 'POST', url: `/sandbox/pay/${paymentId}`, payload: { card_number: '4242424242424242', expiry: '12/34', cvc: '123' } });
    expect(pay.statusCode).toBe(303);
    const [order] = await queryRows<{ reference: string }>(t.ctx.db, sql`SELECT reference FROM orders WHERE id = ${held.id}`);
    const reference = order!.reference;

    const context = await browser.newContext({ viewport, timezoneId: 'Europe/Madrid' });
    const page = await context.newPage();
    try {
      await signInToDashboard(page, base, 'clerk@taquilla.test');
      const main = page.locator('main');

      await page.goto(`${base}/admin/payments?status=refund_required`);
      expect(await main.textContent()).toContain(due);
      expect(await main.textContent()).not.toContain(refunded);
      await check(page, `payments-refund-required-${name}`);
      await page.goto(`${base}/admin/payments?status=refunded`);
      expect(await main.textContent()).toContain(refunded);
      await check(page, `payments-refunded-${name}`);

      // The card order: choose one ticket, review (what goes back to which card), confirm.
      await page.goto(`${base}/admin/orders/${reference}`);
      await page.locator('input[name="ticket_ids"]').nth(1).uncheck();
      await page.getByLabel('Reason for the refund').fill('Seat broken');
      await page.getByRole('button', { name: 'Review the refund' }).click();
      await page.getByRole('button', { name: /^Refund 1 ticket\(s\) now$/ }).waitFor();
      expect(await main.textContent()).toContain(`Confirm the refund of ${reference}`);
      await check(page, `refund-review-${name}`);
      await page.getByRole('button', { name: /^Refund 1 ticket\(s\) now$/ }).click();
      await page.waitForURL(/notice=refunded/);
      const [book] = await queryRows<{ id: string }>(t.ctx.db, sql`SELECT id FROM sandbox_refunds WHERE payment_id = ${paymentId}`);
      expect(await main.textContent()).toContain(book!.id);
      await check(page, `order-card-refunded-${name}`);
    } finally {
      await context.close();
    }
  }, 120_000);
});
