import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, buildTestApp, DEMO, isPostgres, serverTokenFor, type TestApp } from '../helpers.js';
import { createOrder, demoSession, orderUrl } from '../orders/cart-helpers.js';
import { buyer, confirmUrl } from '../checkout/fixtures.js';

// Metrics (docs/operations.md "Metrics"): a purchase through the API moves the counters, the route
// histogram is labelled by route pattern only, and /metrics is served only with its token (main
// port) or on its own port.
const METRICS_TOKEN = 'metrics-token-of-the-test-0123456789';

let t: TestApp;
let token: string;
beforeAll(async () => {
  t = await buildTestApp({ env: { METRICS_TOKEN, METRICS_PORT: '0', MAX_ITEMS_PER_ORDER: '2' } });
  // Model D: orders and confirm through the B2B interface, with the channel's server key (D40).
  token = await serverTokenFor(t.app, DEMO.d.slug, DEMO.d.serverKey);
}, 120_000);
afterAll(() => t.close());

async function scrape(): Promise<string> {
  const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: bearer(METRICS_TOKEN) });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/plain/);
  return res.body;
}

/** The value of one series (`name{labels}`) in an exposition text; 0 when absent. */
function value(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe(`GET /metrics (${isPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('a purchase through the API moves the counters; routes are labelled by pattern, never by raw id', async () => {
    const before = await scrape();
    const session = await demoSession(t, 0);
    const [first, second, third] = session.seats.slice(-3);
    const order = await createOrder(t.app, token, DEMO.d.slug, { session_seat_id: first!.id, rate_id: session.rates.general });
    const add = (seat: number) =>
      t.app.inject({
        method: 'POST',
        url: orderUrl(DEMO.d.slug, order.order_token, '/items'),
        headers: bearer(token),
        payload: { session_seat_id: seat, rate_id: session.rates.general },
      });
    const added = await add(second!.id);
    expect(added.statusCode).toBe(200);
    // A third item passes MAX_ITEMS_PER_ORDER (2): 429 hold_limit_reached.
    const capped = await add(third!.id);
    expect(capped.json().code).toBe('hold_limit_reached');
    // Another cart asks for a held seat: 409 seat_unavailable.
    const taken = await t.app.inject({
      method: 'POST',
      url: `/api/sales-channel/v1/${DEMO.d.slug}/en/orders`,
      headers: bearer(token),
      payload: { session_seat_id: second!.id, rate_id: session.rates.general },
    });
    expect(taken.statusCode).toBe(409);
    const total = added.json().data.total_amount as number;
    const confirmed = await t.app.inject({
      method: 'POST',
      url: confirmUrl(DEMO.d.slug, order.order_token),
      headers: bearer(token),
      payload: { ...buyer, amount: total },
    });
    expect(confirmed.statusCode, confirmed.body).toBe(200);
    const after = await scrape();

    const moved = (series: string) => value(after, series) - value(before, series);
    expect(moved('taquilla_holds_total')).toBe(2);
    expect(moved('taquilla_conflicts_total{code="seat_unavailable"}')).toBe(1);
    expect(moved('taquilla_hold_cap_refusals_total{cap="items_per_order"}')).toBe(1);
    expect(moved('taquilla_orders_completed_total{kind="purchase"}')).toBe(1);
    expect(moved('taquilla_confirms_total{result="completed"}')).toBe(1);
    // The route histogram: by pattern, method and status class.
    const items = 'route="/api/sales-channel/v1/:salesChannelSlug/:lang/orders/:orderToken/items",method="POST"';
    expect(moved(`taquilla_http_request_duration_seconds_count{${items},status_class="2xx"}`)).toBe(1);
    expect(moved(`taquilla_http_request_duration_seconds_count{${items},status_class="4xx"}`)).toBe(1);
    expect(moved('taquilla_http_request_duration_seconds_count{route="/api/sales-channel/v1/:salesChannelSlug/:lang/orders",method="POST",status_class="4xx"}')).toBe(1);
    expect(after).toMatch(/taquilla_http_request_duration_seconds_bucket\{le="0.005",route="\/api\/sales-channel\/v1\/auth\/token",method="POST",status_class="2xx"\}/);
    // No raw id, token or slug in any label.
    expect(after).not.toContain(order.order_token);
    expect(after).not.toContain(DEMO.d.slug);
    expect(after).not.toMatch(/route="[^"]*\/\d+/);
    // Model D sends no ticket e-mail; a queued one of a minute ago shows in the queue's gauges.
    await t.ctx.db.execute(sql`
      INSERT INTO email_outbox (kind, order_id, recipient, next_attempt_at, created_at)
      SELECT 'tickets', id, 'late@example.com', ${t.clock.now()}, ${new Date(t.clock.now().getTime() - 60_000)}
      FROM orders WHERE order_token = ${order.order_token}`);
    const queued = await scrape();
    expect(value(queued, 'taquilla_email_queue_depth')).toBe(value(after, 'taquilla_email_queue_depth') + 1);
    expect(value(queued, 'taquilla_email_queue_oldest_age_seconds')).toBeGreaterThanOrEqual(60);
    // Node's own: event-loop lag.
    expect(after).toMatch(/^nodejs_eventloop_lag_seconds \d/m);
    if (isPostgres) {
      expect(after).toMatch(/^taquilla_db_pool_connections\{state="in_use"\} \d+$/m);
      expect(after).toMatch(/^taquilla_db_pool_waiting 0$/m);
    } else {
      // PGlite has no pool: no pool gauges rather than meaningless ones.
      expect(after).not.toContain('taquilla_db_pool');
    }
  });

  it('an unmatched URL is one series ("unmatched"), whatever its path', async () => {
    await t.app.inject({ method: 'GET', url: '/no/such/path/12345' });
    const text = await scrape();
    expect(text).toContain('route="unmatched",method="GET",status_class="4xx"');
    // The path itself appears nowhere (a bare number could match a heap gauge's value by chance).
    expect(text).not.toContain('/no/such/path');
  });

  it('the main port serves /metrics only with the token, in the error envelope otherwise', async () => {
    for (const headers of [{}, bearer('wrong-token-of-the-same-length-0123'), { authorization: METRICS_TOKEN }]) {
      const res = await t.app.inject({ method: 'GET', url: '/metrics', headers });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ status: 401, success: false, code: 'unauthenticated' });
      expect(res.body).not.toContain('taquilla_');
    }
  });

  it('the metrics port answers /metrics (with the token when one is set) and nothing else', async () => {
    const port = await t.app.listenForMetrics();
    expect(port).toBeGreaterThan(0);
    const base = `http://127.0.0.1:${port}`;
    const ok = await fetch(`${base}/metrics`, { headers: bearer(METRICS_TOKEN) });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('taquilla_holds_total');
    const refused = await fetch(`${base}/metrics`);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ code: 'unauthenticated' });
    const other = await fetch(`${base}/api/openapi.json`);
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ code: 'route_not_found' });
  });
});

describe('without METRICS_TOKEN', () => {
  it('the main port has no /metrics', async () => {
    const plain = await buildTestApp({ demo: false });
    try {
      const res = await plain.app.inject({ method: 'GET', url: '/metrics' });
      expect(res.statusCode).toBe(404);
      // An unknown top-level path is the portal's 404 page (a slug that is no channel), not metrics.
      expect(res.body).not.toContain('taquilla_');
      expect(await plain.app.listenForMetrics()).toBeNull();
    } finally {
      await plain.close();
    }
  });
});
