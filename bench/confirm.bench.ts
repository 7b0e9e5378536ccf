// npm run bench:confirm : confirms per second of fresh one-seat orders with many concurrent clients,
// against the same closing statements issued directly through a pg pool (the baseline), on
// PostgreSQL (BENCH_PG_URL or TEST_PG_URL, default postgres://postgres@127.0.0.1:5432/postgres).
// Five rounds (BENCH_ROUNDS) of every path on fresh orders; medians printed. Also: ticket PDF render
// time per ticket. Not part of npm test.
//
// The service answering the HTTP confirms runs in a child process (this file with --server), as in
// bench:holds, so that the load generator (autocannon) does not share the service's event loop.
//
// demo-b has a webhook endpoint subscribed to order.completed (D51), so that every closing really
// writes its outbox event and delivery (nothing delivers them: no worker runs here).
// BENCH_WEBHOOK=0 leaves the channel without one, to compare.
import { fork, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import autocannon from 'autocannon';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { loadDemoDataIfEmpty } from '../src/demo/demo-data.js';
import { TICKET_EMAIL_MODES } from '../src/lib/integration-policy.js';
import { newTicketCode } from '../src/modules/tickets/tickets.service.js';
import { renderTicketPdf } from '../src/modules/tickets/tickets.pdf.js';
import { qrSecretOf } from '../src/modules/tickets/ticket-keys.service.js';
import { ticketsOfOrder } from '../src/modules/tickets/tickets.repo.js';
import type { AppContext } from '../src/app-context.js';
import { closeOrder } from '../src/modules/checkout/closing.service.js';
import { buildOrderView, orderViewFromRows } from '../src/modules/orders/orders.view.js';
import { CLI_ACTOR } from '../src/platform/actor.js';
import { createEndpointAs } from '../src/modules/webhooks/webhooks.service.js';
import { freshDatabase } from './bench-processes.js';

const SERVER_URL = process.env.BENCH_PG_URL || process.env.TEST_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const ORDERS = Number(process.env.BENCH_ORDERS || 1000); // per run; the demo has 2280 sellable units, handed back before each run
const ROUNDS = Number(process.env.BENCH_ROUNDS || 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS || 50);
const POOL = Number(process.env.BENCH_POOL || 20);
const PDFS = Number(process.env.BENCH_PDFS || 200);
const WEBHOOK = process.env.BENCH_WEBHOOK !== '0';


interface BenchOrder {
  id: number;
  token: string;
  channelId: number;
  total: number;
}

/** Fresh one-seat pending orders of demo-b (model B: the closing also queues an e-mail). */
async function createOrders(pool: pg.Pool, n: number, now: Date): Promise<BenchOrder[]> {
  const { rows: seats } = await pool.query<{ id: number; session_id: number; sector_id: number; event_id: number; rate_id: number; price: number }>(
    `SELECT ss.id, ss.session_id, ss.sector_id, s.event_id, r.id AS rate_id, r.price
     FROM session_seats ss JOIN sessions s ON s.id = ss.session_id
     JOIN LATERAL (SELECT id, price FROM rates WHERE session_id = ss.session_id ORDER BY sort_order LIMIT 1) r ON true
     WHERE ss.status = 'available' ORDER BY ss.id LIMIT $1`,
    [n],
  );
  if (seats.length < n) throw new Error(`only ${seats.length} free units for ${n} orders`);
  const { rows: [channel] } = await pool.query<{ id: number }>(`SELECT id FROM sales_channels WHERE slug = 'demo-b'`);
  const expires = new Date(now.getTime() + 3600_000);
  const out: BenchOrder[] = [];
  for (let start = 0; start < n; start += 500) {
    const chunk = seats.slice(start, start + 500);
    const tokens = chunk.map(() => crypto.randomUUID());
    const { rows } = await pool.query<{ id: string; order_token: string }>(
      `INSERT INTO orders (order_token, reference, channel_id, status, lang, currency, base_amount, total_amount, expires_at, created_at, updated_at)
       SELECT t, 'B-' || t, $1, 'pending', 'es', 'EUR', p, p, $2, $3, $3 FROM unnest($4::text[], $5::int[]) AS x(t, p)
       RETURNING id, order_token`,
      [channel!.id, expires, now, tokens, chunk.map((s) => s.price)],
    );
    const idOf = new Map(rows.map((r) => [r.order_token, Number(r.id)]));
    const ids = tokens.map((t) => idOf.get(t)!);
    await pool.query(
      `INSERT INTO order_items (order_id, event_id, session_id, sector_id, session_seat_id, rate_id, base_amount, total_amount, created_at)
       SELECT * , $7::timestamptz FROM unnest($1::bigint[], $2::int[], $3::int[], $4::int[], $5::int[], $6::int[], $8::int[], $8::int[])`,
      [ids, chunk.map((s) => s.event_id), chunk.map((s) => s.session_id), chunk.map((s) => s.sector_id), chunk.map((s) => s.id), chunk.map((s) => s.rate_id), now, chunk.map((s) => s.price)],
    );
    await pool.query(
      `UPDATE session_seats ss SET status = 'held', order_id = x.o, hold_expires_at = $3
       FROM unnest($1::int[], $2::bigint[]) AS x(s, o) WHERE ss.id = x.s`,
      [chunk.map((s) => s.id), ids, expires],
    );
    chunk.forEach((s, i) => out.push({ id: ids[i]!, token: tokens[i]!, channelId: channel!.id, total: s.price }));
  }
  return out;
}

/**
 * The closing's SQL work as separate statements in a transaction, straight through the pool: lock
 * the order, sell its seats, write buyer, ticket, completion and e-mail. These are the statements
 * close_order (src/db/functions) runs inside the database, and the ones the service sent one by one
 * before it; the baseline of the issue.
 */
async function closeDirect(pool: pg.Pool, order: BenchOrder, now: Date): Promise<void> {
  const c = await pool.connect();
  try {
    await c.query('BEGIN');
    const { rows: [o] } = await c.query(
      `SELECT o.id, o.channel_id, c.integration_mode, o.type, o.status, o.expires_at, o.total_amount,
         (SELECT count(*) FROM order_items i WHERE i.order_id = o.id)::int AS item_count
       FROM orders o JOIN sales_channels c ON c.id = o.channel_id
       WHERE o.order_token = $1 AND o.channel_id = $2 FOR UPDATE OF o`,
      [order.token, order.channelId],
    );
    if (o.status !== 'pending' || o.total_amount !== order.total) throw new Error('not closable');
    const { rows: items } = await c.query(
      `WITH sold AS (
         UPDATE session_seats SET status = 'sold', order_id = $1, hold_expires_at = NULL
         WHERE id IN (SELECT ss.id FROM session_seats ss JOIN order_items i ON i.session_seat_id = ss.id
                      WHERE i.order_id = $1 AND ((ss.status = 'held' AND ss.order_id = $1)) ORDER BY ss.id FOR UPDATE OF ss)
         RETURNING id)
       SELECT i.id, i.session_id, i.session_seat_id, i.session_seat_id IN (SELECT id FROM sold) AS sold
       FROM order_items i WHERE i.order_id = $1 ORDER BY i.id`,
      [order.id],
    );
    if (items.length !== o.item_count || !items.every((i) => i.sold)) throw new Error('seats');
    await c.query(
      `WITH c AS (INSERT INTO customers (name, surname, email, phone) VALUES ($1, $2, $3, $4) RETURNING id),
       t AS (INSERT INTO tickets (code, order_id, order_item_id, issued_at) VALUES ($5, $6::bigint, $7::bigint, $8::timestamptz) RETURNING id),
       o AS (UPDATE orders SET status = 'completed', customer_id = (SELECT id FROM c), payment_method = $9,
               transaction_id = $10, completed_at = $8, updated_at = $8, expires_at = NULL WHERE id = $6 RETURNING id),
       e AS (INSERT INTO email_outbox (kind, order_id, recipient, next_attempt_at, created_at)
             VALUES ('tickets', $6, $3, $8, $8) ON CONFLICT (order_id, kind) WHERE payment_id IS NULL DO NOTHING RETURNING id)
       SELECT (SELECT count(*) FROM t) AS tickets`,
      ['Ana', 'García', 'ana@example.com', null, newTicketCode(), order.id, items[0].id, now, 'card', 'tx'],
    );
    await c.query('COMMIT');
  } catch (err) {
    await c.query('ROLLBACK');
    throw err;
  } finally {
    c.release();
  }
}

/** Closes every order with `close`, CONNECTIONS at a time without HTTP; answers closings per second. */
async function closeAll(orders: BenchOrder[], close: (order: BenchOrder) => Promise<void>): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (next < orders.length) await close(orders[next++]!);
    }),
  );
  return orders.length / (Number(process.hrtime.bigint() - started) / 1e9);
}

