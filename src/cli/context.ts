import path from 'node:path';
import { createAppContext, type AppContext } from '../app-context.js';
import { atPublicBaseUrl, loadConfig } from '../config.js';
import { openDatabase } from '../db/client.js';
import { migrate } from '../db/migrate.js';
import { systemClock } from '../lib/clock.js';
import { recordedPublicBaseUrl } from '../platform/deployment.repo.js';
import { plugOrderCardRefunder } from '../platform/card-refunds.js';
import { refundOrderPayment } from '../modules/portal/payments/payments.refunds.js';

export interface CliContext {
  ctx: AppContext;
  /** Migrations applied while opening (a fresh or outdated database). */
  appliedNow: string[];
  close(): Promise<void>;
}

/**
 * The service's context without HTTP: the same configuration (DATABASE_URL or DATA_DIR/pglite),
 * the database migrated to the current version, and the system clock. Throws ConfigError on a bad
 * variable.
 */
export async function openCliContext(env: Record<string, string | undefined> = process.env): Promise<CliContext> {
  const config = loadConfig(env);
  const database = await openDatabase({
    url: config.databaseUrl,
    pgliteDir: path.join(config.dataDir, 'pglite'),
    poolSize: Math.min(config.dbPoolSize, 2),
    owner: 'command line',
  });
  try {
    const appliedNow = await migrate(database);
    // Links the commands print and e-mail lead where the service runs, even from a shell without its
    // PORT or PUBLIC_BASE_URL: the address the service recorded at its last start.
    const recorded = env.PUBLIC_BASE_URL || env.PORT ? null : await recordedPublicBaseUrl(database.db);
    const effective = recorded ? atPublicBaseUrl(config, env, recorded) : config;
    const ctx = createAppContext({ config: effective, database, clock: systemClock });
    // A refund from the command line gives card payments back too (D58).
    plugOrderCardRefunder(ctx, refundOrderPayment);
    return { ctx, appliedNow, close: () => database.close() };
  } catch (err) {
    await database.close().catch(() => {});
    throw err;
  }
}
