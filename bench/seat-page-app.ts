import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase, queryRows } from '../src/db/client.js';
import { migrate } from '../src/db/migrate.js';
import { importCatalogue } from '../src/modules/catalogue/import.service.js';
import { benchCatalogue } from './bench-catalogue.js';

/**
 * The service of bench:seat-page and its profile (seat-page-profile.ts): embedded PGlite in memory,
 * the bench catalogue with `size` numbered seats, 10 % of them sold. Returns the app and the path
 * of the session's seat page.
 */
export async function seatPageApp(size: number) {
  const database = await openDatabase({ pgliteDir: 'memory://' });
  await migrate(database);
  const config = loadConfig({ APP_ENV: 'test', DEMO_DATA: 'false', LOG_LEVEL: 'warn', PORTAL_RATE_LIMIT_PER_MINUTE: '100000' });
  const app = await buildApp({ config, database, logger: false });
  const suffix = crypto.randomBytes(3).toString('hex');
  const slug = `bench-${suffix}`;
  await importCatalogue(app.ctx, benchCatalogue(slug, `wk_bench_${suffix}`, 'portal_only', size));
  const [session] = await queryRows<{ id: number; event_id: number }>(
    app.ctx.db,
    sql`SELECT s.id, s.event_id FROM sessions s JOIN channel_events ce ON ce.event_id = s.event_id
        JOIN sales_channels c ON c.id = ce.channel_id WHERE c.slug = ${slug}`,
  );
  // 10 % sold, as in bench:catalogue.
  await app.ctx.db.execute(sql`UPDATE session_seats SET status = 'sold' WHERE session_id = ${session!.id} AND seat_id IS NOT NULL AND id % 10 = 0`);
  return { app, path: `/${slug}/es/events/${session!.event_id}/sessions/${session!.id}` };
}
