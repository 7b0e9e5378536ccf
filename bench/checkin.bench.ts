// Check-in benchmark (issue 18): `npm run bench:checkin`, on PostgreSQL.
//
// 1. Online scans per second with many devices at once: BENCH_DEVICES gates (default 20), each its
//    own device token and keep-alive connection, scanning a stadium's tickets (one scan in ten is a
//    ticket already in, which must answer already_used). Printed: scans/s, p50/p99 latency, and the
//    check that every ticket got exactly one `valid`.
// 2. The full list download of BENCH_TICKETS tickets (default 50,000) in pages of 5,000 with gzip,
//    as a device does when set up: total time and compressed size (targets: < 5 s, < 3 MB).
// 3. The scanner's offline verification time per ticket in headless Chromium (Ed25519 with
//    WebCrypto, IndexedDB look-ups): bench/checkin-scanner.bench.ts, also `npm run bench:checkin:scanner`.
//
// The service runs in this process (the load generator shares its 2 cores): figures are a floor.
// Environment: BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres), BENCH_DEVICES,
// BENCH_TICKETS, BENCH_SCANS (online scans, default 10,000), DB_POOL_SIZE (default 10).
import http from 'node:http';
import os from 'node:os';
import zlib from 'node:zlib';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase, queryRows } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { loadDemoDataIfEmpty } from '../src/demo/demo-data.js';
import { CLI_ACTOR } from '../src/platform/actor.js';
import { createDeviceAs, createListAs } from '../src/modules/checkin/checkin-admin.service.js';
import { qrSecretOf } from '../src/modules/tickets/ticket-keys.service.js';
import { ticketsOfOrder } from '../src/modules/tickets/tickets.repo.js';
import { bulkTickets } from '../test/checkin/bulk-tickets.js';
import { freshDatabase } from './bench-processes.js';
import { measureScanner } from './checkin-scanner.bench.js';

const PG_URL = process.env.BENCH_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const DEVICES = Number(process.env.BENCH_DEVICES || 20);
const TICKETS = Number(process.env.BENCH_TICKETS || 50_000);
const SCANS = Number(process.env.BENCH_SCANS || 10_000);
const POOL_SIZE = Number(process.env.DB_POOL_SIZE || 10);
const RESCAN = 0.1;

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : 0);

/** GET with gzip accepted: the compressed size on the wire and the decoded body. */
function getRaw(url: string, token: string): Promise<{ wire: number; raw: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { authorization: `Bearer ${token}`, 'accept-encoding': 'gzip' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          resolve({ wire: body.length, raw: res.headers['content-encoding'] === 'gzip' ? zlib.gunzipSync(body) : body });
        });
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

/** Ms per ticket of offline verification in the browser (the scanner bench prints its other figures). */
async function offlineVerification(): Promise<number | null> {
  return (await measureScanner()).verifyMs;
}

