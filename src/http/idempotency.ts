import crypto from 'node:crypto';
import { Type } from '@fastify/type-provider-typebox';
import { Value } from 'typebox/value';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { AppContext } from '../app-context.js';
import { sha256 } from '../lib/secrets.js';
import * as repo from '../platform/idempotency.repo.js';
import type { Job } from '../platform/scheduler.js';
import { AppError, invalidData } from './errors.js';

// D52, docs/idempotency.md. Every POST, PUT and DELETE under the covered prefixes takes an optional
// `Idempotency-Key`: the first response to (credential, key) is kept 24 hours and replayed for a
// repeat with the same method, path and body. Attached to each route as it is declared (onRoute),
// so that a new route is covered without saying so.

const HEADER = 'idempotency-key';
/** Says that an answer is a stored one (a client's logs then tell a replay from a run). */
const REPLAYED_HEADER = 'idempotent-replayed';
/** How long a first response is replayed; an older key counts as new, swept or not (D52). */
const IDEMPOTENCY_KEEP_MS = 24 * 60 * 60 * 1000;
/**
 * A claim still running after this long is taken to be abandoned (its instance died mid-request)
 * and a repeat may take it over; no request of the service runs nearly this long.
 */
const ABANDONED_AFTER_MS = 5 * 60 * 1000;
const SWEEP_INTERVAL_MS = 10 * 60 * 1000;
const SWEEP_BATCH = 5_000;
const WRITE_METHODS = new Set(['POST', 'PUT', 'DELETE']);

/** 1 to 255 printable ASCII characters (space to tilde): a UUID v4 is the usual choice. */
const IdempotencyKey = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: '^[\\x20-\\x7E]+$',
  description:
    'Makes a retry safe (D52, docs/idempotency.md): the first response to this key is replayed for 24 hours to a repeat with the same body; ' +
    'another body is 422 idempotency_key_reused, a repeat while the first still runs is 409 idempotency_key_in_use.',
});
const KEY_MESSAGE = 'must be 1 to 255 printable ASCII characters';

/** The claim a request holds while it runs; its response is stored under it. */
interface Claim {
  credential: string;
  key: string;
  claim: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyClaim: Claim | null;
  }
}

export interface IdempotencyOptions {
  /** Path prefixes whose writes are covered, each with the name that keeps its credentials apart. */
  areas: { prefix: string; name: string }[];
  /** `METHOD /url` of covered writes without a bearer credential (the token endpoint): not covered. */
  publicRoutes: string[];
}

/** JSON with the keys of every object sorted: one text for one value, whatever the key order. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

const bearerToken = (authorization: string | undefined): string | null => /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1] ?? null;

/** The request's key when it sent one; 422 naming the header when it is not a valid key. */
function keyOf(request: FastifyRequest): string | null {
  const key = request.headers[HEADER];
  if (key === undefined) return null;
  if (typeof key !== 'string' || !Value.Check(IdempotencyKey, key)) throw invalidData({ 'Idempotency-Key': [KEY_MESSAGE] });
  return key;
}

/** Claims the key, or answers the repeat: the stored response, 422 for another body, 409 while running. */
async function claimOrReplay(ctx: AppContext, area: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
  const key = keyOf(request);
  const token = bearerToken(request.headers.authorization);
  // The route's auth hook has accepted the token by now (401 otherwise): it names the caller. Each
  // access token is its own credential, so two buyers' widget tokens never share a key.
  if (key === null || token === null) return undefined;
  const credential = `${area}:${sha256(token)}`;
  const fingerprint = sha256(canonicalJson([request.method, request.url, request.body ?? null]));
  const now = ctx.clock.now();
  const replaceableBefore = { done: new Date(now.getTime() - IDEMPOTENCY_KEEP_MS), running: new Date(now.getTime() - ABANDONED_AFTER_MS) };
  // A row that a finishing request releases between our claim and our read is claimed again.
  for (let attempt = 0; attempt < 3; attempt++) {
    const claim = crypto.randomUUID();
    if (await repo.claimKey(ctx.db, { credential, key, fingerprint, claim, now }, replaceableBefore)) {
      request.idempotencyClaim = { credential, key, claim };
      return undefined;
    }
    const stored = await repo.findKey(ctx.db, credential, key);
    if (!stored) continue;
    if (stored.fingerprint !== fingerprint) {
      throw new AppError('idempotency_key_reused', 'This Idempotency-Key was used for another request (method, path or body); use a new key');
    }
    if (stored.state === 'running') break;
    reply
      .status(stored.responseStatus!)
      .header('content-type', stored.responseType ?? 'application/json; charset=utf-8')
      .header(REPLAYED_HEADER, 'true');
    // Returning the reply tells Fastify that the hook answered: the handler does not run.
    return reply.send(stored.responseBody);
  }
  throw new AppError('idempotency_key_in_use', 'A request with this Idempotency-Key is still running; retry once it has answered');
}

