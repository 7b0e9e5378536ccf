import { sql } from 'drizzle-orm';
import { queryRows } from '../../db/client.js';
import { migrate } from '../../db/migrate.js';
import { AppError } from '../../http/errors.js';
import { isoWithOffset } from '../../lib/time.js';
import { loadDemoDataIfEmpty } from '../../demo/demo-data.js';
import { defineCommand } from '../command.js';
import { printTable } from '../output.js';
import type { DbTime } from '../../db/instants.js';

const migrateCommand = defineCommand({
  name: 'migrate',
  summary: 'Apply pending database migrations and list the applied ones',
  options: {},
  async run(ctx) {
    // Opening the CLI context already migrates; this run only catches a file added meanwhile.
    await migrate(ctx.database);
    const rows = await queryRows<{ name: string; applied_at: DbTime }>(
      ctx.db,
      sql`SELECT name, applied_at FROM schema_migrations ORDER BY name`,
    );
    printTable(rows.map((r) => ({ migration: r.name, applied_at: isoWithOffset(new Date(r.applied_at)) })));
    console.log(`Database (${ctx.database.kind}) is up to date: ${rows.length} migration(s).`);
  },
});

const demoLoad = defineCommand({
  name: 'demo:load',
  summary: 'Load the demo catalogue and channels demo-a..demo-d (refused in production; pre-production needs DEMO_DATA=true)',
  options: {},
  async run(ctx) {
    if (ctx.config.appEnv === 'production') {
      // The demo keys are public (README): they must never open a production channel.
      throw new AppError('forbidden', 'demo:load is refused when APP_ENV=production (the demo widget keys are public)');
    }
    if (ctx.config.appEnv === 'preproduction' && !ctx.config.loadDemoData) {
      // Outside development and test the public demo keys are opened only on an explicit request (D49).
      throw new AppError('forbidden.demo_data', { env: ctx.config.appEnv });
    }
    const summary = await loadDemoDataIfEmpty(ctx);
    if (!summary) {
      console.log('The database already has sales channels; the demo catalogue was not loaded.');
      return;
    }
    console.log(
      `Demo catalogue loaded: ${summary.events} events, ${summary.sessions} sessions, ${summary.seats} seats; ` +
        'channels demo-a, demo-b, demo-c, demo-d with widget keys wk_demo_a ... wk_demo_d.',
    );
  },
});

export const commands = [migrateCommand, demoLoad];
