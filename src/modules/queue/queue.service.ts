import crypto from 'node:crypto';
import { appSingleton, type AppContext } from '../../app-context.js';
import type { Db } from '../../db/client.js';
import type { SessionQueueSettings } from '../../db/schema/index.js';
import { AppError, invalidData, notFound, type FieldErrors } from '../../http/errors.js';
import { openSecret, randomBase62, sealSecret } from '../../lib/secrets.js';
import { isoWithOffset } from '../../lib/time.js';
import { appCache } from '../../platform/cache.js';
import { countQueueJoin, countQueuePass, type GaugeSource } from '../../platform/metrics.js';
import { verifyChallenge } from './queue.challenge.js';
import { drawOrder, newSeed, seedCommitment } from './queue.draw.js';
import * as repo from './queue.repo.js';
import { MemoryQueueStore, type QueueCounts, type QueueStore } from './queue.store.js';
import { openPass, openTicket, signPass, signTicket } from './queue.tokens.js';

// The waiting room (D60). What a session's queue needs from PostgreSQL (its settings, times and
// seed) is read once and cached per instance; the queue itself lives in the QueueStore (memory, or
// Redis for a fleet). So polls, joins and passes never query PostgreSQL; the draw writes its record
// once, without making anyone wait for it.

const QUEUE_DEFAULTS = { pass_ttl_seconds: 600, opens_minutes_before: 30, challenge: 'none' } as const;
export const QUEUE_LIMITS = {
  admission_per_minute: [1, 1_000_000],
  pass_ttl_seconds: [60, 86_400],
  opens_minutes_before: [0, 10_080],
} as const;

/** A session's `queue` as the admin API and the import take it: any subset, merged over the current one. */
export interface QueueInput {
  enabled?: boolean;
  admission_per_minute?: number;
  pass_ttl_seconds?: number;
  opens_minutes_before?: number;
  challenge?: 'none' | 'proof_of_work';
}

/**
 * The settings to store from `input` over `current` (null removes the queue), or the field errors
 * under `field`. A queue needs a sales start: the draw happens then (the caller checks, it knows the window).
 */
export function queueSettingsOf(input: QueueInput | null, current: SessionQueueSettings | null, field = 'queue'): SessionQueueSettings | null {
  if (input === null) return null;
  const given = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as QueueInput;
  const merged = { enabled: true, ...QUEUE_DEFAULTS, ...(current ?? {}), ...given };
  const errors: FieldErrors = {};
  if (merged.admission_per_minute === undefined) errors[`${field}.admission_per_minute`] = ['is required'];
  for (const [name, [min, max]] of Object.entries(QUEUE_LIMITS)) {
    const value = (merged as Record<string, unknown>)[name];
    if (value !== undefined && !(Number.isInteger(value) && (value as number) >= min && (value as number) <= max)) {
      errors[`${field}.${name}`] = [`must be a whole number from ${min} to ${max}`];
    }
  }
  if (merged.challenge !== 'none' && merged.challenge !== 'proof_of_work') errors[`${field}.challenge`] = ['must be none or proof_of_work'];
  if (typeof merged.enabled !== 'boolean') errors[`${field}.enabled`] = ['must be true or false'];
  if (Object.keys(errors).length) throw invalidData(errors);
  return {
    enabled: merged.enabled,
    admission_per_minute: merged.admission_per_minute!,
    pass_ttl_seconds: merged.pass_ttl_seconds,
    opens_minutes_before: merged.opens_minutes_before,
    challenge: merged.challenge,
  };
}

/**
 * After a session's queue settings are stored (same transaction): commits the seed of its draw,
 * which never changes once the status document has published its SHA-256.
 */
export async function prepareQueueDraw(ctx: AppContext, tx: Db, sessionId: number, settings: SessionQueueSettings | null): Promise<void> {
  if (!settings?.enabled) return;
  const seed = newSeed();
  await repo.ensureSeed(tx, sessionId, sealSecret(seed, ctx.config.signingSecret), seedCommitment(seed), ctx.clock.now());
}

/** After a session changed (its queue, times or status): this instance forgets what it cached. */
export function queueSessionChanged(ctx: AppContext, sessionId: number): void {
  factsCache(ctx).delete(sessionId);
  enabledCache(ctx).clear();
}

