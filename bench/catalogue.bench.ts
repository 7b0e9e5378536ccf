/**
 * Session detail under load vs. a bare Fastify route serving the same bytes.
 *
 *   npm run bench:catalogue                      # embedded PGlite (in memory)
 *   DATABASE_URL=postgres://... npm run bench:catalogue   # a PostgreSQL server (an empty database)
 *   BENCH_SECONDS=10 BENCH_CONNECTIONS=50        # defaults
 *
 * Both servers run in this process; autocannon (in a worker thread) loads them in alternating
 * rounds of 2 s after a short warm-up, with `Accept-Encoding: br, gzip`. Target: ratio >= 0.85. Payload budget:
 * 150 KB compressed for 5,000 seats.
 */
import crypto from 'node:crypto';
import { performance } from 'node:perf_hooks';
import zlib from 'node:zlib';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { sql } from 'drizzle-orm';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase, queryRows } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { importCatalogue } from '../src/modules/catalogue/import.service.js';
import { benchCatalogue } from './bench-catalogue.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const ROUND_SECONDS = 2;
const SEATS = 5_000;
const TARGET_RATIO = 0.85;
const BUDGET_BYTES = 150 * 1024;

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;

interface Figures {
  /** Main-thread busy time per request (µs): less sensitive to a busy machine than requests/s. */
  busyUs: number;
  rps: number;
  p99: number;
  total: number;
  errors: number;
  timeouts: number;
}

async function run(url: string, headers: Record<string, string>, seconds: number): Promise<Figures> {
  // The load generator runs in a worker thread, so that it does not share the servers' event loop.
  const before = performance.eventLoopUtilization();
  const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds, headers, workers: 1 });
  const busy = performance.eventLoopUtilization(before).active;
  if (result.non2xx > 0) throw new Error(`${url}: ${result.non2xx} non-2xx answers`);
  return { busyUs: (busy * 1000) / Math.max(1, result.requests.total), rps: result.requests.average, p99: result.latency.p99, total: result.requests.total, errors: result.errors, timeouts: result.timeouts };
}

/**
 * Alternates short rounds on both targets, so that both see the same background load of the
 * machine; requests/s over all rounds, p99 as the median of the rounds' p99.
 */
async function compare(a: string, b: string, headers: Record<string, string>) {
  const rounds = Math.max(1, Math.round(SECONDS / ROUND_SECONDS));
  const results: [Figures[], Figures[]] = [[], []];
  for (let i = 0; i < rounds; i++) {
    results[0].push(await run(a, headers, ROUND_SECONDS));
    results[1].push(await run(b, headers, ROUND_SECONDS));
  }
  const sum = (list: Figures[]): Figures => {
    const p99s = list.map((f) => f.p99).sort((x, y) => x - y);
    const total = list.reduce((n, f) => n + f.total, 0);
    return {
      busyUs: list.reduce((n, f) => n + f.busyUs * f.total, 0) / Math.max(1, total),
      rps: total / (list.length * ROUND_SECONDS),
      p99: p99s[Math.floor(p99s.length / 2)]!,
      total,
      errors: list.reduce((n, f) => n + f.errors, 0),
      timeouts: list.reduce((n, f) => n + f.timeouts, 0),
    };
  };
  return [sum(results[0]), sum(results[1])] as const;
}

