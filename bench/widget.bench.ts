/**
 * `npm run bench:widget`: the widget's size and speed against its budgets (issue 7).
 * - gzipped size of widget.iife.js (budget 35 KB);
 * - headless Chromium: time from `TicketWidget.init` to an interactive 5,000-seat map (budget
 *   300 ms), median of several fresh pages;
 * - frame time while panning the map with the mouse (budget: 16.7 ms, one frame at 60 Hz).
 * The service is a local synthetic one (bench/widget-page.ts) so the widget's own work is measured
 * (fetch and JSON parse of the 5,000-seat session included), not a database.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser } from 'playwright-core';
import { build } from 'vite';
import { loadavg } from 'node:os';
import { initToMap, startSyntheticService } from './widget-page.js';

/** Seat counts to measure: BENCH_SEATS=20000 or BENCH_SEATS=5000,20000,100000 (the default). */
const SEAT_COUNTS = (process.env.BENCH_SEATS ?? '5000,20000,100000').split(',').map((x) => Number(x.trim())).filter((n) => n > 0);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const BUDGET = { gzipKb: 35, interactiveMs: 300, frameMs: 1000 / 60 };
/**
 * Goals of issue 29 (large venues) beside the budgets of issue 7: init to interactive per seat
 * count, and the main thread's work per pan frame at 100,000 seats.
 */
const GOALS: Record<number, { interactiveMs: number; panBusyMs?: number; today: string }> = {
  5000: { interactiveMs: 300, today: '142 ms' },
  20000: { interactiveMs: 200, today: '362 ms' },
  100000: { interactiveMs: 600, panBusyMs: 8, today: '1,300 ms, 13 ms per pan frame' },
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const ratio = (value: number, budget: number) => `${((value / budget) * 100).toFixed(0)} % of budget`;

async function main() {
  await build({ configFile: new URL('../widget/vite.config.ts', import.meta.url).pathname, logLevel: 'warn' });
  const code = readFileSync(new URL('../widget/dist/v1/widget.iife.js', import.meta.url), 'utf8');
  const gzipKb = gzipSync(code, { level: 9 }).length / 1024;

  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu'],
  });
  try {
    console.log(`widget benchmark (load average ${loadavg().map((x) => x.toFixed(2)).join(' ')} at the start: figures scale with it)`);
    console.log(`  size            ${gzipKb.toFixed(1)} KB gzipped (${(code.length / 1024).toFixed(1)} KB raw)   budget ${BUDGET.gzipKb} KB   ${ratio(gzipKb, BUDGET.gzipKb)}`);
    let over = gzipKb > BUDGET.gzipKb;
    for (const seats of SEAT_COUNTS) over = (await measure(browser, code, seats)) || over;
    if (over) console.log('  OVER BUDGET');
  } finally {
    await browser.close();
  }
}

