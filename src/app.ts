import { registerQueueStore } from './modules/queue/queue.plugin.js';
import queueRoutes from './modules/queue/queue.routes.js';
import { queueGauges } from './modules/queue/queue.service.js';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import fp from 'fastify-plugin';
import { createAppContext, type AppContext } from './app-context.js';
import type { Config } from './config.js';
import type { Database } from './db/client.js';
import { systemClock, type Clock } from './lib/clock.js';
import { paymentAttemptsJob } from './modules/portal/payments/payments.refund-job.js';
import { Scheduler } from './platform/scheduler.js';
import { requireChannelToken } from './modules/auth/auth.hook.js';
import { decorateBearer } from './http/bearer.js';
import { guardB2BOperations } from './http/b2b-operation.js';
import { collectRoutePolicies, markServerOnlyRoutes, refusePreflights, requireRoutePolicy } from './http/route-policy.js';
import { allowAnyOrigin } from './http/cors.js';
import { clientErrorHandler, frameworkErrors, registerErrorHandler } from './http/error-handler.js';
import { idempotencySweepJob, registerIdempotency } from './http/idempotency.js';
import { createLazyCompilers } from './http/lazy-compilers.js';
import { registerInputGuard } from './http/input-guard.js';
import { registerServiceDate } from './http/service-date.js';
import { registerEmptyBodies } from './http/empty-bodies.js';
import { maxDecimalsKeyword, registerStrictBodies } from './http/strict-bodies.js';
import { drainingPlugin } from './http/draining.js';
import { recordIntegrationSteps } from './http/integration-steps.js';
import { startIntegrationChecklist } from './platform/integration-checklist.js';
import { logPath } from './http/log-path.js';
import { metricsPlugin } from './http/metrics.js';
import { registerOverloadProtection } from './http/overload.js';
import { registerRateLimits } from './http/rate-limits.js';
import { fastifyTrustProxy } from './http/rate-limits.config.js';
import { registerSecurityHeaders, usePagePolicy } from './http/security-headers.js';
import { ErrorEnvelope } from './http/schemas.js';
import { completeOperations, SECURITY_SCHEMES, SHARED_RESPONSES } from './http/openapi.js';
import authRoutes from './modules/auth/auth.routes.js';
import { listenForRevocations } from './modules/auth/auth.revocations.js';
import { shareInventoryNotices } from './modules/catalogue/availability.notices.js';
import { endAvailabilityStreams } from './modules/catalogue/availability.http.js';
import channelRoutes from './modules/channels/channels.routes.js';
import type { ChannelRecord } from './db/channel-record.js';
import catalogueRoutes from './modules/catalogue/catalogue.routes.js';
import { expirySweepJob } from './modules/orders/orders.jobs.js';
import { salesFiguresJob } from './modules/audience/sales-figures.jobs.js';
import { statisticsJob } from './db/statistics-keeper.js';
import ordersRoutes from './modules/orders/orders.routes.js';
import vouchersRoutes from './modules/vouchers/vouchers.routes.js';
import checkoutRoutes from './modules/checkout/checkout.routes.js';
import reportsRoutes from './modules/reports/reports.routes.js';
import portalRoutes from './modules/portal/portal.routes.js';
import { emailQueueGauges, emailQueueJob } from './modules/tickets/email-queue.service.js';
import { personalDataRetentionJob } from './modules/audience/personal-data.service.js';
import { webhookDeliveryJob, webhookQueueGauges, webhookRetentionJob } from './modules/webhooks/webhooks.delivery.js';
import ticketsRoutes from './modules/tickets/tickets.routes.js';
import adminRoutes from './modules/admin/admin.routes.js';
import channelsAdminRoutes from './modules/channels/channels.admin.routes.js';
import channelsDashboard from './modules/channels/channels.dashboard.js';
import { listEventsFor } from './modules/catalogue/catalogue-admin.service.js';
import vouchersAdminRoutes from './modules/vouchers/vouchers.admin.routes.js';
import venuesDashboard from './modules/catalogue/venues.dashboard.js';
import designerDashboard from './modules/catalogue/designer.dashboard.js';
import checkinAdminRoutes from './modules/checkin/checkin.admin.routes.js';
import checkinDashboard from './modules/checkin/checkin.dashboard.js';
import webhooksAdminRoutes from './modules/webhooks/webhooks.admin.routes.js';
import webhooksDashboard from './modules/webhooks/webhooks.dashboard.js';
import catalogueAdminRoutes from './modules/catalogue/catalogue.admin.routes.js';
import catalogueDashboard from './modules/catalogue/catalogue.dashboard.js';
import ordersAdminRoutes from './modules/orders/orders.admin.routes.js';
import ordersDashboard from './modules/orders/orders.dashboard.js';
import paymentsAdminRoutes from './modules/portal/payments/payments.admin.routes.js';
import paymentsDashboard from './modules/portal/payments/payments.dashboard.js';
import checkoutAdminRoutes from './modules/checkout/checkout.admin.routes.js';
import checkoutDashboard from './modules/checkout/checkout.dashboard.js';
import vouchersDashboard from './modules/vouchers/vouchers.dashboard.js';
import venueAdminRoutes from './modules/catalogue/venues.routes.js';
import audienceAdminRoutes from './modules/audience/audience.admin.routes.js';
import audienceDashboard from './modules/audience/audience.dashboard.js';
import waitingListRoutes from './modules/waitinglist/waitinglist.routes.js';
import waitingListAdminRoutes from './modules/waitinglist/waitinglist.admin.routes.js';
import { waitingListJob } from './modules/waitinglist/waitinglist.jobs.js';
import applePassRoutes from './modules/tickets/apple-pass.routes.js';
import { walletPushJob } from './modules/tickets/apple-pass-service.js';
import { googleWalletSyncJob } from './modules/tickets/google-wallet-sync.js';
import portalPages from './modules/portal/pages/portal.pages.js';
import adminDashboard from './modules/admin/dashboard/dashboard.routes.js';
import widgetRoutes from './modules/widget/widget.routes.js';
import scannerRoutes from './modules/checkin/scanner.routes.js';
import checkinRoutes from './modules/checkin/checkin.routes.js';
import { ensureSigningKey } from './modules/tickets/ticket-keys.service.js';
import { ensureDevelopmentSigners } from './modules/tickets/wallet-development-signer.js';
import { refundOrderPayment } from './modules/portal/payments/payments.refunds.js';
import { plugOrderCardRefunder } from './platform/card-refunds.js';

