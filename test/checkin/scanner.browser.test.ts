import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/lib/clock.js';
import { buildTestApp, type TestApp } from '../helpers.js';
import { demoSessions, device, makeDevice, makeGate, makeList, sellTickets, startSessionIn } from './checkin-helpers.js';
import { writeQrVideo } from './scanner-fake-camera.js';

// The scanner in Debian's Chromium against the real service: set up from the device's set-up link,
// the network cut (Playwright's offline mode, the page reloaded from the service worker), tickets
// scanned by the fake camera (a Y4M video of a real ticket's QR), by a hardware scanner's keys and
// by the typed field; valid, already used with the first time, a forged secret, a ticket another
// gate let in meanwhile; back online, the queued scans reach the server and the conflict is shown.
// Screenshots at 390x844 and 1280x800 land in test-results/checkin/.

const SHOTS = 'test-results/checkin';

class RealClock extends ManualClock {
  override now(): Date {
    return new Date();
  }
}
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

let t: TestApp;
let base: string;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let listId: number;
let token: string;
let gate2: ReturnType<typeof device>;
const errors: string[] = [];
let tickets: { id: number; code: string; secret: string }[];

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  // The server's clock runs with the real one: scan times from the browser are real times.
  t = await buildTestApp({ clock: new RealClock() });
  const sessions = await demoSessions(t.ctx);
  await startSessionIn(t, sessions[0]!.id, 3_600_000);
  listId = (await makeList(t, { name: 'Puerta norte', session_ids: [sessions[0]!.id] })).id;
  token = (await makeDevice(t, 'Puerta 1', [listId])).token;
  gate2 = await makeGate(t, 'Puerta 2', [listId]);
  tickets = (await sellTickets(t, { seats: 3, sessionId: sessions[0]!.id })).tickets;
  const video = path.resolve(SHOTS, 'ticket-qr.y4m');
  writeQrVideo(video, tickets[1]!.secret);
  base = (await t.app.listen({ port: 0, host: '127.0.0.1' })).replace('localhost', '127.0.0.1');
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-background-networking',
      '--disable-gpu',
      '--use-fake-device-for-media-stream',
      '--use-fake-ui-for-media-stream',
      `--use-file-for-fake-video-capture=${video}`,
    ],
  });
  // A phone set to another zone than the deployment's (Europe/Madrid): the screen shows the venue's clock.
  context = await browser.newContext({ viewport: PHONE, locale: 'es-ES', timezoneId: 'America/New_York', hasTouch: true });
  await context.grantPermissions(['camera'], { origin: base });
  page = await context.newPage();
  page.on('pageerror', (err) => errors.push(String(err)));
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** Both screenshots of the current screen. */
async function shoot(name: string) {
  await page.screenshot({ path: `${SHOTS}/${name}-390x844.png` });
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: `${SHOTS}/${name}-1280x800.png` });
  await page.setViewportSize(PHONE);
}

const answer = () => page.locator('.answer');

async function expectAnswer(result: string) {
  await answer().waitFor();
  expect(await answer().getAttribute('data-result')).toBe(result);
}

async function dismiss() {
  await answer().locator('button.continue').click();
  await answer().waitFor({ state: 'detached' });
}

const text = (selector: string) => page.locator(selector).innerText();

