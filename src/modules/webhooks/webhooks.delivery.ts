import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { AppContext } from '../../app-context.js';
import { parseJson } from '../../db/client.js';
import { toAmount } from '../../lib/money.js';
import { openSecret, randomBase62 } from '../../lib/secrets.js';
import { isoWithOffset } from '../../lib/time.js';
import { recordIntegrationStep } from '../../platform/integration-checklist.js';
import type { GaugeSource } from '../../platform/metrics.js';
import { queueGauges } from '../../lib/queue-gauges.js';
import { periodicJob, type Job } from '../../platform/scheduler.js';
import { orderViewFromRows } from '../orders/orders.view.js';
import { pinnedLookup, resolveDestination, type Destination } from './webhooks.destination.js';
import * as repo from './webhooks.repo.js';
import type { DeliveryJob } from './webhooks.repo.js';

// The delivery worker of the webhook outbox (D51, docs/webhooks.md "Retries").

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
/**
 * Waits after the 1st, 2nd, ... failed attempt: 5 s, 5 min, 30 min, 2 h, 5 h, then 10 h seven
 * times; 77 h 35 min in all (at least 3 days even before jitter), 13 attempts, then `failed`.
 */
export const RETRY_DELAYS_MS = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, ...Array<number>(7).fill(10 * HOUR)];
/** Each wait is lengthened by up to this share, at random, so that a receiver back from an outage is not hit by every retry at once. */
const JITTER = 0.2;
/** How long one request may take, answer included. */
const REQUEST_TIMEOUT_MS = 10 * SECOND;
/** A claimed delivery is due again after this, should its worker die while sending (well above the timeout). */
const LEASE_MS = 2 * MINUTE;
/** The attempt log keeps this much of an answer's body. */
const EXCERPT_BYTES = 1024;
const CLAIM_BATCH = 100;
const PARALLEL_REQUESTS = 20;
const PASS_INTERVAL_MS = 2 * SECOND;

/** When the next attempt is due after `attempts` failed ones, or null when the schedule is over. */
export function nextAttemptAt(now: Date, attempts: number, random = Math.random): Date | null {
  const delay = RETRY_DELAYS_MS[attempts - 1];
  return delay === undefined ? null : new Date(now.getTime() + Math.round(delay * (1 + JITTER * random())));
}

/** What the outbox keeps of a refund (function order_outcome): minor units, negative. */
interface RefundExtra {
  reference: string;
  total_amount: number;
  fee_amount?: number;
  tickets?: { ticket_id: number | null; item_id: number; session_seat_id: number; total_amount: number }[];
}

/** `data.refund` of order.refunded: the refund's reference and amounts, and the tickets it covered (D58). */
const refundView = (r: RefundExtra) => ({
  reference: r.reference,
  total_amount: toAmount(r.total_amount),
  ...(r.fee_amount === undefined ? {} : { fee_amount: toAmount(r.fee_amount) }),
  ...(r.tickets === undefined
    ? {}
    : { tickets: r.tickets.map((t) => ({ id: t.ticket_id, item_id: t.item_id, session_seat_id: t.session_seat_id, total_amount: toAmount(t.total_amount) })) }),
});

/** The event's body as first rendered: an order event's D35 view from the rows the outbox kept. */
async function render(ctx: AppContext, job: DeliveryJob): Promise<string> {
  let data: Record<string, unknown>;
  if (job.data !== null) {
    data = parseJson(job.data);
  } else {
    const view: Record<string, unknown> = { ...(await orderViewFromRows(ctx, job.order_rows, job.lang ?? 'es')) };
    const refund = job.extra === null ? undefined : (parseJson(job.extra).refund as RefundExtra | undefined);
    if (refund) view.refund = refundView(refund);
    data = view;
  }
  return JSON.stringify({ type: job.type, timestamp: isoWithOffset(new Date(job.created_at)), data });
}

/**
 * Gives every job its body: rendered at an event's first attempt and frozen in the outbox (one
 * statement for the batch), so that every later attempt sends the same bytes.
 */
async function withPayloads(ctx: AppContext, jobs: DeliveryJob[]): Promise<DeliveryJob[]> {
  const fresh = new Map<number, string>();
  for (const job of jobs) if (job.payload === null && !fresh.has(job.event_id)) fresh.set(job.event_id, await render(ctx, job));
  const kept = await repo.freezePayloads(ctx.db, [...fresh].map(([id, payload]) => ({ id, payload })));
  return jobs.map((job) => (job.payload === null ? { ...job, payload: kept.get(job.event_id) ?? fresh.get(job.event_id)! } : job));
}

