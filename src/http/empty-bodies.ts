import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { appendHook, prependHook } from './route-hooks.js';

// A request that carries no body is not a malformed JSON body. HTTP clients often send
// `Content-Type: application/json` on every call, a DELETE or an action without a body included;
// Fastify's JSON parser then fails on the empty text ("FST_ERR_CTP_EMPTY_JSON_BODY", our 400
// `bad_request`), so `DELETE .../orders/{token}` or a whole-order refund (every field optional)
// failed for such a client while it worked without the header. For a route that needs nothing in
// its body (a DELETE, no body schema, or an object schema without required fields) an empty request
// is read as no body (`{}` where the route has an object schema). A route with required fields keeps
// the 400 for an empty JSON body: a missing body there is the caller's mistake, said as before.

type Schema = Record<string, unknown>;

/** Whether a body schema is satisfied by `{}`: an object schema without required properties. */
function takesEmptyObject(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false;
  const s = schema as Schema;
  if (s.anyOf !== undefined || s.oneOf !== undefined || s.allOf !== undefined) return false;
  const isObject = s.type === 'object' || (s.type === undefined && typeof s.properties === 'object');
  return isObject && (!Array.isArray(s.required) || s.required.length === 0);
}

/** The request has no body bytes at all (no length, or length 0, and not chunked). */
function hasNoBody(request: FastifyRequest): boolean {
  const { headers } = request;
  return headers['transfer-encoding'] === undefined && (headers['content-length'] === undefined || headers['content-length'] === '0');
}

function isJson(contentType: string | undefined): boolean {
  return contentType !== undefined && /^application\/(?:[\w.+-]+\+)?json\b/i.test(contentType.trim());
}

/** Applies the rule above to every route declared after this call (the whole app when called first). */
export function registerEmptyBodies(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat().map((m) => String(m).toUpperCase());
    if (methods.every((m) => m === 'GET' || m === 'HEAD')) return;
    const body = route.schema?.body;
    const emptyObject = takesEmptyObject(body);
    if (body !== undefined && !emptyObject && !methods.includes('DELETE')) return;
    // Before parsing: without a content type Fastify does not parse an empty request at all.
    prependHook(route, 'onRequest', async (request: FastifyRequest) => {
      if (!hasNoBody(request) || !isJson(request.headers['content-type'])) return;
      if (request.method === 'DELETE' || body === undefined || emptyObject) delete request.headers['content-type'];
    });
    // Before validation: an object schema without required fields reads no body as `{}`.
    if (emptyObject) {
      appendHook(route, 'preValidation', async (request: FastifyRequest, _reply: FastifyReply) => {
        if (request.body === undefined) request.body = {};
      });
    }
  });
}
