import { sql } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../../src/db/client.js';
import { seatRows } from '../checkout/fixtures.js';
import { exampleHostForFile, newWidgetPage, SHOTS } from './example-host.js';

// "N best seats" in the widget (D61), in Chromium on the example host page (another origin), on a
// session without a waiting room: the service chooses and holds the seats, the cart lists them, the
// map draws them as the buyer's and shows them in view (on a phone too: above the cart bar), and
// they are adjacent in one row; "choose others" holds two others and gives the first two back.

const W = 'taquilla-widget';
const host = exampleHostForFile();

/** The session seats of the widget's cart, in the cart's order. */
const cartSeats = (page: Page) =>
  page.evaluate(() => {
    type Item = { session_seat_id: number | null };
    const order = (window as unknown as { widget: { getOrder(): { events: { sessions: { items: Item[] }[] }[] } | null } }).widget.getOrder();
    return (order?.events ?? []).flatMap((e) => e.sessions.flatMap((s) => s.items.map((i) => i.session_seat_id)));
  });
const orderToken = (page: Page) => page.evaluate(() => (window as unknown as { widget: { getOrder(): { order_token: string } } }).widget.getOrder().order_token);
const cartLines = (page: Page) => page.locator(`${W} .cart li[data-item]`).count();
/** The seats the map draws as the buyer's (SeatLayer's class `s m`), by session seat id. */
const mineOnMap = (page: Page) => page.locator(`${W} svg.map polygon.s.m[data-id]`).evaluateAll((seats) => seats.map((s) => Number(s.getAttribute('data-id'))).sort((a, b) => a - b));

/** Where the seat stands against the viewport, the map's box (it clips the seats) and the phone's cart bar. */
const placeOf = (page: Page, id: number) =>
  page.evaluate((seatId) => {
    const root = document.querySelector('taquilla-widget')!.shadowRoot!;
    const r = root.querySelector(`polygon[data-id="${seatId}"]`)!.getBoundingClientRect();
    const box = root.querySelector('.mapbox')!.getBoundingClientRect();
    const bar = root.querySelector('[data-cartbar]');
    const barTop = bar && getComputedStyle(bar).display !== 'none' ? bar.getBoundingClientRect().top : Infinity;
    const floor = Math.min(window.innerHeight, barTop, box.bottom);
    const inView = r.width > 0 && r.left >= Math.max(0, box.left) && r.right <= Math.min(window.innerWidth, box.right) && r.top >= Math.max(0, box.top) && r.bottom <= floor;
    return { inView, seat: [r.left, r.top, r.right, r.bottom].map(Math.round), floor: Math.round(floor), width: window.innerWidth };
  }, id);

/** The order's id, from its token. */
async function orderId(token: string): Promise<number> {
  const [row] = await queryRows<{ id: number | string }>(host.t.ctx.db, sql`SELECT id FROM orders WHERE order_token = ${token}`);
  return Number(row!.id);
}

/** The session seats' sector, row and place in the row (how many seats of that row stand left of it). */
async function rowPlaces(ids: number[]) {
  return queryRows<{ id: number; sector_id: number; row: string; number: string; place: number | string }>(
    host.t.ctx.db,
    sql`SELECT ss.id, s.sector_id, s.row, s.number,
          (SELECT count(*) FROM seats o WHERE o.layout_id = s.layout_id AND o.sector_id = s.sector_id AND o.row = s.row AND o.x < s.x) AS place
        FROM session_seats ss JOIN seats s ON s.id = ss.seat_id
        WHERE ss.id IN (${sql.join(ids.map((id) => sql`${id}`), sql`, `)}) ORDER BY s.x`,
  );
}

/** The seats are held for the order, in one row and side by side, and each one is in view on the map. */
async function expectChosen(page: Page, seats: number[], token: string) {
  const id = await orderId(token);
  const rows = await seatRows(host.t.ctx.db, seats);
  expect(rows.map((r) => [r.status, Number(r.order_id)])).toEqual(seats.map(() => ['held', id]));
  const places = await rowPlaces(seats);
  expect(new Set(places.map((p) => `${p.sector_id}/${p.row}`)).size, JSON.stringify(places)).toBe(1);
  expect(Number(places[1]!.place) - Number(places[0]!.place), JSON.stringify(places)).toBe(1);
  expect(await mineOnMap(page)).toEqual([...seats].sort((a, b) => a - b));
  for (const seat of seats) {
    const place = await placeOf(page, seat);
    expect(place.inView, `seat ${seat} in view: ${JSON.stringify(place)}`).toBe(true);
  }
}

async function shot(page: Page, name: string) {
  const { width } = page.viewportSize()!;
  await page.screenshot({ path: `${SHOTS}/${name}-${width}.png` });
}

describe('best available in the widget (D61)', { timeout: 120_000 }, () => {
  for (const viewport of [{ width: 390, height: 844 }, { width: 1280, height: 1000 }]) {
    it(`at ${viewport.width} px: two best seats held, in one row, drawn as the buyer's and in view; "choose others" swaps them`, async () => {
      const page = await newWidgetPage(host, viewport);
      await page.goto(`${host.examplesUrl}/model-d.html?session=${host.sessionId}`);
      await page.locator(`${W} polygon[data-id]`).first().waitFor();
      expect(await page.locator(`${W} [data-queue]`).count()).toBe(0);
      const best = page.locator(`${W} [data-best-seats]`);
      expect(await best.innerText()).toBe('Las 2 mejores butacas');
      expect(await page.locator(`${W} [data-choose-again]`).count()).toBe(0);

      await best.click();
      await expect.poll(() => cartLines(page), { timeout: 15_000 }).toBe(2);
      const first = (await cartSeats(page)) as number[];
      expect(first).toHaveLength(2);
      const token = await orderToken(page);
      await expectChosen(page, first, token);
      await shot(page, 'best-available');

      await page.locator(`${W} [data-choose-again]`).click();
      await expect.poll(async () => ((await cartSeats(page)) as number[]).filter((id) => !first.includes(id)).length, { timeout: 15_000 }).toBe(2);
      const second = (await cartSeats(page)) as number[];
      expect(second).toHaveLength(2);
      expect(await cartLines(page)).toBe(2);
      expect(await orderToken(page)).toBe(token);
      expect((await seatRows(host.t.ctx.db, first)).map((r) => [r.status, r.order_id])).toEqual([
        ['available', null],
        ['available', null],
      ]);
      for (const seat of first) expect(await page.locator(`${W} polygon.s.a[data-id="${seat}"]`).count(), `seat ${seat} free on the map`).toBe(1);
      await expectChosen(page, second, token);
      await shot(page, 'best-available-others');

      // The cart's own lines name the two new seats only.
      const labels = await page.locator(`${W} .cart li[data-item] > span:first-child`).allInnerTexts();
      const where = async (ids: number[]) => (await rowPlaces(ids)).map((p) => `fila ${p.row}, asiento ${p.number}`).sort();
      expect(labels.map((l) => /fila \S+, asiento \S+/.exec(l)?.[0]).sort()).toEqual(await where(second));
      expect(await where(first)).not.toEqual(await where(second));
      await page.context().close();
    });
  }
});