/** The closing statements through the pool; with `ctx`, also the read of the D35 order view. */
function baseline(pool: pg.Pool, orders: BenchOrder[], ctx?: AppContext): Promise<number> {
  const now = new Date();
  return closeAll(orders, async (o) => {
    await closeDirect(pool, o, now);
    if (ctx) await buildOrderView(ctx, o.id, 'es');
  });
}

/** Diagnostic: the service's own closing statement, SELECT close_order(...), straight through the pool. */
function closeOrderFunctionDirect(pool: pg.Pool, orders: BenchOrder[]): Promise<number> {
  const now = new Date();
  return closeAll(orders, async (o) => {
    const { rows: [r] } = await pool.query(
      `SELECT close_order(NULL, $1, $2, $3, false, $4, 'Ana', 'García', 'ana@example.com', NULL, 'card', 'tx', $5::text[], true, $6::text[]) AS r`,
      [o.token, o.channelId, now, o.total, Array.from({ length: 20 }, newTicketCode), TICKET_EMAIL_MODES],
    );
    if (r.r.outcome !== 'closed') throw new Error(`close_order: ${r.r.outcome}`);
  });
}

/** closeOrder with its view, in process: the service without HTTP (to see where time goes). */
function inProcess(ctx: AppContext, orders: BenchOrder[]): Promise<number> {
  return closeAll(orders, async (o) => {
    const closed = await closeOrder(ctx, { orderRef: { orderToken: o.token, channelId: o.channelId }, buyer, expectedAmount: o.total, withRows: true });
    await orderViewFromRows(ctx, closed.rows, 'es');
  });
}

