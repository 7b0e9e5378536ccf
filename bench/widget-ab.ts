/**
 * Before and after, alternately (issue 29): `tsx bench/widget-ab.ts <before.iife.js> <after.iife.js>`
 * measures init -> interactive of two widget builds as bench:widget does (fresh page each run,
 * synthetic service), interleaving them run by run so that both see the same machine load.
 * BENCH_SEATS (one count or several, default 20000), BENCH_RUNS per build (default 7).
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { chromium, type Browser } from 'playwright-core';
import { startSyntheticService } from './widget-page.js';

const SEATS = (process.env.BENCH_SEATS ?? '20000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');

async function once(browser: Browser, origin: string, seats: number): Promise<number> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.addInitScript('globalThis.__name = (f) => f;');
  await page.goto(`${origin}/`);
  const ms = await page.evaluate(
    (n) =>
      new Promise<number>((resolve) => {
        const w = window as unknown as { TicketWidget: { init(c: object): unknown } };
        const t0 = performance.now();
        w.TicketWidget.init({ container: '#w', channelSlug: 'bench', sessionId: 1, apiKey: 'wk_bench', lang: 'es' });
        const host = document.querySelector('taquilla-widget')!;
        const poll = () => {
          const drawn = host.shadowRoot?.querySelector('[data-drawn]');
          const count = drawn ? Number(drawn.getAttribute('data-drawn')) : (host.shadowRoot?.querySelectorAll('polygon[data-id]').length ?? 0);
          if (count >= n) requestAnimationFrame(() => resolve(performance.now() - t0));
          else requestAnimationFrame(poll);
        };
        poll();
      }),
    seats,
  );
  await page.close();
  return ms;
}

async function main() {
  const [a, b] = process.argv.slice(2).map((f) => readFileSync(f, 'utf8'));
  if (!a || !b) throw new Error('usage: tsx bench/widget-ab.ts <before.iife.js> <after.iife.js>');
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu'] });
  try {
    for (const seats of SEATS) {
      const sa = await startSyntheticService(a, seats);
      const sb = await startSyntheticService(b, seats);
      const ta: number[] = [];
      const tb: number[] = [];
      const before = load();
      for (let i = 0; i < RUNS; i++) {
        // Alternate which goes first, so neither always follows the other.
        if (i % 2 === 0) {
          ta.push(await once(browser, sa.origin, seats));
          tb.push(await once(browser, sb.origin, seats));
        } else {
          tb.push(await once(browser, sb.origin, seats));
          ta.push(await once(browser, sa.origin, seats));
        }
      }
      await sa.close();
      await sb.close();
      const ma = median(ta);
      const mb = median(tb);
      console.log(`${seats} seats (load average ${before} -> ${load()}): before ${ma.toFixed(0)} ms, after ${mb.toFixed(0)} ms median of ${RUNS}; after/before ${(mb / ma).toFixed(2)}`);
      console.log(`  before: ${ta.map((x) => x.toFixed(0)).join(' ')}`);
      console.log(`  after:  ${tb.map((x) => x.toFixed(0)).join(' ')}`);
    }
  } finally {
    await browser.close();
  }
}

void main();
