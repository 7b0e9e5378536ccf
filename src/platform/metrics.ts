import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The service's Prometheus metrics (docs/operations.md "Metrics"): the one place that imports
 * prom-client. Counters and the request histogram count what this process did, so they live in one
 * registry per process (a test file that builds several apps sees their sum, and compares before and
 * after). What is read from a database at scrape time (queue depths, the pool) is a gauge of one
 * app: each app keeps its own list (`AppMetrics`), filled by the composition root.
 */
const processRegistry = new Registry();

// Latency buckets in seconds: a cart write is tens of milliseconds; past 2.5 s a buyer has gone.
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const httpRequests = new Histogram({
  name: 'taquilla_http_request_duration_seconds',
  help: 'HTTP requests by route pattern (never the raw URL), method and status class; _count is the request rate',
  labelNames: ['route', 'method', 'status_class'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [processRegistry],
});

const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
  new Counter<L>({ name, help, labelNames, registers: [processRegistry] });

const holds = counter('taquilla_holds_total', 'Seats and zone places put on hold in carts');
const conflicts = counter('taquilla_conflicts_total', 'Answers 409 by error code (a seat taken, a zone full, an order expired, ...)', ['code']);
const holdCapRefusals = counter('taquilla_hold_cap_refusals_total', 'Cart writes refused by a hold cap (429 hold_limit_reached), by cap', ['cap']);
const ordersCompleted = counter('taquilla_orders_completed_total', 'Orders completed (seats sold, tickets issued), by kind', ['kind']);
const confirms = counter('taquilla_confirms_total', 'Successful B2B confirms, by result (completed now, or already completed: a retry)', ['result']);
const payments = counter('taquilla_payment_notifications_total', 'Card payment notifications applied, by provider and result', ['provider', 'result']);
const refunds = counter('taquilla_refunds_total', 'Completed orders refunded');
const queueJoins = counter('taquilla_queue_joins_total', 'Waiting-room joins (D60), by result: joined, or refused (closed, challenge)', ['result']);
const queuePasses = counter('taquilla_queue_passes_total', 'Waiting-room passes (D60): issued (admitted buyers), used (carts made under one), refused at a cart create by reason (missing, expired, invalid, used_up)', ['event']);

let defaultsCollected = false;

/**
 * Node's own metrics (event-loop lag, heap, CPU, handles) in the process registry: once per process,
 * when the first app exposes metrics (their event-loop monitor samples continuously).
 */
function collectProcessDefaults(): void {
  if (defaultsCollected) return;
  defaultsCollected = true;
  collectDefaultMetrics({ register: processRegistry });
}

// ---- What the services count, where the thing happens ----

export const countHolds = (n: number) => holds.inc(n);
export const countHoldCapRefusal = (cap: string) => holdCapRefusals.inc({ cap });
export const countConflict = (code: string) => conflicts.inc({ code });
export const countOrderCompleted = (kind: 'purchase' | 'reservation') => ordersCompleted.inc({ kind });
export const countConfirm = (result: 'completed' | 'already_completed') => confirms.inc({ result });
export const countPaymentNotification = (provider: string, result: string) => payments.inc({ provider, result });
export const countRefund = () => refunds.inc();
export const countQueueJoin = (result: 'joined' | 'refused_closed' | 'refused_challenge') => queueJoins.inc({ result });
export const countQueuePass = (event: 'issued' | 'used' | 'refused_missing' | 'refused_expired' | 'refused_invalid' | 'refused_used_up') => queuePasses.inc({ event });

/**
 * One answered request. `route` is the pattern the router matched (`/orders/:orderToken`), or
 * `unmatched` for a 404 of the router: a raw URL would make one series per order token.
 */
export function observeRequest(route: string | undefined, method: string, statusCode: number, seconds: number): void {
  httpRequests.observe({ route: route ?? 'unmatched', method, status_class: `${Math.floor(statusCode / 100)}xx` }, seconds);
}

// ---- Gauges read at scrape time, per app ----

interface GaugeSample {
  labels?: Record<string, string>;
  value: number;
}

/**
 * A gauge a module adds to its app's metrics: `read` runs at each scrape and answers one sample per
 * label set (`labelNames`); a failing read leaves the gauge empty in that scrape (and is reported)
 * rather than failing the whole scrape.
 */
export interface GaugeSource {
  name: string;
  help: string;
  labelNames?: readonly string[];
  read(): Promise<GaugeSample[]> | GaugeSample[];
}

/** An app's view of the metrics: the process's counters plus its own gauges. */
export class AppMetrics {
  readonly contentType = processRegistry.contentType;
  private readonly registry = new Registry();

  constructor(private readonly onGaugeError: (name: string, err: unknown) => void) {
    collectProcessDefaults();
  }

  /** Adds a gauge read at each scrape (a module's queue depth, the database pool). */
  addGauge(source: GaugeSource): void {
    const report = this.onGaugeError;
    new Gauge({
      name: source.name,
      help: source.help,
      labelNames: source.labelNames ?? [],
      registers: [this.registry],
      async collect() {
        this.reset();
        try {
          for (const s of await source.read()) this.set(s.labels ?? {}, s.value);
        } catch (err) {
          report(source.name, err);
        }
      },
    });
  }

  /** The exposition text of a scrape. */
  async scrape(): Promise<string> {
    return (await processRegistry.metrics()) + (await this.registry.metrics());
  }
}