export interface AppOptions {
  config: Config;
  database: Database;
  clock?: Clock;
  /** Pino logger options or false; defaults to the service's logger (below) at the configured level. */
  logger?: boolean | object;
  /** Where the service's logger writes its JSON lines: standard output unless given (tests read them here). */
  logStream?: { write(line: string): void };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Background jobs of this app; started by src/server.ts, stopped when the app closes. */
    scheduler: Scheduler;
  }
  interface FastifyRequest {
    /** The channel of the bearer token, set by the auth hook on B2B routes. */
    channel: ChannelRecord | null;
  }
}

// ---- App plugins: the shared services, each decorating the app and naming what it needs ----
// (fastify-plugin lifts them out of encapsulation, so that every route sees their decorations.)

/** `app.ctx`, the context every service takes; built here once per app. */
const contextPlugin = fp<{ ctx: AppContext }>(
  async (app, { ctx }) => {
    app.decorate('ctx', ctx);
    app.decorateRequest('channel', null);
    decorateBearer(app);
    // An order refund gives card payments back through the portal's providers (D58).
    plugOrderCardRefunder(ctx, refundOrderPayment);
  },
  { name: 'app-context' },
);

/** Token revocations announced by any instance empty this instance's token cache (D42). */
const revocationsPlugin = fp(async (app) => listenForRevocations(app), { name: 'revocations', dependencies: ['app-context'] });

/** Live seat maps (D62): this instance's inventory notices go to the fleet and the fleet's come in; open streams end on close. */
const liveMapsPlugin = fp(
  async (app) => {
    shareInventoryNotices(app);
    app.addHook('preClose', async () => endAvailabilityStreams(app.ctx));
  },
  { name: 'live-maps', dependencies: ['app-context'] },
);