// ---- What each instance holds ----

interface QueueFacts {
  sessionId: number;
  status: string;
  startMs: number;
  salesStartMs: number | null;
  salesEndMs: number | null;
  settings: SessionQueueSettings | null;
  seed: string | null;
  seedSha256: string | null;
  /** The store's name of this queue: the session and its seed's commitment. */
  q: string;
}

/** The queue's sealed seed; one sealed under another SIGNING_SECRET says so (the log, not the buyer). */
function openSeed(ctx: AppContext, sessionId: number, sealed: string): string {
  try {
    return openSecret(sealed, ctx.config.signingSecret);
  } catch (err) {
    throw new Error(`the waiting room seed of session ${sessionId} cannot be opened: it was sealed under another SIGNING_SECRET (docs/operations.md)`, { cause: err });
  }
}

type Cached = QueueFacts | { missing: true };

/**
 * How long the store keeps a queue's state after its session starts: its draw stays verifiable
 * (GET .../draw) for a week after the show, and then a past on-sale takes no room in Redis.
 */
const QUEUE_KEPT_AFTER_START_MS = 7 * 24 * 60 * 60 * 1000;
/** How long from now (the service's clock) to keep the queue: at least an hour. */
const keepMs = (ctx: AppContext, f: QueueFacts) => Math.max(60 * 60 * 1000, f.startMs + QUEUE_KEPT_AFTER_START_MS - ctx.clock.now().getTime());

// Settings reach other instances within this time; the instance that changes them drops its copy at once.
const FACTS_TTL_MS = 30_000;

const factsCache = appCache<number, Cached>('queue.facts', (ctx) => ({
  max: 10_000,
  ttl: FACTS_TTL_MS,
  fetch: async (sessionId) => {
    const row = await repo.queueFacts(ctx.db, sessionId);
    if (!row) return { missing: true };
    return {
      sessionId,
      status: row.status,
      startMs: row.startDatetime.getTime(),
      salesStartMs: row.salesStartAt?.getTime() ?? null,
      salesEndMs: row.salesEndAt?.getTime() ?? null,
      settings: row.settings,
      seed: row.seedSealed ? openSeed(ctx, sessionId, row.seedSealed) : null,
      seedSha256: row.seedSha256,
      q: `${sessionId}:${(row.seedSha256 ?? 'none').slice(0, 16)}`,
    };
  },
}));

const enabledCache = appCache<'all', Set<number>>('queue.enabled-sessions', (ctx) => ({ max: 1, ttl: FACTS_TTL_MS, fetch: async () => new Set(await repo.enabledQueueSessions(ctx.db)) }));

/** The queue store of the app: memory unless `installQueueStore` put a Redis one in first. */
const STORE = 'queue.store';
function queueStore(ctx: AppContext): QueueStore {
  let store = ctx.singletons.get(STORE) as QueueStore | undefined;
  if (!store) ctx.singletons.set(STORE, (store = new MemoryQueueStore()));
  return store;
}
export function installQueueStore(ctx: AppContext, store: QueueStore): void {
  ctx.singletons.set(STORE, store);
}

/** Each queue's counts, kept for up to a second (the status document is cacheable that long anyway). */
const countsCache = appCache<string, QueueCounts, QueueStore>('queue.counts', () => ({ max: 10_000, ttl: 1000, fetch: async (q, store) => store.counts(q) }));
/** Queues this instance has seen drawn (a drawn queue stays drawn), and draws under way here. */
const drawState = appSingleton('queue.draws', () => ({ drawn: new Set<string>(), running: new Map<string, Promise<void>>() }));

async function factsOf(ctx: AppContext, sessionId: number): Promise<QueueFacts> {
  const facts = await factsCache(ctx).fetch(sessionId);
  if (!facts || 'missing' in facts) throw notFound('Session');
  return facts;
}

// ---- The clock's rules ----

type Phase = 'closed' | 'pre_queue' | 'open' | 'ended';

function phaseOf(f: QueueFacts, now: number): Phase {
  if (!f.settings?.enabled || f.salesStartMs === null || !f.seed) return 'closed';
  if (f.status === 'cancelled' || f.status === 'closed' || now >= (f.salesEndMs ?? f.startMs) || now >= f.startMs) return 'ended';
  if (now >= f.salesStartMs) return 'open';
  return now >= f.salesStartMs - f.settings.opens_minutes_before * 60_000 ? 'pre_queue' : 'closed';
}

