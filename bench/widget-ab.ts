/**
 * Before and after, alternately (issue 29): `tsx bench/widget-ab.ts <before.iife.js> <after.iife.js>`
 * measures init -> interactive of two widget builds as bench:widget does (fresh page each run,
 * synthetic service), interleaving them run by run so that both see the same machine load.
 * BENCH_SEATS (one count or several, default 20000), BENCH_RUNS per build (default 7). Prints the
 * wall-clock medians and the renderer main thread's work meanwhile (less sensitive to load).
 */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { chromium, type Browser } from 'playwright-core';
import { initToMap, startSyntheticService } from './widget-page.js';

const SEATS = (process.env.BENCH_SEATS ?? '20000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');

/** One fresh page: init -> interactive (wall clock), and the renderer main thread's busy time meanwhile (Chromium's TaskDuration). */
async function once(browser: Browser, origin: string, seats: number): Promise<[number, number]> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.addInitScript('globalThis.__name = (f) => f;');
  await page.goto(`${origin}/`);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const busy = async () => (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'TaskDuration')!.value * 1000;
  const busy0 = await busy();
  const ms = await initToMap(page, seats);
  const work = (await busy()) - busy0;
  await page.close();
  return [ms, work];
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
      const wa: number[] = [];
      const wb: number[] = [];
      const run = async (origin: string, t: number[], w: number[]) => {
        const [ms, work] = await once(browser, origin, seats);
        t.push(ms);
        w.push(work);
      };
      const before = load();
      for (let i = 0; i < RUNS; i++) {
        // Alternate which goes first, so neither always follows the other.
        if (i % 2 === 0) {
          await run(sa.origin, ta, wa);
          await run(sb.origin, tb, wb);
        } else {
          await run(sb.origin, tb, wb);
          await run(sa.origin, ta, wa);
        }
      }
      await sa.close();
      await sb.close();
      const ma = median(ta);
      const mb = median(tb);
      console.log(`${seats} seats (load average ${before} -> ${load()}): before ${ma.toFixed(0)} ms, after ${mb.toFixed(0)} ms median of ${RUNS}; after/before ${(mb / ma).toFixed(2)}`);
      console.log(`  before: ${ta.map((x) => x.toFixed(0)).join(' ')}`);
      console.log(`  after:  ${tb.map((x) => x.toFixed(0)).join(' ')}`);
      // Main-thread work is less sensitive to the machine's load than the wall clock (it still
      // includes the page's share of Playwright's evaluate and the polling frames).
      console.log(`  main-thread work init -> interactive (TaskDuration): before ${median(wa).toFixed(0)} ms, after ${median(wb).toFixed(0)} ms median; after/before ${(median(wb) / median(wa)).toFixed(2)}`);
    }
  } finally {
    await browser.close();
  }
}

void main();
