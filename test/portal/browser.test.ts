import { sql } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { processEmailQueue } from '../../src/modules/tickets/email-queue.service.js';
import { browserAppTest } from '../browser-app.js';
import { bearer, tokenFor, type TestApp } from '../helpers.js';
import { fillBuyer, payWithCard, screenshots, VIEWPORTS } from './browser-helpers.js';
import { startModelBChannel } from './model-b-channel.js';

// Every page of the file: a desktop in Spanish.
const { it, app } = browserAppTest({ portal: true }, { viewport: VIEWPORTS.desktop, locale: 'es-ES' });
let t: TestApp;
let base: string;

beforeAll(() => {
  ({ t, base } = app());
});

async function orderByToken(token: string) {
  const [row] = await queryRows<{ id: number; status: string; total_amount: number; discount_amount: number }>(
    t.ctx.db,
    sql`SELECT id::int AS id, status, total_amount, discount_amount FROM orders WHERE order_token = ${token}`,
  );
  return row!;
}

/** Picks `count` free seats of the first session of the first event on the storefront; returns the cart's token. */
async function pickSeats(page: Page, slug: string, count: number, shots = false): Promise<string> {
  await page.goto(`${base}/${slug}/es/events`);
  if (shots) await screenshots(page, 'a-events');
  await page.getByRole('link', { name: /Ver sesiones/ }).first().click();
  await page.waitForURL(/\/events\/\d+$/);
  if (shots) await screenshots(page, 'a-sessions');
  await page.getByRole('link', { name: /Elegir entradas/ }).first().click();
  await page.waitForURL(/\/sessions\/\d+$/);
  const seats = page.locator('button.seat:not([disabled])[aria-pressed="false"]');
  if (shots) {
    // The map is one Tab stop; arrow keys move between seats.
    await seats.first().focus();
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute('data-seat'));
    const before = await focused();
    await page.keyboard.press('ArrowRight');
    expect(await focused()).not.toBe(before);
    await page.keyboard.press('ArrowLeft');
    expect(await focused()).toBe(before);
  }
  for (let i = 0; i < count; i++) {
    const seat = seats.first();
    const label = await seat.getAttribute('data-seat');
    // Keyboard, like a buyer without a mouse: focus the seat and press Enter.
    await seat.focus();
    await page.keyboard.press('Enter');
    await page.locator(`button.seat[data-seat="${label}"][aria-pressed="true"]`).waitFor();
  }
  await page.locator('#cart-body li.item').nth(count - 1).waitFor();
  return page.evaluate((key) => localStorage.getItem(key), `taquilla.portal.${slug}.order`) as Promise<string>;
}

// A real browser on a shared CI machine: generous time per flow (each takes 5-20 s when the machine is idle).
const FLOW = { timeout: 90_000 };