/** Numbers admitted by the clock alone: admission_per_minute, spread evenly over each minute from the sales start. */
function admittedByClock(f: QueueFacts, now: number): number {
  if (!f.settings || f.salesStartMs === null || now < f.salesStartMs) return 0;
  return Math.floor(((now - f.salesStartMs) * f.settings.admission_per_minute) / 60_000);
}

/**
 * The queue's counts: from this instance's cache, else one read of the store shared by every
 * request that misses meanwhile (single flight: a thousand polls arriving as the entry expires make
 * one Redis round trip, not a thousand).
 */
async function countsOf(ctx: AppContext, f: QueueFacts): Promise<QueueCounts> {
  return (await countsCache(ctx).fetch(f.q, { context: queueStore(ctx) }))!;
}

/** The draw, once per queue across the fleet: the pre-queue shuffled from the committed seed (queue.draw.ts). */
async function ensureDrawn(ctx: AppContext, f: QueueFacts): Promise<void> {
  const state = drawState(ctx);
  if (state.drawn.has(f.q)) return;
  let running = state.running.get(f.q);
  if (!running) {
    running = drawOnce(ctx, f).finally(() => state.running.delete(f.q));
    state.running.set(f.q, running);
  }
  await running;
}

async function drawOnce(ctx: AppContext, f: QueueFacts): Promise<void> {
  const store = queueStore(ctx);
  if (!(await store.counts(f.q)).drawn) {
    // The pre-queue may grow while it is shuffled (a join from an instance whose clock is behind):
    // the commit then refuses, and the draw is done again over the longer pre-queue.
    for (let attempt = 0; ; attempt++) {
      const pre = await store.preQueue(f.q);
      if (await store.commitDraw(f.q, drawOrder(f.seed!, pre), keepMs(ctx, f))) {
        void repo.recordDraw(ctx.db, f.sessionId, pre.length, ctx.clock.now()).catch(() => undefined);
        break;
      }
      if (attempt === 5) throw new AppError('service_unavailable', 'The queue is being drawn; try again');
    }
  }
  drawState(ctx).drawn.add(f.q);
  countsCache(ctx).delete(f.q);
}

// ---- The public interface ----

type QueueState = 'closed' | 'pre_queue' | 'drawing' | 'admitting' | 'ended';

export interface QueueStatus {
  session_id: number;
  state: QueueState;
  sales_start_at: string | null;
  opens_at: string | null;
  admitted_through: number;
  queue_length: number;
  admission_per_minute: number | null;
  pass_ttl_seconds: number | null;
  challenge: 'none' | 'proof_of_work' | null;
  seed_sha256: string | null;
  seed: string | null;
  server_time: string;
}

/** The status document (the same for every buyer). */
async function queueStatus(ctx: AppContext, sessionId: number): Promise<QueueStatus> {
  const doc = statusDocumentNow(ctx, sessionId) ?? (await buildStatusDocument(ctx, sessionId));
  return { ...doc.status, server_time: serverTime(ctx.clock.now().getTime()) };
}

/**
 * The status document as the route serves it, built once and shared by every poll while nothing in
 * it can have changed: the JSON of the answer up to `server_time` (`head`), its ETag, and what it
 * was built from. Polls then cost no object, no serialization and no hash (bench:onsale).
 */
export interface StatusDocument {
  status: Omit<QueueStatus, 'server_time'>;
  /** The answer's JSON before the value of `server_time`; the route adds the clock and `TAIL`. */
  head: string;
  etag: string;
  /** The facts and counts it was built from: the same objects in the caches, or it is stale. */
  facts: QueueFacts;
  counts: QueueCounts | null;
  /** The service's clock (ms) from which, and until which, the clock alone changes nothing in it. */
  builtAt: number;
  validUntil: number;
}

export const STATUS_DOCUMENT_TAIL = '"},"message":"Queue status"}';

const statusDocuments = appCache<number, StatusDocument>('queue.status-documents', () => ({ max: 10_000 }));

