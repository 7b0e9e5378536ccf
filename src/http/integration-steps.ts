import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { IntegrationStep } from '../lib/integration-policy.js';
import { appendHook } from './route-hooks.js';
import { integrationChecklistRecording, recordIntegrationStep, type RecordedStep } from '../platform/integration-checklist.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The checklist step the handler's outcome completed, where the route alone does not tell (confirm: first or repeated). */
    integrationStep?: IntegrationStep;
  }
}

/** Refusals a channel must have met and handled: the error code of the answer. */
const ERROR_STEPS: Readonly<Record<string, IntegrationStep>> = {
  amount_mismatch: 'wrong_amount_refused',
  order_expired: 'order_expired',
};

/**
 * Records the checklist steps that the B2B calls of `scope` (the channel scope, after the bearer
 * hook) complete. Outside production only, after the answer has gone (onResponse), and once per
 * channel and step per process. A route names its step in `config.checklistStep` (confirm says
 * `set_by_handler`: its handler sets `request.integrationStep`); only those routes get the hook.
 */
export function recordIntegrationSteps(scope: FastifyInstance): void {
  const db = scope.ctx.db;
  if (!integrationChecklistRecording(db)) return;

  const record = (request: FastifyRequest, step: RecordedStep) =>
    recordIntegrationStep(db, request.channel!.id, step, scope.ctx.clock.now()).catch((err: unknown) =>
      request.log.warn({ err, step }, 'integration checklist: step not recorded'),
    );

  scope.addHook('onRoute', (route: RouteOptions) => {
    const declared = route.config?.checklistStep;
    if (!declared) return;
    const routeStep = declared === 'set_by_handler' ? undefined : declared;
    appendHook(route, 'onResponse', async (request: FastifyRequest, reply: FastifyReply) => {
      const step = request.integrationStep ?? routeStep;
      if (request.channel && reply.statusCode < 300 && step) await record(request, step);
    });
  });

  scope.addHook('onError', async (request, _reply, error) => {
    const step = ERROR_STEPS[(error as { code?: string }).code ?? ''];
    if (request.channel && step) await record(request, step);
  });
}