describe('portal in a real browser', () => {
  it('model A: seats on the map, a voucher, the sandbox card; ticket links and an e-mail', FLOW, async ({ page }) => {
    const token = await pickSeats(page, 'demo-a', 2, true);
    expect(token).toMatch(/^[0-9a-f-]{36}$/);
    // On a desktop the cart stands level with the map beside it: the layout's gap spaces the two
    // panels, no margin of their own (it once pushed the cart 16 px lower).
    await page.evaluate(() => window.scrollTo(0, 0));
    const tops = await page.locator('.layout > .panel').evaluateAll((panels) => panels.map((p) => Math.round(p.getBoundingClientRect().top)));
    expect(tops).toHaveLength(2);
    expect(tops[1]).toBe(tops[0]);
    await expect.poll(() => page.locator('#countdown').textContent()).toMatch(/caduca en \d\d:\d\d/);

    await page.getByLabel('Código de descuento').fill('DEMO10');
    await page.getByRole('button', { name: 'Aplicar' }).click();
    await page.getByText('DEMO10').waitFor();
    const withVoucher = await orderByToken(token);
    expect(withVoucher.discount_amount).toBeLessThan(0);
    await screenshots(page, 'a-session-cart');

    await page.getByRole('link', { name: 'Finalizar compra' }).click();
    await page.waitForURL(/\/checkout\?order_token=/);
    await page.locator('#cart-body li.item').nth(1).waitFor();
    // The page's cart is the order's, not the empty cart the server drew under it.
    expect(await page.locator('#cart-body').textContent()).not.toContain('Tu carrito está vacío');
    await screenshots(page, 'a-checkout');
    // The form's legend ("Tus datos") starts where its labels start (no browser padding of its own).
    const lefts = await page.evaluate(() => {
      const fieldset = document.querySelector('fieldset:has(legend)')!;
      return [fieldset.querySelector('legend')!, fieldset.querySelector('label')!].map((el) => {
        const text = document.createRange();
        text.selectNodeContents(el);
        return Math.round(text.getBoundingClientRect().left);
      });
    });
    expect(lefts[0]).toBe(lefts[1]);
    await fillBuyer(page, 'lucia@example.com');
    await page.getByRole('button', { name: 'Pagar con tarjeta' }).click();
    await payWithCard(page, '4242 4242 4242 4242', true);

    await page.waitForURL(new RegExp(`/demo-a/es/orders/${token}`));
    await page.getByText('¡Compra completada!').waitFor();
    const links = page.getByRole('link', { name: /Descargar entrada/ });
    expect(await links.count()).toBe(2);
    await screenshots(page, 'a-order-completed');
    const href = await links.first().getAttribute('href');
    const pdf = await fetch(href!);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toContain('application/pdf');

    const order = await orderByToken(token);
    expect(order.status).toBe('completed');
    const sent: { to: string }[] = [];
    await processEmailQueue(t.ctx, { sender: { describe: 'test capture', send: async (message) => void sent.push(message) } });
    expect(sent.map((m) => m.to)).toContain('lucia@example.com');
  });

  it('model A: a declined card leaves the order unpaid and the buyer back on the checkout page', FLOW, async ({ page }) => {
    const token = await pickSeats(page, 'demo-a', 1);
    await page.goto(`${base}/demo-a/es/checkout?order_token=${token}`);
    await fillBuyer(page, 'rechazo@example.com');
    await page.getByRole('button', { name: 'Pagar con tarjeta' }).click();
    await payWithCard(page, '4000 0000 0000 0002');
    await page.waitForURL(/\/checkout\?order_token=.*payment=declined/);
    await page.getByText('El pago ha sido rechazado').waitFor();
    await screenshots(page, 'a-checkout-declined');
    expect((await orderByToken(token)).status).toBe('pending');
  });

  it('model B: the storefront hands the buyer to the example channel server, which confirms', FLOW, async ({ page }) => {
    const channel = await startModelBChannel(base);
    try {
      await t.ctx.db.execute(sql`UPDATE sales_channels SET checkout_url = ${channel.url + '/checkout'} WHERE slug = 'demo-b'`);
      const token = await pickSeats(page, 'demo-b', 1);
      await page.getByRole('link', { name: 'Finalizar compra' }).click();
      await page.waitForURL(/\/demo-b\/es\/checkout\?order_token=/);
      await screenshots(page, 'b-checkout');
      await page.getByRole('button', { name: 'Continuar al pago' }).click();
      await page.waitForURL(`${channel.url}/checkout?order_token=${token}`);
      await page.locator('#total').waitFor();
      await screenshots(page, 'b-channel-checkout');
      await page.getByLabel('Nombre').fill('Pablo');
      await page.getByLabel('Apellidos').fill('Ruiz');
      await page.getByLabel('E-mail').fill('pablo@example.com');
      await page.getByRole('button', { name: /Pagar/ }).click();
      await page.getByRole('heading', { name: '¡Gracias!' }).waitFor();
      expect(await page.getByRole('link', { name: /Entrada 1/ }).count()).toBe(1);
      expect((await orderByToken(token)).status).toBe('completed');
    } finally {
      await channel.close();
    }
  });

  it('model C: an order made through the B2B routes is paid on the portal checkout page', FLOW, async ({ page }) => {
    const bearerToken = await tokenFor(t.app, 'demo-c', 'wk_demo_c');
    const config = (await t.app.inject({ url: '/api/sales-channel/v1/demo-c/config', headers: bearer(bearerToken) })).json().data;
    const [seat] = await queryRows<{ id: number; rate_id: number }>(
      t.ctx.db,
      sql`SELECT ss.id, (SELECT r.id FROM rates r WHERE r.session_id = ss.session_id ORDER BY r.sort_order, r.id LIMIT 1) AS rate_id
            FROM session_seats ss WHERE ss.status = 'available' AND ss.seat_id IS NOT NULL ORDER BY ss.id DESC LIMIT 1`,
    );
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/sales-channel/v1/demo-c/en/orders',
      headers: bearer(bearerToken),
      payload: { session_seat_id: seat!.id, rate_id: seat!.rate_id },
    });
    expect(created.statusCode).toBe(201);
    const token = created.json().data.order_token as string;

    // Where the widget sends the buyer (SPEC Redirects 2): the configured base, never hard-coded.
    await page.goto(`${config.portal_checkout_base_url}/demo-c/en/checkout?order_token=${token}`);
    await page.locator('#cart-body li.item').first().waitFor();
    expect(await page.locator('#cart-body').textContent()).not.toContain('Your cart is empty');
    expect(await page.locator('#countdown').textContent()).toMatch(/Your hold expires in \d\d:\d\d/);
    // The widget built this cart: the checkout page shows it without editing controls.
    expect(await page.locator('[data-remove]').count()).toBe(0);
    expect(await page.locator('#voucher-form').isHidden()).toBe(true);
    // Every form control has a label (screen readers, and a bigger target on phones).
    const unlabelled = await page.$$eval('input:not([type=hidden]), select', (els) =>
      els.filter((el) => (el as HTMLInputElement).labels?.length === 0).map((el) => el.id || el.outerHTML),
    );
    expect(unlabelled).toEqual([]);
    await screenshots(page, 'c-checkout');
    await page.getByRole('button', { name: 'Pay by card' }).click();
    // The label is on the page from the start; the marking comes with the server's 422, so wait for it.
    await page.locator('#name[aria-invalid="true"]').waitFor();
    await page.getByLabel('First name').fill('Jane');
    await page.getByLabel('Surname').fill('Doe');
    await page.getByLabel('E-mail').fill('jane@example.com');
    await page.getByRole('button', { name: 'Pay by card' }).click();
    await page.waitForURL(/\/sandbox\/pay\/pay_/);
    await page.getByLabel('Card number').fill('4242424242424242');
    await page.getByLabel('Expiry (MM/YY)').fill('01/30');
    await page.getByLabel('CVC').fill('999');
    await page.getByRole('button', { name: /Pay by card/ }).click();
    await page.waitForURL(new RegExp(`/demo-c/en/orders/${token}`));
    await page.getByText('Purchase complete!').waitFor();
    await screenshots(page, 'c-order-completed');
    expect(await page.getByRole('link', { name: /Download ticket/ }).count()).toBe(1);
    expect((await orderByToken(token)).status).toBe('completed');
  });

  it('model D has no portal pages', async () => {
    const res = await fetch(`${base}/demo-d/es/events`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('text/html');
  });
});
