/**
 * Diagnostic for bench:seat-page (issue 29): where the time of the big session's seat page goes.
 * `SEATS=20000 tsx bench/seat-page-profile.ts` (RUNS loads, default 2): the server's render split
 * into its database reads and the rest, then per load in headless Chromium at 390 x 844 the
 * requests (start -> end), the page's milestones, and the main thread's tasks of 3 ms or more from
 * a Chromium trace (parsing, scripts, style and layout, paint), with the total by kind.
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { chromium } from 'playwright-core';
import { storeSession } from '../src/modules/portal/storefront.service.js';
import { seatPageApp } from './seat-page-app.js';

const SEATS = Number(process.env.SEATS ?? 20000);
const RUNS = Number(process.env.RUNS ?? 2);

interface TraceEvent { name: string; ph: string; ts: number; dur?: number; pid: number; tid: number; args?: { name?: string; data?: { url?: string } } }

/** The main thread's events worth naming, and the kind each is summed under. */
const KINDS: Record<string, string> = {
  ParseHTML: 'parse HTML',
  EvaluateScript: 'script',
  'v8.evaluateModule': 'script',
  FunctionCall: 'script',
  TimerFire: 'script',
  EventDispatch: 'script',
  FireAnimationFrame: 'script',
  RunMicrotasks: 'script',
  'v8.compileModule': 'compile',
  'v8.compile': 'compile',
  UpdateLayoutTree: 'style + layout',
  Layout: 'style + layout',
  PrePaint: 'paint',
  Paint: 'paint',
  Layerize: 'paint',
  ParseAuthorStyleSheet: 'style + layout',
};

async function main() {
  const { app, path } = await seatPageApp(SEATS);
  console.log(`${SEATS} seats, load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  // The server: the page's reads alone, then the whole page.
  for (let i = 0; i < 3; i++) {
    const [, slug, lang, , eventId, , sessionId] = path.split('/');
    const { pageChannel } = await import('../src/modules/portal/storefront.service.js');
    const ch = await pageChannel(app.ctx, slug!, lang!, () => true);
    const t0 = performance.now();
    await storeSession(app.ctx, ch!, Number(eventId), Number(sessionId), lang!);
    const t1 = performance.now();
    const res = await app.inject({ url: path });
    const t2 = performance.now();
    console.log(`server: reads ${(t1 - t0).toFixed(0)} ms, whole page ${(t2 - t1).toFixed(0)} ms (${(res.body.length / 1024).toFixed(0)} KB)`);
  }
  const address = (await app.listen({ host: '127.0.0.1', port: 0 })).replace('localhost', '127.0.0.1');
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    for (let run = 0; run < RUNS; run++) {
      const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
      await browser.startTracing(page, { categories: ['devtools.timeline', 'v8.execute', 'blink.user_timing', 'loading'] });
      await page.goto(`${address}${path}`, { waitUntil: 'load' });
      await page.waitForFunction(() => document.querySelector('#cart[data-ready]') && !document.querySelector('.sector.compact:not([data-ready])'), undefined, { timeout: 60_000 });
      const ready = await page.evaluate(() => performance.now());
      const timing = await page.evaluate(() => {
        // (Node's types know no 'navigation' entries; this runs in the page.)
        const n = (performance.getEntriesByType as (type: string) => PerformanceEntry[])('navigation')[0] as PerformanceNavigationTiming;
        const res = (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).map((r) => [r.name.split('/').pop()!.slice(0, 50), r.startTime, r.responseEnd] as const);
        return { responseStart: n.responseStart, responseEnd: n.responseEnd, interactive: n.domInteractive, dcl: n.domContentLoadedEventEnd, load: n.loadEventEnd, res };
      });
      await page.waitForTimeout(200);
      const trace = JSON.parse((await browser.stopTracing()).toString()) as { traceEvents: TraceEvent[] };
      console.log(`run ${run + 1}: ready ${ready.toFixed(0)} ms; HTML ${timing.responseStart.toFixed(0)} -> ${timing.responseEnd.toFixed(0)}, interactive ${timing.interactive.toFixed(0)}, DOMContentLoaded ${timing.dcl.toFixed(0)}, load ${timing.load.toFixed(0)}`);
      for (const [name, start, end] of timing.res) console.log(`  request ${name.padEnd(50)} ${start.toFixed(0).padStart(5)} -> ${end.toFixed(0).padStart(5)} ms`);
      const events = trace.traceEvents;
      const main = events.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain' && events.some((x) => x.pid === e.pid && x.name === 'ParseHTML'));
      const nav = events.find((e) => e.name === 'navigationStart' && e.pid === main?.pid);
      if (!main || !nav) continue;
      const top = events.filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === 'X' && KINDS[e.name]).sort((a, b) => a.ts - b.ts);
      // Only the outermost of nested events counts (a FunctionCall inside ParseHTML is part of it).
      let end = 0;
      const sums = new Map<string, number>();
      for (const e of top) {
        if (e.ts < end) continue;
        end = e.ts + (e.dur ?? 0);
        const at = (e.ts - nav.ts) / 1000;
        if (at > ready) break;
        const ms = (e.dur ?? 0) / 1000;
        sums.set(KINDS[e.name]!, (sums.get(KINDS[e.name]!) ?? 0) + ms);
        if (ms >= 3) console.log(`  task ${e.name.padEnd(20)} at ${at.toFixed(0).padStart(5)} ms  ${ms.toFixed(1).padStart(6)} ms ${e.args?.data?.url ? e.args.data.url.split('/').pop() : ''}`);
      }
      console.log(`  main thread until ready: ${[...sums].map(([k, v]) => `${k} ${v.toFixed(0)} ms`).join(', ')}`);
      await page.close();
    }
  } finally {
    await browser.close();
    await app.close();
  }
}

void main();
