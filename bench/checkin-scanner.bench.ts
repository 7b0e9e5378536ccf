/**
 * `npm run bench:checkin:scanner` (and part 3 of `npm run bench:checkin`): the scanner's own work
 * in headless Chromium (issue 18).
 * - the list download into IndexedDB: 50,000 tickets in pages of 5,000, from set-up to all stored;
 * - offline verification per ticket (`Scanner.verifyOffline`: parse, Ed25519 verify with WebCrypto,
 *   IndexedDB look-ups of the ticket and its local entry, the decision);
 * - a whole offline scan per ticket (the above plus recording the scan and entry in IndexedDB and
 *   the answer on screen);
 * - the bare WebCrypto Ed25519 verify, for reference.
 * The API is a local synthetic one serving the built app and answering like /api/checkin/v1, so
 * the browser's work is measured, not a database (bench/checkin.bench.ts of the API measures that).
 */
import { loadavg } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fastifyStatic from '@fastify/static';
import Fastify from 'fastify';
import { chromium } from 'playwright-core';
import { build } from 'vite';
import { toB64url } from '../checkin/src/secret.js';

const TICKETS = 50_000;
const PAGE = 5_000;
const SCANS = 2_000;
const SESSION = 77;
const KID = 'be9c0001';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export interface ScannerFigures {
  downloadMs: number;
  /** Offline verification, ms per ticket: median of 3 runs, and each run. */
  verifyMs: number;
  verifyRuns: number[];
  ed25519Ms: number;
  scanMs: number;
}