async function main() {
  const url = process.env.DATABASE_URL;
  const database = await openDatabase(url ? { url, poolSize: 10 } : { pgliteDir: 'memory://' });
  await migrate(database);
  const config = loadConfig({ APP_ENV: 'test', DEMO_DATA: 'false', LOG_LEVEL: 'warn', ...(url ? { DATABASE_URL: url } : {}) });
  const app = await buildApp({ config, database, logger: false });
  const suffix = crypto.randomBytes(3).toString('hex');
  const slug = `bench-${suffix}`;
  const key = `wk_bench_${suffix}`;
  await importCatalogue(app.ctx, benchCatalogue(slug, key, 'widget_external_payment'));
  const [session] = await queryRows<{ id: number; event_id: number }>(
    app.ctx.db,
    sql`SELECT s.id, s.event_id FROM sessions s JOIN channel_events ce ON ce.event_id = s.event_id
        JOIN sales_channels c ON c.id = ce.channel_id WHERE c.slug = ${slug}`,
  );
  // A realistic mix: 10 % sold, 5 % held (for an hour), a few blocked.
  await app.ctx.db.execute(sql`UPDATE session_seats SET status = 'sold' WHERE session_id = ${session!.id} AND seat_id IS NOT NULL AND id % 10 = 0`);
  // Held rows name the cart that holds them (a CHECK of the cart's migration): one bench cart.
  const [cart] = await queryRows<{ id: number }>(
    app.ctx.db,
    sql`INSERT INTO orders (order_token, reference, channel_id, currency)
        SELECT ${`bench-cart-${suffix}`}, ${`TQ-BENCH${suffix}`}, id, 'EUR' FROM sales_channels WHERE slug = ${slug} RETURNING id`,
  );
  await app.ctx.db.execute(sql`UPDATE session_seats SET status = 'held', order_id = ${cart!.id}, hold_expires_at = now() + interval '1 hour'
    WHERE session_id = ${session!.id} AND seat_id IS NOT NULL AND id % 20 = 3`);
  await app.ctx.db.execute(sql`UPDATE session_seats SET status = 'blocked' WHERE session_id = ${session!.id} AND seat_id IS NOT NULL AND id % 97 = 5`);
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address() as { port: number };

  const tokenRes = await app.inject({ method: 'POST', url: '/api/sales-channel/v1/auth/token', payload: { sales_channel_slug: slug, widget_key: key } });
  const token = tokenRes.json().data.access_token as string;
  const path = `/api/sales-channel/v1/${slug}/es/events/${session!.event_id}/sessions/${session!.id}`;
  const headers = { authorization: `Bearer ${token}`, 'accept-encoding': 'br, gzip' };

  // Sizes, and the exact bytes and headers the baseline will serve.
  const plain = await app.inject({ url: path, headers: { authorization: headers.authorization } });
  const gz = await app.inject({ url: path, headers: { authorization: headers.authorization, 'accept-encoding': 'gzip' } });
  const br = await app.inject({ url: path, headers });
  if (plain.statusCode !== 200 || br.headers['content-encoding'] !== 'br') throw new Error(`session detail: ${plain.statusCode} ${plain.body.slice(0, 200)}`);
  const seats = plain.json().data.elements.seats.length;
  const sameJson = zlib.brotliDecompressSync(br.rawPayload).equals(plain.rawPayload) && zlib.gunzipSync(gz.rawPayload).equals(plain.rawPayload);

  const bare = Fastify({ logger: false });
  const copied = ['content-type', 'content-encoding', 'etag', 'cache-control', 'vary'] as const;
  bare.get(path, async (_request, reply) => {
    for (const h of copied) reply.header(h, br.headers[h] as string);
    return reply.send(br.rawPayload);
  });
  await bare.listen({ host: '127.0.0.1', port: 0 });
  const bareAddress = bare.server.address() as { port: number };

  const oursUrl = `http://127.0.0.1:${address.port}${path}`;
  const bareUrl = `http://127.0.0.1:${bareAddress.port}${path}`;
  console.log(`database: ${database.kind}; ${seats} seats; ${CONNECTIONS} connections, ${SECONDS} s each in rounds of ${ROUND_SECONDS} s`);
  await run(oursUrl, headers, 2); // warm-up: JIT, compressed version, token cache
  await run(bareUrl, headers, 2);
  const [ours, baseline] = await compare(oursUrl, bareUrl, headers);
  const ratio = ours.rps / baseline.rps;

  console.log('');
  console.log(`session detail   ${ours.rps.toFixed(0).padStart(7)} req/s   p99 ${ours.p99} ms   (${ours.total} requests, ${ours.errors} errors, ${ours.timeouts} timeouts)`);
  console.log(`bare Fastify     ${baseline.rps.toFixed(0).padStart(7)} req/s   p99 ${baseline.p99} ms   (${baseline.total} requests, ${baseline.errors} errors, ${baseline.timeouts} timeouts)`);
  console.log(`main thread busy ${ours.busyUs.toFixed(0)} µs/request vs ${baseline.busyUs.toFixed(0)} µs/request (bare)`);
  console.log(`ratio            ${ratio.toFixed(3)}   (target >= ${TARGET_RATIO}) ${ratio >= TARGET_RATIO ? 'OK' : 'BELOW TARGET'}`);
  console.log('');
  console.log(`payload          plain ${kb(plain.rawPayload.length)} / gzip ${kb(gz.rawPayload.length)} / brotli ${kb(br.rawPayload.length)}`);
  const compressed = Math.max(gz.rawPayload.length, br.rawPayload.length);
  console.log(`budget           ${kb(BUDGET_BYTES)} compressed for ${SEATS} seats: ${compressed <= BUDGET_BYTES ? 'OK' : 'OVER BUDGET'}; encodings decode to the same JSON: ${sameJson}`);

  await bare.close();
  await app.close();
  await database.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
