import { ApiError, type ApiClient } from './http.js';
import { isOrder, orderFingerprint, orderItems } from './order.js';
import {
  forgetOrder,
  loadOrder,
  ordersOfOtherSessions,
  saveOrder,
  type KeyValueStorage,
} from './persistence.js';
import { feesOfSession, type FeeRule } from './prices.js';
import { createQueue, queueBlocks, type QueueView } from '../../ui/queue.js';
import { applyAvailability, buildSeatMap, seatMapFromLayout, type AvailabilityBody, type SeatMap } from './seat-map-model.js';
import type { MessageKey } from './i18n.js';
import type { ChannelConfig, EventSummary, MapSector, Order, OrderItem, Policy, SessionDetail, SessionLayout } from './types.js';

/**
 * The widget's state and use cases, without any DOM: the UI renders `state` and calls the methods;
 * tests drive the same methods. Every order change goes through `setOrder`, which persists it (D32)
 * and fires `onOrderUpdate`.
 */

export interface Notice {
  kind: 'error' | 'info';
  key: MessageKey;
  params?: Record<string, string | number>;
}

export interface WidgetState {
  phase: 'loading' | 'ready' | 'failed';
  channel: ChannelConfig | null;
  policy: Policy | null;
  eventName: string | null;
  sessionStart: string | null;
  map: SeatMap | null;
  order: Order | null;
  busy: boolean;
  notice: Notice | null;
  voucherError: string | null;
  /** The cart items of the last "N best seats" pick (D61): "choose others" replaces them. */
  bestPick: number[];
  /** The session's waiting room (D60), or null when it has none. */
  queue: QueueView | null;
  /** The mandatory fee rules of the session (D71): every price shown includes them. */
  fees: FeeRule[];
  /** The start failed for a reason that may pass (no connection, a 5xx, 429): "try again" is offered. */
  canRetry: boolean;
  /** After notifyPaymentComplete: each ticket's wallet links (D70), with its item when the order named it. */
  passes: Pass[];
}

export interface Pass {
  item: OrderItem | undefined;
  apple: string | null;
  google: string | null;
}

/** Only http(s) links become buttons: the host page hands the confirm response in. */
const link = (url: unknown): string | null => (typeof url === 'string' && /^https?:\/\//i.test(url) ? url : null);

/** The wallet links of a confirm response, the tickets that have at least one. */
function passesOf(order: Order | null | undefined): Pass[] {
  const links = Array.isArray(order?.ticket_wallet_urls) ? order.ticket_wallet_urls : [];
  const items = orderItems(order ?? null);
  return links
    .map((l) => ({ item: items.find((i) => i.id === l?.item_id), apple: link(l?.apple), google: link(l?.google) }))
    .filter((p) => p.apple || p.google);
}

/**
 * What `onError` receives when the widget could not start: the service's error code (or
 * `network_error` when no answer came, `widget_not_allowed`, `session_not_on_sale`), the HTTP status
 * (0 without an answer), and whether the widget tries again by itself.
 */
class WidgetError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    readonly retrying: boolean,
  ) {
    super(message);
    this.name = 'TicketWidgetError';
  }
}

/** Waits before the automatic retries of a failed start; then only the buyer's "try again". */
const RETRY_DELAYS_MS = [1000, 3000, 9000];

export interface ControllerDeps {
  api: ApiClient;
  storage: KeyValueStorage;
  channelSlug: string;
  sessionId: number;
  lang: string;
  now: () => number;
  navigate: (url: string) => void;
  warn: (message: string) => void;
  onOrderUpdate?: (order: Order | null) => void;
  onOrderComplete?: (order: Order | null) => void;
  /** Follow the live seat map (D62); on unless false (unit tests that count requests turn it off). */
  liveMap?: boolean;
  /** Called once the session's seats are requested: idle time for the UI while they download. */
  whileLoading?: () => void;
  /** The host's `onError`: called after each failed start. */
  onError?: (error: WidgetError) => void;
  /** The automatic retries' waits (tests shorten them). */
  retryDelaysMs?: number[];
}

export type Controller = ReturnType<typeof createController>;

/** The answer to "join the waiting list" (D69): the position (null if the service gives none), or what went wrong. */
export type WaitingListAnswer = { ok: true; position: number | null } | { ok: false; notice: Notice; fields?: string[] };

const FIRST_RATE = (rates: { id: number }[] | undefined) => rates?.[0]?.id;