/** Runs the measurements, prints them, and returns them (bench/checkin.bench.ts quotes them). */
export async function measureScanner(): Promise<ScannerFigures> {
  const root = fileURLToPath(new URL('../checkin/', import.meta.url));
  await build({ configFile: `${root}vite.config.ts`, logLevel: 'warn' });

  const pair = (await crypto.subtle.generateKey({ name: 'Ed25519' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  const publicKey = toB64url(new Uint8Array(await crypto.subtle.exportKey('raw', pair.publicKey)));
  const sign = async (ticketId: number) => {
    const head = `tq2.${KID}.${Buffer.from(`${ticketId}:${SESSION}:1`).toString('base64url')}`;
    return `${head}.${toB64url(new Uint8Array(await crypto.subtle.sign({ name: 'Ed25519' }, pair.privateKey, new TextEncoder().encode(head))))}`;
  };
  // Tickets spread over the list, scanned in a shuffled order as they come to the door.
  const scanned = Array.from({ length: SCANS }, (_, i) => 1 + ((i * 7919) % TICKETS));
  const secrets = await Promise.all(scanned.map(sign));

  const app = Fastify({ logger: false });
  await app.register(fastifyStatic, { root: `${root}dist/`, prefix: '/checkin/' });
  const device = {
    device: { id: 1, name: 'Bench gate' },
    lists: [{ id: 1, name: 'Bench list', allow_reentry: false, opens_minutes_before: 100_000, sessions: [{ id: SESSION, event_name: 'Bench', starts_at: new Date().toISOString() }], sector_ids: null }],
    public_keys: [{ kid: KID, public_key: publicKey }],
  };
  app.get('/api/checkin/v1/device', async () => ({ ...device, server_time: new Date().toISOString() }));
  app.get('/api/checkin/v1/lists/1/tickets', async (request) => {
    const from = Number((request.query as { cursor?: string }).cursor ?? 0);
    const to = Math.min(TICKETS, from + PAGE);
    const tickets = [];
    for (let id = from + 1; id <= to; id++) {
      tickets.push({ id, kid: KID, v: 1, session_id: SESSION, sector: 'Platea', row: String(1 + (id % 40)), seat: String(1 + (id % 30)), zone: null, rate: 'General', buyer_name: `Titular ${id}`, status: 'valid' });
    }
    return { tickets, next_cursor: String(to), has_more: to < TICKETS };
  });
  app.get('/api/checkin/v1/lists/1/status', async () => ({ sold: TICKETS, checked_in: 0, per_device: [] }));
  const origin = (await app.listen({ port: 0, host: '127.0.0.1' })).replace('localhost', '127.0.0.1');

  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu'],
  });
  try {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    await context.addInitScript('globalThis.__name = (f) => f;');
    const page = await context.newPage();
    const t0 = Date.now();
    await page.goto(`${origin}/checkin/#setup=bench_device_token_0123456789`);
    await page.waitForFunction((n) => document.querySelector('[data-tickets]')?.textContent === String(n), TICKETS, { timeout: 300_000 });
    const downloadMs = Date.now() - t0;

    await context.setOffline(true);
    const result = await page.evaluate(async ({ codes, pub }) => {
      type S = {
        list(): unknown;
        verifyOffline(text: string, list: unknown, d: 'entry'): Promise<{ result: string }>;
        scan(text: string): Promise<{ result: string } | undefined>;
        dismiss(): void;
      };
      const scanner = (window as unknown as { __scanner: S }).__scanner;
      const list = scanner.list();
      const runs: number[] = [];
      let valid = 0;
      for (let run = 0; run < 3; run++) {
        const t = performance.now();
        for (const code of codes) if ((await scanner.verifyOffline(code, list, 'entry')).result === 'valid') valid++;
        runs.push((performance.now() - t) / codes.length);
      }
      // The bare signature check: parse-free, the key imported once.
      const key = await crypto.subtle.importKey('raw', Uint8Array.from(atob(pub.replace(/-/g, '+').replace(/_/g, '/') + '='), (c) => c.charCodeAt(0)), { name: 'Ed25519' }, false, ['verify']);
      const parts = codes.map((c) => {
        const cut = c.lastIndexOf('.');
        const sig = c.slice(cut + 1).replace(/-/g, '+').replace(/_/g, '/');
        return { data: new TextEncoder().encode(c.slice(0, cut)), sig: Uint8Array.from(atob(sig + '=='), (ch) => ch.charCodeAt(0)) };
      });
      let t = performance.now();
      for (const p of parts) await crypto.subtle.verify({ name: 'Ed25519' }, key, p.sig, p.data);
      const verifyOnly = (performance.now() - t) / parts.length;
      // Whole offline scans (recorded, queued, shown) of the first 500.
      const some = codes.slice(0, 500);
      t = performance.now();
      let admitted = 0;
      for (const code of some) if ((await scanner.scan(code))?.result === 'valid') admitted++;
      const scanMs = (performance.now() - t) / some.length;
      scanner.dismiss();
      return { runs, valid, verifyOnly, scanMs, admitted, pending: document.querySelector('[data-pending]')?.textContent };
    }, { codes: secrets, pub: publicKey });
    const load = loadavg().map((l) => l.toFixed(2)).join(' ');
    console.log(`checkin scanner bench (headless Chromium, ${TICKETS} tickets in the list, load average ${load})`);
    console.log(`  list download into IndexedDB: ${TICKETS} tickets in ${(downloadMs / 1000).toFixed(2)} s (set-up included)`);
    console.log(`  offline verification: ${median(result.runs).toFixed(3)} ms per ticket (median of 3 runs of ${SCANS}; runs ${result.runs.map((r) => r.toFixed(3)).join(', ')}); ${result.valid / 3} of ${SCANS} valid`);
    console.log(`  WebCrypto Ed25519 verify alone: ${result.verifyOnly.toFixed(3)} ms per ticket`);
    console.log(`  whole offline scan (verify + record + queue + answer): ${result.scanMs.toFixed(3)} ms per ticket; ${result.admitted} of 500 admitted; ${result.pending} queued`);
    return { downloadMs, verifyMs: median(result.runs), verifyRuns: result.runs, ed25519Ms: result.verifyOnly, scanMs: result.scanMs };
  } finally {
    await browser.close();
    await app.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  measureScanner().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
