import type { RouteOptions } from 'fastify';

type RouteHook = 'onRequest' | 'preValidation' | 'onSend' | 'onResponse' | 'onError';

function hooksOf(route: RouteOptions, hook: RouteHook): unknown[] {
  const existing = route[hook] as unknown;
  return existing ? (Array.isArray(existing) ? existing : [existing]) : [];
}

/**
 * Adds a hook to one route as it is declared (onRoute), after the route's own: the policies of
 * src/http (limits, idempotency, checklist) attach their work to the routes that declared it, so
 * that the other routes pay nothing.
 */
export function appendHook(route: RouteOptions, hook: RouteHook, handler: unknown): void {
  route[hook] = [...hooksOf(route, hook), handler] as never;
}

/** As `appendHook`, but first of the route's own hooks (still after the scope's). */
export function prependHook(route: RouteOptions, hook: RouteHook, handler: unknown): void {
  route[hook] = [handler, ...hooksOf(route, hook)] as never;
}
