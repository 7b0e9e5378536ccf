import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Database } from '../db/client.js';
import { safeEqual } from '../lib/secrets.js';
import { AppMetrics, requestObserver, type GaugeSource } from '../platform/metrics.js';
import type { MetricsConfig } from './operations.config.js';
import { appendHook } from './route-hooks.js';
import type { ErrorEnvelope } from './envelope.js';
import type { ErrorCode } from './errors.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's metrics: modules' gauges are added here (src/app.ts); scraped at GET /metrics. */
    metrics: AppMetrics;
    /**
     * Starts the separate metrics listener of METRICS_PORT, if one is configured (src/server.ts,
     * once the app listens); closing the app closes it. Resolves with its port, or null.
     */
    listenForMetrics(): Promise<number | null>;
  }
}

/** The connections of the PostgreSQL pool; nothing for PGlite, which has no pool. */
function poolGauges(database: Database): GaugeSource[] {
  if (database.poolStats() === null) return [];
  const stats = () => database.poolStats()!;
  return [
    {
      name: 'taquilla_db_pool_connections',
      help: 'Database pool connections by state (in_use + idle = open)',
      labelNames: ['state'],
      read: () => {
        const s = stats();
        return [
          { labels: { state: 'in_use' }, value: s.total - s.idle },
          { labels: { state: 'idle' }, value: s.idle },
        ];
      },
    },
    {
      name: 'taquilla_db_pool_waiting',
      help: 'Queries waiting for a database connection (the pool is exhausted)',
      read: () => [{ value: stats().waiting }],
    },
  ];
}

/** The token of METRICS_TOKEN, when one is set; a scrape without it is refused. */
function presentsToken(authorization: string | undefined, token: string | undefined): boolean {
  if (token === undefined) return true;
  const m = /^Bearer (.+)$/.exec(authorization ?? '');
  return m !== null && safeEqual(m[1]!, token);
}

/**
 * Metrics (docs/operations.md "Metrics"): every answered request observed by route pattern, the
 * pool's gauges, and GET /metrics on the main port when METRICS_TOKEN is set (only with the token)
 * and on a listener of its own when METRICS_PORT is set (loopback by default).
 */
export const metricsPlugin = fp<{ config: MetricsConfig }>(
  async (app, { config }) => {
    const metrics = new AppMetrics((name, err) => app.log.warn({ err, gauge: name }, 'metrics gauge could not be read'));
    app.decorate('metrics', metrics);
    for (const gauge of poolGauges(app.ctx.database)) metrics.addGauge(gauge);

    // Each route's pattern is read once, as it is declared, into a hook of its own (reading
    // `request.routeOptions` builds a new object on every request); the router's 404s, which no
    // route answers, are observed by the app's hook as `unmatched`. Callback hooks, not async ones:
    // no promise per request.
    app.addHook('onRoute', (route) => {
      const observe = requestObserver(route.url);
      appendHook(route, 'onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
        observe(request.method, reply.statusCode, reply.elapsedTime / 1000);
        done();
      });
    });
    const observeUnmatched = requestObserver(undefined);
    app.addHook('onResponse', (request, reply, done) => {
      if (request.is404) observeUnmatched(request.method, reply.statusCode, reply.elapsedTime / 1000);
      done();
    });

    if (config.token !== undefined) {
      app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
        // Answered here (the plugin comes before the error handler, which would not see this route).
        if (!presentsToken(request.headers.authorization, config.token)) return reply.status(401).header('www-authenticate', 'Bearer').send(refusal(401, 'unauthenticated', WRONG_TOKEN));
        return reply.type(metrics.contentType).send(await metrics.scrape());
      });
    }

    let server: http.Server | null = null;
    app.decorate('listenForMetrics', async () => {
      if (config.port === null) return null;
      server = http.createServer((req, res) => void serveScrape(app, metrics, config, req, res));
      const listening = server;
      await new Promise<void>((resolve, reject) => {
        listening.once('error', reject);
        listening.listen(config.port!, config.host, () => resolve());
      });
      return (listening.address() as AddressInfo).port;
    });
    app.addHook('onClose', async () => {
      if (server) await new Promise<void>((resolve) => server!.close(() => resolve()));
    });
  },
  { name: 'metrics', dependencies: ['app-context'] },
);

const WRONG_TOKEN = 'The metrics token is missing or wrong';

/** The envelope of D4 for the refusals of a scrape. */
const refusal = (status: number, code: ErrorCode, message: string): ErrorEnvelope => ({ status, success: false, message, code });

async function serveScrape(app: FastifyInstance, metrics: AppMetrics, config: MetricsConfig, req: http.IncomingMessage, res: http.ServerResponse) {
  const answer = (status: number, code: ErrorCode, message: string) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(refusal(status, code, message)));
  };
  if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') return answer(404, 'route_not_found', 'Only GET /metrics is served here');
  if (!presentsToken(req.headers.authorization, config.token)) return answer(401, 'unauthenticated', WRONG_TOKEN);
  try {
    const body = await metrics.scrape();
    res.writeHead(200, { 'content-type': metrics.contentType });
    res.end(body);
  } catch (err) {
    app.log.error({ err }, 'metrics scrape failed');
    answer(500, 'internal_error', 'Internal server error');
  }
}
