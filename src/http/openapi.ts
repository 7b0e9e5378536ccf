import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';

// What every operation of the OpenAPI document shares, added in one place (the swagger
// `transformObject` of src/app.ts) rather than repeated in each route's schema: who may call it
// (security by path prefix, matching where the auth hooks are registered), the 429 where a rate
// limit guards it (the route's declared `rateLimits`; the hold caps answer 429 on cart writes, which
// are limited too) and the 5xx any route can answer. The route's own
// schema gives the rest: operationId, summary, parameters, body and its 2xx/4xx answers.

type Components = NonNullable<NonNullable<FastifyDynamicSwaggerOptions['openapi']>['components']>;

/** The security schemes of the document. */
export const SECURITY_SCHEMES = {
  bearer: { type: 'http', scheme: 'bearer' },
  adminToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'An admin API token (`npm run cli -- admin:token`, docs/admin.md) as `Authorization: Bearer`.',
  },
  deviceToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'A check-in device token (created for a gate in the dashboard or the admin API, docs/checkin.md) as `Authorization: Bearer`.',
  },
} satisfies Components['securitySchemes'];

type SchemeName = keyof typeof SECURITY_SCHEMES;

const errorContent = { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } };
const retryAfter = {
  'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer' as const, minimum: 0 } },
};

/** The shared responses (D4 error envelope) that `completeOperations` refers to. */
export const SHARED_RESPONSES = {
  TooManyRequests: {
    description:
      'A rate limit is reached (D45): `rate_limited`, and `Retry-After` says how many seconds to wait; ' +
      "or, on a cart write, a hold cap of the buyer or the order: `hold_limit_reached` (the message names the cap).",
    headers: retryAfter,
    content: errorContent,
  },
  InternalError: {
    description: 'An unexpected error: `internal_error`; the message reveals nothing of its cause.',
    content: errorContent,
  },
  ServiceUnavailable: {
    description: 'The database is unreachable (D46): `service_unavailable`; `Retry-After` says when to try again.',
    headers: retryAfter,
    content: errorContent,
  },
} satisfies Components['responses'];

interface Operation {
  security?: Array<Record<string, string[]>>;
  responses?: Record<string, unknown>;
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace']);

/** "/a/{id}" of the document as Fastify's "/a/:id", the form of the routes' own URLs. */
const fastifyPath = (path: string) => path.replace(/\{([^}]+)\}/g, ':$1');

/**
 * Completes every operation of `doc` in place: `security` from the first entry of `securedPrefixes`
 * whose prefix starts its path (`[]`, public, when none does), a 429 where a rate limit guards the
 * route (`limited`: "METHOD /url" of the routes that declare limits), and the 500 and 503 that any
 * route can answer.
 */
export function completeOperations<T extends { paths?: object }>(doc: T, securedPrefixes: ReadonlyArray<readonly [string, SchemeName]>, limited: ReadonlySet<string>): T {
  const paths = (doc.paths ?? {}) as Record<string, Record<string, Operation>>;
  for (const [path, item] of Object.entries(paths)) {
    const scheme = securedPrefixes.find(([prefix]) => path.startsWith(prefix))?.[1];
    for (const [method, operation] of Object.entries(item)) {
      if (!HTTP_METHODS.has(method)) continue;
      operation.security = scheme ? [{ [scheme]: [] }] : [];
      const responses = (operation.responses ??= {});
      if (limited.has(`${method.toUpperCase()} ${fastifyPath(path)}`)) {
        responses['429'] = { $ref: '#/components/responses/TooManyRequests' };
      }
      responses['500'] = { $ref: '#/components/responses/InternalError' };
      responses['503'] = { $ref: '#/components/responses/ServiceUnavailable' };
    }
  }
  return doc;
}