/** The time of the service's clock, in the document's format (whole seconds): one string per second. */
let lastTime = { second: NaN, text: '' };
function serverTime(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== lastTime.second) lastTime = { second, text: isoWithOffset(new Date(ms))! };
  return lastTime.text;
}

/**
 * The session's current status document if the one built last still holds, else null (then
 * `buildStatusDocument`). It holds while the caches still have the facts and counts it was built
 * from (a join, the draw or a settings change on this instance drops them; in a fleet the counts
 * are read again from Redis at least every second, as the document's max-age allows) and the clock
 * has not reached its next change (an admission, the pre-queue's opening, the sales start or end).
 */
export function statusDocumentNow(ctx: AppContext, sessionId: number): StatusDocument | null {
  const doc = statusDocuments(ctx).get(sessionId);
  if (!doc) return null;
  const now = ctx.clock.now().getTime();
  if (now < doc.builtAt || now >= doc.validUntil) return null;
  if (factsCache(ctx).get(sessionId) !== doc.facts) return null;
  if (doc.counts !== null && countsCache(ctx).get(doc.facts.q) !== doc.counts) return null;
  return doc;
}

/**
 * The number of the ticket a status poll names (`?ticket_id=`), so that a buyer of the pre-queue
 * learns its number on a poll it makes anyway instead of one more request per buyer at the draw
 * (docs/onsale.md): null while the document is not admitting and for a ticket the queue does not
 * know. Not a secret: once drawn, every ticket id and its place are published (GET .../draw). A
 * Map look-up in memory; one Redis read in a fleet, made only by polls that name a ticket (a buyer
 * names it until it knows its number).
 */
export async function statusNumberOf(ctx: AppContext, doc: StatusDocument, ticketId: string): Promise<number | null> {
  if (doc.status.state !== 'admitting') return null;
  return queueStore(ctx).numberOf(doc.facts.q, ticketId);
}

/** The end of a status answer that names a ticket: its number after `server_time`. */
export const statusNumberTail = (number: number | null) => `","number":${number === null ? 'null' : number}},"message":"Queue status"}`;

/** The ETag of a status answer that names a ticket: the document's, and the number. */
export const statusNumberEtag = (doc: StatusDocument, number: number | null) => `${doc.etag.slice(0, -1)}.${number ?? 'none'}"`;

/** The `server_time` of an answer: the clock now, as the document writes it. */
export const statusServerTime = (ctx: AppContext) => serverTime(ctx.clock.now().getTime());

/** Builds (and keeps) the session's status document. */
export async function buildStatusDocument(ctx: AppContext, sessionId: number): Promise<StatusDocument> {
  const f = await factsOf(ctx, sessionId);
  let now = ctx.clock.now().getTime();
  const phase = phaseOf(f, now);
  if (phase === 'open') {
    await ensureDrawn(ctx, f);
    now = ctx.clock.now().getTime();
  }
  const counts = phase === 'closed' ? null : await countsOf(ctx, f);
  const drawn = counts?.drawn ?? false;
  const byClock = admittedByClock(f, now);
  const admitted = drawn ? Math.min(byClock, counts!.last) : 0;
  const state: QueueState = phase === 'open' ? (drawn ? 'admitting' : 'drawing') : phase;
  const on = f.settings?.enabled ? f.settings : null;
  const status: Omit<QueueStatus, 'server_time'> = {
    session_id: sessionId,
    state,
    sales_start_at: f.salesStartMs === null ? null : isoWithOffset(new Date(f.salesStartMs)),
    opens_at: on && f.salesStartMs !== null ? isoWithOffset(new Date(f.salesStartMs - on.opens_minutes_before * 60_000)) : null,
    admitted_through: admitted,
    queue_length: !counts ? 0 : state === 'pre_queue' || state === 'drawing' ? counts.preQueue : state === 'admitting' ? Math.max(0, counts.last - admitted) : 0,
    admission_per_minute: on?.admission_per_minute ?? null,
    pass_ttl_seconds: on?.pass_ttl_seconds ?? null,
    challenge: on?.challenge ?? null,
    seed_sha256: on ? f.seedSha256 : null,
    seed: drawn ? f.seed : null,
  };
  const json = JSON.stringify(status);
  // While the draw runs nothing is kept: the next poll looks again.
  const validUntil = state === 'drawing' ? now : nextChange(f, now, drawn && byClock < counts!.last ? byClock : null);
  const doc: StatusDocument = {
    status,
    head: `{"status":200,"success":true,"data":${json.slice(0, -1)},"server_time":"`,
    // The ETag leaves out the clock's reading, which changes every request.
    etag: `W/"${crypto.createHash('sha1').update(json).digest('base64url').slice(0, 22)}"`,
    facts: f,
    counts,
    builtAt: now,
    validUntil,
  };
  if (validUntil > now) statusDocuments(ctx).set(sessionId, doc);
  return doc;
}

