import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { bearer, buildTestApp, serverTokenFor, tokenFor, type TestApp } from '../../test/helpers.js';
import { createController, type ControllerDeps } from '../src/controller.js';
import { createApiClient } from '../src/http.js';
import { orderItems, secondsLeft } from '../src/order.js';
import { loadOrder, memoryStorage, saveOrder, type KeyValueStorage } from '../src/persistence.js';
import type { Order } from '../src/types.js';
import { injectFetch } from './inject-fetch.js';

// The widget's use cases (everything but the DOM) against the real service: catalogue, cart,
// vouchers and confirm, on a fresh database with the demo catalogue.
let t: TestApp;
let sessions: number[] = [];
beforeAll(async () => {
  t = await buildTestApp({ env: { AUTH_CACHE_MS: '0' } });
  const token = await tokenFor(t.app, 'demo-d', 'wk_demo_d', 'test-setup');
  const events = (await t.app.inject({ url: '/api/sales-channel/v1/demo-d/es/events', headers: bearer(token) })).json().data as {
    sessions: { id: number }[];
  }[];
  sessions = events.flatMap((e) => e.sessions.map((s) => s.id));
}, 180_000); // a fresh database with demo data is slow on a loaded machine
afterAll(() => t.close());
// Every widget stops polling the live map (every 1.5 s) when its test ends: a poll landing while a
// test has moved the clock forward would read held seats as free, and the map would keep saying so
// after the clock is back, so that later tests pick seats that are in fact held.
const started: Harness[] = [];
afterEach(() => {
  for (const h of started.splice(0)) h.controller.destroy();
});

interface Harness {
  controller: ReturnType<typeof createController>;
  updates: (Order | null)[];
  completed: (Order | null)[];
  warnings: string[];
  navigations: string[];
  net: ReturnType<typeof injectFetch>;
  storage: KeyValueStorage;
}

function widget(
  opts: { slug?: string; key?: string; sessionId?: number; storage?: KeyValueStorage; clientId?: string; whileLoading?: () => void; onError?: ControllerDeps['onError']; retryDelaysMs?: number[] } = {},
): Harness {
  const slug = opts.slug ?? 'demo-d';
  const net = injectFetch(t.app);
  const storage = opts.storage ?? memoryStorage();
  const api = createApiClient({
    baseUrl: 'http://taquilla.test/api',
    channelSlug: slug,
    apiKey: opts.key ?? `wk_${slug.replace('-', '_')}`,
    clientId: opts.clientId ?? `c${Math.random().toString(36).slice(2)}`,
    fetch: net.fetch,
  });
  const h: Harness = { updates: [], completed: [], warnings: [], navigations: [], net, storage } as unknown as Harness;
  const deps: ControllerDeps = {
    api,
    storage,
    channelSlug: slug,
    sessionId: opts.sessionId ?? sessions[0]!,
    lang: 'es',
    now: () => t.clock.now().getTime(),
    navigate: (url) => h.navigations.push(url),
    warn: (m) => h.warnings.push(m),
    onOrderUpdate: (o) => h.updates.push(o),
    onOrderComplete: (o) => h.completed.push(o),
    whileLoading: opts.whileLoading,
    onError: opts.onError,
    retryDelaysMs: opts.retryDelaysMs,
  };
  h.controller = createController(deps);
  started.push(h);
  return h;
}

const freeSeats = (h: Harness) => [...h.controller.state.map!.seats.values()].filter((s) => s.status === 'available');
const zoneOf = (h: Harness) => h.controller.state.map!.sectors.find((s) => !s.numbered)!;

