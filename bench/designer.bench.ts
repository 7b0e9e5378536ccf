/**
 * `npm run bench:designer`: the seat-map designer on a stadium (issue 29, "Performance").
 * - headless Chromium opens a 100,000-seat layout (BENCH_SEATS; 500-seat sectors of 10 rows x 50
 *   seats): time from navigation to interactive (every seat counted, every tile of the whole-plan
 *   view drawn, one frame painted). Goal 1.5 s.
 * - a 500-seat sector is selected (its button in "Sectors") and moved with an arrow key on the
 *   focused canvas: time from the key to the next painted frame. Goal 50 ms.
 * Medians of BENCH_RUNS fresh pages (default 5). The page and the plan come from a local synthetic
 * server (no database, no sign-in): the designer's own work is measured, the plan's download and
 * parse included.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { mkdirSync, readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { build } from 'vite';
import { makeBlock } from '../designer/src/plan/geometry.js';

const SEATS = Number(process.env.BENCH_SEATS ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const GOAL = { openMs: 1500, moveMs: 50 };
const PER_SECTOR = 500;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** A stadium of 500-seat sectors (10 rows x 50 seats), 10 sectors a line. */
function stadium(seats: number) {
  const count = Math.ceil(seats / PER_SECTOR);
  const sectors = Array.from({ length: count }, (_, b) =>
    makeBlock({ name: `Bloque ${b + 1}`, rows: 10, seatsPerRow: PER_SECTOR / 10, origin: { x: 40 + (b % 10) * 1600, y: 140 + Math.floor(b / 10) * 420 }, direction: 'ltr', parity: 'all', category: 'General' }),
  );
  return { name: 'Estadio', categories: [{ name: 'General', color: '#15803d' }], sectors };
}

async function serve(js: string, css: string, plan: unknown) {
  const planBody = JSON.stringify({ status: 200, success: true, message: 'OK', data: { version: 1, plan } });
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end(`<!doctype html><html><head><link rel="stylesheet" href="/designer.css"></head><body>
<div id="designer-root" data-venue-id="1" data-venue-name="Estadio" data-plan-url="/plan" data-csrf="bench"><p>Loading the designer…</p></div>
<script type="module" src="/designer.js"></script></body></html>`);
    }
    if (path === '/designer.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(js);
    if (path === '/designer.css') return res.writeHead(200, { 'content-type': 'text/css' }).end(css);
    if (path === '/plan') return res.writeHead(200, { 'content-type': 'application/json' }).end(planBody);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

async function main() {
  const root = new URL('../designer/', import.meta.url).pathname;
  await build({ configFile: `${root}vite.config.ts`, mode: 'production', logLevel: 'warn' });
  const js = readFileSync(`${root}dist/designer.js`, 'utf8');
  const css = readFileSync(`${root}dist/designer.css`, 'utf8');
  const plan = stadium(SEATS);
  const service = await serve(js, css, plan);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu'],
  });
  const opens: number[] = [];
  const moves: number[] = [];
  const load0 = loadavg();
  try {
    for (let run = 0; run < RUNS; run++) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await page.addInitScript('globalThis.__name = (f) => f;');
      // Interactive: the seat count shows every seat, the canvas has drawn every tile of the
      // opening view, and a frame has been painted; measured from navigation start.
      await page.addInitScript(`(() => {
        const seats = ${plan.sectors.length * PER_SECTOR};
        const poll = () => {
          const count = document.querySelector('[data-testid="seat-count"]');
          const canvas = document.querySelector('svg.canvas');
          if (count && Number(count.textContent) === seats && canvas && canvas.getAttribute('data-tiles') === canvas.getAttribute('data-tiles-total'))
            requestAnimationFrame(() => (globalThis.__open = performance.now()));
          else requestAnimationFrame(poll);
        };
        requestAnimationFrame(poll);
      })();`);
      await page.goto(`${service.origin}/`);
      await page.waitForFunction(() => (globalThis as unknown as { __open?: number }).__open !== undefined, null, { timeout: 120_000 });
      opens.push(await page.evaluate(() => (globalThis as unknown as { __open: number }).__open));

      // Select a 500-seat sector, focus the canvas, move the block with an arrow key: from the key
      // to the first frame painted after the designer's work (a task posted from the next frame).
      await page.getByRole('button', { name: 'Bloque 1', exact: true }).click();
      await page.waitForFunction(() => /500 selected/.test(document.querySelector('#designer-summary')?.textContent ?? ''), null, { timeout: 30_000 });
      await page.locator('svg.canvas').focus();
      const samples: number[] = [];
      for (let i = 0; i < 3; i++) {
        const ms = await page.evaluate(
          () =>
            new Promise<number>((resolve) => {
              const canvas = document.querySelector('svg.canvas') as SVGSVGElement;
              const t0 = performance.now();
              canvas.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true, cancelable: true }));
              // The designer renders on its own schedule (Preact batches state updates): wait for
              // the frame after its DOM changed, then for that frame to be painted.
              requestAnimationFrame(() => {
                const ch = new MessageChannel();
                ch.port1.onmessage = () => resolve(performance.now() - t0);
                ch.port2.postMessage(0);
              });
            }),
        );
        samples.push(ms);
        await page.waitForTimeout(100);
      }
      moves.push(median(samples));
      // The moves were made (each is one step of the history).
      if (!(await page.getByRole('button', { name: 'Undo' }).isEnabled())) throw new Error('the arrow keys moved nothing');
      if (run === 0) {
        mkdirSync('test-results/designer', { recursive: true });
        await page.screenshot({ path: `test-results/designer/bench-${SEATS}-seats.png` });
      }
      await page.close();
    }
  } finally {
    await browser.close();
    await service.close();
  }
  const open = median(opens);
  const move = median(moves);
  const mark = (v: number, goal: number) => `${((v / goal) * 100).toFixed(0)} % of goal ${v <= goal ? 'ok' : 'OVER'}`;
  console.log(`designer benchmark, ${plan.sectors.length * PER_SECTOR} seats in ${plan.sectors.length} sectors (load average ${load0.map((x) => x.toFixed(2)).join(' ')} at the start, ${loadavg().map((x) => x.toFixed(2)).join(' ')} at the end)`);
  console.log(`  open -> interactive  ${open.toFixed(0)} ms median of ${RUNS} (min ${Math.min(...opens).toFixed(0)}, max ${Math.max(...opens).toFixed(0)})   goal ${GOAL.openMs} ms   ${mark(open, GOAL.openMs)}`);
  console.log(`  move 500 seats       ${move.toFixed(0)} ms median of ${RUNS} (min ${Math.min(...moves).toFixed(0)}, max ${Math.max(...moves).toFixed(0)}): arrow key -> next painted frame   goal ${GOAL.moveMs} ms   ${mark(move, GOAL.moveMs)}`);
}

void main();