/**
 * The first instant after `now` at which the clock alone changes the status document: the pre-queue's
 * opening, the sales start, the sales end or the session's start, and, while the clock admits
 * (`byClock`, the number it has admitted, below the last number given), its next admission.
 */
function nextChange(f: QueueFacts, now: number, byClock: number | null): number {
  let next = Infinity;
  const consider = (t: number | null | undefined) => {
    if (t !== null && t !== undefined && t > now && t < next) next = t;
  };
  if (f.salesStartMs !== null) {
    consider(f.salesStartMs);
    if (f.settings) consider(f.salesStartMs - f.settings.opens_minutes_before * 60_000);
  }
  consider(f.salesEndMs);
  consider(f.startMs);
  if (byClock !== null && f.settings && f.salesStartMs !== null) consider(f.salesStartMs + Math.ceil(((byClock + 1) * 60_000) / f.settings.admission_per_minute));
  return next;
}

/**
 * The waiting rooms of an event for its sales overview (D66): per session its state, length,
 * admitted numbers and rate, from the same status document buyers poll; null when none has one.
 */
export async function queueFiguresOfEvent(ctx: AppContext, eventId: number, sessionId: number | null) {
  const ids = await repo.queuedSessionsOfEvent(ctx.db, eventId, sessionId);
  if (ids.length === 0) return null;
  const sessions = await Promise.all(
    ids.map(async (id) => {
      const s = await queueStatus(ctx, id);
      return { session_id: id, state: s.state, queue_length: s.queue_length, admitted_through: s.admitted_through, admission_per_minute: s.admission_per_minute, sales_start_at: s.sales_start_at };
    }),
  );
  return {
    queue_length: sessions.reduce((sum, s) => sum + s.queue_length, 0),
    admitted: sessions.reduce((sum, s) => sum + s.admitted_through, 0),
    sessions,
  };
}

export interface JoinInput {
  client_id: string;
  /** The solved proof-of-work challenge (altcha's payload), when the queue asks for one. */
  challenge_solution?: string;
}

/** Joins the queue: the client's one ticket, numbered once the pre-queue is drawn. */
export async function joinQueue(ctx: AppContext, sessionId: number, input: JoinInput) {
  const f = await factsOf(ctx, sessionId);
  const now = ctx.clock.now().getTime();
  const phase = phaseOf(f, now);
  if (phase === 'closed' || phase === 'ended') {
    countQueueJoin('refused_closed');
    throw queueClosed(f, phase);
  }
  const store = queueStore(ctx);
  if (f.settings!.challenge === 'proof_of_work' && !(await store.ticketOf(f.q, input.client_id))) {
    const failure = await verifyChallenge(ctx, store, sessionId, input.challenge_solution);
    if (failure) {
      countQueueJoin('refused_challenge');
      throw new AppError('queue_challenge_failed', { failure });
    }
  }
  if (phase === 'open') await ensureDrawn(ctx, f);
  let outcome = await store.join(f.q, input.client_id, randomBase62(20), phase === 'pre_queue', admittedByClock(f, now) + 1, keepMs(ctx, f));
  if (outcome === 'draw') {
    await ensureDrawn(ctx, f);
    outcome = await store.join(f.q, input.client_id, randomBase62(20), false, admittedByClock(f, now) + 1, keepMs(ctx, f));
  }
  if (outcome === 'draw') throw new AppError('service_unavailable', 'The queue is being drawn; try again');
  countsCache(ctx).delete(f.q);
  countQueueJoin('joined');
  const drawn = outcome.number !== null || phase === 'open';
  return {
    ticket: signTicket(ctx.config.signingSecret, { s: sessionId, c: input.client_id, t: outcome.ticketId }),
    ticket_id: outcome.ticketId,
    number: outcome.number,
    state: (phase === 'open' ? (drawn ? 'admitting' : 'drawing') : phase) as QueueState,
  };
}

