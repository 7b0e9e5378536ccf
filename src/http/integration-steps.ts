import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { IntegrationStep } from '../lib/integration-policy.js';
import { integrationChecklistRecording, recordIntegrationStep, type RecordedStep } from '../platform/integration-checklist.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The checklist step the handler's outcome completed, where the route alone does not tell (confirm: first or repeated). */
    integrationStep?: IntegrationStep;
  }
}

/**
 * Which B2B channel route completes which step of the pre-production checklist when it succeeds
 * (paths below `/sales-channel/v1/:salesChannelSlug`). Confirm names its step itself
 * (`request.integrationStep`); the steps of refusals are the error codes of `ERROR_STEPS`.
 */
const ROUTE_STEPS: Readonly<Record<string, IntegrationStep>> = {
  'GET /config': 'config_read',
  'GET /:lang/events': 'catalogue_read',
  'GET /:lang/events/:eventId/sessions/:sessionId': 'session_read',
  'POST /:lang/orders': 'cart_built',
  'DELETE /:lang/orders/:orderToken': 'cart_emptied',
  'DELETE /:lang/orders/:orderToken/items/:itemId': 'cart_emptied',
  'DELETE /:lang/orders/:orderToken/items/bulk': 'cart_emptied',
  'POST /:lang/orders/:orderToken/apply-voucher': 'voucher_applied',
  'DELETE /:lang/orders/:orderToken/vouchers/:voucherCode': 'voucher_removed',
  'GET /:lang/reports/sales': 'report_read',
};

/** Refusals a channel must have met and handled: the error code of the answer. */
const ERROR_STEPS: Readonly<Record<string, IntegrationStep>> = {
  amount_mismatch: 'wrong_amount_refused',
  order_expired: 'order_expired',
};

const CHANNEL_SCOPE = '/:salesChannelSlug';

/**
 * Records the checklist steps that the B2B calls of `scope` (the channel scope, after the bearer
 * hook) complete. Outside production only, after the answer has gone (onResponse), and once per
 * channel and step per process: the hot path pays a map lookup.
 */
export function recordIntegrationSteps(scope: FastifyInstance): void {
  const db = scope.ctx.db;
  if (!integrationChecklistRecording(db)) return;

  const record = (request: FastifyRequest, step: RecordedStep) =>
    recordIntegrationStep(db, request.channel!.id, step, scope.ctx.clock.now()).catch((err: unknown) =>
      request.log.warn({ err, step }, 'integration checklist: step not recorded'),
    );

  scope.addHook('onResponse', async (request, reply) => {
    if (!request.channel || reply.statusCode >= 300) return;
    const url = request.routeOptions.url ?? '';
    const at = url.indexOf(CHANNEL_SCOPE);
    const step = request.integrationStep ?? ROUTE_STEPS[`${request.method} ${url.slice(at + CHANNEL_SCOPE.length)}`];
    if (at >= 0 && step) await record(request, step);
  });

  scope.addHook('onError', async (request, _reply, error) => {
    const step = ERROR_STEPS[(error as { code?: string }).code ?? ''];
    if (request.channel && step) await record(request, step);
  });
}
