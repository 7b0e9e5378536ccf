// npm run bench:webhooks : how fast the webhook worker (D51) drains a backlog. BENCH_EVENTS (10,000)
// events are written to the outbox of demo-d in one statement, with an endpoint subscribed; then
// the worker's passes (deliverDueWebhooks, what the scheduler runs every 2 s) send them to a local
// receiver until none is left; prints deliveries per second. Two workers side by side (two
// instances) are measured too. PostgreSQL (BENCH_PG_URL or TEST_PG_URL). Not part of npm test.
//
// The receiver runs in a child process (this file with --receiver), so that it does not share the
// worker's event loop; it verifies nothing (verification is the tests' business) and answers 200.
// Each event's data is the D35 view of a real completed order of two seats (about 1 KB), as an
// order.completed would carry; the view is rendered once per event, at its first attempt.
import { fork } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { loadDemoDataIfEmpty } from '../src/demo/demo-data.js';
import { closeOrder } from '../src/modules/checkout/closing.service.js';
import { CLI_ACTOR } from '../src/platform/actor.js';
import { deliverDueWebhooks } from '../src/modules/webhooks/webhooks.delivery.js';
import { createEndpointAs } from '../src/modules/webhooks/webhooks.service.js';
import { freshDatabase } from './bench-processes.js';

const SERVER_URL = process.env.BENCH_PG_URL || process.env.TEST_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const EVENTS = Number(process.env.BENCH_EVENTS || 10_000);
const POOL = Number(process.env.BENCH_POOL || 10);


function receiver() {
  let count = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      count++;
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as { port: number }).port }));
  process.on('message', () => {
    process.send!({ count });
    process.exit(0);
  });
}

async function main() {
  const child = fork(fileURLToPath(import.meta.url), ['--receiver'], { execArgv: process.execArgv, stdio: 'inherit' });
  const port = await new Promise<number>((resolve) => child.once('message', (m: { port: number }) => resolve(m.port)));
  const name = `taquilla_bench_webhooks_${process.pid}`;
  const fresh = await freshDatabase(SERVER_URL, name);
  const database = await openDatabase({ url: fresh.url, poolSize: POOL });
  const pool = new pg.Pool({ connectionString: fresh.url, max: 2 });
  pool.on('error', () => {});
  try {
    await migrate(database);
    const config = loadConfig({ APP_ENV: 'test', PUBLIC_BASE_URL: 'http://localhost:3000', LOG_LEVEL: 'silent', DB_POOL_SIZE: String(POOL) });
    const app = await buildApp({ config, database, logger: false });
    // A second instance: its own app and its own connection pool on the same database.
    const database2 = await openDatabase({ url: fresh.url, poolSize: POOL });
    const second = await buildApp({ config, database: database2, logger: false });
    await loadDemoDataIfEmpty(app.ctx);
    const { rows: [channel] } = await pool.query<{ id: number }>(`SELECT id FROM sales_channels WHERE slug = 'demo-d'`);
    await createEndpointAs(app.ctx, CLI_ACTOR, channel!.id, { url: `http://127.0.0.1:${port}/hooks`, event_types: ['order.completed'] });

    // One real completed order of two seats: its D35 view is each event's data.
    const { rows: seats } = await pool.query<{ id: number; session_id: number; sector_id: number; event_id: number; rate_id: number; price: number }>(
      `SELECT ss.id, ss.session_id, ss.sector_id, s.event_id, r.id AS rate_id, r.price FROM session_seats ss JOIN sessions s ON s.id = ss.session_id
       JOIN LATERAL (SELECT id, price FROM rates WHERE session_id = ss.session_id ORDER BY sort_order LIMIT 1) r ON true
       WHERE ss.status = 'available' AND ss.seat_id IS NOT NULL ORDER BY ss.id LIMIT 2`,
    );
    const now = new Date();
    const { rows: [order] } = await pool.query<{ id: string }>(
      `INSERT INTO orders (order_token, reference, channel_id, status, lang, currency, base_amount, total_amount, expires_at, created_at, updated_at)
       VALUES ('bench-webhooks', 'TQ-BENCH', $1, 'pending', 'es', 'EUR', $2, $2, $3, $4, $4) RETURNING id`,
      [channel!.id, seats[0]!.price + seats[1]!.price, new Date(now.getTime() + 3600_000), now],
    );
    for (const s of seats) {
      await pool.query(
        `INSERT INTO order_items (order_id, event_id, session_id, sector_id, session_seat_id, rate_id, base_amount, total_amount, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8)`,
        [order!.id, s.event_id, s.session_id, s.sector_id, s.id, s.rate_id, s.price, now],
      );
      await pool.query(`UPDATE session_seats SET status = 'held', order_id = $1, hold_expires_at = $2 WHERE id = $3`, [order!.id, new Date(now.getTime() + 3600_000), s.id]);
    }
    await closeOrder(app.ctx, { orderId: Number(order!.id), buyer: { name: 'Ana', surname: 'García', email: 'ana@example.com' } });

    console.log(`webhook backlog benchmark: ${EVENTS} order.completed events to one endpoint on a local receiver (child process), PostgreSQL, pool of ${POOL}`);
    console.log(`  machine: ${os.cpus().length} CPUs, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} (figures are only comparable at a low load)`);
    const backlog = async () => {
      await pool.query(`DELETE FROM webhook_events`);
      await pool.query(
        `SELECT webhook_enqueue($1, 'order.completed', $2, NULL, $3, 'es', NULL) FROM generate_series(1, $4)`,
        [channel!.id, new Date(), order!.id, EVENTS],
      );
    };
    const drain = async (workers: ((now: Date) => Promise<number>)[]) => {
      const started = process.hrtime.bigint();
      let delivered = 0;
      // Passes until nothing is due, as the scheduler would run them (each pass drains what is due).
      for (;;) {
        const counts = await Promise.all(workers.map((w) => w(new Date())));
        const n = counts.reduce((a, b) => a + b, 0);
        delivered += n;
        if (n === 0) break;
      }
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      return { delivered, seconds };
    };
    for (const [label, workers] of [
      ['one worker', [(now: Date) => deliverDueWebhooks(app.ctx, { now })]],
      ['two workers (two app instances with their own pools, one database)', [(now: Date) => deliverDueWebhooks(app.ctx, { now }), (now: Date) => deliverDueWebhooks(second.ctx, { now })]],
    ] as const) {
      await backlog();
      const r = await drain([...workers]);
      const { rows: [left] } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM webhook_deliveries WHERE status <> 'delivered'`);
      console.log(`  ${label}: ${r.delivered} delivered in ${r.seconds.toFixed(1)} s = ${(r.delivered / r.seconds).toFixed(0)} deliveries/s (not delivered: ${left!.n})`);
    }
    const received = await new Promise<number>((resolve) => {
      child.once('message', (m: { count: number }) => resolve(m.count));
      child.send('stop');
    });
    console.log(`  the receiver got ${received} requests (${2 * EVENTS} expected: each event exactly once per run)`);
    await second.close();
    await database2.close();
    await app.close();
  } finally {
    await pool.end();
    await database.close();
    await fresh.drop();
  }
}

(process.argv.includes('--receiver') ? Promise.resolve(receiver()) : main()).catch((err) => {
  console.error(err);
  process.exit(1);
});