async function main() {
  const fresh = await freshDatabase(PG_URL, `taquilla_bench_checkin_${process.pid}`);
  const database = await openDatabase({ url: fresh.url, poolSize: POOL_SIZE });
  try {
    await migrate(database);
    const config = loadConfig({
      APP_ENV: 'test',
      PUBLIC_BASE_URL: 'http://127.0.0.1',
      CHECKIN_RATE_LIMIT_PER_DEVICE_PER_MINUTE: '1000000',
    });
    const app = await buildApp({ config, database, logger: false });
    await loadDemoDataIfEmpty(app.ctx);
    await app.ready();
    const ctx = app.ctx;

    // A session moved to start in an hour, with TICKETS sold tickets.
    const [session] = await queryRows<{ id: number; organiser_id: number }>(
      ctx.db,
      sql`SELECT s.id, e.organiser_id FROM sessions s JOIN events e ON e.id = s.event_id ORDER BY s.start_datetime, s.id LIMIT 1`,
    );
    await ctx.db.execute(sql`UPDATE sessions SET start_datetime = now() + interval '1 hour' WHERE id = ${session!.id}`);
    let t0 = performance.now();
    await bulkTickets(ctx.db, { sessionId: session!.id, n: TICKETS, currency: config.currency, tag: 'bench' });
    console.log(`setup: ${TICKETS} tickets written in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const list = await createListAs(ctx, CLI_ACTOR, { organiser_id: session!.organiser_id, name: 'Stadium', session_ids: [session!.id] });
    const tokens: string[] = [];
    for (let i = 0; i < DEVICES; i++) tokens.push((await createDeviceAs(ctx, CLI_ACTOR, { name: `Gate ${i + 1}`, list_ids: [list.id] })).token);
    const orders = await queryRows<{ id: string }>(ctx.db, sql`SELECT id FROM orders WHERE order_token LIKE 'bulk-bench-%' ORDER BY id`);
    t0 = performance.now();
    const secrets: { id: number; secret: string }[] = [];
    for (const o of orders) {
      for (const doc of await ticketsOfOrder(ctx.db, Number(o.id))) secrets.push({ id: doc.id, secret: await qrSecretOf(ctx, doc) });
      if (secrets.length >= SCANS) break;
    }
    console.log(`setup: ${secrets.length} secrets signed in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const base = `${address}/api/checkin/v1/lists/${list.id}`;

    // ---- 1. online scans
    let next = 0;
    const scanned: { id: number; secret: string }[] = [];
    const latencies: number[] = [];
    const results = new Map<number, string[]>();
    let errors = 0;
    let counter = 0;
    const pick = (): { id: number; secret: string } | null => {
      counter++;
      if (scanned.length > 0 && (counter * 7919) % 100 < RESCAN * 100) return scanned[(counter * 104729) % scanned.length]!;
      if (next >= secrets.length) return null;
      const s = secrets[next++]!;
      scanned.push(s);
      return s;
    };
    const gate = async (token: string) => {
      for (let s = pick(); s; s = pick()) {
        const start = performance.now();
        const res = await fetch(`${base}/scans`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ secret: s.secret }),
        });
        latencies.push(performance.now() - start);
        if (res.status !== 200) {
          errors++;
          await res.text();
          continue;
        }
        const body = (await res.json()) as { result: string };
        results.set(s.id, [...(results.get(s.id) ?? []), body.result]);
      }
    };
    t0 = performance.now();
    await Promise.all(tokens.map(gate));
    const seconds = (performance.now() - t0) / 1000;
    const total = latencies.length;
    latencies.sort((a, b) => a - b);
    const oneValid = [...results.values()].every((r) => r.filter((x) => x === 'valid').length === 1 && r.slice(1).every((x) => x === 'already_used'));
    console.log(
      `online scans: ${(total / seconds).toFixed(0)} scans/s with ${DEVICES} devices (${total} scans in ${seconds.toFixed(1)} s, ` +
        `p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, errors ${errors}); ` +
        `exactly one valid per ticket: ${oneValid ? 'yes' : 'NO'}`,
    );

    // ---- 2. the full list download
    const download = async () => {
      let cursor = '';
      let bytes = 0;
      let count = 0;
      const start = performance.now();
      for (;;) {
        // node:http, not fetch: fetch would undo the gzip, and the bytes on the wire are the figure.
        const { wire, raw } = await getRaw(`${base}/tickets?limit=5000${cursor ? `&cursor=${cursor}` : ''}`, tokens[0]!);
        bytes += wire;
        const page = JSON.parse(raw.toString()) as { tickets: unknown[]; next_cursor: string; has_more: boolean };
        count += page.tickets.length;
        cursor = page.next_cursor;
        if (!page.has_more) break;
      }
      return { ms: performance.now() - start, bytes, count };
    };
    await download(); // warm-up (plans, caches)
    const runs = [await download(), await download(), await download()].sort((a, b) => a.ms - b.ms);
    const median = runs[1]!;
    console.log(
      `full list download: ${median.count} tickets in ${(median.ms / 1000).toFixed(2)} s (median of 3; target < 5 s), ` +
        `${(median.bytes / 1024 / 1024).toFixed(2)} MB gzip (target < 3 MB), ${(median.bytes / median.count).toFixed(1)} bytes per ticket`,
    );

    // ---- 3. offline verification (scanner branch)
    const perTicket = await offlineVerification();
    console.log(`offline verification in the browser: ${perTicket === null ? 'measured by the scanner branch (not merged here)' : `${perTicket.toFixed(3)} ms per ticket`}`);
    console.log(`machine: ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    await app.close();
  } finally {
    await database.close().catch(() => {});
    await fresh.drop();
  }
}

await main();