const buyer = { name: 'Ana', surname: 'García', email: 'ana@example.com' };

async function throughApi(baseUrl: string, accessToken: string, orders: BenchOrder[]): Promise<{ rate: number; p50: number; p99: number; errors: number }> {
  let next = 0;
  // Timed from the first request built to the last answer received: autocannon's own duration
  // rounds up to its one-second sampling tick, which on a run of a second or two halved the rate.
  let started = 0n;
  let finished = 0n;
  const result = await autocannon({
    url: baseUrl,
    connections: Math.min(CONNECTIONS, orders.length),
    amount: orders.length,
    requests: [
      {
        method: 'POST',
        setupRequest: (req) => {
          if (started === 0n) started = process.hrtime.bigint();
          const o = orders[next++ % orders.length]!;
          return {
            ...req,
            path: `/api/sales-channel/v1/demo-b/es/orders/${o.token}/confirm`,
            headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
            body: JSON.stringify({ amount: o.total / 100, name: 'Ana', surname: 'García', email: 'ana@example.com', transaction_id: 'tx', payment_method: 'card' }),
          };
        },
        onResponse: () => {
          finished = process.hrtime.bigint();
        },
      },
    ],
  });
  const seconds = Number(finished - started) / 1e9;
  return { rate: orders.length / seconds, p50: result.latency.p50, p99: result.latency.p99, errors: result.non2xx + result.errors };
}

/** Child: the service on the bench database, listening on a free port until told to exit. */
async function server(url: string) {
  const database = await openDatabase({ url, poolSize: POOL });
  const config = loadConfig({ APP_ENV: 'test', PUBLIC_BASE_URL: 'http://localhost:3000', LOG_LEVEL: 'silent', DB_POOL_SIZE: String(POOL) });
  const app = await buildApp({ config, database, logger: false });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  process.on('message', async () => {
    await app.close();
    await database.close();
    process.exit(0);
  });
  process.send!({ address });
}

function startServer(url: string): Promise<{ child: ChildProcess; address: string }> {
  const child = fork(fileURLToPath(import.meta.url), ['--server', url], { execArgv: process.execArgv, stdio: 'inherit' });
  return new Promise((resolve, reject) => {
    child.once('message', (m: { address: string }) => resolve({ child, address: m.address }));
    child.once('exit', (code) => reject(new Error(`service process exited (${code})`)));
  });
}