/** `app.scheduler`; it runs nothing until started, and stops (awaiting running passes) on close. */
const schedulerPlugin = fp(
  async (app) => {
    const scheduler = new Scheduler(app.log);
    app.decorate('scheduler', scheduler);
    app.addHook('onClose', () => scheduler.stop());
  },
  { name: 'scheduler' },
);

/** The background work of the modules (webhooks and check-in sync will join here). */
const jobsPlugin = fp(
  async (app) => {
    app.scheduler.add(expirySweepJob(app.ctx));
    app.scheduler.add(emailQueueJob(app.ctx, app.log));
    app.scheduler.add(idempotencySweepJob(app.ctx));
    app.scheduler.add(webhookDeliveryJob(app.ctx));
    app.scheduler.add(webhookRetentionJob(app.ctx));
    app.scheduler.add(personalDataRetentionJob(app.ctx));
    app.scheduler.add(paymentAttemptsJob(app.ctx));
    app.scheduler.add(waitingListJob(app.ctx));
    app.scheduler.add(salesFiguresJob(app.ctx));
    const statistics = statisticsJob(app.ctx);
    if (statistics) app.scheduler.add(statistics);
    const walletPush = walletPushJob(app.ctx, app.log);
    if (walletPush) app.scheduler.add(walletPush);
    const googleSync = googleWalletSyncJob(app.ctx, app.log);
    if (googleSync) app.scheduler.add(googleSync);
  },
  { name: 'jobs', dependencies: ['app-context', 'scheduler'] },
);

/** The modules' gauges on the app's metrics (queue depths, read at each scrape). */
const moduleGaugesPlugin = fp(
  async (app) => {
    for (const gauge of emailQueueGauges(app.ctx)) app.metrics.addGauge(gauge);
    for (const gauge of webhookQueueGauges(app.ctx)) app.metrics.addGauge(gauge);
    for (const gauge of queueGauges(app.ctx)) app.metrics.addGauge(gauge);
  },
  { name: 'module-gauges', dependencies: ['app-context', 'metrics'] },
);

const B2B_PREFIX = '/api/sales-channel/v1';
const ADMIN_PREFIX = '/api/admin/v1';
const CHECKIN_PREFIX = '/api/checkin/v1';

/**
 * The access log: one line per answered request, Fastify's "request completed" with the request's
 * id, method and path added, and no "incoming request" line before it (a log line costs a purchase
 * about 0.1 ms of the service's CPU at a flash sale, bench:flash).
 */
class AccessLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}

