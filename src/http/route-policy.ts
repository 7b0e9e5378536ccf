import type { FastifyInstance, RouteOptions } from 'fastify';
import { B2B_OPERATIONS, SERVER_SIDE_OPERATIONS, type B2BOperation, type IntegrationStep } from '../lib/integration-policy.js';
import type { LimitName } from './rate-limits.js';

// A route's policy is declared on the route (its `config`) and read once, as the route is declared
// (Fastify's onRoute): which B2B operation it is, which rate limits guard it, which checklist step
// its success completes, and so whether browsers may call it (CORS). The hooks that enforce each
// are attached to that route then, with what it declared; no table keyed by URL, nothing looked up
// per request. A scope says which declarations its routes must make (`requireRoutePolicy`): a route
// without them stops the start. docs/architecture.md "Policy on the route".

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route of the app with the policy it declared (tests sweep them; nothing reads it per request). */
    routePolicies: RoutePolicies;
  }
  interface FastifyContextConfig {
    /**
     * What a B2B channel route does, in the terms of the integration policy
     * (src/lib/integration-policy.ts). Every route of the channel scope declares one; it decides
     * the credential scopes allowed (D40) and, for the operations only a channel's server may call,
     * that the route has no CORS.
     */
    b2bOperation?: B2BOperation;
    /**
     * The limits of src/http/rate-limits.ts that guard the route (D45), or why it has none. Every
     * write of the B2B and portal APIs declares one or the other.
     */
    rateLimits?: readonly LimitName[] | { none: string };
    /**
     * The step of the pre-production checklist that a successful call completes (docs/preproduction.md);
     * `set_by_handler` when the outcome decides (confirm: first or repeated).
     */
    checklistStep?: IntegrationStep | 'set_by_handler';
    /** CORS (http/cors.ts): false = no CORS headers and no preflight (set from `b2bOperation`, not by hand). */
    cors?: false;
  }
}

/** One route's policy as it was declared, read once at onRoute. */
interface RoutePolicy {
  method: string;
  url: string;
  operation: B2BOperation | null;
  rateLimits: readonly LimitName[];
  /** Why a route has no rate limit, when it says so. */
  unlimitedBecause: string | null;
  checklistStep: IntegrationStep | 'set_by_handler' | null;
  /** A browser may neither preflight nor read the answer (D40: confirm, confirm-payment, the report). */
  serverOnly: boolean;
}

/** A B2B channel route and the operation it declared. */
export type B2BRoute = RoutePolicy & { operation: B2BOperation };

/** The routes of one app and their policies, in the order they were declared. */
class RoutePolicies {
  readonly routes: RoutePolicy[] = [];

  get b2b(): B2BRoute[] {
    return this.routes.filter((r): r is B2BRoute => r.operation !== null);
  }
}

/** The policy `route` declares (its `config`), one record per method. */
function policiesOf(route: RouteOptions): RoutePolicy[] {
  const config = route.config ?? {};
  const operation = config.b2bOperation ?? null;
  const limits = config.rateLimits;
  return [route.method].flat().map((method) => ({
    method,
    url: route.url,
    operation,
    rateLimits: Array.isArray(limits) ? limits : [],
    unlimitedBecause: limits && !Array.isArray(limits) ? (limits as { none: string }).none : null,
    checklistStep: config.checklistStep ?? null,
    serverOnly: operation !== null && SERVER_SIDE_OPERATIONS.includes(operation),
  }));
}

/** Collects every route's policy into `app.routePolicies`: call before any route is declared. */
export function collectRoutePolicies(app: FastifyInstance): void {
  const registry = new RoutePolicies();
  app.decorate('routePolicies', registry);
  app.addHook('onRoute', (route) => {
    registry.routes.push(...policiesOf(route));
  });
}

/** What the routes of a scope must declare. */
export interface PolicyDemands {
  /** Every route: `b2bOperation` (the channel scope of the B2B interface). */
  operation?: boolean;
  /** Every POST, PUT, PATCH and DELETE: `rateLimits`, a limit or the reason for none (the B2B and portal APIs). */
  writeLimits?: boolean;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Requires the routes registered in `scope` (and its children) to declare what `demands` says: a
 * route without a decision stops the start (and so every test) instead of going live unguarded.
 */
export function requireRoutePolicy(scope: FastifyInstance, demands: PolicyDemands): void {
  scope.addHook('onRoute', (route) => {
    const config = route.config ?? {};
    const methods = [route.method].flat();
    const name = `${methods.join(',')} ${route.url}`;
    if (demands.operation && !(config.b2bOperation && B2B_OPERATIONS.includes(config.b2bOperation))) {
      throw new Error(`B2B route ${name} declares no config.b2bOperation (see src/lib/integration-policy.ts)`);
    }
    const limits = config.rateLimits;
    const decided = Array.isArray(limits) ? limits.length > 0 : typeof (limits as { none?: unknown } | undefined)?.none === 'string' && (limits as { none: string }).none.length > 0;
    if (demands.writeLimits && methods.some((m) => WRITES.has(m)) && !decided) {
      throw new Error(`${name} declares no config.rateLimits: give it its limits (src/http/rate-limits.ts) or { none: 'the reason it has none' }`);
    }
  });
}

/**
 * Marks the server-only routes of `scope` (D40) as having no CORS: the CORS plugin then adds no
 * header to their answers. Their preflights are refused by `refusePreflights`. Returns the paths.
 */
export function markServerOnlyRoutes(scope: FastifyInstance): Set<string> {
  const paths = new Set<string>();
  scope.addHook('onRoute', (route) => {
    const operation = route.config?.b2bOperation;
    if (!operation || !SERVER_SIDE_OPERATIONS.includes(operation)) return;
    route.config = { ...route.config, cors: false };
    paths.add(route.url);
  });
  return paths;
}

/**
 * Declares in `scope` (the one holding the CORS plugin, whose catch-all OPTIONS route answers every
 * preflight) an OPTIONS route for each server-only path, with CORS off and the answer of an unknown
 * route: the router picks it over the catch-all, so no preflight is matched against paths.
 */
export function refusePreflights(scope: FastifyInstance, paths: Iterable<string>): void {
  for (const url of paths) {
    scope.options(url.slice(scope.prefix.length), { config: { cors: false }, schema: { hide: true } }, (_request, reply) => reply.callNotFound());
  }
}
