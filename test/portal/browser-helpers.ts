import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

const SCREENSHOT_DIR = path.resolve('test-results/portal');

/** A port that was free a moment ago (the app's public address must be known before it is built). */
export { freePort } from '../../bench/bench-processes.js';

/** Debian's Chromium, headless (Playwright cannot download its own browser here). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu', '--disable-dev-shm-usage'],
  });
}

export const VIEWPORTS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 900 } } as const;

/** Full-page screenshots of the current page at phone and desktop widths (CI artifacts). */
export async function screenshots(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const original = page.viewportSize();
  for (const [label, size] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(size);
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-${label}.png`), fullPage: true });
  }
  if (original) await page.setViewportSize(original);
}

/** The buyer's details on the portal's checkout page (Spanish). */
export async function fillBuyer(page: Page, email: string, name = 'Lucía', surname = 'Fernández'): Promise<void> {
  await page.getByLabel('Nombre').fill(name);
  await page.getByLabel('Apellidos').fill(surname);
  await page.getByLabel('Correo electrónico').fill(email);
}

/** On the sandbox's card page (Spanish): types `card` and pays; with `shots`, screenshots of the page first. */
export async function payWithCard(page: Page, card: string, shots = false): Promise<void> {
  await page.waitForURL(/\/sandbox\/pay\/pay_/);
  if (shots) await screenshots(page, 'sandbox-card');
  await page.getByLabel('Número de tarjeta').fill(card);
  await page.getByLabel('Caducidad (MM/AA)').fill('12/34');
  await page.getByLabel('CVC').fill('123');
  await page.getByRole('button', { name: /Pagar/ }).click();
}
