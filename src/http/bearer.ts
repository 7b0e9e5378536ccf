import type { FastifyRequest } from 'fastify';
import { sha256 } from '../lib/secrets.js';

/** A request's bearer credential: the token as sent and its SHA-256 (what the database and the counters keep). */
export interface Bearer {
  token: string;
  hash: string;
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const seen = new WeakMap<FastifyRequest, Bearer | null>();

/**
 * The `Authorization: Bearer` credential of a request, parsed and hashed once per request: the
 * auth hook, the rate limits and the Idempotency-Key store all key on it (issue 27: it was parsed
 * by each and hashed up to three times). Null without a well-formed bearer header.
 */
export function bearerOf(request: FastifyRequest): Bearer | null {
  let bearer = seen.get(request);
  if (bearer === undefined) {
    const token = BEARER.exec(request.headers.authorization ?? '')?.[1];
    bearer = token === undefined ? null : { token, hash: sha256(token) };
    seen.set(request, bearer);
  }
  return bearer;
}
