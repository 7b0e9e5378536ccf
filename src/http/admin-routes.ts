import type { FastifyPluginAsyncTypebox, Static, TSchema, TUnknown } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest, preValidationHookHandler } from 'fastify';
import type { Actor } from '../platform/actor.js';
import { adminActorOf, adminErrors, adminOperation } from './admin-api.js';
import { ok } from './envelope.js';
import { Envelope } from './schemas.js';

// The shape every admin API route shares, in one place: an operation of the part's tag, what it
// takes (path parameters, query, body), and its answer: `data` in the success envelope (D33) with
// a status (200 unless 201 created / 202 accepted) and a message, beside the admin API's errors.

type AdminApp = Parameters<FastifyPluginAsyncTypebox>[0];

/** An admin route's OpenAPI operation, inputs and answer. */
export interface AdminRoute<P extends TSchema, Q extends TSchema, B extends TSchema, D extends TSchema> {
  operationId: string;
  summary: string;
  description?: string;
  params?: P;
  querystring?: Q;
  body?: B;
  /** The schema of the envelope's `data`. */
  data: D;
  /** The success status: 201 for what the route created, 202 for what it queued; 200 if absent. */
  status?: 201 | 202;
  /** The envelope's message ('OK' if absent), or how the answer's data words it. */
  message?: string | ((data: Static<D>) => string);
  /** The error answers, if not the admin API's usual ones. */
  errors?: Record<number, unknown>;
  bodyLimit?: number;
  preValidation?: preValidationHookHandler;
}

/** The request an admin route's answer reads, typed by the route's schemas. */
type AdminRequest<P extends TSchema, Q extends TSchema, B extends TSchema> = FastifyRequest<{ Params: Static<P>; Querystring: Static<Q>; Body: Static<B> }>;

type AdminAnswer<P extends TSchema, Q extends TSchema, B extends TSchema, D extends TSchema> = (req: AdminRequest<P, Q, B>, actor: Actor) => Promise<Static<D>>;

/**
 * The routes of one part of the admin API (`Admin: <tag>` in the OpenAPI document): each method
 * registers a route whose answer is given the request and the user behind the admin API token.
 */
export function adminRouter(app: AdminApp, tag: string) {
  const method =
    (name: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE') =>
    <D extends TSchema, P extends TSchema = TUnknown, Q extends TSchema = TUnknown, B extends TSchema = TUnknown>(url: string, route: AdminRoute<P, Q, B, D>, answer: AdminAnswer<P, Q, B, D>) => {
      const { operationId, summary, description, params, querystring, body, data, status = 200, message, errors = adminErrors, bodyLimit, preValidation } = route;
      const schema = {
        ...adminOperation(tag, operationId, summary),
        ...(description !== undefined && { description }),
        ...(params && { params }),
        ...(querystring && { querystring }),
        ...(body && { body }),
        response: { [status]: Envelope(data), ...errors },
      };
      app.route({
        method: name,
        url,
        ...(bodyLimit !== undefined && { bodyLimit }),
        ...(preValidation && { preValidation }),
        schema,
        handler: async (req: FastifyRequest, reply: FastifyReply) => {
          const result = await answer(req as AdminRequest<P, Q, B>, adminActorOf(req));
          return reply.status(status).send(ok(result, typeof message === 'function' ? message(result) : message, status));
        },
      });
    };
  return { get: method('GET'), post: method('POST'), put: method('PUT'), patch: method('PATCH'), delete: method('DELETE') };
}