/** webhook-signature: the current secret's signature, and the previous one's during a rotation's overlap. */
function signatureOf(ctx: AppContext, job: DeliveryJob, payload: string, signedAt: Date): string {
  const secrets = [job.secret_sealed];
  if (job.previous_secret_sealed && job.previous_until && new Date(job.previous_until) > ctx.clock.now()) secrets.push(job.previous_secret_sealed);
  return secrets.map((sealed) => new Webhook(openSecret(sealed, ctx.config.signingSecret)).sign(job.message_id, signedAt, payload)).join(' ');
}

/** The first EXCERPT_BYTES of an answer's body, cut on a character boundary. */
function excerptOf(chunks: Buffer[]): string {
  // A split UTF-8 sequence would not round-trip through text.
  return Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8').replace(/\uFFFD$/, '');
}

class RequestTimeout extends Error {
  override name = 'TimeoutError';
}

/**
 * POSTs the body to the destination, connecting only to its checked addresses (pinnedLookup) with
 * the host name kept for the Host header and TLS; answers the status and the first KB of the body.
 * A redirect is not followed (node:http never does): the endpoint is the URL the organiser registered.
 */
function post(destination: Destination, headers: Record<string, string>, body: string): Promise<{ status: number; excerpt: string }> {
  const { url, host, addresses } = destination;
  const secure = url.protocol === 'https:';
  return new Promise((resolve, reject) => {
    const request = (secure ? https : http).request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup: pinnedLookup(addresses) as never,
        // A fresh connection each time: a pooled one could have been opened to another answer.
        agent: false,
        // TLS names the host (SNI, certificate check), not the address connected to.
        ...(secure && net.isIP(host) === 0 ? { servername: host } : {}),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => {
          clearTimeout(timer);
          resolve({ status: response.statusCode ?? 0, excerpt: excerptOf(chunks) });
          response.destroy();
        };
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.byteLength;
          if (size >= EXCERPT_BYTES) done();
        });
        response.on('end', done);
        response.on('error', done);
      },
    );
    const timer = setTimeout(() => request.destroy(new RequestTimeout()), REQUEST_TIMEOUT_MS);
    request.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    request.end(body);
  });
}

interface Outcome {
  statusCode: number | null;
  durationMs: number;
  responseExcerpt: string | null;
  error: string | null;
}

/** One POST of the event to the endpoint; never throws (a failure is an outcome). */
async function send(ctx: AppContext, job: DeliveryJob): Promise<Outcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    // Resolved once and connected to as checked (no second DNS answer). Development and test
    // deliver to local receivers; a deployment reachable by others does not.
    const resolved = await resolveDestination(job.url, { allowInternal: ctx.config.appEnv === 'development' || ctx.config.appEnv === 'test' });
    if ('problem' in resolved) return { statusCode: null, durationMs: elapsed(), responseExcerpt: null, error: resolved.problem };
    const payload = job.payload!;
    // The receiver checks webhook-timestamp against its own clock (5 minutes' tolerance), so it is
    // the real time of sending, not the app clock that tests move to make retries due.
    const signedAt = new Date();
    const response = await post(
      resolved.destination,
      {
        'content-type': 'application/json',
        'user-agent': 'Taquilla-Webhooks/1',
        'webhook-id': job.message_id,
        'webhook-timestamp': String(Math.floor(signedAt.getTime() / 1000)),
        'webhook-signature': signatureOf(ctx, job, payload, signedAt),
      },
      payload,
    );
    return { statusCode: response.status, durationMs: elapsed(), responseExcerpt: response.excerpt, error: null };
  } catch (err) {
    // A connection tried at several addresses fails with an AggregateError of each one's error.
    const e = err as Error & { code?: string; errors?: { code?: string }[]; cause?: { code?: string; message?: string } };
    const error =
      e instanceof RequestTimeout ? `no answer within ${REQUEST_TIMEOUT_MS / SECOND} s` : (e.code ?? e.errors?.[0]?.code ?? e.cause?.code ?? e.cause?.message ?? e.message);
    return { statusCode: null, durationMs: elapsed(), responseExcerpt: null, error: String(error).slice(0, 500) };
  }
}

const isSuccess = (status: number | null) => status !== null && status >= 200 && status < 300;

/** The log row of one attempt, and what its delivery becomes (`status` null: unchanged). */
function attemptRecord(job: DeliveryJob, outcome: Outcome, status: repo.AttemptRecord['status'], retryAt: Date | null): repo.AttemptRecord {
  return {
    delivery_id: job.id,
    endpoint_id: job.endpoint_id,
    status_code: outcome.statusCode,
    duration_ms: outcome.durationMs,
    response_excerpt: outcome.responseExcerpt,
    error: outcome.error,
    status,
    next_attempt_at: retryAt?.toISOString() ?? null,
    gone: outcome.statusCode === 410,
  };
}

