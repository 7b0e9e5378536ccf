/**
 * `npm run bench:seat-page`: the storefront's seat page of a 5,000-seat session (issue 16) and of a
 * 20,000-seat one (issue 29), each printed beside its goal:
 * - its HTML size, plain and compressed (gzip and brotli, as a proxy or CDN would serve it), with
 *   the portal's script (portal/dist/portal.js, `npm run build:portal`) and portal.css;
 *   5,000 seats: budget 150 KB compressed HTML; 20,000 seats: at most 250 KB transferred (HTML,
 *   script and stylesheet, gzip);
 * - the server's time to render it (median of several requests);
 * - headless Chromium at a phone's size (390 x 844): from navigation to the page's seats being
 *   clickable (the script has run and drawn the cart, `#cart[data-ready]`, and the compact maps,
 *   `.sector.compact[data-ready]`), median of several
 *   loads; 20,000 seats: goal 1 s.
 * Embedded PGlite in memory, the bench catalogue of bench:catalogue (4 sectors of 25 rows x 50;
 * 20,000: 4 sectors of 50 rows x 100), 10 % of the seats sold. RUNS=n sets the runs (default 5);
 * SEATS=5000 or SEATS=20000 measures one size only.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import zlib from 'node:zlib';
import { chromium } from 'playwright-core';
import { seatPageApp } from './seat-page-app.js';

const BUDGET_BYTES = 150 * 1024;
const BIG_BUDGET_BYTES = 250 * 1024;
const BIG_READY_MS = 1000;
const RUNS = Number(process.env.RUNS ?? 5);
const SIZES = process.env.SEATS ? [Number(process.env.SEATS)] : [5000, 20000];

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const gzip = (b: Buffer | string) => zlib.gzipSync(b, { level: 6 }).length;
const brotli = (b: Buffer | string) => zlib.brotliCompressSync(b, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 5 } }).length;

async function measure(size: number) {
  const { app, path } = await seatPageApp(size);

  const render: number[] = [];
  let html = '';
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    const res = await app.inject({ url: path });
    render.push(performance.now() - t0);
    if (res.statusCode !== 200) throw new Error(`seat page: ${res.statusCode}`);
    html = res.body;
  }
  // Seats as buttons, or in the compact map's seat list.
  const buttons = (html.match(/data-seat=/g) ?? []).length;

  // The page in a browser at a phone's size: navigation start to the seats taking clicks.
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  const ready: number[] = [];
  try {
    for (let i = 0; i < RUNS; i++) {
      const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
      await page.goto(`${address.replace('localhost', '127.0.0.1')}${path}`, { waitUntil: 'load' });
      // The script marks the cart once it has run and drawn it, and each compact map once it is drawn
      // (its chunk loaded): the page is interactive from then on.
      await page.waitForFunction(() => document.querySelector('#cart[data-ready]') && !document.querySelector('.sector.compact:not([data-ready])'), undefined, { timeout: 60_000 });
      ready.push(await page.evaluate(() => performance.now()));
      await page.close();
    }
  } finally {
    await browser.close();
    await app.close();
  }
  return { size, html, buttons, render, ready };
}

async function main() {
  const dist = new URL('../portal/dist/', import.meta.url);
  const js = readFileSync(new URL('portal.js', dist));
  const chunks = readdirSync(dist).filter((f) => f !== 'portal.js' && f.endsWith('.js'));
  const css = readFileSync(new URL('../portal/portal.css', import.meta.url));
  const assets = gzip(js) + gzip(css);
  const compactChunk = chunks.filter((f) => f.includes('compact')).reduce((n, f) => n + gzip(readFileSync(new URL(f, dist))), 0);
  console.log(`seat page benchmark (load average ${loadavg()[0]!.toFixed(1)} on this machine: times scale with it; ${RUNS} runs)`);
  console.log(`  assets          portal.js ${kb(gzip(js))} gzip (${kb(js.length)} plain; loaded on demand: ${chunks.join(', ') || 'nothing'}), portal.css ${kb(gzip(css))} gzip`);
  for (const size of SIZES) {
    const { html, buttons, render, ready } = await measure(size);
    const compressed = Math.max(gzip(html), brotli(html));
    // A compact map's page also loads the map's chunk.
    const transferred = gzip(html) + assets + (buttons ? 0 : compactChunk);
    console.log(`  ${size} seats (${buttons ? `${buttons} seat buttons` : 'compact map'}; load average now ${loadavg()[0]!.toFixed(1)})`);
    console.log(`    page          HTML ${kb(html.length)} plain, ${kb(gzip(html))} gzip, ${kb(brotli(html))} brotli; page + assets ${kb(transferred)} gzip`);
    if (size <= 5000) console.log(`    budget        ${kb(BUDGET_BYTES)} compressed HTML: ${((compressed / BUDGET_BYTES) * 100).toFixed(0)} % of it${compressed > BUDGET_BYTES ? '  OVER BUDGET' : ''}`);
    else console.log(`    goal          at most ${kb(BIG_BUDGET_BYTES)} transferred: ${((transferred / BIG_BUDGET_BYTES) * 100).toFixed(0)} % of it${transferred > BIG_BUDGET_BYTES ? '  OVER' : ''}`);
    console.log(`    server render ${median(render).toFixed(0)} ms median of ${RUNS} (min ${Math.min(...render).toFixed(0)})`);
    console.log(`    browser ready ${median(ready).toFixed(0)} ms median of ${RUNS} (${ready.map((r) => r.toFixed(0)).join(', ')}): navigation to seats clickable at 390x844, local server${size > 5000 ? `; goal ${BIG_READY_MS} ms${median(ready) > BIG_READY_MS ? '  OVER' : ''}` : ''}`);
  }
}

void main();
