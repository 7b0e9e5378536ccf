import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { AppError } from './errors.js';
import { MODEL_REFUSALS, operationVerdict, type B2BOperation } from '../lib/integration-policy.js';
import { prependHook } from './route-hooks.js';

/** 403 for a server key, or its token, sent by a browser (D40): the key has leaked into a page. */
export const browserOriginRefused = () =>
  new AppError(
    'browser_origin_refused',
    "The channel's server key and its tokens are refused from a browser (the request has an Origin header): call from the channel's server",
  );

/**
 * The one guard of D40, after the bearer hook: a server-scope token from a browser is refused;
 * then the route's declared operation is checked against the channel's model and the token's scope.
 * Attached to each route of `scope` as it is declared (the operation read then, not per request),
 * first of its own request hooks: it runs after the scope's auth hook and before the route's limits.
 */
export function guardB2BOperations(scope: FastifyInstance): void {
  scope.addHook('onRoute', (route: RouteOptions) => {
    const operation = route.config!.b2bOperation!;
    prependHook(route, 'onRequest', async (request: FastifyRequest) => guard(request, operation));
  });
}

function guard(request: FastifyRequest, operation: B2BOperation): void {
  const channel = request.channel!;
  const credential = request.credential!;
  if (credential.scope === 'server' && request.headers.origin !== undefined) throw browserOriginRefused();
  switch (operationVerdict(channel.integrationMode, operation, credential.scope)) {
    case 'allowed':
      return;
    case 'model_forbids':
      throw new AppError('forbidden_for_integration_mode', MODEL_REFUSALS[operation] ?? 'Not available to this integration model');
    case 'server_credential_required':
      throw new AppError('server_credential_required', "This operation requires the channel's server key");
  }
}
