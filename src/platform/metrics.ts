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

/** The labels of one series of the request histogram. */
type RequestLabels = {
  route: string;
  method: string;
  status_class: string;
};

/** One series of the request histogram: its labels, its count per bucket (not cumulative), sum and count. */
interface RequestSeries {
  labels: RequestLabels;
  buckets: number[];
  sum: number;
  count: number;
  /** Whether the series is in the export (it is from its first observation until a reset). */
  listed: boolean;
}

/** A value of a metric's export, as prom-client's registry reads it. */
interface ExportedValue {
  labels: Record<string, string | number>;
  sharedLabels?: RequestLabels;
  value: number;
  metricName: string;
  exemplar?: null;
}

/**
 * The request histogram: exported exactly as prom-client's Histogram exports it (the same series in
 * the order first observed, the same buckets, sums and counts), but observed through a series
 * object that each route resolves once per method and status class (`requestObserver`).
 * prom-client's `observe` validated the labels, built their key string, looked the series up by it
 * and the bucket by its bound's name on every request: 1.3 % of a status poll's CPU (issue 28).
 * Registered in the process registry as a metric of its own (the registry reads `get`,
 * `getForPromString` and `reset`).
 */
class RequestHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  /** Every series ever made, by its labels (a route's observer keeps its series across resets). */
  private readonly known = new Map<string, RequestSeries>();
  /** The series exported, in the order first observed since the last reset. */
  private listed: RequestSeries[] = [];

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
  ) {}

  series(labels: RequestLabels): RequestSeries {
    const key = `${labels.route}\u0000${labels.method}\u0000${labels.status_class}`;
    let series = this.known.get(key);
    if (!series) {
      series = { labels, buckets: this.bounds.map(() => 0), sum: 0, count: 0, listed: false };
      this.known.set(key, series);
    }
    return series;
  }

  observe(series: RequestSeries, seconds: number): void {
    if (!series.listed) {
      series.listed = true;
      this.listed.push(series);
    }
    // The first bound at or above the value; above the last bound only +Inf counts it (as prom-client).
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (seconds <= bounds[i]!) {
        series.buckets[i]!++;
        break;
      }
    }
    series.sum += seconds;
    series.count += 1;
  }

  reset(): void {
    for (const series of this.listed) {
      series.listed = false;
      series.buckets.fill(0);
      series.sum = 0;
      series.count = 0;
    }
    this.listed = [];
  }

  /** What the registry formats: each series' cumulative buckets, +Inf, sum and count, its labels shared. */
  async getForPromString() {
    const bucket = `${this.name}_bucket`;
    const values: ExportedValue[] = [];
    for (const { labels, buckets, sum, count } of this.listed) {
      let cumulative = 0;
      for (let i = 0; i < this.bounds.length; i++) {
        cumulative += buckets[i]!;
        values.push({ labels: { le: this.bounds[i]! }, sharedLabels: labels, value: cumulative, metricName: bucket, exemplar: null });
      }
      values.push({ labels: { le: '+Inf' }, sharedLabels: labels, value: count, metricName: bucket, exemplar: null });
      values.push({ labels: {}, sharedLabels: labels, value: sum, metricName: `${this.name}_sum`, exemplar: undefined });
      values.push({ labels: {}, sharedLabels: labels, value: count, metricName: `${this.name}_count`, exemplar: undefined });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** The JSON form (`registry.getMetricsAsJSON`): each value's shared labels moved into its labels. */
  async get() {
    const data = await this.getForPromString();
    return { ...data, values: data.values.map(({ sharedLabels, labels, ...value }) => ({ ...value, labels: Object.assign(labels, sharedLabels) })) };
  }
}

const httpRequests = new RequestHistogram(
  'taquilla_http_request_duration_seconds',
  'HTTP requests by route pattern (never the raw URL), method and status class; _count is the request rate',
  LATENCY_BUCKETS,
);
processRegistry.registerMetric(httpRequests as unknown as Histogram);

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
 * Observes the answered requests of one route: `route` is the pattern the router matched
 * (`/orders/:orderToken`), or undefined for the router's 404s (`unmatched`): a raw URL would make one
 * series per order token. The route's series are resolved at their first request, by method and
 * status class, and kept.
 */
export function requestObserver(route: string | undefined): (method: string, statusCode: number, seconds: number) => void {
  const routeLabel = route ?? 'unmatched';
  const byMethod = new Map<string, RequestSeries[]>();
  return (method, statusCode, seconds) => {
    const statusClass = Math.floor(statusCode / 100);
    let byClass = byMethod.get(method);
    if (!byClass) byMethod.set(method, (byClass = []));
    const series = (byClass[statusClass] ??= httpRequests.series({ route: routeLabel, method, status_class: `${statusClass}xx` }));
    httpRequests.observe(series, seconds);
  };
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