async function main() {
  const name = `taquilla_bench_confirm_${process.pid}`;
  const benchDb = await freshDatabase(SERVER_URL, name);
  const database = await openDatabase({ url: benchDb.url, poolSize: POOL });
  const pool = new pg.Pool({ connectionString: benchDb.url, max: POOL });
  pool.on('error', () => {});
  try {
    await migrate(database);
    const config = loadConfig({ APP_ENV: 'test', PUBLIC_BASE_URL: 'http://localhost:3000', LOG_LEVEL: 'silent', DB_POOL_SIZE: String(POOL) });
    const app = await buildApp({ config, database, logger: false });
    await loadDemoDataIfEmpty(app.ctx);
    if (WEBHOOK) {
      const { rows: [demoB] } = await pool.query<{ id: number }>(`SELECT id FROM sales_channels WHERE slug = 'demo-b'`);
      await createEndpointAs(app.ctx, CLI_ACTOR, demoB!.id, { url: 'http://127.0.0.1:9/bench', event_types: ['order.completed'] });
    }
    const { child, address } = await startServer(benchDb.url);
    const stopServer = () => new Promise((resolve) => child.once('exit', resolve).send('exit'));
    const tokenRes = await app.inject({ method: 'POST', url: '/api/sales-channel/v1/auth/token', payload: { sales_channel_slug: 'demo-b', widget_key: 'wk_demo_b' } });
    const accessToken = tokenRes.json().data.access_token as string;

    const now = new Date();
    // warm-up of both paths (JIT, connections, plans) on a few orders
    await baseline(pool, await createOrders(pool, 60, now));
    await throughApi(address, accessToken, await createOrders(pool, 60, now));

    console.log(`confirm benchmark: ${ORDERS} fresh one-seat orders per run, ${ROUNDS} rounds (medians), ${CONNECTIONS} concurrent clients, pool of ${POOL}, PostgreSQL`);
    console.log(`  webhook endpoint subscribed to order.completed on demo-b: ${WEBHOOK ? 'yes (every closing writes an outbox event)' : 'no (BENCH_WEBHOOK=0)'}`);
    console.log(`  machine: ${os.cpus().length} CPUs, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} (figures are only comparable at a low load)`);
    // Each round measures every path once, in turn, on fresh orders; the demo's seats are handed
    // back before each batch (sold seats made available again), so rounds can be many and long.
    const runs = { base: [] as number[], baseView: [] as number[], direct: [] as number[], service: [] as number[], api: [] as number[] };
    const latencies: { p50: number; p99: number }[] = [];
    let errors = 0;
    let lastApiOrder = 0;
    const fresh = async () => {
      await pool.query(`UPDATE session_seats SET status = 'available', order_id = NULL, hold_expires_at = NULL WHERE status = 'sold'`);
      return createOrders(pool, ORDERS, now);
    };
    for (let round = 0; round < ROUNDS; round++) {
      runs.base.push(await baseline(pool, await fresh()));
      runs.baseView.push(await baseline(pool, await fresh(), app.ctx));
      runs.direct.push(await closeOrderFunctionDirect(pool, await fresh()));
      runs.service.push(await inProcess(app.ctx, await fresh()));
      const forApi = await fresh();
      const api = await throughApi(address, accessToken, forApi);
      runs.api.push(api.rate);
      latencies.push({ p50: api.p50, p99: api.p99 });
      errors += api.errors;
      lastApiOrder = forApi[0]!.id;
      console.log(`  round ${round + 1}: baseline ${runs.base.at(-1)!.toFixed(0)}, API ${api.rate.toFixed(0)} per second (ratio ${(api.rate / runs.base.at(-1)!).toFixed(2)})`);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const [base, baseView, direct, service, apiRate] = [runs.base, runs.baseView, runs.direct, runs.service, runs.api].map(median) as [number, number, number, number, number];
    console.log(`  baseline (closing statements straight through pg): ${base.toFixed(0)} closings/s`);
    console.log(`  baseline + the order view (buildOrderView):       ${baseView.toFixed(0)} closings/s`);
    console.log(`  diagnostic: SELECT close_order(...) through pg:    ${direct.toFixed(0)} closings/s (the service's one closing statement, view included)`);
    console.log(`  diagnostic: closeOrder in process (no HTTP):       ${service.toFixed(0)} closings/s (ratio ${(service / base).toFixed(2)})`);
    console.log(`  POST .../confirm through the service:               ${apiRate.toFixed(0)} confirms/s (p50 ${median(latencies.map((l) => l.p50))} ms, p99 ${median(latencies.map((l) => l.p99))} ms, errors ${errors})`);
    console.log(`  ratio to baseline: ${(apiRate / base).toFixed(2)} (target >= 0.60); to baseline + view: ${(apiRate / baseView).toFixed(2)}; to close_order through pg: ${(apiRate / direct).toFixed(2)}`);
    const { rows: [check] } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM orders WHERE status = 'completed'`);
    console.log(`  completed orders: ${check!.n} of ${ORDERS * 5 * ROUNDS + 120}`);
    const { rows: [outbox] } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM webhook_events`);
    console.log(`  webhook outbox events: ${outbox!.n} (the closings by the service: close_order, closeOrder and the API)`);

    // PDF render time per ticket
    const tickets = await ticketsOfOrder(app.ctx.db, lastApiOrder);
    // The QR holds the signed secret (D53), as long as a real ticket's.
    const qr = await qrSecretOf(app.ctx, tickets[0]!);
    await renderTicketPdf(tickets[0]!, config.timezone, qr);
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < PDFS; i++) await renderTicketPdf({ ...tickets[0]!, code: newTicketCode() }, config.timezone, qr);
    const perTicket = Number(process.hrtime.bigint() - t0) / 1e6 / PDFS;
    const size = (await renderTicketPdf(tickets[0]!, config.timezone, qr)).length;
    console.log(`ticket PDF: ${perTicket.toFixed(2)} ms per ticket (${PDFS} renders, ${(size / 1024).toFixed(1)} KB each)`);
    await stopServer();
    await app.close();
  } finally {
    await pool.end();
    await database.close();
    await benchDb.drop();
  }
}

const serverArg = process.argv.indexOf('--server');
(serverArg > 0 ? server(process.argv[serverArg + 1]!) : main()).catch((err) => {
  console.error(err);
  process.exit(1);
});
