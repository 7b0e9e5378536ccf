import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from './errors.js';
import {
  B2B_OPERATIONS,
  MODEL_REFUSALS,
  operationVerdict,
  SERVER_SIDE_OPERATIONS,
  type B2BOperation,
} from '../lib/integration-policy.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The B2B channel routes and their declared operations (buildApp). */
    b2bRoutes: B2BRoutes;
  }
  interface FastifyContextConfig {
    /**
     * What a B2B channel route does, in the terms of the integration policy
     * (src/lib/integration-policy.ts). Every route under the channel scope must declare one.
     */
    b2bOperation?: B2BOperation;
  }
}

/** A B2B channel route and the operation it declared. */
export interface B2BRoute {
  method: string;
  url: string;
  operation: B2BOperation;
}

/**
 * The B2B channel routes of one app, as they are registered: the table-driven scope test reads
 * them, and the CORS policy asks it which paths browsers must not reach.
 */
export class B2BRoutes {
  readonly routes: B2BRoute[] = [];
  private readonly serverSidePaths: RegExp[] = [];

  add(route: B2BRoute): void {
    this.routes.push(route);
    if (SERVER_SIDE_OPERATIONS.includes(route.operation)) {
      const pattern = route.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z]+/g, '[^/]+');
      this.serverSidePaths.push(new RegExp(`^${pattern}/?$`));
    }
  }

  /** True for the path of a route only a channel's server may call (confirm, confirm-payment, the report). */
  isServerSidePath(url: string): boolean {
    const path = url.split('?', 1)[0]!;
    return this.serverSidePaths.some((re) => re.test(path));
  }
}

/**
 * Requires every route registered in `scope` to declare its `b2bOperation`: a route without a
 * decision stops the start (and so every test) instead of being reachable with any credential.
 */
export function requireOperationDeclarations(scope: FastifyInstance, registry: B2BRoutes): void {
  scope.addHook('onRoute', (route) => {
    const operation = route.config?.b2bOperation;
    if (!operation || !B2B_OPERATIONS.includes(operation)) {
      throw new Error(`B2B route ${String(route.method)} ${route.url} declares no config.b2bOperation (see src/lib/integration-policy.ts)`);
    }
    for (const method of [route.method].flat()) registry.add({ method, url: route.url, operation });
  });
}

/** 403 for a server key, or its token, sent by a browser (D40): the key has leaked into a page. */
export const browserOriginRefused = () =>
  new AppError(
    'browser_origin_refused',
    "The channel's server key and its tokens are refused from a browser (the request has an Origin header): call from the channel's server",
  );

/**
 * The one guard of D40, after the bearer hook: a server-scope token from a browser is refused;
 * then the route's declared operation is checked against the channel's model and the token's scope.
 */
export function guardB2BOperations(scope: FastifyInstance): void {
  scope.addHook('onRequest', async (request: FastifyRequest) => {
    const channel = request.channel!;
    const credential = request.credential!;
    if (credential.scope === 'server' && request.headers.origin !== undefined) throw browserOriginRefused();
    const operation = request.routeOptions.config.b2bOperation!;
    switch (operationVerdict(channel.integrationMode, operation, credential.scope)) {
      case 'allowed':
        return;
      case 'model_forbids':
        throw new AppError('forbidden_for_integration_mode', MODEL_REFUSALS[operation] ?? 'Not available to this integration model');
      case 'server_credential_required':
        throw new AppError('server_credential_required', "This operation requires the channel's server key");
    }
  });
}