/** A scheduled attempt: send, and say what its delivery becomes. */
async function attempt(ctx: AppContext, job: DeliveryJob, now: Date): Promise<repo.AttemptRecord> {
  const outcome = await send(ctx, job);
  const gone = outcome.statusCode === 410;
  const delivered = isSuccess(outcome.statusCode);
  // Pre-production checklist: a 2xx is the receiver's word that it verified the signature.
  if (delivered) await recordIntegrationStep(ctx.db, job.channel_id, 'webhook_verified', now).catch(() => undefined);
  const retryAt = delivered || gone ? null : nextAttemptAt(now, job.attempts + 1);
  return attemptRecord(job, outcome, delivered ? 'delivered' : retryAt ? 'pending' : 'failed', retryAt);
}

/**
 * One pass of the worker: claims due deliveries in batches and sends each batch, up to
 * PARALLEL_REQUESTS at a time, then records its attempts in one statement, until none is due at
 * `now`. Safe beside other passes on this or other instances (claimDue). Returns how many were
 * delivered.
 */
export async function deliverDueWebhooks(ctx: AppContext, opts: { now?: Date } = {}): Promise<number> {
  const now = opts.now ?? ctx.clock.now();
  let delivered = 0;
  for (;;) {
    const lease = randomBase62(16);
    const claimed = await repo.claimDue(ctx.db, { now, leaseUntil: new Date(now.getTime() + LEASE_MS), lease, limit: CLAIM_BATCH });
    const jobs = await withPayloads(ctx, claimed);
    const records: repo.AttemptRecord[] = [];
    let next = 0;
    const lane = async () => {
      while (next < jobs.length) records.push(await attempt(ctx, jobs[next++]!, now));
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL_REQUESTS, jobs.length) }, lane));
    await repo.recordAttempts(ctx.db, now, lease, records);
    delivered += records.filter((r) => r.status === 'delivered').length;
    if (claimed.length < CLAIM_BATCH) return delivered;
  }
}

export interface ManualAttempt extends Outcome {
  delivered: boolean;
}

/**
 * A redelivery by hand: sends the delivery now with its event's webhook-id and body, whatever its
 * status, and logs the attempt as manual. It does not move the retry schedule; success marks the
 * delivery delivered, a 410 disables the endpoint.
 */
export async function redeliver(ctx: AppContext, job: DeliveryJob): Promise<ManualAttempt> {
  const [ready] = await withPayloads(ctx, [job]);
  const outcome = await send(ctx, ready!);
  const delivered = isSuccess(outcome.statusCode);
  if (delivered) await recordIntegrationStep(ctx.db, job.channel_id, 'webhook_verified').catch(() => undefined);
  await repo.recordAttempts(ctx.db, ctx.clock.now(), null, [attemptRecord(job, outcome, delivered ? 'delivered' : null, null)]);
  return { ...outcome, delivered };
}

/** Delivered and failed events stay visible this long in the attempt log, then go. */
export const RETENTION_MS = 30 * 24 * HOUR;
const RETENTION_BATCH = 1000;

/** Deletes events older than RETENTION_MS that no delivery waits for, in batches. Answers how many. */
export async function sweepOldWebhookEvents(ctx: AppContext, opts: { now?: Date } = {}): Promise<number> {
  const before = new Date((opts.now ?? ctx.clock.now()).getTime() - RETENTION_MS);
  let total = 0;
  for (;;) {
    const n = await repo.deleteOldEvents(ctx.db, before, RETENTION_BATCH);
    total += n;
    if (n < RETENTION_BATCH) return total;
  }
}

/** The retention sweep as a scheduler job. */
export const webhookRetentionJob = (ctx: AppContext): Job => periodicJob('webhook-retention', HOUR, () => sweepOldWebhookEvents(ctx));

/** The worker as a scheduler job (started by src/server.ts with the others). */
export const webhookDeliveryJob = (ctx: AppContext): Job => periodicJob('webhook-delivery', PASS_INTERVAL_MS, () => deliverDueWebhooks(ctx));

/** The delivery queue on the app's metrics (docs/operations.md#metrics), read at each scrape. */
export function webhookQueueGauges(ctx: AppContext): GaugeSource[] {
  const stats = async () => {
    const { depth, oldest } = await repo.queueStats(ctx.db);
    return { depth, oldestAgeSeconds: oldest ? Math.max(0, (ctx.clock.now().getTime() - oldest.getTime()) / 1000) : 0 };
  };
  return queueGauges(
    stats,
    { name: 'taquilla_webhook_queue_depth', help: 'Webhook deliveries not yet delivered (due now or waiting for a retry)' },
    { name: 'taquilla_webhook_queue_oldest_age_seconds', help: 'Age of the event of the oldest pending webhook delivery (0 when the queue is empty)' },
  );
}