/** Builds the whole service: plugins first, then each module under its prefix. */
export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const { config, database } = opts;
  const compilers = createLazyCompilers();
  const app = Fastify({
    logger: opts.logger ?? {
      level: config.logLevel,
      // No credential reaches a log line: a request is logged as its id, method and path alone (the
      // serializer below, for every `req` of every line), never with its headers (Authorization,
      // Cookie), and the path without its query string or a ticket's code (logPath). So no redaction
      // pass either: pino's ran on every line and found nothing (1.3 % of the service's CPU in
      // bench:flash, issue 27); test/http/access-log.test.ts reads the lines.
      serializers: {
        req: (req: { id: string; method: string; url: string }) => ({
          id: req.id,
          method: req.method,
          path: logPath(req.url),
        }),
      },
      // Readable lines for a developer at a terminal (LOG_PRETTY); JSON lines everywhere else.
      ...(config.logPretty ? { transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } } } : {}),
      ...(opts.logStream ? { stream: opts.logStream } : {}),
    },
    logController: new AccessLog(),
    bodyLimit: 100 * 1024,
    requestIdHeader: 'x-request-id',
    // Behind a load balancer the client address is in X-Forwarded-For (TRUST_PROXY, docs/operations.md).
    trustProxy: fastifyTrustProxy(config.trustProxy),
    // Bodies are validated without coercion (D56, http/strict-bodies.ts); amounts by `x-max-decimals`.
    ajv: { customOptions: { allErrors: true }, plugins: [maxDecimalsKeyword] },
    schemaController: { compilersFactory: compilers.compilersFactory },
    frameworkErrors,
    clientErrorHandler,
  }).withTypeProvider<TypeBoxTypeProvider>();

  // App plugins (docs/architecture.md "Wiring"), then the HTTP policy, the API docs and the routes.
  await app.register(contextPlugin, { ctx: createAppContext({ config, database, clock: opts.clock ?? systemClock }) });
  await app.register(revocationsPlugin);
  await app.register(liveMapsPlugin);
  await app.register(schedulerPlugin);
  await app.register(jobsPlugin);
  await app.register(drainingPlugin);
  // Every deployment but production records its channels' checklist steps (docs/preproduction.md).
  if (config.appEnv !== 'production') startIntegrationChecklist(app.ctx.db);
  await app.register(metricsPlugin, { config: config.metrics });
  await app.register(moduleGaugesPlugin);
  // First of the request hooks: an overloaded instance refuses before doing any work.
  await registerOverloadProtection(app, config.overload, database);
  app.decorate('compileRouteSchemas', compilers.compileAll);
  // Before every route: each route's declared policy, read once (src/http/route-policy.ts).
  collectRoutePolicies(app);
  app.addSchema(ErrorEnvelope);
  registerErrorHandler(app);
  // A lost pooled connection is replaced by the pool; the requests it fails answer 503 (D46).
  database.onConnectionError((err) => app.log.warn({ err: { message: err.message, code: (err as { code?: string }).code } }, 'database connection lost'));
  // Before every route: it attaches each route's limits as the route is declared (D45).
  await registerRateLimits(app);
  await registerSecurityHeaders(app, config);
  registerServiceDate(app);
  registerInputGuard(app);
  // Before every route (and before the API docs read them): every body schema closed (D56).
  registerStrictBodies(app);
  // Before every route: a request without a body is no body, not malformed JSON, where none is needed.
  registerEmptyBodies(app);
  // Before every route: it covers each write of the B2B and admin interfaces as it is declared (D52).
  registerIdempotency(app, {
    areas: [
      { prefix: B2B_PREFIX, name: 'b2b' },
      { prefix: ADMIN_PREFIX, name: 'admin' },
    ],
    publicRoutes: [`POST ${B2B_PREFIX}/auth/token`],
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Taquilla Sales-Channel API',
        version: '1.2.0',
        license: { name: 'MIT', identifier: 'MIT' },
        description:
          'B2B interface for sales channels, public portal API and admin API. Errors use the envelope {status, success:false, message, code, errors?}. ' +
          'Input bounds (D47): ids are int32 (1 to 2147483647), every string has a maxLength, no string may contain a NUL character or a lone surrogate and no number may be non-finite; what breaks a bound is 422 validation_failed (docs/errors.md).',
      },
      servers: [{ url: config.publicBaseUrl }],
      components: { securitySchemes: SECURITY_SCHEMES, responses: SHARED_RESPONSES },
    },
    // Shared schemas keep their $id as their name in components (ErrorEnvelope, not def-0), so
    // that the shared responses and generated clients can name them.
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
    // Who may call each operation, by the prefix its auth hook guards (the channel scope's bearer
    // token, the admin API's token; public elsewhere), and the shared 429/5xx answers.
    transformObject: (doc) =>
      completeOperations(
        'openapiObject' in doc ? doc.openapiObject : doc.swaggerObject,
        [
          [`${B2B_PREFIX}/{salesChannelSlug}/`, 'bearer'],
          [`${ADMIN_PREFIX}/`, 'adminToken'],
          [`${CHECKIN_PREFIX}/`, 'deviceToken'],
        ],
        new Set(app.routePolicies.routes.filter((r) => r.rateLimits.length > 0).map((r) => `${r.method} ${r.url}`)),
      ),
  });
  await app.register(async (docs) => {
    usePagePolicy(docs, 'docs');
    await docs.register(swaggerUi, { routePrefix: '/api/docs' });
  });
  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    // A draining instance still serves, but tells the load balancer to send no more (src/server.ts).
    if (app.isDraining()) return reply.status(503).send({ status: 'draining' });
    // Overloaded: the load balancer should send traffic elsewhere until this instance catches up.
    if (app.isOverloaded()) {
      return reply.status(503).header('retry-after', String(config.overload.retryAfterSeconds)).send({ status: 'overloaded' });
    }
    const up = await database.ping();
    return reply.status(up ? 200 : 503).send({ status: up ? 'ready' : 'database unreachable' });
  });

  await app.register(
    async (b2b) => {
      // The widget calls the B2B routes from any partner page (SPEC "Widget", issue 7): any origin,
      // bearer header, no cookies. Registered before the auth hook so preflights never need a token.
      // Confirm, confirm-payment and the report are for the channel's server only (D40): their
      // declared operation turns CORS off on them as they are declared (config.cors = false), and
      // their preflights get routes of their own that refuse; a browser neither passes their
      // preflight nor reads their answer. Nothing is decided per request.
      allowAnyOrigin(b2b, {
        methods: ['GET', 'POST', 'PUT', 'DELETE'],
        allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'If-None-Match', 'Last-Event-ID', 'Queue-Pass'],
        exposedHeaders: ['Idempotent-Replayed', 'ETag', 'Date'],
        maxAge: 600,
      });
      const serverOnlyPaths = markServerOnlyRoutes(b2b);
      // Every write of the interface declares its rate limits, or why it has none (D45).
      requireRoutePolicy(b2b, { writeLimits: true });
      await b2b.register(authRoutes);
      await b2b.register(
        async (channelScope) => {
          requireRoutePolicy(channelScope, { operation: true });
          requireChannelToken(channelScope);
          guardB2BOperations(channelScope);
          recordIntegrationSteps(channelScope);
          await channelScope.register(channelRoutes);
          await channelScope.register(catalogueRoutes);
          await channelScope.register(ordersRoutes);
          await channelScope.register(vouchersRoutes);
          await channelScope.register(checkoutRoutes);
          await channelScope.register(reportsRoutes);
          await channelScope.register(waitingListRoutes);
        },
        { prefix: '/:salesChannelSlug' },
      );
      refusePreflights(b2b, serverOnlyPaths);
    },
    { prefix: B2B_PREFIX },
  );
  await app.register(
    async (portal) => {
      // Every write of the portal API declares its rate limits, or why it has none (D45).
      requireRoutePolicy(portal, { writeLimits: true });
      await portal.register(portalRoutes);
    },
    { prefix: '/api/portal' },
  );
  await registerQueueStore(app);
  await app.register(queueRoutes, { prefix: '/api/queue/v1' });
  await app.register(ticketsRoutes, { prefix: '/api/tickets' });
  await app.register(applePassRoutes, { prefix: '/api/wallet/apple' });
  await app.register(adminRoutes, { prefix: ADMIN_PREFIX, moduleRoutes: [channelsAdminRoutes, catalogueAdminRoutes, vouchersAdminRoutes, ordersAdminRoutes, paymentsAdminRoutes, checkoutAdminRoutes, checkinAdminRoutes, audienceAdminRoutes, venueAdminRoutes, waitingListAdminRoutes, webhooksAdminRoutes] });
  await app.register(portalPages);
  await app.register(adminDashboard, { prefix: '/admin', modulePages: [(pages: FastifyInstance) => channelsDashboard(pages, { eventsFor: listEventsFor }), catalogueDashboard, venuesDashboard, checkinDashboard, designerDashboard, vouchersDashboard, audienceDashboard, webhooksDashboard, ordersDashboard, paymentsDashboard, checkoutDashboard] });
  await app.register(widgetRoutes, { prefix: '/widget' });
  await app.register(scannerRoutes, { prefix: '/checkin' });
  await app.register(checkinRoutes, { prefix: CHECKIN_PREFIX });
  // D53: the deployment's ticket signing key pair exists from the first start on.
  // Not fatal: with the database down the service still starts (D46), and the first ticket to be
  // rendered creates the key then.
  app.addHook('onReady', async () => {
    await ensureSigningKey(app.ctx).catch((err: Error) => app.log.warn({ err: { message: err.message } }, 'ticket signing key not checked'));
    // D70: outside production, the development wallet signers are made at the first start and kept
    // (the first pass to be signed makes them when the database is down now).
    await ensureDevelopmentSigners(app.ctx).catch((err: Error) => app.log.warn({ err: { message: err.message } }, 'development wallet signers not checked'));
  });

  return app;
}