function policyOf(channel: ChannelConfig): Policy {
  return {
    integrationMode: channel.integration_mode,
    paymentHandler: channel.integration_mode === 'widget_platform_payment' ? 'portal' : 'host',
  };
}

export function createController(deps: ControllerDeps) {
  const { api, storage, channelSlug, sessionId, lang } = deps;
  let state: WidgetState = {
    phase: 'loading',
    channel: null,
    policy: null,
    eventName: null,
    sessionStart: null,
    map: null,
    order: null,
    busy: false,
    notice: null,
    voucherError: null,
    bestPick: [],
    queue: null,
    fees: [],
    canRetry: false,
    passes: [],
  };
  const queue = createQueue({ call: api.queue, sessionId, clientId: api.options.clientId, storageKey: `taquilla:queue:${channelSlug}:${sessionId}`, onChange: (view) => update({ queue: view }) });
  /** The buyer's waiting-room pass on every cart create (D60); an existing cart needs none. */
  const passHeaders = (): Record<string, string> => {
    const pass = queue.pass();
    return pass ? { 'queue-pass': pass } : {};
  };
  let eventId: number | null = null;
  let destroyed = false;
  let lastFingerprint = orderFingerprint(null);
  const listeners = new Set<(s: WidgetState) => void>();

  const ordersPath = `/${encodeURIComponent(lang)}/orders`;
  const orderPath = (token: string) => `${ordersPath}/${encodeURIComponent(token)}`;

  function update(patch: Partial<WidgetState>) {
    if (destroyed) return;
    state = { ...state, ...patch };
    for (const l of listeners) l(state);
  }

  function setOrder(order: Order | null) {
    // A completed, cancelled or expired order is no cart any more.
    const live = order && order.status !== 'pending' && order.status !== undefined ? null : order;
    if (live) {
      saveOrder(storage, { channelSlug, sessionId, orderToken: live.order_token, expiresAt: live.expires_at });
    } else {
      forgetOrder(storage, channelSlug, sessionId);
    }
    // A new cart ends the last purchase's confirmation.
    update(live ? { order: live, passes: [] } : { order: null, bestPick: [] });
    const fingerprint = orderFingerprint(live);
    if (fingerprint !== lastFingerprint && !destroyed) {
      lastFingerprint = fingerprint;
      deps.onOrderUpdate?.(live);
    }
  }

  function noticeFor(err: unknown): Notice {
    if (err instanceof ApiError) {
      if (err.status === 0) return { kind: 'error', key: 'network' };
      if (err.code === 'seat_unavailable') return { kind: 'error', key: 'seatTaken' };
      if (err.code === 'zone_capacity_exceeded') return { kind: 'error', key: 'zoneFull' };
      if (err.code === 'order_expired') return { kind: 'error', key: 'expired' };
      if (err.code === 'hold_limit_reached') return { kind: 'error', key: 'tooMany' };
      if (err.code === 'no_seats_together') return { kind: 'error', key: 'noSeatsTogether' };
      if (err.code === 'queue_pass_required') return { kind: 'error', key: 'queueNeeded' };
      if (err.code === 'queue_pass_invalid') return { kind: 'error', key: 'queuePassExpired' };
      if (err.status === 401) return { kind: 'error', key: 'auth' };
      return { kind: 'error', key: 'failed', params: { message: err.message } };
    }
    return { kind: 'error', key: 'failed', params: { message: err instanceof Error ? err.message : String(err) } };
  }

  /** The order after a call: the response when it is the order (D35), else a fresh read. */
  async function orderAfter(data: unknown, token: string): Promise<Order> {
    if (isOrder(data)) return data;
    return api.call<Order>('GET', orderPath(token));
  }

  async function refreshAvailability() {
    if (eventId === null) return;
    // A map loaded from the layout follows the availability route: only what changed comes back.
    if (fromLayout) return pollAvailability();
    try {
      const detail = await api.call<SessionDetail>('GET', `/${lang}/events/${eventId}/sessions/${sessionId}`);
      update({ map: buildSeatMap(detail, null) });
    } catch {
      // Keep the map we have; the next action will tell the buyer if something is wrong.
    }
  }

  // ---- Live seat map (D62) ----
  // The session's availability, polled every 1.5 s with the cursor of the last answer: only the
  // seats that changed come back (served from the service's memory), so another buyer's hold turns
  // grey within 2 s. The stream (Server-Sent Events) cannot carry the widget's bearer token.
  const LIVE_POLL_MS = 1500;
  let liveCursor: string | null = null;
  let liveTimer: ReturnType<typeof setTimeout> | null = null;
  /** The map came from the layout route and an availability snapshot (issue 29), not the full detail. */
  let fromLayout = false;
  async function pollAvailability() {
    try {
      const since = liveCursor ? `&since=${encodeURIComponent(liveCursor)}` : '';
      const body = await api.call<AvailabilityBody>('GET', `/${lang}/events/${eventId}/sessions/${sessionId}/availability?form=ids${since}`);
      liveCursor = body.cursor;
      if (state.map && !destroyed) {
        const map = applyAvailability(state.map, body);
        if (map !== state.map) update({ map });
      }
    } catch {
      // The next poll tries again (a snapshot, if the cursor is no longer known).
    }
  }
  async function followAvailability() {
    liveTimer = null;
    if (destroyed) return;
    // Nothing to follow while the waiting room hides the map, or the page is in the background.
    const hidden = typeof document !== 'undefined' && document.visibilityState === 'hidden';
    if (eventId !== null && state.map && !hidden && !queueBlocks(state.queue, deps.now())) await pollAvailability();
    if (!destroyed) liveTimer = setTimeout(() => void followAvailability(), LIVE_POLL_MS);
  }

  /** Runs one buyer action: one at a time, with its error turned into a message. */
  async function act(run: () => Promise<void>): Promise<void> {
    if (state.busy || destroyed) return;
    update({ busy: true, notice: null });
    try {
      await run();
    } catch (err) {
      const notice = noticeFor(err);
      update({ notice });
      if (err instanceof ApiError && err.code === 'queue_pass_invalid') queue.passRefused();
      if (err instanceof ApiError && err.code === 'queue_pass_required') void queue.refresh();
      if (err instanceof ApiError && (err.code === 'order_expired' || (err.status === 404 && state.order))) {
        // The cart is gone on the server (expired or swept): forget it and show fresh availability.
        setOrder(null);
        update({ notice: { kind: 'error', key: 'expired' } });
      }
      if (err instanceof ApiError && (err.status === 409 || err.status === 404)) await refreshAvailability();
    } finally {
      update({ busy: false });
    }
  }

  /** Cancels orders this browser still holds for other sessions of the channel (SPEC state table). */
  async function cancelOrders(entries: ReturnType<typeof ordersOfOtherSessions>) {
    for (const entry of entries) {
      try {
        await api.call('DELETE', orderPath(entry.orderToken));
      } catch (err) {
        // Already gone (404) or completed (409) needs no cancelling; anything else is retried next time.
        if (!(err instanceof ApiError) || (err.status !== 404 && err.status !== 409)) continue;
      }
      forgetOrder(storage, entry.channelSlug, entry.sessionId);
    }
  }

  /** The session's event, detail, seat map (from the layout, else the detail and, when it lacks positions, the maps) and fees; null when the session is not on sale. */
  async function loadSession() {
    const events = await api.call<EventSummary[]>('GET', `/${lang}/events`);
    const event = (events ?? []).find((e) => (e.sessions ?? []).some((s) => Number(s.id) === sessionId));
    if (!event) return null;
    eventId = event.id;
    // Issue 29: the session without its seats, the seat layout in columns (which the browser keeps
    // and revalidates by ETag) and the statuses of the availability route, side by side: a sixth of
    // the bytes of the full detail, whose seats carry their rates. A service without the layout
    // route (404, an older version) gets the full detail instead.
    const path = `/${lang}/events/${event.id}/sessions/${sessionId}`;
    const bareCall = settle(api.call<SessionDetail>('GET', `${path}?seats=none`));
    const layoutCall = settle(api.call<SessionLayout>('GET', `${path}/layout`));
    // The statuses by position in the layout's columns (`form=index`): no id to look up per seat.
    const snapshotCall = settle(api.call<AvailabilityBody>('GET', `${path}/availability?form=index`));
    const detailCall = (async (): Promise<{ detail: SessionDetail; map?: SeatMap }> => {
      const [bare, layout] = [await bareCall, await layoutCall];
      let snapshot = (await snapshotCall).value;
      // A service without `form=index` (422), or a layout changed between the two answers: by ids.
      if (layout.value?.seats && (!snapshot || (snapshot.index_by_status && snapshot.layout !== layout.value.version))) {
        snapshot = (await settle(api.call<AvailabilityBody>('GET', `${path}/availability?form=ids`))).value;
      }
      if (bare.value && layout.value?.seats && snapshot?.snapshot) {
        fromLayout = true;
        liveCursor = snapshot.cursor;
        // The map straight from the columns: no full-detail seats in between.
        return { detail: bare.value, map: seatMapFromLayout(bare.value, layout.value, snapshot) };
      }
      fromLayout = false;
      // An older service ignores `seats=none` and answers the full detail: that is the answer.
      if (bare.value?.elements?.seats?.length) return { detail: bare.value };
      return { detail: await api.call<SessionDetail>('GET', path) };
    })();
    // The event's fee rules (D71), side by side with the detail; without them prices show without fees.
    const feesCall = settle(api.call<{ fees?: FeeRule[] }>('GET', `/${lang}/events/${event.id}`));
    // The longest network wait of the load (thousands of seats): the UI's slow first-time work goes
    // here. It only prepares; whatever it throws is the UI's business when it renders.
    try {
      deps.whileLoading?.();
    } catch {
      // ignored
    }
    const { detail, map: built } = await detailCall;
    // The session detail carries each seat's position (D34); the maps endpoint is read only when
    // it does not, which spares parsing a second 5,000-seat payload on large venues.
    const needsLayout = !built && detail.elements.seats.some((seat) => !Number.isFinite(seat.x) || !Number.isFinite(seat.y));
    const maps = needsLayout ? await api.call<MapSector[]>('GET', `/${lang}/events/${event.id}/maps`).catch(() => null) : null;
    const fees = feesOfSession((await feesCall).value?.fees, sessionId);
    return { event, detail, map: built ?? buildSeatMap(detail, Array.isArray(maps) ? maps : null), fees };
  }

  /** A promise that never rejects, so calls started side by side leave no unhandled rejection. */
  const settle = <T>(p: Promise<T>) => p.then((value) => ({ value, error: null }), (error: unknown) => ({ value: null, error }));

  // A failed start (the configuration, the session or the token did not load) is retried after
  // 1, 3 and 9 s when the cause may pass, and the buyer can try again at once; the host hears of
  // every failure through onError, so a page is never left with a dead widget it knows nothing of.
  let failures = 0;
  let retryTimer: ReturnType<typeof setTimeout> | null = null;
  const retryable = (status: number) => status === 0 || status === 408 || status === 429 || status >= 500;

  function startFailed(notice: Notice, code: string, message: string, status: number) {
    if (destroyed) return;
    const canRetry = retryable(status);
    const delay = canRetry ? (deps.retryDelaysMs ?? RETRY_DELAYS_MS)[failures] : undefined;
    failures += 1;
    update({ phase: 'failed', notice, canRetry });
    if (delay !== undefined) retryTimer = setTimeout(() => void retry(), delay);
    try {
      deps.onError?.(new WidgetError(code, message, status, delay !== undefined));
    } catch (err) {
      deps.warn(`TicketWidget: onError threw: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /** Starts again after a failed start (the "try again" button, or the automatic retry). */
  function retry(): Promise<void> {
    if (destroyed || state.phase !== 'failed') return Promise.resolve();
    if (retryTimer) clearTimeout(retryTimer);
    retryTimer = null;
    update({ phase: 'loading', notice: null, canRetry: false });
    return start();
  }

  async function start(): Promise<void> {
    try {
      const stale = ordersOfOtherSessions(storage, channelSlug, sessionId);
      if (stale.length > 0) await cancelOrders(stale);
      // Every call of the first screen starts at once (they share the one token request, which
      // starts before init() returns): the configuration, the events list followed by the session
      // detail (its path needs the event id), and the stored cart. The critical path is
      // token -> events -> session detail.
      const channelCall = settle(api.call<ChannelConfig>('GET', '/config'));
      const sessionCall = settle(loadSession());
      // The stored cart is asked of the service; its answer is judged below, on the service's clock.
      const stored = loadOrder(storage, channelSlug, sessionId);
      const orderCall = stored ? settle(api.call<Order>('GET', orderPath(stored.orderToken))) : null;
      const { value: channel, error: channelError } = await channelCall;
      if (destroyed) return;
      if (!channel) throw channelError;
      update({ channel, policy: policyOf(channel) });
      if (!channel.allows_widget) {
        startFailed({ kind: 'error', key: 'notWidget' }, 'widget_not_allowed', 'This sales channel cannot use the widget', 403);
        return;
      }
      // The waiting room's status (D60), read while the session loads: the map waits behind it.
      const queueCall = settle(queue.refresh());
      const { value: loaded, error: sessionError } = await sessionCall;
      if (sessionError) throw sessionError;
      if (!loaded) {
        startFailed({ kind: 'error', key: 'sessionMissing' }, 'session_not_on_sale', `Session ${sessionId} is not on sale on this channel`, 404);
        return;
      }
      let order = orderCall ? (await orderCall).value : null;
      if (order && order.expires_at && Date.parse(order.expires_at) <= deps.now()) order = null;
      const { event, detail, map, fees } = loaded;
      await queueCall;
      update({
        phase: 'ready',
        eventName: event.name ?? detail.session?.event_name ?? detail.event?.name ?? null,
        sessionStart: detail.session?.start_datetime ?? null,
        map,
        fees,
      });
      failures = 0;
      setOrder(order);
      if (deps.liveMap !== false) liveTimer = setTimeout(() => void followAvailability(), LIVE_POLL_MS);
    } catch (err) {
      const api = err instanceof ApiError ? err : null;
      startFailed(noticeFor(err), api?.code ?? 'widget_error', err instanceof Error ? err.message : String(err), api?.status ?? 0);
    }
  }

  /**
   * Holds seats, each at its first rate, in ONE request: a new cart with all of them (`items`, D63),
   * or one add (`items`, or `items-bulk` for several) to the cart there is; all or nothing.
   */
  async function addSeats(seatIds: number[]) {
    const items = seatIds.flatMap((seatId) => {
      const seat = state.map?.seats.get(seatId);
      const rateId = seat && seat.status === 'available' ? FIRST_RATE(seat.rates) : undefined;
      return rateId === undefined || orderItems(state.order).some((i) => i.session_seat_id === seatId) ? [] : [{ session_seat_id: seatId, rate_id: rateId }];
    });
    if (!items.length) return;
    const order = state.order;
    const body = items.length === 1 ? items[0]! : { items };
    if (!order) {
      const created = await api.call<Order>('POST', ordersPath, body, passHeaders());
      setOrder(await orderAfter(created, (created as Order).order_token));
      return;
    }
    const data = await api.call('POST', `${orderPath(order.order_token)}/${items.length === 1 ? 'items' : 'items-bulk'}`, body);
    setOrder(await orderAfter(data, order.order_token));
  }

  /** Seats clicked while a call was under way: held together, in one request, once it ends. */
  let picked: number[] = [];
  async function holdPicked(): Promise<void> {
    while (picked.length && !state.busy && !destroyed) {
      const seats = picked;
      picked = [];
      await act(() => addSeats(seats));
    }
  }

  /** Best available (D61): `quantity` best seats into the cart (a new one, or the current one); returns the new items. */
  async function addBestSeats(quantity: number): Promise<number[]> {
    const order = state.order;
    const before = new Set(orderItems(order).map((i) => i.id));
    const data = await api.call<Order>('POST', `${ordersPath}/best-available`, { session_id: sessionId, quantity, ...(order ? { order_token: order.order_token } : {}) }, order ? {} : passHeaders());
    const next = await orderAfter(data, order?.order_token ?? data.order_token);
    setOrder(next);
    return orderItems(next).filter((i) => !before.has(i.id)).map((i) => i.id);
  }

  async function removeItems(itemIds: number[]) {
    const order = state.order;
    if (!order) return;
    const data =
      itemIds.length === 1
        ? await api.call('DELETE', `${orderPath(order.order_token)}/items/${itemIds[0]}`)
        : await api.call('DELETE', `${orderPath(order.order_token)}/items/bulk`, { item_ids: itemIds });
    const zoneSectors = new Set(state.map?.sectors.filter((s) => !s.numbered).map((s) => s.id));
    const freedZonePlaces = orderItems(order).some((i) => itemIds.includes(i.id) && i.sector_id !== null && zoneSectors.has(i.sector_id));
    setOrder(await orderAfter(data, order.order_token));
    // The released seats are free at once on this map (the live map's next answer agrees).
    const freed = orderItems(order).filter((i) => itemIds.includes(i.id) && i.session_seat_id != null);
    if (state.map && freed.length) {
      update({ map: applyAvailability(state.map, { cursor: '', snapshot: false, seats_by_status: { available: freed.map((i) => i.session_seat_id!) } }) });
    }
    // A zone's free places are the service's count (no seats to mark on the map): read it again so
    // that the sector's count follows the cart down as it did up (addZone refreshes too).
    if (freedZonePlaces) await refreshAvailability();
  }

  /**
   * D69: joins the session's waiting list (B2B join with the widget's token) for `quantity` places,
   * optionally of one sector or zone. The answer is the buyer's position, or the notice to show.
   */
  async function joinWaitingList(email: string, quantity: number, sectorId?: number): Promise<WaitingListAnswer> {
    try {
      const entry = await api.call<{ position: number | null }>('POST', `/${encodeURIComponent(lang)}/sessions/${sessionId}/waiting-list`, {
        email,
        quantity,
        ...(sectorId !== undefined ? { sector_id: sectorId } : {}),
      });
      return { ok: true, position: entry.position ?? null };
    } catch (err) {
      if (!(err instanceof ApiError)) return { ok: false, notice: { kind: 'error', key: 'network' } };
      if (err.code === 'already_on_waiting_list') return { ok: false, notice: { kind: 'error', key: 'wlAlready' } };
      if (err.code === 'seats_available') return { ok: false, notice: { kind: 'error', key: 'wlSeatsAvailable', params: { n: Number(err.data?.available ?? 0) } } };
      if (err.status === 429) return { ok: false, notice: { kind: 'error', key: 'wlRateLimited' } };
      if (err.code === 'validation_failed') return { ok: false, fields: Object.keys(err.errors ?? {}), notice: { kind: 'error', key: 'wlInvalid' } };
      return { ok: false, notice: noticeFor(err) };
    }
  }

  return {
    get state() {
      return state;
    },
    joinWaitingList,
    /** The service's time now (ms): what the countdowns count on. */
    now: deps.now,
    subscribe(listener: (s: WidgetState) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    start,
    retry,
    /** "Join the queue" of the waiting room (D60). */
    joinQueue() {
      return queue.join();
    },
    /** Polls the waiting room again now (its countdown reached the sales start). */
    refreshQueue() {
      return queue.refresh();
    },
    /**
     * Seat click: adds a free seat with its first rate, removes a seat already in the cart. Free
     * seats clicked while a call is under way are not lost: they are held together in one request
     * when it ends (issue 27: a cart made of the seats picked, not one request per seat).
     */
    async toggleSeat(seatId: number) {
      if (state.busy) {
        const mine = orderItems(state.order).some((i) => i.session_seat_id === seatId);
        if (!mine && state.map?.seats.get(seatId)?.status === 'available' && !picked.includes(seatId)) picked.push(seatId);
        return;
      }
      await act(async () => {
        const mine = orderItems(state.order).find((i) => i.session_seat_id === seatId);
        if (mine) return removeItems([mine.id]);
        await addSeats([seatId]);
      });
      await holdPicked();
    },
    /** Adds `quantity` places of an unnumbered zone at one rate. */
    addZone(sectorId: number, rateId: number, quantity: number) {
      return act(async () => {
        if (quantity < 1) return;
        const order = state.order;
        if (!order) {
          // SPEC: an order is created with a numbered seat (D17). A zone-first cart is tried with the
          // zone's body; a service that refuses it asks the buyer to pick a seat first.
          try {
            const created = await api.call<Order>('POST', ordersPath, { sector_id: sectorId, rate_id: rateId, quantity }, passHeaders());
            setOrder(await orderAfter(created, (created as Order).order_token));
            await refreshAvailability();
          } catch (err) {
            // Refused as "needs a seat", or as fields the create does not take (strict bodies, D56).
            if (err instanceof ApiError && err.status === 422 && err.errors && ['session_seat_id', 'sector_id', 'quantity'].some((f) => f in err.errors!)) {
              update({ notice: { kind: 'error', key: 'zoneNeedsSeat' } });
              return;
            }
            throw err;
          }
          return;
        }
        const data = await api.call('POST', `${orderPath(order.order_token)}/items/sector`, { sector_id: sectorId, rate_id: rateId, quantity });
        setOrder(await orderAfter(data, order.order_token));
        await refreshAvailability();
      });
    },
    removeItem(itemId: number) {
      return act(async () => {
        await removeItems([itemId]);
        update({ bestPick: state.bestPick.filter((id) => id !== itemId) });
      });
    },
    /** "N best seats": the service chooses and holds them; they show on the map as the cart's. */
    bestSeats(quantity: number) {
      return act(async () => {
        update({ bestPick: await addBestSeats(quantity) });
        await refreshAvailability();
      });
    },
    /**
     * "Choose others": new best seats first (the current ones are still held, so they are not
     * chosen again), then the current ones released; with the cart at its cap, released first.
     */
    chooseAgain() {
      return act(async () => {
        const old = state.bestPick.filter((id) => orderItems(state.order).some((i) => i.id === id));
        if (old.length === 0) return;
        let fresh: number[];
        try {
          fresh = await addBestSeats(old.length);
          await removeItems(old);
        } catch (err) {
          if (!(err instanceof ApiError) || err.code !== 'hold_limit_reached') throw err;
          await removeItems(old);
          fresh = await addBestSeats(old.length);
        }
        update({ bestPick: fresh });
        await refreshAvailability();
      });
    },
    changeRate(itemId: number, rateId: number) {
      return act(async () => {
        const order = state.order;
        if (!order) return;
        const data = await api.call('PUT', `${orderPath(order.order_token)}/items/change-rate`, { item_ids: [itemId], rate_id: rateId });
        setOrder(await orderAfter(data, order.order_token));
      });
    },
    async applyVoucher(code: string) {
      const trimmed = code.trim();
      if (!trimmed || !state.order) return;
      update({ voucherError: null });
      await act(async () => {
        const order = state.order!;
        try {
          const data = await api.call('POST', `${orderPath(order.order_token)}/apply-voucher`, { code: trimmed });
          setOrder(await orderAfter(data, order.order_token));
          update({ notice: { kind: 'info', key: 'voucherApplied', params: { code: trimmed } } });
        } catch (err) {
          if (err instanceof ApiError && err.status !== 0 && err.status !== 401 && err.code !== 'order_expired') {
            // Show the service's reason next to the field (unknown, expired, not applicable, used up):
            // its message, already in the widget's language (Accept-Language), says it all.
            update({ voucherError: err.message });
            return;
          }
          throw err;
        }
      });
    },
    removeVoucher(code: string) {
      return act(async () => {
        const order = state.order;
        if (!order) return;
        const data = await api.call('DELETE', `${orderPath(order.order_token)}/vouchers/${encodeURIComponent(code)}`);
        setOrder(await orderAfter(data, order.order_token));
      });
    },
    /** Countdown reached zero: the hold is gone (D15) even before the server sweeps it. */
    expire() {
      if (!state.order) return;
      setOrder(null);
      update({ notice: { kind: 'error', key: 'expired' } });
      void refreshAvailability();
    },
    /** The checkout address of model C (SPEC "Redirects" 2), or null when the page pays (model D). */
    checkoutUrl(): string | null {
      const { channel, order } = state;
      if (!channel || !order || channel.integration_mode !== 'widget_platform_payment' || !channel.portal_checkout_base_url) return null;
      const base = channel.portal_checkout_base_url.replace(/\/+$/, '');
      return `${base}/${encodeURIComponent(channelSlug)}/${encodeURIComponent(lang)}/checkout?order_token=${encodeURIComponent(order.order_token)}`;
    },
    startCheckout() {
      if (state.policy?.paymentHandler !== 'portal') {
        deps.warn('TicketWidget: startCheckout() does nothing for this channel: the host page takes the payment (model D). Confirm it server-side, then call notifyPaymentComplete().');
        return;
      }
      const url = this.checkoutUrl();
      if (!url) {
        deps.warn('TicketWidget: startCheckout() needs a non-empty cart.');
        return;
      }
      deps.navigate(url);
    },
    /** Model D: the host confirmed payment server-side; the cart empties and onOrderComplete fires. */
    notifyPaymentComplete(order?: Order | null) {
      const finished = order ?? state.order;
      forgetOrder(storage, channelSlug, sessionId);
      update({ order: null, notice: { kind: 'info', key: 'completed' }, voucherError: null, passes: passesOf(finished) });
      lastFingerprint = orderFingerprint(null);
      deps.onOrderComplete?.(finished ?? null);
      deps.onOrderUpdate?.(null);
      void refreshAvailability();
    },
    getOrder(): Order | null {
      return state.order;
    },
    destroy() {
      destroyed = true;
      queue.stop();
      if (liveTimer) clearTimeout(liveTimer);
      if (retryTimer) clearTimeout(retryTimer);
      listeners.clear();
    },
  };
}