describe('the scanner in a browser', () => {
  it('sets up, scans offline (camera, keys, typed), syncs when the network returns', async () => {
    // Not set up yet: the set-up screen. Then the device QR's link (here a change of the fragment
    // of the open page): the token is stored, then dropped from the address.
    await page.goto(`${base}/checkin/`);
    await page.getByRole('button', { name: 'Escanear código de configuración' }).waitFor();
    await shoot('setup-screen');
    await page.goto(`${base}/checkin/#setup=${token}`);
    await page.locator('[data-gate]').waitFor();
    expect(await text('[data-gate]')).toContain('Puerta 1');
    expect(page.url()).toBe(`${base}/checkin/`);
    await expect.poll(() => text('[data-tickets]')).toBe('3');
    expect(await text('.list')).toContain('Puerta norte');
    // The last sync in the deployment's zone (Madrid), not the phone's (New York, 5 or 6 hours behind).
    const madridClock = (at: number) => new Intl.DateTimeFormat('es', { hour: 'numeric', minute: '2-digit', timeZone: 'Europe/Madrid' }).format(at);
    const shown = /(\d{1,2}:\d{2}):\d{2}/.exec(await text('[data-last-sync]'))?.[1];
    expect([madridClock(Date.now()), madridClock(Date.now() - 60_000)]).toContain(shown);
    expect(await page.evaluate(() => navigator.serviceWorker.ready.then((r) => r.active?.scriptURL))).toBe(`${base}/checkin/sw.js`);
    await shoot('set-up');

    // No network: the page still opens, from the service worker's cache.
    await context.setOffline(true);
    await page.reload();
    await page.locator('[data-gate]').waitFor();
    expect(await page.locator('[data-online]').getAttribute('data-online')).toBe('false');
    expect(await text('[data-tickets]')).toBe('3');

    // Meanwhile gate 2, online, lets ticket 3 in.
    expect((await gate2.scan(listId, { secret: tickets[2]!.secret })).json().result).toBe('valid');

    // Typed code: valid, with the seat and the buyer for the ID check.
    await page.getByLabel('Código de la entrada').fill(tickets[0]!.secret);
    await page.getByRole('button', { name: 'Comprobar' }).click();
    await expectAnswer('valid');
    expect(await text('.verdict')).toBe('VÁLIDA');
    expect(await text('.answer')).toContain('Comprobado sin conexión');
    expect(await page.locator('.answer [data-buyer]').count()).toBe(1);
    await shoot('valid');
    await dismiss();

    // The same ticket from a hardware scanner (keys + Enter, no field focused): already used, with the first time.
    await page.locator('h1').click();
    await page.keyboard.type(tickets[0]!.secret);
    await page.keyboard.press('Enter');
    await expectAnswer('already_used');
    expect(await text('.verdict')).toBe('YA USADA');
    const first = await answer().locator('[data-first-scan]').getAttribute('data-first-scan');
    expect(Date.now() - new Date(first!).getTime()).toBeLessThan(60_000);
    expect(await text('.answer .first')).toMatch(/Primer escaneo: .*\d{1,2}:\d{2}:\d{2}/);
    await shoot('already-used');
    await dismiss();

    // A forged secret: ticket 3's payload under ticket 1's signature.
    const [, kid, , sig] = tickets[0]!.secret.split('.');
    const payload = tickets[2]!.secret.split('.')[2];
    await page.getByLabel('Código de la entrada').fill(`tq2.${kid}.${payload}.${sig}`);
    await page.keyboard.press('Enter');
    await expectAnswer('invalid');
    expect(await text('.reason')).toBe('Firma falsa o código alterado.');
    await shoot('invalid');
    await dismiss();

    // The camera reads ticket 2's QR from the fake video.
    await page.getByRole('button', { name: 'Cámara' }).click();
    await expectAnswer('valid');
    expect(await page.locator('.camera').getAttribute('data-decoder')).toMatch(/native|jsqr/);
    await dismiss();
    await page.getByRole('button', { name: 'Parar cámara' }).click();

    // Gate 2 (online) let ticket 3 in a while ago; this device, offline, admits it too.
    await page.getByLabel('Código de la entrada').fill(tickets[2]!.secret);
    await page.keyboard.press('Enter');
    await expectAnswer('valid');
    await dismiss();
    expect(await text('[data-pending]')).toBe('4');
    expect(await text('[data-entries]')).toBe('3');

    // Back online: the queue goes up, the server keeps gate 2's entry for ticket 3 and says so.
    await context.setOffline(false);
    await expect.poll(() => text('[data-pending]'), { timeout: 30_000 }).toBe('0');
    await page.locator('[data-conflicts]').waitFor();
    expect(await page.locator('[data-conflicts] li').count()).toBe(1);
    expect(await text('[data-conflicts]')).toContain('aquí VÁLIDA, servidor YA USADA');
    const status = (await gate2.status(listId)).json();
    expect(status).toMatchObject({ sold: 3, checked_in: 3 });
    expect(status.per_device).toEqual(
      expect.arrayContaining([
        { device_name: 'Puerta 1', entries: 2 },
        { device_name: 'Puerta 2', entries: 1 },
      ]),
    );
    await expect.poll(() => text('[data-checked-in]')).toBe('3');
    await shoot('synced');

    // Online, the server answers: ticket 1 again is already used, first scanned by this gate.
    await page.getByLabel('Código de la entrada').fill(tickets[0]!.secret);
    await page.keyboard.press('Enter');
    await expectAnswer('already_used');
    expect(await answer().locator('.tag').count()).toBe(0);
    expect(await text('.answer .first')).toContain('Puerta 1');
    await dismiss();

    // English at a tap, kept across reloads.
    await page.getByRole('button', { name: 'Idioma: English' }).click();
    expect(await text('h1')).toBe('Check-in');
    // The choice is written to the device's IndexedDB after the click (asynchronously): reload once
    // it is there, as a steward's next start would find it.
    const storedLang = () =>
      page.evaluate(
        () =>
          new Promise<unknown>((resolve, reject) => {
            const open = indexedDB.open('taquilla-checkin');
            open.onerror = () => reject(open.error);
            open.onsuccess = () => {
              const get = open.result.transaction('meta').objectStore('meta').get('lang');
              get.onsuccess = () => {
                open.result.close();
                resolve(get.result);
              };
              get.onerror = () => reject(get.error);
            };
          }),
      );
    await expect.poll(storedLang).toBe('en');
    await page.reload();
    await page.locator('[data-gate]').waitFor();
    expect(await text('[data-gate]')).toContain('Gate');
    expect(errors).toEqual([]);
  });

  it('sets up by reading the device QR with the in-app camera', async () => {
    // Another browser: its fake camera shows the set-up QR a dashboard displays.
    const second = await makeDevice(t, 'Puerta 3', [listId]);
    const video = path.resolve(SHOTS, 'setup-qr.y4m');
    writeQrVideo(video, `${base}/checkin/#setup=${second.token}`);
    const other = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream', `--use-file-for-fake-video-capture=${video}`],
    });
    try {
      const ctx = await other.newContext({ viewport: PHONE, locale: 'en-GB' });
      await ctx.grantPermissions(['camera'], { origin: base });
      const p = await ctx.newPage();
      await p.goto(`${base}/checkin`);
      expect(p.url()).toBe(`${base}/checkin/`);
      await p.getByRole('button', { name: 'Scan set-up code' }).click();
      await p.locator('[data-gate]').waitFor();
      expect(await p.locator('[data-gate]').innerText()).toBe('Gate: Puerta 3');
      await expect.poll(() => p.locator('[data-tickets]').innerText()).toBe('3');
    } finally {
      await other.close();
    }
  });
});
