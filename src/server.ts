import path from 'node:path';
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { openDatabase } from './db/client.js';
import { DataDirBusyError } from './db/data-dir-lock.js';
import { migrate } from './db/migrate.js';
import { followPublicAddress, loadDemoDataIfEmpty } from './demo/demo-data.js';
import { recordPublicBaseUrl } from './platform/deployment.repo.js';

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`Configuration error: ${err.message}`);
      process.exit(1);
    }
    throw err;
  }
  const database = await openDatabase({
    url: config.databaseUrl,
    pgliteDir: path.join(config.dataDir, 'pglite'),
    poolSize: config.dbPoolSize,
  });
  await migrate(database);
  const app = await buildApp({ config, database });
  if (config.loadDemoData) {
    const loaded = await loadDemoDataIfEmpty(app.ctx);
    if (loaded) app.log.info('demo catalogue loaded: channels demo-a, demo-b, demo-c, demo-d (keys wk_demo_a ... wk_demo_d)');
    else await followPublicAddress(app.ctx);
  }
  // The command line reads it to print and e-mail links that lead here (issue 16).
  await recordPublicBaseUrl(app.ctx.db, config.publicBaseUrl, app.ctx.clock.now());

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => process.exit(1), 10_000);
    timer.unref();
    try {
      // Stops the scheduler too, waiting for a pass under way, before the database closes.
      await app.close();
      await database.close();
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'error during shutdown');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  // Background work runs only in the process that serves; app.close() (shutdown) stops it.
  app.scheduler.start();
  app.log.info(
    `Taquilla ${config.appEnv} on ${config.publicBaseUrl} (${database.kind}); API reference at ${config.publicBaseUrl}/api/docs`,
  );
}

main().catch((err) => {
  if (err instanceof DataDirBusyError) console.error(`Cannot start: ${err.message}`);
  else console.error(err);
  process.exit(1);
});