describe('widget controller against the service', () => {
  it('loads policy, event and the seat map of a valid session', async () => {
    const h = widget();
    expect(h.controller.state.policy).toBeNull();
    await h.controller.start();
    const s = h.controller.state;
    expect(s.phase).toBe('ready');
    expect(s.policy).toEqual({ integrationMode: 'widget_external_payment', paymentHandler: 'host' });
    expect(s.eventName).toBe('Concierto de Año Nuevo');
    expect(s.map!.seats.size).toBe(560);
    expect(zoneOf(h)).toMatchObject({ name: 'Pista', numbered: false, available: 200 });
    expect(s.order).toBeNull();
  });

  it('gives the UI the session download to prepare in; a failing preparation does not stop the load', async () => {
    let seen: string[] | null = null;
    const h: Harness = widget({
      whileLoading: () => {
        // The waiting room's status (/api/queue/v1/sessions/{id}) is asked in parallel: not the download.
        seen = h.net.calls.filter((c) => !c.path.includes('/queue/')).map((c) => `${c.method} ${c.path.split('/').slice(-2).join('/')}`);
        throw new Error('formatter trouble');
      },
    });
    await h.controller.start();
    // Called once the events list is in and the session detail is on its way, not back yet.
    expect(seen).toContain('GET es/events');
    expect(seen!.some((c) => c.startsWith('GET sessions/'))).toBe(false);
    expect(h.net.calls.some((c) => c.method === 'GET' && c.path.includes('/sessions/'))).toBe(true);
    expect(h.controller.state.phase).toBe('ready');
    expect(h.controller.state.map!.seats.size).toBe(560);
  });

  it('an unknown session is a clear message, not a crash', async () => {
    const h = widget({ sessionId: 999_999 });
    await h.controller.start();
    expect(h.controller.state.phase).toBe('failed');
    expect(h.controller.state.notice?.key).toBe('sessionMissing');
  });

  it('a start that fails for want of a connection tells the host and retries by itself', async () => {
    const errors: { code: string; status: number; retrying: boolean; name: string }[] = [];
    const h = widget({ onError: (e) => errors.push({ code: e.code, status: e.status, retrying: e.retrying, name: e.name }), retryDelaysMs: [20, 20] });
    // The token request (every first call waits for it) fails like a dropped connection.
    h.net.failNext(1);
    await h.controller.start();
    expect(h.controller.state.phase).toBe('failed');
    expect(h.controller.state.notice?.key).toBe('network');
    expect(h.controller.state.canRetry).toBe(true);
    expect(errors).toEqual([{ code: 'network_error', status: 0, retrying: true, name: 'TicketWidgetError' }]);
    await vi.waitFor(() => expect(h.controller.state.phase).toBe('ready'), { timeout: 10_000 });
    expect(h.controller.state.map!.seats.size).toBe(560);
    expect(h.controller.state.notice).toBeNull();
    expect(errors).toHaveLength(1);
    h.controller.destroy();
  });

  it('after the automatic retries the buyer\'s "try again" starts it; a refusal that will not pass is not retried', async () => {
    const errors: { code: string; retrying: boolean }[] = [];
    const h = widget({ onError: (e) => errors.push({ code: e.code, retrying: e.retrying }), retryDelaysMs: [] });
    h.net.failNext(1);
    await h.controller.start();
    expect(errors).toEqual([{ code: 'network_error', retrying: false }]);
    expect(h.controller.state.canRetry).toBe(true);
    await new Promise((r) => setTimeout(r, 50));
    expect(h.controller.state.phase).toBe('failed');
    await h.controller.retry();
    expect(h.controller.state.phase).toBe('ready');
    h.controller.destroy();

    const wrongKey: { code: string; status: number; retrying: boolean }[] = [];
    const bad = widget({ key: 'wk_wrong', onError: (e) => wrongKey.push({ code: e.code, status: e.status, retrying: e.retrying }), retryDelaysMs: [10] });
    await bad.controller.start();
    expect(bad.controller.state.notice?.key).toBe('auth');
    expect(bad.controller.state.canRetry).toBe(false);
    expect(wrongKey).toEqual([{ code: expect.any(String), status: 401, retrying: false }]);
    await new Promise((r) => setTimeout(r, 50));
    expect(wrongKey).toHaveLength(1);

    const missing: string[] = [];
    const gone = widget({ sessionId: 999_999, onError: (e) => missing.push(e.code) });
    await gone.controller.start();
    expect(missing).toEqual(['session_not_on_sale']);
  });

  it('selecting and unselecting seats updates the cart, the total, storage and the host', async () => {
    const h = widget();
    await h.controller.start();
    const [a, b] = freeSeats(h);
    await h.controller.toggleSeat(a!.id);
    await h.controller.toggleSeat(b!.id);
    let order = h.controller.getOrder()!;
    expect(orderItems(order).map((i) => i.session_seat_id)).toEqual([a!.id, b!.id]);
    expect(order.total_amount).toBe(63); // 2 x (30.00 + 1.50 fee)
    expect(secondsLeft(order, t.clock.now().getTime())).toBe(900);
    expect(loadOrder(h.storage, 'demo-d', sessions[0]!)?.orderToken).toBe(order.order_token);
    expect(h.updates.length).toBe(2);

    await h.controller.toggleSeat(a!.id);
    await h.controller.toggleSeat(b!.id);
    order = h.controller.getOrder()!;
    expect(orderItems(order)).toEqual([]);
    expect(order.total_amount).toBe(0);
    // Empty cart: no countdown (SPEC "Widget" rule 2), and it comes back with the next item.
    expect(secondsLeft(order, t.clock.now().getTime())).toBeNull();
    await h.controller.toggleSeat(a!.id);
    expect(secondsLeft(h.controller.getOrder(), t.clock.now().getTime())).toBe(900);
    expect(h.updates.length).toBe(5);
  });

  it('seats clicked while a hold is under way are held together in one request (items, issue 27)', async () => {
    const h = widget();
    await h.controller.start();
    const [a, b, c] = freeSeats(h);
    const writes = () => h.net.calls.filter((call) => call.method === 'POST' && call.path.includes('/orders'));
    // Three quick clicks: the first creates the cart; the two made while it runs go in one add.
    const first = h.controller.toggleSeat(a!.id);
    await h.controller.toggleSeat(b!.id);
    await h.controller.toggleSeat(c!.id);
    await first;
    expect(orderItems(h.controller.getOrder()).map((i) => i.session_seat_id)).toEqual([a!.id, b!.id, c!.id]);
    expect(writes().map((call) => call.path.split('/').slice(-1)[0])).toEqual(['orders', 'items-bulk']);
  });

  it('zones: a quantity of places at a chosen rate, and per-item rate changes', async () => {
    const h = widget();
    await h.controller.start();
    const zone = zoneOf(h);
    await h.controller.addZone(zone.id, zone.rates[0]!.id, 2);
    // The service creates orders from a numbered seat (D17): the widget says so instead of failing.
    if (!h.controller.getOrder()) expect(h.controller.state.notice?.key).toBe('zoneNeedsSeat');
    await h.controller.toggleSeat(freeSeats(h)[0]!.id);
    await h.controller.addZone(zone.id, zone.rates[1]!.id, 3);
    const items = orderItems(h.controller.getOrder());
    const zoneItems = items.filter((i) => i.sector_id === zone.id);
    expect(zoneItems.length).toBeGreaterThanOrEqual(3);
    expect(zoneItems.slice(-3).every((i) => i.rate_id === zone.rates[1]!.id)).toBe(true);
    expect(zoneOf(h).available).toBeLessThanOrEqual(197);
    // Removing a zone place gives it back to the sector's count at once.
    const before = zoneOf(h).available;
    await h.controller.removeItem(zoneItems.at(-1)!.id);
    expect(zoneOf(h).available).toBe(before + 1);

    const seatItem = items.find((i) => i.sector_id !== zone.id)!;
    const reduced = h.controller.state.map!.seats.get(seatItem.session_seat_id!)!.rates[1]!;
    await h.controller.changeRate(seatItem.id, reduced.id);
    const changed = orderItems(h.controller.getOrder()).find((i) => i.id === seatItem.id)!;
    expect(changed.rate_id).toBe(reduced.id);
    expect(changed.base_amount).toBe(reduced.price);
  });

  it('vouchers apply and remove; a wrong code shows the service\'s reason', async () => {
    const h = widget();
    await h.controller.start();
    await h.controller.toggleSeat(freeSeats(h)[0]!.id);
    await h.controller.applyVoucher('NOPE-123');
    expect(h.controller.state.voucherError).toBeTruthy();
    expect(h.controller.getOrder()!.vouchers).toEqual([]);
    await h.controller.applyVoucher(' DEMO10 ');
    expect(h.controller.state.voucherError).toBeNull();
    const order = h.controller.getOrder()!;
    expect(order.vouchers!.map((v) => v.code)).toEqual(['DEMO10']);
    expect(orderItems(order)[0]!.discount_amount).toBe(-3);
    expect(order.total_amount).toBe(28.5);
    await h.controller.removeVoucher('DEMO10');
    expect(h.controller.getOrder()!.vouchers).toEqual([]);
    expect(h.controller.getOrder()!.total_amount).toBe(31.5);
  });

  it('a seat taken meanwhile: a clear message and the map shows it taken', async () => {
    const h = widget();
    await h.controller.start();
    const seat = freeSeats(h)[3]!;
    const other = await tokenFor(t.app, 'demo-d', 'wk_demo_d', 'another-buyer');
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/sales-channel/v1/demo-d/es/orders',
      headers: bearer(other),
      payload: { session_seat_id: seat.id, rate_id: seat.rates[0]!.id },
    });
    expect(res.statusCode).toBe(201);
    await h.controller.toggleSeat(seat.id);
    expect(h.controller.state.notice?.key).toBe('seatTaken');
    expect(h.controller.getOrder()).toBeNull();
    expect(h.controller.state.map!.seats.get(seat.id)!.status).toBe('held');
  });

  it('renews a revoked token in the middle of a purchase without the buyer noticing', async () => {
    const h = widget({ clientId: 'same-browser' });
    await h.controller.start();
    await h.controller.toggleSeat(freeSeats(h)[0]!.id);
    await tokenFor(t.app, 'demo-d', 'wk_demo_d', 'same-browser'); // revokes the widget's token (D38)
    await h.controller.toggleSeat(freeSeats(h)[1]!.id);
    expect(h.controller.state.notice).toBeNull();
    expect(orderItems(h.controller.getOrder())).toHaveLength(2);
    expect(h.net.calls.filter((c) => c.status === 401)).toHaveLength(1);
  });

  it('rehydrates the stored order on reload while it is live, not after expiry', async () => {
    // One browser: the same storage and the same client_id (kept in localStorage, D38), whose cart it is (D57).
    const storage = memoryStorage();
    const first = widget({ storage, sessionId: sessions[1], clientId: 'reloading-browser' });
    await first.controller.start();
    await first.controller.toggleSeat(freeSeats(first)[0]!.id);
    const token = first.controller.getOrder()!.order_token;
    first.controller.destroy();

    const reloaded = widget({ storage, sessionId: sessions[1], clientId: 'reloading-browser' });
    await reloaded.controller.start();
    expect(reloaded.controller.getOrder()?.order_token).toBe(token);
    expect(reloaded.updates).toHaveLength(1);
    reloaded.controller.destroy();

    t.clock.advance(16 * 60 * 1000);
    try {
      const late = widget({ storage, sessionId: sessions[1] });
      await late.controller.start();
      expect(late.controller.getOrder()).toBeNull();
      expect(loadOrder(storage, 'demo-d', sessions[1]!)).toBeNull();
    } finally {
      t.clock.advance(-16 * 60 * 1000);
    }
  });

  it('the countdown reaching zero empties the cart with an expiry message', async () => {
    const h = widget();
    await h.controller.start();
    await h.controller.toggleSeat(freeSeats(h)[0]!.id);
    h.controller.expire();
    expect(h.controller.getOrder()).toBeNull();
    expect(h.controller.state.notice?.key).toBe('expired');
    expect(h.updates.at(-1)).toBeNull();
  });

  it('destroy and init with another session cancels the stored order of the first one first', async () => {
    const storage = memoryStorage();
    const first = widget({ storage, sessionId: sessions[0], clientId: 'switching-browser' });
    await first.controller.start();
    const seat = freeSeats(first)[5]!;
    await first.controller.toggleSeat(seat.id);
    const oldToken = first.controller.getOrder()!.order_token;
    first.controller.destroy();

    const second = widget({ storage, sessionId: sessions[1], clientId: 'switching-browser' });
    await second.controller.start();
    const b2b = second.net.calls.filter((c) => !c.path.endsWith('/auth/token'));
    expect(b2b[0]).toMatchObject({ method: 'DELETE', status: 200 });
    expect(b2b[0]!.path).toContain(oldToken);
    expect(b2b[1]!.path).toMatch(/\/config$|\/events$/);
    // Read as the channel's server: another widget buyer's cart is not theirs to read (D57).
    const token = await serverTokenFor(t.app, 'demo-d', 'sk_demo_d', 'checker');
    const old = await t.app.inject({ url: `/api/sales-channel/v1/demo-d/es/orders/${oldToken}`, headers: bearer(token) });
    expect(old.json().data.status).toBe('cancelled');
    expect(storage.getItem(`taquilla:order:demo-d:${sessions[0]}`)).toBeNull();
    // The seat is free again for everyone.
    const again = widget({ sessionId: sessions[0] });
    await again.controller.start();
    expect(again.controller.state.map!.seats.get(seat.id)!.status).toBe('available');
  });

  it('does not cancel orders of another channel stored in the same browser', async () => {
    const storage = memoryStorage();
    saveOrder(storage, { channelSlug: 'demo-c', sessionId: sessions[1]!, orderToken: 'c-order-token', expiresAt: null });
    const h = widget({ storage, sessionId: sessions[0] });
    await h.controller.start();
    expect(h.net.calls.some((c) => c.method === 'DELETE')).toBe(false);
    expect(storage.getItem(`taquilla:order:demo-c:${sessions[1]}`)).not.toBeNull();
  });

  it('model C: checkout redirects to the portal address from the config endpoint', async () => {
    const h = widget({ slug: 'demo-c' });
    await h.controller.start();
    expect(h.controller.state.policy).toEqual({ integrationMode: 'widget_platform_payment', paymentHandler: 'portal' });
    h.controller.startCheckout();
    expect(h.navigations).toEqual([]); // empty cart: nothing to pay
    await h.controller.toggleSeat(freeSeats(h)[0]!.id);
    h.controller.startCheckout();
    const token = h.controller.getOrder()!.order_token;
    expect(h.navigations).toEqual([`${t.config.portalCheckoutBaseUrl}/demo-c/es/checkout?order_token=${token}`]);
  });

  it('model D: startCheckout only warns; notifyPaymentComplete after a server-side confirm fires onOrderComplete', async () => {
    const h = widget();
    await h.controller.start();
    await h.controller.toggleSeat(freeSeats(h)[0]!.id);
    h.controller.startCheckout();
    expect(h.navigations).toEqual([]);
    expect(h.warnings[0]).toMatch(/model D/);

    const order = h.controller.getOrder()!;
    // the channel's server confirms with its server key; the widget's key cannot (D40)
    const server = await serverTokenFor(t.app, 'demo-d', 'sk_demo_d', 'channel-server');
    const confirm = await t.app.inject({
      method: 'POST',
      url: `/api/sales-channel/v1/demo-d/es/orders/${order.order_token}/confirm`,
      headers: bearer(server),
      payload: { amount: order.total_amount, name: 'Ana', surname: 'García', email: 'ana@example.com', transaction_id: 'tx-1' },
    });
    expect(confirm.statusCode).toBe(200);
    h.controller.notifyPaymentComplete(confirm.json().data);
    expect(h.completed).toHaveLength(1);
    expect(h.completed[0]).toMatchObject({ order_token: order.order_token, status: 'completed' });
    expect(h.controller.getOrder()).toBeNull();
    expect(h.updates.at(-1)).toBeNull();
    expect(loadOrder(h.storage, 'demo-d', sessions[0]!)).toBeNull();
    expect(h.controller.state.notice?.key).toBe('completed');
    // The confirmation offers the ticket's wallet passes (D70), both wallets offered outside production.
    const item = orderItems(order)[0]!;
    expect(h.controller.state.passes).toEqual([
      {
        item: expect.objectContaining({ id: item.id }),
        apple: expect.stringMatching(/\/api\/tickets\/wallet\/apple\/[A-Za-z0-9]{24}\.pkpass\?expires=\d+&signature=/),
        google: expect.stringMatching(/\/api\/tickets\/wallet\/google\/[A-Za-z0-9]{24}\?expires=\d+&signature=/),
      },
    ]);
    // A new cart ends that confirmation (a seat other than the one just sold, whatever the map says yet).
    await h.controller.toggleSeat(freeSeats(h).find((s) => s.id !== item.session_seat_id)!.id);
    expect(orderItems(h.controller.getOrder())).toHaveLength(1);
    expect(h.controller.state.passes).toEqual([]);
  });

  it('model D: no wallet button for a wallet the deployment does not offer, nor for a link that is not http(s)', () => {
    const h = widget();
    const order = {
      order_token: 'x',
      status: 'completed',
      total_amount: 1,
      expires_at: null,
      events: [],
      ticket_wallet_urls: [
        { item_id: 1, apple: null, google: null },
        { item_id: 2, apple: 'javascript:alert(1)', google: 'https://taquilla.test/api/tickets/wallet/google/abc?expires=1&signature=s' },
      ],
    } as Order;
    h.controller.notifyPaymentComplete(order);
    expect(h.controller.state.passes).toEqual([{ item: undefined, apple: null, google: 'https://taquilla.test/api/tickets/wallet/google/abc?expires=1&signature=s' }]);
    h.controller.notifyPaymentComplete({ ...order, ticket_wallet_urls: [{ item_id: 1, apple: null, google: null }] });
    expect(h.controller.state.passes).toEqual([]);
  });

  it('a network failure is a clear message and the next try works', async () => {
    const h = widget();
    await h.controller.start();
    h.net.failNext();
    await h.controller.toggleSeat(freeSeats(h)[0]!.id);
    expect(h.controller.state.notice?.key).toBe('network');
    expect(h.controller.getOrder()).toBeNull();
    await h.controller.toggleSeat(freeSeats(h)[0]!.id);
    expect(orderItems(h.controller.getOrder())).toHaveLength(1);
  });
});