function queueClosed(f: QueueFacts, phase: Phase): AppError {
  const error = !f.settings?.enabled
    ? new AppError('queue_closed', { session: f.sessionId })
    : new AppError('queue_closed', phase === 'ended' ? 'The waiting room has closed' : 'The waiting room is not open yet');
  const on = f.settings?.enabled ? f.settings : null;
  return error.withData({
    state: phase,
    opens_at: on && f.salesStartMs !== null ? isoWithOffset(new Date(f.salesStartMs - on.opens_minutes_before * 60_000)) : null,
  });
}

/** The pass of an admitted ticket: 200 once its number is admitted, else 409 not_admitted_yet. */
export async function queuePass(ctx: AppContext, sessionId: number, ticket: string) {
  const f = await factsOf(ctx, sessionId);
  const claims = openTicket(ctx.config.signingSecret, ticket);
  if (!claims || claims.s !== sessionId) throw new AppError('queue_ticket_invalid', 'The queue ticket is not valid for this session');
  const now = ctx.clock.now().getTime();
  const phase = phaseOf(f, now);
  if (phase === 'closed' || phase === 'ended') throw queueClosed(f, phase);
  if (phase === 'open') await ensureDrawn(ctx, f);
  const store = queueStore(ctx);
  const number = phase === 'open' ? await store.numberOf(f.q, claims.t) : null;
  const counts = await countsOf(ctx, f);
  const admitted = counts.drawn ? Math.min(admittedByClock(f, now), Math.max(counts.last, number ?? 0)) : 0;
  if (number === null || number > admitted) {
    throw (number === null ? new AppError('not_admitted_yet', 'The queue has not been drawn yet') : new AppError('not_admitted_yet', { number })).withData({
      number,
      admitted_through: admitted,
    });
  }
  const issued = await store.passIssuedAt(f.q, claims.t, now, keepMs(ctx, f));
  if (issued === now) countQueuePass('issued');
  const expiresAt = issued + f.settings!.pass_ttl_seconds * 1000;
  if (expiresAt <= now) {
    throw new AppError('queue_pass_invalid', 'The pass of this ticket has expired').withData({ reason: 'expired', expires_at: isoWithOffset(new Date(expiresAt)) });
  }
  return {
    pass: signPass(ctx.config.signingSecret, { s: sessionId, c: claims.c, t: claims.t, e: expiresAt }),
    expires_at: isoWithOffset(new Date(expiresAt))!,
    number,
  };
}

/** The seed and the pre-queue's tickets in drawn order, so that anyone can recompute the draw. */
export async function queueDraw(ctx: AppContext, sessionId: number) {
  const f = await factsOf(ctx, sessionId);
  const now = ctx.clock.now().getTime();
  const phase = phaseOf(f, now);
  if (phase === 'open') await ensureDrawn(ctx, f);
  const drawn = phase !== 'closed' && (await countsOf(ctx, f)).drawn;
  if (!drawn) throw new AppError('queue_not_drawn', 'The pre-queue has not been drawn yet');
  return {
    session_id: sessionId,
    algorithm: 'fisher-yates-hmac-sha256-v1',
    seed: f.seed!,
    seed_sha256: f.seedSha256!,
    ticket_ids: await queueStore(ctx).drawnOrder(f.q),
  };
}

// ---- The pass at cart creation ----

/**
 * Who creates a cart, for the pass's binding: the client id the buyer joined with (the widget's
 * D38 id, the portal's id from its buyer cookie), or null for a channel's server (server-scope
 * token), which acts for its buyers and forwards each buyer's pass (docs/onsale.md).
 */
type PassHolder = string | null;

export interface CartCreation {
  /** The sessions of the new cart, or the rates it names (a rate fits only its own session's seats). */
  sessionIds?: readonly number[];
  rateIds?: readonly number[];
  holder: PassHolder;
  /** The `Queue-Pass` header. */
  pass: string | string[] | undefined;
}

