import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';

/** What a scope open to any origin allows a cross-origin caller (no credentials: no cookies are sent). */
export interface AnyOriginPolicy {
  methods: readonly string[];
  allowedHeaders: readonly string[];
  exposedHeaders: readonly string[];
  /** Seconds a browser may keep a preflight's answer. */
  maxAge: number;
}

/**
 * CORS for every route of `scope` from any origin, as @fastify/cors 11 answered with
 * `origin: '*'`, `credentials: false` and these lists (the same headers in the same order, the same
 * strict preflight and its 400, the same catch-all OPTIONS route), with the header values made once
 * here: the plugin merged its options into a new object and built its origin resolver on every
 * request (issue 27). A route whose config says `cors: false` (route-policy.ts) gets no CORS headers
 * and no preflight. Call it first in the scope, before its routes and its other hooks.
 *
 * Which routes say so is known as they are declared; the hook asks a request's route only in a
 * scope that has such a route (the B2B interface's server-only operations). It has to ask there,
 * before the scope's other hooks (a 401 of the bearer hook carries the CORS headers): a hook
 * attached to the route itself would run after them. The waiting room's scope has none, and its
 * polls do not read `request.routeOptions` (an object Fastify builds on each read).
 */
export function allowAnyOrigin(scope: FastifyInstance, policy: AnyOriginPolicy): void {
  const exposed = policy.exposedHeaders.join(', ');
  const methods = policy.methods.join(', ');
  const allowed = policy.allowedHeaders.join(', ');
  const maxAge = String(policy.maxAge);
  // Each route's options as declared (later onRoute hooks may still set `cors: false` on them,
  // markServerOnlyRoutes does), looked at once every route is declared.
  const declared: RouteOptions[] = [];
  scope.addHook('onRoute', (route) => {
    declared.push(route);
  });
  let someRouteWithout = true;
  scope.addHook('onReady', async () => {
    someRouteWithout = declared.some((route) => route.config?.cors === false);
    declared.length = 0;
  });
  scope.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, next: () => void) => {
    if (someRouteWithout && request.routeOptions.config.cors === false) return next();
    reply.header('Access-Control-Allow-Origin', '*');
    reply.header('Access-Control-Expose-Headers', exposed);
    if (request.raw.method !== 'OPTIONS') return next();
    // A preflight is answered here, before any authentication: a browser sends it without the
    // Authorization header.
    if (!request.headers.origin || !request.headers['access-control-request-method']) {
      reply.status(400).type('text/plain').send('Invalid Preflight Request');
      return;
    }
    reply.header('Access-Control-Allow-Methods', methods);
    reply.header('Access-Control-Allow-Headers', allowed);
    reply.header('Access-Control-Max-Age', maxAge);
    reply.code(204).header('Content-Length', '0').send();
  });
  // Every preflight of the scope reaches a route (answered by the hook above); one that the hook
  // passed on (CORS off) is an unknown route.
  scope.options('*', { schema: { hide: true } }, (_request, reply) => reply.callNotFound());
}