/** Keeps the response of the request that holds a claim; releases the claim of a 5xx or a 429. */
async function keepResponse(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<void> {
  const held = request.idempotencyClaim;
  if (!held) return;
  request.idempotencyClaim = null;
  const status = reply.statusCode;
  const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
  try {
    // A 5xx or a 429 says "try again": keeping it would refuse the retry it asks for.
    if (status >= 500 || status === 429 || body === null) await repo.releaseKey(ctx.db, held);
    else {
      const type = reply.getHeader('content-type');
      await repo.storeResponse(ctx.db, held, { status, type: type === undefined ? null : String(type), body });
    }
  } catch (err) {
    // The answer still goes out; an unstored claim is taken over after ABANDONED_AFTER_MS.
    request.log.error({ err }, 'idempotency: the response could not be stored');
  }
}

function appendHook(route: RouteOptions, hook: 'preValidation' | 'onSend', handler: unknown): void {
  const existing = route[hook] as unknown;
  route[hook] = (existing ? [...(Array.isArray(existing) ? existing : [existing]), handler] : [handler]) as never;
}

/** Documents the header and the two answers of a repeat on a covered operation (OpenAPI). */
function document(route: RouteOptions): void {
  const schema = (route.schema ??= {}) as { headers?: { type?: string; properties?: Record<string, unknown> }; response?: Record<string, unknown> };
  schema.headers ??= Type.Object({});
  schema.headers.properties = { ...schema.headers.properties, [HEADER]: IdempotencyKey };
  for (const status of ['409', '422']) if (schema.response && !schema.response[status]) schema.response[status] = { $ref: 'ErrorEnvelope' };
}

/**
 * Covers every POST, PUT and DELETE declared after this call under `opts.areas`: call before
 * declaring the routes. The key is claimed after authentication and before validation, so that the
 * first answer, whatever it is (a 422 too), is the one a repeat gets.
 */
export function registerIdempotency(app: FastifyInstance, opts: IdempotencyOptions): void {
  const ctx = app.ctx;
  app.decorateRequest('idempotencyClaim', null);
  const publicRoutes = new Set(opts.publicRoutes);
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat().filter((m) => WRITE_METHODS.has(m));
    const area = opts.areas.find((a) => route.url.startsWith(`${a.prefix}/`));
    if (!area || methods.length === 0 || methods.every((m) => publicRoutes.has(`${m} ${route.url}`))) return;
    appendHook(route, 'preValidation', (request: FastifyRequest, reply: FastifyReply) =>
      WRITE_METHODS.has(request.method) ? claimOrReplay(ctx, area.name, request, reply) : Promise.resolve(undefined),
    );
    appendHook(route, 'onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      await keepResponse(ctx, request, reply, payload);
      return payload;
    });
    document(route);
  });
}

/** Deletes the keys older than 24 hours, in batches (run by the scheduler). */
export function idempotencySweepJob(ctx: AppContext): Job {
  return {
    name: 'idempotency-sweep',
    intervalMs: SWEEP_INTERVAL_MS,
    async run() {
      const before = new Date(ctx.clock.now().getTime() - IDEMPOTENCY_KEEP_MS);
      while ((await repo.deleteKeysCreatedBefore(ctx.db, before, SWEEP_BATCH)) === SWEEP_BATCH);
    },
  };
}