/** One seat count: init -> interactive over RUNS fresh pages, then a pan on the last; prints; true when over a goal. */
async function measure(browser: Browser, code: string, SEATS: number): Promise<boolean> {
  // BENCH_FULL_DETAIL=1: a service without the layout route (the widget reads the full detail).
  const service = await startSyntheticService(code, SEATS, { layout: process.env.BENCH_FULL_DETAIL !== '1' });
  const times: number[] = [];
  const references: number[] = [];
  let frames: number[] = [];
  let idleFrames: number[] = [];
  let panBusyPerFrame = NaN;
  try {
    for (let run = 0; run < RUNS; run++) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      // tsx compiles functions passed to page.evaluate with esbuild's keepNames helper; define it.
      await page.addInitScript('globalThis.__name = (f) => f;');
      await page.goto(`${service.origin}/`);
      const ms = await initToMap(page, SEATS);
      times.push(ms);
      // The floor no widget can beat on this machine right now: fetch and parse the same session
      // payload, insert as many bare circles, paint one frame.
      references.push(
        await page.evaluate(async (url) => {
          const t0 = performance.now();
          const body = await (await fetch(url)).json();
          let markup = '';
          for (const s of body.data.elements.seats) markup += `<circle cx="${s.x}" cy="${s.y}" r=".4"></circle>`;
          const div = document.createElement('div');
          div.innerHTML = `<svg viewBox="0 0 60 120" width="800" height="420"><g>${markup}</g></svg>`;
          document.body.appendChild(div);
          await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
          const elapsed = performance.now() - t0;
          div.remove();
          return elapsed;
        }, `${service.origin}/api/sales-channel/v1/bench/es/events/1/sessions/1`),
      );
      if (run === RUNS - 1) {
        // Pan: drag across the map while recording the interval between animation frames.
        const box = (await page.locator('taquilla-widget .map').boundingBox())!;
        await page.evaluate(() => {
          const w = window as unknown as { __frames: number[]; __last: number; __on: boolean };
          w.__frames = [];
          w.__on = true;
          w.__last = performance.now();
          const tick = (t: number) => {
            w.__frames.push(t - w.__last);
            w.__last = t;
            if (w.__on) requestAnimationFrame(tick);
          };
          requestAnimationFrame(tick);
        });
        // Idle frame pacing of this machine right now, the baseline of the pan figure.
        idleFrames = await page.evaluate(
          () =>
            new Promise<number[]>((resolve) => {
              const out: number[] = [];
              let last = performance.now();
              const tick = (t: number) => {
                out.push(t - last);
                last = t;
                if (out.length < 60) requestAnimationFrame(tick);
                else resolve(out.slice(2));
              };
              requestAnimationFrame(tick);
            }),
        );
        const cx = box.x + box.width / 2;
        const cy = box.y + box.height / 2;
        // Diagnostic: the renderer main thread's busy time during the drag (Chromium's TaskDuration
        // metric, which also counts Playwright's own input handling), per frame.
        const cdp = await page.context().newCDPSession(page);
        await cdp.send('Performance.enable');
        const taskSeconds = async () => (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === 'TaskDuration')!.value;
        const busy0 = await taskSeconds();
        const panFrom = await page.evaluate(() => (window as unknown as { __frames: number[] }).__frames.length);
        await page.mouse.move(cx, cy);
        await page.mouse.down();
        for (let i = 0; i < 120; i++) await page.mouse.move(cx + Math.sin(i / 10) * 200, cy + Math.cos(i / 10) * 120);
        await page.mouse.up();
        const panTo = await page.evaluate(() => (window as unknown as { __frames: number[] }).__frames.length);
        panBusyPerFrame = ((await taskSeconds()) - busy0) * 1000 / Math.max(1, panTo - panFrom);
        frames = await page.evaluate(() => {
          const w = window as unknown as { __frames: number[]; __on: boolean };
          w.__on = false;
          return w.__frames.slice(2);
        });
        mkdirSync('test-results/widget', { recursive: true });
        await page.screenshot({ path: `test-results/widget/bench-${SEATS}-seats.png` });
      }
      await page.close();
    }
  } finally {
    await service.close();
  }
  const interactive = median(times);
  const reference = median(references);
  const frameAvg = frames.reduce((a, b) => a + b, 0) / Math.max(1, frames.length);
  const frameP95 = pct(frames, 0.95);
  const goal = GOALS[SEATS] ?? { interactiveMs: BUDGET.interactiveMs, today: '' };
  const mark = (ok: boolean) => (ok ? 'ok' : 'OVER');
  console.log(`${SEATS} seats, ${process.env.BENCH_FULL_DETAIL === '1' ? 'full session detail (BENCH_FULL_DETAIL=1)' : 'layout + availability'} (load average ${loadavg().map((x) => x.toFixed(2)).join(' ')})`);
  console.log(`  init -> map     ${interactive.toFixed(0)} ms median of ${RUNS} (min ${Math.min(...times).toFixed(0)}, max ${Math.max(...times).toFixed(0)})   goal ${goal.interactiveMs} ms   ${ratio(interactive, goal.interactiveMs)} ${mark(interactive <= goal.interactiveMs)}${goal.today ? `   (issue 29's "today": ${goal.today})` : ''}`);
  console.log(`  reference       ${reference.toFixed(0)} ms median: fetch + parse of the full session detail and ${SEATS} bare circles painted; widget = ${(interactive / reference).toFixed(2)} x reference`);
  const idleAvg = idleFrames.reduce((a, b) => a + b, 0) / Math.max(1, idleFrames.length);
  console.log(`  pan frame time  ${frameAvg.toFixed(1)} ms mean, ${frameP95.toFixed(1)} ms p95 over ${frames.length} frames   budget ${BUDGET.frameMs.toFixed(1)} ms   ${ratio(frameAvg, BUDGET.frameMs)}`);
  console.log(`  idle frames     ${idleAvg.toFixed(1)} ms mean (the machine's frame pacing with nothing to do); pan = ${(frameAvg / idleAvg).toFixed(2)} x idle`);
  const panGoal = goal.panBusyMs ?? BUDGET.frameMs;
  console.log(`  pan main thread ${panBusyPerFrame.toFixed(1)} ms busy per frame while dragging   goal ${panGoal.toFixed(1)} ms ${mark(panBusyPerFrame <= panGoal)} (Chromium's TaskDuration, Playwright's input handling included)`);
  return interactive > goal.interactiveMs || panBusyPerFrame > panGoal;
}

void main();
