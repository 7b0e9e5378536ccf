import path from 'node:path';
import { ConfigError, loadConfig } from './config.js';
import { openDatabase } from './db/client.js';
import { DataDirBusyError } from './db/data-dir-lock.js';
import { migrate } from './db/migrate.js';
import { pgliteTemplateFor } from './db/pglite-template.js';

// Only what opens the database is imported above. The application's modules (most of a start's
// second) are imported below while the database opens: the embedded one compiles its WebAssembly
// on other threads meanwhile (issue 19: a restart within 2 s).
const importApplication = () =>
  Promise.all([import('./app.js'), import('./demo/demo-data.js'), import('./platform/deployment.repo.js')]);

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
  const pgliteDir = path.join(config.dataDir, 'pglite');
  const opening = openDatabase({
    url: config.databaseUrl,
    pgliteDir,
    poolSize: config.dbPoolSize,
    // A fresh embedded database starts from the build's migrated one instead of running initdb.
    pgliteLoadDataDir: config.databaseUrl ? undefined : pgliteTemplateFor(pgliteDir),
  });
  const application = importApplication();
  // Awaited below; a failed open must not leave it as an unhandled rejection meanwhile.
  application.catch(() => {});
  const database = await opening;
  await migrate(database);
  const [{ buildApp }, { followPublicAddress, loadDemoDataIfEmpty }, { recordPublicBaseUrl }] = await application;
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
    const drainMs = config.shutdownDrainSeconds * 1000;
    const timer = setTimeout(() => process.exit(1), drainMs + 10_000);
    timer.unref();
    try {
      // Behind a load balancer: /readyz answers 503 and requests are still served until the
      // balancer has stopped sending (docs/operations.md "A fleet"); 0 (the default) skips it.
      if (drainMs > 0) app.log.info({ seconds: config.shutdownDrainSeconds }, 'draining');
      await app.drain(drainMs);
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
  // GET /metrics on a port of its own, when METRICS_PORT is set (closed with the app).
  const metricsPort = await app.listenForMetrics();
  if (metricsPort !== null) app.log.info(`metrics at http://${config.metrics.host}:${metricsPort}/metrics`);
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
