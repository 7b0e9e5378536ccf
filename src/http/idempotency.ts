import crypto from 'node:crypto';
import os from 'node:os';
import { Type } from '@fastify/type-provider-typebox';
import { Value } from 'typebox/value';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { AppContext } from '../app-context.js';
import type { Db } from '../db/client.js';
import { unreachableCause } from '../db/unreachable.js';
import { sha256 } from '../lib/secrets.js';
import * as repo from '../platform/idempotency.repo.js';
import type { Job } from '../platform/scheduler.js';
import { AppError, invalidData } from './errors.js';
import { appendHook } from './route-hooks.js';

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
 * D55: a running claim counts only while its request runs. The claiming process renews the claim's
 * lease every RENEW_EVERY_MS while the request runs (ClaimKeeper); a claim not renewed for LEASE_MS
 * (its process was killed, or lost the database) is free. LEASE_MS stays under the 5 s of D55:
 * when the database comes back, every lease of a request cut off by the outage has run out, or
 * runs out within LEASE_MS of the last renewal before the cut.
 */
const LEASE_MS = 3_000;
const RENEW_EVERY_MS = 1_000;
/**
 * How soon an answer or a release that the database could not take is tried again: the key of a
 * request that has ended should not wait for the next renewal beat once the database is back, and a
 * repeat on this instance settles it at once (ClaimKeeper.settleEnded).
 */
const PENDING_RETRY_MS = 100;
/**
 * An in-process claim older than this is let go (no renewal any more): a request whose hooks never
 * ran. No request of the service runs nearly this long.
 */
const HELD_AT_MOST_MS = 5 * 60 * 1000;
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
type Claim = repo.ClaimRef;

interface StoredAnswer {
  status: number;
  type: string | null;
  body: string;
}

interface Held {
  claim: Claim;
  since: number;
  /** What the request's end could not write (the database was away): written at the next beat. */
  pending: { store: StoredAnswer } | 'release' | null;
}

interface KeeperLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * The claims this process holds (D55): renews their leases while their requests run, and writes
 * what a request's end could not (its answer, or the release of a 5xx's claim) once the database
 * answers again. One timer per app, running only while a claim is held; one statement per beat for
 * all the leases.
 */
export class ClaimKeeper {
  private readonly held = new Map<string, Held>();
  private timer: NodeJS.Timeout | null = null;
  private pendingTimer: NodeJS.Timeout | null = null;
  private closed = false;
  private beating: Promise<void> | null = null;
  private renewFailing = false;
  readonly lease: repo.Lease;

  constructor(
    private readonly db: Db,
    private readonly log: KeeperLog,
    opts: { leaseMs?: number; renewEveryMs?: number } = {},
  ) {
    this.lease = { owner: `${os.hostname()}/${process.pid}/${crypto.randomUUID().slice(0, 8)}`, ms: opts.leaseMs ?? LEASE_MS };
    this.renewEveryMs = opts.renewEveryMs ?? RENEW_EVERY_MS;
  }

  private readonly renewEveryMs: number;

  /** Claims held now (tests, diagnostics). */
  get size(): number {
    return this.held.size;
  }

  hold(claim: Claim): void {
    this.held.set(claim.claim, { claim, since: Date.now(), pending: null });
    this.timer ??= setInterval(() => void this.beat(), this.renewEveryMs).unref();
  }

  /**
   * The request has answered: keeps its answer, or releases its claim (`answer` null: a 5xx, a 429,
   * a stream). When the database cannot take it now, the claim stays held and the next beats retry;
   * a release that waits lets the lease run out meanwhile, so the key is free either way.
   */
  async finish(claim: Claim, answer: StoredAnswer | null): Promise<void> {
    const entry = this.held.get(claim.claim) ?? { claim, since: Date.now(), pending: null };
    entry.pending = answer ? { store: answer } : 'release';
    this.held.set(claim.claim, entry);
    if (!(await this.settle(entry))) {
      this.log.error({ key: claim.key }, 'idempotency: the answer could not be kept or the key released now; retrying');
      this.retryPendingSoon();
    }
  }

  /**
   * A repeat found its key running under this process: when that request has in fact ended (its
   * answer or release waits for the database), writes it now. True when it did: the repeat then
   * reads the key again and gets the answer, or claims it.
   */
  async settleEnded(credential: string, key: string): Promise<boolean> {
    for (const entry of this.held.values()) {
      if (entry.claim.credential === credential && entry.claim.key === key && entry.pending !== null) return this.settle(entry);
    }
    return false;
  }

  /** Tries the pending writes every PENDING_RETRY_MS until none is left. */
  private retryPendingSoon(): void {
    if (this.closed) return;
    this.pendingTimer ??= setTimeout(() => {
      void this.beat().finally(() => {
        this.pendingTimer = null;
        if ([...this.held.values()].some((e) => e.pending !== null)) this.retryPendingSoon();
      });
    }, PENDING_RETRY_MS).unref();
  }

  /** Writes an entry's pending answer or release; false when it must wait for the next beat. */
  private async settle(entry: Held): Promise<boolean> {
    const { pending, claim } = entry;
    if (pending === null) return false;
    try {
      if (pending === 'release') await repo.releaseKey(this.db, claim);
      else await repo.storeResponse(this.db, claim, pending.store);
      this.held.delete(claim.claim);
      return true;
    } catch (err) {
      // An answer the database refuses for another reason than being away will never be stored:
      // release the claim so that a retry runs, rather than keep it waiting for the answer.
      if (pending !== 'release' && !unreachableCause(err)) entry.pending = 'release';
      return false;
    }
  }

