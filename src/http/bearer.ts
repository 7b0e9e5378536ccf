import type { FastifyInstance, FastifyRequest } from 'fastify';
import { sha256 } from '../lib/secrets.js';

/** A request's bearer credential: the token as sent and its SHA-256 (what the database and the counters keep). */
interface Bearer {
  token: string;
  hash: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The `Authorization: Bearer` credential, parsed and hashed on first read and kept for the rest
     * of the request (null without a well-formed bearer header). The channel, admin-API and
     * check-in auth hooks, the rate limits and the Idempotency-Key store all read it here.
     */
    readonly bearer: Bearer | null;
    /** Backing slot of `bearer`: undefined until first read. */
    bearerParsed: Bearer | null | undefined;
  }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The bearer credential of an Authorization header value; null when there is none. */
function parseBearer(authorization: string | undefined): Bearer | null {
  const token = BEARER.exec(authorization ?? '')?.[1];
  return token === undefined ? null : { token, hash: sha256(token) };
}

/**
 * Hangs `request.bearer` on every request of `app`: a getter over a slot declared with the request's
 * shape (decorateRequest), so that routes that never read it pay nothing, and the ones that do
 * parse the header and hash the token once however many hooks ask (issue 26 item 3, issue 27).
 */
export function decorateBearer(app: FastifyInstance): void {
  app.decorateRequest('bearerParsed', undefined);
  app.decorateRequest('bearer', {
    getter(this: FastifyRequest): Bearer | null {
      let bearer = this.bearerParsed;
      if (bearer === undefined) bearer = this.bearerParsed = parseBearer(this.headers.authorization);
      return bearer;
    },
  });
}
