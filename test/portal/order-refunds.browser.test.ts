import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, apiAs } from '../admin/admin-helpers.js';
import { startBrowserApp, type BrowserApp } from '../browser-app.js';
import { DEMO, type TestApp } from '../helpers.js';
import { screenshots, VIEWPORTS } from './browser-helpers.js';
import { paidByCard as paidByCardOn } from './fixtures.js';

// The buyer's order page after refunds (D58): what was refunded (which tickets, how much, when, the
// card's reference), voided tickets marked and without a link, the rest still downloadable; read in
// Chromium at phone and desktop widths.

let t: TestApp;
let started: BrowserApp;
let base: string;
let browser: Browser;
let admin: ReturnType<typeof api>;

beforeAll(async () => {
  ({ t, base, browser } = started = await startBrowserApp({ portal: true }));
  admin = await apiAs(t, 'order-page@taquilla.test');
}, 120_000);
afterAll(() => started?.close());

/** A model A order of `seats` paid with the sandbox's test card: its token, reference and tickets. */
async function paidByCard(seats: number) {
  const order = await paidByCardOn(t, seats, { lang: 'es' });
  return { ...order, tickets: order.tickets.map((x) => x.id) };
}

const orderPage = async (token: string, lang = 'es') => {
  const res = await t.app.inject({ url: `/${DEMO.a.slug}/${lang}/orders/${token}` });
  expect(res.statusCode).toBe(200);
  return res.body;
};
const count = (html: string, needle: string | RegExp) => html.split(needle).length - 1;

describe('the order page after refunds (D58)', () => {
  it('a partial refund: the refunded ticket is marked and has no link, the refund is listed with its amount, date and card reference', async () => {
    const o = await paidByCard(3);
    const before = await orderPage(o.token);
    expect(before).toContain('¡Compra completada!');
    expect(count(before, 'class="button" href="http://127.0.0.1')).toBeGreaterThanOrEqual(3);

    const one = await admin.post(`/orders/${o.reference}/refund`, { reason: 'one seat', ticket_ids: [o.tickets[1]] });
    expect(one.status).toBe(201);
    const card = one.body.data.card_refund.reference as string;
    const html = await orderPage(o.token);
    expect(html).not.toContain('¡Compra completada!');
    expect(html).toContain('Parte de este pedido se ha devuelto');
    expect(count(html, '<span class="tag">Devuelta</span>')).toBe(1);
    expect(count(html, '<span class="tag">Entrada anulada</span>')).toBe(1);
    // Two tickets keep their download link; the voided one has none.
    expect(count(html, /Descargar entrada \d/)).toBe(2);
    expect(html).toContain('Devoluciones');
    expect(html).toContain(`Devolución ${o.reference}-R`);
    expect(html).toContain(card);
    expect(html).toContain('Entradas devueltas');
    expect(html).toContain('Total pagado');
    // The amount refunded: one third of the total, in the page's money format.
    const third = new Intl.NumberFormat('es-ES', { style: 'currency', currency: 'EUR' }).format(o.total / 3 / 100);
    expect(html).toContain(`−${third}`);
    // The English page says the same in English.
    const en = await orderPage(o.token, 'en');
    expect(en).toContain('Part of this order has been refunded');
    expect(en).toContain(`Refund ${o.reference}-R`);
    expect(en).toContain('Refunded to the card you paid with');
  });

  it('a whole refund: the page says so, no ticket or order file is offered, every refund is listed', async () => {
    const o = await paidByCard(2);
    expect((await admin.post(`/orders/${o.reference}/refund`, { reason: 'first', ticket_ids: [o.tickets[0]] })).status).toBe(201);
    expect((await admin.post(`/orders/${o.reference}/refund`, { reason: 'rest' })).status).toBe(201);
    const html = await orderPage(o.token);
    expect(html).toContain('Este pedido se ha devuelto por completo');
    expect(count(html, /Descargar entrada \d/)).toBe(0);
    expect(html).not.toContain('Descargar todas las entradas');
    expect(html).not.toContain('Añadir al calendario');
    expect(count(html, '<span class="tag">Entrada anulada</span>')).toBe(2);
    expect(html).toContain(`Devolución ${o.reference}-R<`);
    expect(html).toContain(`Devolución ${o.reference}-R2<`);
  });

  it('reads clearly in Chromium at 390 and 1280 px (screenshots in test-results/portal)', async () => {
    const o = await paidByCard(3);
    expect((await admin.post(`/orders/${o.reference}/refund`, { reason: 'one seat', ticket_ids: [o.tickets[0]] })).status).toBe(201);
    const context = await browser.newContext({ viewport: VIEWPORTS.phone, locale: 'es-ES' });
    const page = await context.newPage();
    await page.goto(`${base}/${DEMO.a.slug}/es/orders/${o.token}`);
    await page.getByRole('heading', { name: 'Devoluciones' }).waitFor();
    await expect(page.getByRole('status').textContent()).resolves.toContain('Parte de este pedido se ha devuelto');
    // No horizontal scrolling on the phone.
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await screenshots(page, 'order-refunded-partly');
    await context.close();
  });
});