  /** One beat: pending writes first, then the leases of the requests still running. */
  private beat(): Promise<void> {
    this.beating ??= this.beatOnce().finally(() => {
      this.beating = null;
    });
    return this.beating;
  }

  private async beatOnce(): Promise<void> {
    const now = Date.now();
    for (const entry of [...this.held.values()]) {
      if (now - entry.since > HELD_AT_MOST_MS) {
        this.held.delete(entry.claim.claim);
        this.log.warn({ key: entry.claim.key }, 'idempotency: a claim held too long was let go');
      } else if (entry.pending !== null && !(await this.settle(entry))) break; // still away: try at the next beat
    }
    const running = [...this.held.values()].filter((e) => e.pending !== 'release').map((e) => e.claim);
    if (running.length > 0) {
      try {
        await repo.renewLeases(this.db, running.map(({ credential, key, claim }) => ({ credential, key, claim })), this.lease.ms);
        this.renewFailing = false;
      } catch (err) {
        // Once per outage, not every second of it.
        if (!this.renewFailing) this.log.error({ err }, 'idempotency: leases could not be renewed (their claims lapse in a few seconds)');
        this.renewFailing = true;
      }
    }
    if (this.held.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  /** Stops the timer and waits for the beat under way (the app is closing). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.pendingTimer) clearTimeout(this.pendingTimer);
    this.timer = null;
    await this.beating;
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyClaim: Claim | null;
  }
  interface FastifyInstance {
    /** This instance's running Idempotency-Key claims and their leases (D55). */
    idempotencyClaims: ClaimKeeper;
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

/** The request's key when it sent one; 422 naming the header when it is not a valid key. */
function keyOf(request: FastifyRequest): string | null {
  const key = request.headers[HEADER];
  if (key === undefined) return null;
  if (typeof key !== 'string' || !Value.Check(IdempotencyKey, key)) throw invalidData({ 'Idempotency-Key': [KEY_MESSAGE] });
  return key;
}

/** Claims the key, or answers the repeat: the stored response, 422 for another body, 409 while running. */
async function claimOrReplay(ctx: AppContext, keeper: ClaimKeeper, area: string, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
  const key = keyOf(request);
  const bearer = request.bearer;
  // The route's auth hook has accepted the token by now (401 otherwise): it names the caller. Each
  // access token is its own credential, so two buyers' widget tokens never share a key.
  if (key === null || bearer === null) return undefined;
  const credential = `${area}:${bearer.hash}`;
  const fingerprint = sha256(canonicalJson([request.method, request.url, request.body ?? null]));
  const now = ctx.clock.now();
  const doneBefore = new Date(now.getTime() - IDEMPOTENCY_KEEP_MS);
  // A row that a finishing request releases between our claim and our read is claimed again.
  for (let attempt = 0; attempt < 3; attempt++) {
    const claim = crypto.randomUUID();
    if (await repo.claimKey(ctx.db, { credential, key, fingerprint, claim, now }, keeper.lease, doneBefore)) {
      request.idempotencyClaim = { credential, key, claim };
      keeper.hold(request.idempotencyClaim);
      return undefined;
    }
    const stored = await repo.findKey(ctx.db, credential, key);
    if (!stored) continue;
    if (stored.fingerprint !== fingerprint) {
      throw new AppError('idempotency_key_reused', 'This Idempotency-Key was used for another request (method, path or body); use a new key');
    }
    if (stored.state === 'running') {
      // Running under this process, but its request has ended: settle that now and read again.
      if (stored.owner === keeper.lease.owner && (await keeper.settleEnded(credential, key))) continue;
      break;
    }
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
async function keepResponse(keeper: ClaimKeeper, request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<void> {
  const held = request.idempotencyClaim;
  if (!held) return;
  request.idempotencyClaim = null;
  const status = reply.statusCode;
  const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
  const type = reply.getHeader('content-type');
  // A 5xx or a 429 says "try again": keeping it would refuse the retry it asks for (D55). The
  // answer still goes out when the database cannot take the write now; the keeper retries it.
  await keeper.finish(held, status >= 500 || status === 429 || body === null ? null : { status, type: type === undefined ? null : String(type), body });
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
  const keeper = new ClaimKeeper(ctx.db, app.log);
  app.decorate('idempotencyClaims', keeper);
  app.addHook('onClose', () => keeper.close());
  app.decorateRequest('idempotencyClaim', null);
  const publicRoutes = new Set(opts.publicRoutes);
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat().filter((m) => WRITE_METHODS.has(m));
    const area = opts.areas.find((a) => route.url.startsWith(`${a.prefix}/`));
    if (!area || methods.length === 0 || methods.every((m) => publicRoutes.has(`${m} ${route.url}`))) return;
    appendHook(route, 'preValidation', (request: FastifyRequest, reply: FastifyReply) =>
      WRITE_METHODS.has(request.method) ? claimOrReplay(ctx, keeper, area.name, request, reply) : Promise.resolve(undefined),
    );
    appendHook(route, 'onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      await keepResponse(keeper, request, reply, payload);
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