/**
 * THE rule of D60 for every route that creates a cart (B2B create in every form, portal create,
 * best available): while a session's queue is enabled, a new cart of it needs a valid pass of that
 * session and client, and one pass makes at most MAX_LIVE_ORDERS_PER_BUYER carts (counted in the
 * shared store). Runs `create` under the pass; a create that fails gives its use back. Adding items
 * to an existing cart needs no pass: call this only when a cart is created.
 */
export async function withQueuePass<T>(ctx: AppContext, creation: CartCreation, create: () => Promise<T>): Promise<T> {
  const enabled = (await enabledCache(ctx).fetch('all'))!;
  if (enabled.size === 0) return create();
  const sessionIds = creation.sessionIds ?? (creation.rateIds?.length ? await repo.sessionsOfRates(ctx.db, creation.rateIds) : []);
  const queued = [...new Set(sessionIds)].filter((id) => enabled.has(id));
  if (queued.length === 0) return create();
  const header = Array.isArray(creation.pass) ? creation.pass[0] : creation.pass;
  if (!header) {
    countQueuePass('refused_missing');
    throw new AppError('queue_pass_required', { session: queued[0]! }).withData({ session_id: queued[0] });
  }
  const claims = openPass(ctx.config.signingSecret, header.trim());
  const now = ctx.clock.now().getTime();
  const refuse = (reason: 'malformed' | 'other_session' | 'other_client' | 'expired' | 'used_up', message: string) => {
    countQueuePass(reason === 'expired' ? 'refused_expired' : reason === 'used_up' ? 'refused_used_up' : 'refused_invalid');
    return new AppError('queue_pass_invalid', message).withData({ reason, session_id: queued[0] });
  };
  if (!claims) throw refuse('malformed', 'The Queue-Pass is not a valid pass');
  if (queued.some((id) => id !== claims.s)) throw refuse('other_session', 'The Queue-Pass is for another session');
  if (creation.holder !== null && claims.c !== creation.holder) throw refuse('other_client', 'The Queue-Pass belongs to another buyer');
  if (claims.e <= now) throw refuse('expired', 'The Queue-Pass has expired');
  const f = await factsOf(ctx, claims.s);
  const store = queueStore(ctx);
  if (!(await store.usePass(f.q, claims.t, ctx.config.maxLiveOrdersPerBuyer, claims.e - now))) {
    throw refuse('used_up', `The Queue-Pass has made its ${ctx.config.maxLiveOrdersPerBuyer} carts already`);
  }
  try {
    const result = await create();
    countQueuePass('used');
    return result;
  } catch (err) {
    await store.releasePass(f.q, claims.t).catch(() => undefined);
    throw err;
  }
}

/** A portal buyer's queue client id: derived from its buyer cookie id, so that only that browser knows it. */
export const portalQueueClient = (signingSecret: string, cookieId: string) =>
  crypto.createHmac('sha256', signingSecret).update(`queue-client:${cookieId}`).digest('base64url').slice(0, 32);

// ---- Metrics ----

/** The queues this instance knows (those it served since it started): length, admitted, rate. */
export function queueGauges(ctx: AppContext): GaugeSource[] {
  const known = async () => {
    const out: { f: QueueFacts; status: QueueStatus }[] = [];
    // A copy first: reading a status uses the cache, which moves the entry to the front, and an
    // iterator over a cache that moves under it can visit the same entries again and again.
    for (const cached of [...factsCache(ctx).values()]) {
      if ('missing' in cached || !cached.settings?.enabled) continue;
      out.push({ f: cached, status: await queueStatus(ctx, cached.sessionId) });
    }
    return out;
  };
  const gauge = (name: string, help: string, value: (s: QueueStatus) => number | null): GaugeSource => ({
    name,
    help,
    labelNames: ['session_id'],
    read: async () =>
      (await known()).flatMap(({ status }) => {
        const v = value(status);
        return v === null ? [] : [{ labels: { session_id: String(status.session_id) }, value: v }];
      }),
  });
  return [
    gauge('taquilla_queue_length', 'Buyers waiting in a session\'s waiting room (D60): the pre-queue before the draw, not yet admitted after it', (s) => s.queue_length),
    gauge('taquilla_queue_admitted_through', 'The last number admitted by a session\'s waiting room', (s) => s.admitted_through),
    gauge('taquilla_queue_admission_per_minute', 'The configured admission rate of a session\'s waiting room', (s) => s.admission_per_minute),
  ];
}
