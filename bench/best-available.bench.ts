// npm run bench:best-available : best available (D61) on a 20,000-seat session, PostgreSQL.
//
// One session of 20,000 numbered seats (200 rows of 100), with 0, 50, 90 and 99 % of its seats
// sold at random. At each level BENCH_REQUESTS (default 400) buyers ask for 1 to 4 best seats, one
// after another. Three figures:
//   * selection: what best available does before the hold, in a transaction of its own that is
//     rolled back: read the taken seats of the session, choose (the prepared layout in memory),
//     lock the choice (lock_free_seats);
//   * the same selection from the instance's kept view of the taken seats, as requests are served
//     (best-available.taken.ts: read again when this instance changed the session's inventory
//     other than by a best-available claim or a hold in it expired; refreshed in the background
//     250 ms after the read);
//   * request: the whole use case (bestAvailable: validation, the same selection, the hold through
//     cart_hold_seats, the order view), for every fourth buyer, which holds its seats.
// Printed: p50 / p99 / max of each per level. The goal of issue 28: selection p99 under 10 ms.
// The parallel behaviour is test/orders/best-available.race.test.ts.
// Environment: BENCH_PG_URL (or TEST_PG_URL).
import os from 'node:os';
import { sql } from 'drizzle-orm';
import { createAppContext } from '../src/app-context.js';
import { loadConfig } from '../src/config.js';
import { openDatabase, queryRows } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { systemClock } from '../src/lib/clock.js';
import { importCatalogue } from '../src/modules/catalogue/import.service.js';
import { chooseSeats, prepareLayout } from '../src/modules/orders/best-available.js';
import { lockFreeSeats, sessionLayout, takenSeatIds } from '../src/modules/orders/best-available.repo.js';
import { bestAvailable } from '../src/modules/orders/best-available.service.js';
import { changeMark, keepTaken, keptTaken } from '../src/modules/orders/best-available.taken.js';
import type { ChannelRecord } from '../src/db/channel-record.js';
import { flashSaleCatalogue } from './bench-catalogue.js';
import { freshDatabase } from './bench-processes.js';

const PG_URL = process.env.BENCH_PG_URL || process.env.TEST_PG_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
const SEATS = 20_000;
/** Rounds at these shares of the seats sold, REQUESTS selections each. */
const LEVELS = [0, 0.5, 0.9, 0.99];
const REQUESTS = Number(process.env.BENCH_REQUESTS || 400);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;
const figures = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `p50 ${percentile(sorted, 0.5).toFixed(2)} ms, p99 ${percentile(sorted, 0.99).toFixed(2)} ms, max ${sorted.at(-1)!.toFixed(2)} ms (${sorted.length} requests)`;
};
const ms = (from: bigint) => Number(process.hrtime.bigint() - from) / 1e6;

async function main() {
  const fresh = await freshDatabase(PG_URL, `taquilla_bench_best_available_${process.pid}`);
  const database = await openDatabase({ url: fresh.url, poolSize: 4 });
  try {
    await migrate(database);
    const config = loadConfig({ APP_ENV: 'test', DATABASE_URL: fresh.url, MAX_ITEMS_PER_ORDER: '10' });
    const ctx = createAppContext({ config, database, clock: systemClock });
    await importCatalogue(ctx, flashSaleCatalogue(SEATS, { slug: 'best', server_keys: ['sk_best_available_bench'] }));
    const [ids] = await queryRows<{ session: number; channel: number }>(ctx.db, sql`SELECT (SELECT id FROM sessions) AS session, (SELECT id FROM sales_channels) AS channel`);
    const sessionId = Number(ids!.session);
    const [channelRow] = await queryRows<{ id: number; integration_mode: string }>(ctx.db, sql`SELECT id, integration_mode FROM sales_channels`);
    const channel = { id: channelRow!.id, slug: 'best', integrationMode: channelRow!.integration_mode, cartTtlSeconds: null } as unknown as ChannelRecord;
    await database.execScript('VACUUM ANALYZE');

    const started = process.hrtime.bigint();
    const { seats, sectors } = await sessionLayout(ctx.db, sessionId);
    const layout = prepareLayout(seats, sectors);
    console.log(`layout of ${seats.length} seats read and prepared in ${ms(started).toFixed(1)} ms (once per session, kept in memory)`);

    // Fill levels: the seats sold at random (a fixed pattern) before each round of requests.
    for (const level of LEVELS) {
      await ctx.db.execute(sql`UPDATE session_seats SET status = 'available', order_id = NULL, hold_expires_at = NULL WHERE session_id = ${sessionId}`);
      await ctx.db.execute(sql`UPDATE session_seats SET status = 'sold' WHERE session_id = ${sessionId} AND (id * 7919) % 1000 < ${Math.round(level * 1000)}`);
      await database.execScript('VACUUM ANALYZE session_seats');
      const selection: number[] = [];
      const selectionKept: number[] = [];
      const request: number[] = [];
      for (let i = 0; i < REQUESTS; i++) {
        const quantity = 1 + (i % 4);
        const now = new Date();
        // The selection with the taken seats read every time, then as the service makes it: from the
        // instance's kept view when it is good (best-available.taken.ts), else read and kept.
        for (const [figures, fromKept] of [[selection, false], [selectionKept, true]] as const) {
          const t0 = process.hrtime.bigint();
          await ctx.db
            .transaction(async (tx) => {
              const mark = changeMark(ctx);
              let taken = fromKept ? keptTaken(ctx, sessionId, now, () => takenSeatIds(ctx.db, sessionId, new Date())) : null;
              if (!taken) {
                const read = await takenSeatIds(tx, sessionId, now);
                if (fromKept) keepTaken(ctx, sessionId, mark, read);
                taken = read.ids;
              }
              const choice = chooseSeats(layout, (id) => !taken.has(id), { quantity, accessible: 0, together: true, sectors: null });
              if (choice) await lockFreeSeats(tx, choice.ids, now);
              throw new Error('rollback');
            })
            .catch(() => null);
          figures.push(ms(t0));
        }
        // Every fourth request is held for real, so that the session fills as the round goes on.
        if (i % 4 === 0) {
          const t1 = process.hrtime.bigint();
          await bestAvailable(ctx, channel, null, 'en', { session_id: sessionId, quantity }).catch(() => null);
          request.push(ms(t1));
        }
      }
      console.log(`${Math.round(level * 100)} % of the seats sold:`);
      console.log(`  selection (read taken seats, choose, lock): ${figures(selection)}`);
      console.log(`  selection from the kept view (as served):  ${figures(selectionKept)}`);
      console.log(`  whole request (choose, hold, order view):   ${figures(request)}`);
    }
    console.log(`machine: ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  } finally {
    await database.close().catch(() => {});
    await fresh.drop();
  }
}

await main();
