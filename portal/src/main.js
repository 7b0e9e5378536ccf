// Taquilla portal pages: seat selection, cart with countdown and vouchers, checkout, waiting room.
// The entry of the portal's script: bundled with the UI kit (ui/) by `npm run build:portal`
// (portal/vite.config.ts) into portal/dist/portal.js, served as /portal-assets/portal.js. Talks
// only to the public portal API under /api/portal and the waiting room's under /api/queue.

import { h, hydrate, render as preactRender } from 'preact';
import { CartActions, CartLines } from '../../ui/cart';
import { formatAmount, formatCountdown, localeOf } from '../../ui/format';
import { createQueue, queueBlocks, queuePanelShown, queueScreen, queueStartPassed, queueTextKey } from '../../ui/queue';
import { fillText } from '../../ui/texts';
import { createServiceClock } from '../../ui/service-clock';

const dataEl = document.getElementById('portal-data');
const data = dataEl ? JSON.parse(dataEl.textContent || '{}') : {};
const t = data.texts || {};
const base = `/api/portal/${data.slug}/${data.lang}`;
const storeKey = `taquilla.portal.${data.slug}.order`;
const $ = (id) => document.getElementById(id);

/**
 * The checkout's next address, only if it is http(s): the service checks every stored URL (D50),
 * and this keeps a `javascript:` that slipped through from ever running on the portal's origin.
 */
function safeRedirect(raw) {
  const url = new URL(String(raw), window.location.href);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ApiError({ message: t.error });
  return url.href;
}

/** An error answer (the envelope of D4): its message, code, status, fields' messages and data. */
class ApiError extends Error {
  constructor(body) {
    super((body && body.message) || t.error || 'Error');
    this.code = body && body.code;
    this.status = body && body.status;
    this.fields = body && body.errors;
    this.data = body && body.data;
  }
}

/**
 * The service's clock, learnt from the page (drawn with its time: never kept by the browser, it is
 * no-store) and then from every answer: the cart's, the sales start's and the queue's countdowns
 * run on it.
 */
const clock = createServiceClock();
if (typeof data.now === 'number') clock.observe(null, new Date(data.now).toISOString());

/** One call of the service; resolves with the envelope's `data`. Every answer sets the service's clock. */
async function request(url, method, body, headers = {}) {
  const res = await fetch(url, {
    method,
    headers: body ? { ...headers, 'content-type': 'application/json', accept: 'application/json' } : { ...headers, accept: 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });
  clock.observe(res.headers);
  const json = await res.json().catch(() => null);
  if (!res.ok || !json || !json.success) throw new ApiError(json);
  return json.data;
}

/** The portal API of the channel. A cart create of a session with a waiting room carries this browser's pass (D60). */
function api(method, path, body) {
  const pass = queue && queue.pass();
  const carriesPass = pass && method === 'POST' && (path === '/orders' || path === '/orders/best-available');
  return request(base + path, method, body, carriesPass ? { 'queue-pass': pass } : {});
}

const locale = localeOf(data.lang || 'es');
const money = (amount, currency) => formatAmount(amount, currency, locale);

let token = data.orderToken || localStorage.getItem(storeKey);
let order = null;
let timer = null;

// ---- Waiting room (D60) ----
// With a queue on the session, the map waits behind it. The client (polling, joining, the pass sent
// as Queue-Pass on every cart create, the place kept in sessionStorage) and what it says at each
// stage are the UI kit's (ui/queue.ts), the widget's too; this page draws it into #queue.
const queue =
  data.page === 'session' && data.sessionId
    ? createQueue({
        call: (method, path, body) => request(`/api/queue/v1/sessions${path}`, method, body),
        sessionId: data.sessionId,
        clientId: data.queueClient,
        storageKey: `taquilla.portal.${data.slug}.queue.${data.sessionId}`,
        onChange: (view) => renderQueue(view),
      })
    : null;
let queueView = null;
let queueClock = null;
let queueSaid = '';
const fill = (key, params) => fillText(t[key], params);

function renderQueue(view = queueView) {
  queueView = view;
  const box = $('queue');
  if (!box) return;
  clearInterval(queueClock);
  const now = clock.now();
  box.hidden = !queuePanelShown(view, now, items().length);
  document.body.classList.toggle('queue-wait', queueBlocks(view, now));
  if (!view) return;
  const { stage, text, detail, canJoin } = queueScreen(view, now, fill, data.lang);
  const status = $('queue-status');
  // Screen readers hear a new stage once, not every tick of its countdown (a new number of people ahead is news).
  const said = stage === 'position' ? text : stage;
  status.setAttribute('aria-live', said === queueSaid ? 'off' : 'polite');
  queueSaid = said;
  status.textContent = text;
  status.dataset.queue = queueTextKey(stage);
  box.classList.toggle('admitted', stage === 'admitted');
  box.classList.toggle('expired', stage === 'passExpired');
  $('queue-detail').textContent = detail || '';
  $('queue-detail').hidden = !detail;
  const button = $('queue-join');
  button.hidden = !canJoin;
  button.disabled = view.joining;
  // The countdowns tick between polls; at the sales start the document changes (the draw): a poll at once.
  if (!['notOpen', 'preOpen', 'inPre', 'admitted'].includes(stage)) return;
  queueClock = setInterval(() => {
    if (!queueStartPassed(view, clock.now())) return renderQueue();
    clearInterval(queueClock);
    queue.refresh();
  }, 1000);
}

if (queue && $('queue-join')) $('queue-join').addEventListener('click', () => queue.join());

function showError(message, where = 'cart-error') {
  for (const id of ['cart-error', 'voucher-error']) {
    const other = $(id);
    if (other && id !== where) {
      other.textContent = '';
      other.hidden = true;
    }
  }
  const el = $(where);
  if (!el) return;
  el.textContent = message || '';
  el.hidden = !message;
  if (where === 'voucher-error') {
    const input = $('voucher');
    if (message) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
  }
}

function items() {
  if (!order) return [];
  return order.events.flatMap((e) => e.sessions.flatMap((s) => s.items.map((i) => ({ ...i, event: e.name, session: s }))));
}

function forget() {
  token = null;
  order = null;
  if (!data.orderToken) localStorage.removeItem(storeKey);
}

// Set when a cart ran out on this page: the notice stays until the buyer picks again (D62).
let expiredNotice = false;
/** The last minute of a hold is announced once, as an alert (D62). */
const WARN_SECONDS = 60;

function renderCountdown() {
  const el = $('countdown');
  if (!el) return;
  const bar = $('bar-countdown');
  clearInterval(timer);
  if (!order || !order.expires_at || items().length === 0) {
    el.hidden = !expiredNotice;
    el.classList.toggle('expired', expiredNotice);
    if (expiredNotice) {
      el.textContent = t.expired;
      el.setAttribute('role', 'alert');
    }
    return;
  }
  expiredNotice = false;
  el.classList.remove('expired');
  el.setAttribute('role', 'timer');
  let warned = false;
  const end = new Date(order.expires_at).getTime();
  const tick = () => {
    const left = Math.max(0, Math.round((end - clock.now()) / 1000));
    el.hidden = false;
    if (left === 0) {
      clearInterval(timer);
      expiredNotice = true;
      forget();
      render();
      const pay = $('pay-button');
      if (pay) pay.disabled = true;
      return;
    }
    const mmss = formatCountdown(left);
    const soon = left <= WARN_SECONDS;
    el.textContent = `${soon ? t.expiresSoon : t.expiresIn} ${mmss}`;
    el.classList.toggle('warn', soon);
    if (bar) bar.textContent = mmss;
    if (bar) bar.classList.toggle('warn', soon);
    // Screen readers hear the remaining time once a minute, not every second, and the warning once.
    if (soon && !warned) {
      warned = true;
      el.setAttribute('role', 'alert');
    }
    el.setAttribute('aria-live', left % 60 === 0 || left === WARN_SECONDS ? 'polite' : 'off');
  };
  tick();
  timer = setInterval(tick, 1000);
}

// D69: the waiting list of a sold-out session; the entry token is kept to read the position later.
const waitlistForm = $('waitlist-form');
if (waitlistForm) {
  waitlistForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const result = $('waitlist-result');
    const button = waitlistForm.querySelector('button');
    button.disabled = true;
    try {
      const entry = await api('POST', `/sessions/${data.sessionId}/waiting-list`, {
        email: waitlistForm.email.value.trim(),
        quantity: Number(waitlistForm.quantity.value),
      });
      localStorage.setItem(`taquilla.portal.${data.slug}.waitlist.${data.sessionId}`, entry.token);
      result.textContent = String(t.waitlistJoined).replace('{n}', String(entry.position));
      waitlistForm.hidden = true;
    } catch (err) {
      result.textContent = err.message;
      button.disabled = false;
    }
    result.hidden = false;
  });
}

// "N best seats" (D61): the service chooses and holds them; they show on the map as the cart's.
// "Choose others" asks for new ones first (the current ones stay held, so they are not chosen
// again), then gives the current ones back.
let bestPick = [];
async function pickBest(quantity) {
  const before = new Set(items().map((i) => i.id));
  const fresh = () => api('POST', '/orders/best-available', { session_id: data.sessionId, quantity });
  await change(token ? () => api('POST', '/orders/best-available', { session_id: data.sessionId, quantity, order_token: token }) : fresh, token ? fresh : null);
  return items().filter((i) => !before.has(i.id)).map((i) => i.id);
}
const bestForm = $('best-form');
if (bestForm) {
  const again = $('best-again');
  const showAgain = () => (again.hidden = !bestPick.some((id) => items().some((i) => i.id === id)));
  bestForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    bestPick = await pickBest(Number(bestForm.quantity.value));
    showAgain();
    showChosen(bestPick);
  });
  again.addEventListener('click', async () => {
    const old = bestPick.filter((id) => items().some((i) => i.id === id));
    const fresh = await pickBest(old.length);
    if (fresh.length === 0) return;
    for (const id of old) await change(() => api('DELETE', `/orders/${encodeURIComponent(token)}/items/${id}`));
    bestPick = fresh;
    showAgain();
    showChosen(bestPick);
  });
}

/**
 * Brings the first of the seats just chosen into view: on a phone the sector opens zoomed and
 * scrolls sideways, and the best seats (the centre of a row) may stand past its edge.
 */
function showChosen(itemIds) {
  const first = items().find((i) => itemIds.includes(i.id));
  const button = first && seatButton(first.session_seat_id);
  if (button) button.scrollIntoView({ block: 'center', inline: 'center' });
}

// The cart is the UI kit's component (ui/cart.tsx), the one the server drew the page's empty cart
// with: hydrated over that markup the first time while it is still the empty cart, re-rendered on
// every change after. A first cart with lines replaces the server's markup instead: hydrating it, or
// rendering over it (Preact leaves a container's unmatched children in place), kept the server's
// "your cart is empty" under the lines.
let cartDrawn = false;
const cartWords = () => ({ emptyCart: t.emptyCart, remove: t.remove, voucher: t.voucher, subtotal: t.subtotal, discount: t.discount, fees: t.fees, total: t.total });

function render() {
  const body = $('cart-body');
  if (!body) return;
  const list = items();
  const voucherForm = $('voucher-form');
  const cur = order ? order.currency : 'EUR';
  const lines = list.map((i) => ({
    id: i.id,
    event: i.event,
    where: i.row ? `${i.sector_name} · ${t.row} ${i.row} · ${t.seat} ${i.number}` : i.sector_name,
    rate: i.rate_name,
    amount: i.total_amount,
  }));
  const cart = h(CartLines, { lines, totals: order, editable: Boolean(data.editable), t: cartWords(), money: (amount) => money(amount, cur) });
  if (!cartDrawn && lines.length) body.replaceChildren();
  if (cartDrawn || lines.length) preactRender(cart, body);
  else hydrate(cart, body);
  if (voucherForm) voucherForm.hidden = list.length === 0 || !data.editable;
  // The checkout button comes after the voucher box (CartPanel's order), not inside the list.
  const actions = $('cart-actions');
  if (actions) {
    const href = list.length && $('cart').dataset.checkout && token ? `/${data.slug}/${data.lang}/checkout?order_token=${encodeURIComponent(token)}` : null;
    const link = h(CartActions, { href, label: t.checkout });
    if (cartDrawn) preactRender(link, actions);
    else hydrate(link, actions);
  }
  if (!cartDrawn && $('cart')) $('cart').dataset.ready = '';
  cartDrawn = true;
  // Seats of this session that are in the cart are pressed.
  const mine = new Set(list.map((i) => i.session_seat_id));
  document.querySelectorAll('button.seat').forEach((b) => {
    const pressed = mine.has(Number(b.dataset.seat));
    b.setAttribute('aria-pressed', String(pressed));
    if (pressed) b.disabled = false;
  });
  mySeats = mine;
  if (compact) compact.draw(mine);
  renderCounts(list);
  renderBar(list);
  renderCountdown();
  // With seats in the cart during the buyer's turn, the cart's countdown replaces the pass's.
  if (queueView) renderQueue();
}

// The sectors' free places follow the cart: the page was drawn with the places free then (the
// cart's own places of that moment already counted as taken); since, each place added to the cart
// takes one and each one removed gives it back.
let mineAtLoad = null;
function perSector(list) {
  const out = new Map();
  for (const i of list) if (i.session.id === data.sessionId) out.set(i.sector_id, (out.get(i.sector_id) || 0) + 1);
  return out;
}
function renderCounts(list) {
  if (!data.sessionId) return;
  const now = perSector(list);
  if (!mineAtLoad) mineAtLoad = now;
  document.querySelectorAll('[data-avail]').forEach((el) => {
    const sector = Number(el.dataset.avail);
    const n = Number(el.dataset.base) + (mineAtLoad.get(sector) || 0) - (now.get(sector) || 0);
    el.textContent = String(Math.max(0, n));
  });
}

/** The phone's sticky cart bar (hidden by CSS on wide screens, where the cart panel is sticky). */
function renderBar(list) {
  const bar = $('cart-bar');
  if (!bar) return;
  bar.hidden = list.length === 0;
  document.body.classList.toggle('with-bar', list.length > 0);
  if (!list.length) return;
  $('bar-count').textContent = `${list.length} ${t.seatsInCart}`;
  $('bar-total').textContent = `${t.total}: ${money(order.total_amount, order.currency)}`;
}

async function load() {
  if (!token) return render();
  try {
    order = await api('GET', `/orders/${encodeURIComponent(token)}`);
    if (order.status !== 'pending') forget();
  } catch {
    forget();
  }
  render();
}

/** Runs a cart change; a cart that expired meanwhile is forgotten and the change retried on a new one. */
/** Cart changes under way: while one is, the live map's figures may already count its places (see applyAvailability). */
let changesInFlight = 0;

async function change(work, retryOnNew, errorPlace = 'cart-error', tapped = null) {
  showError('', errorPlace);
  expiredNotice = false;
  changesInFlight++;
  try {
    order = await work();
    token = order.order_token;
    if (!data.orderToken) localStorage.setItem(storeKey, token);
  } catch (err) {
    if (retryOnNew && token && (err.code === 'order_expired' || err.code === 'order_not_modifiable' || err.status === 404)) {
      forget();
      return change(retryOnNew, null, errorPlace, tapped);
    }
    const refusedPass = err.code === 'queue_pass_invalid' && queue && queue.pass();
    showError(err.code === 'queue_pass_required' ? t.queueNeeded : refusedPass ? t.queuePassExpired : err.message, errorPlace);
    // The service refused this browser's pass (its time is up): the waiting room says so.
    if (refusedPass) queue.passRefused();
    if (queue && (err.code === 'queue_pass_required' || err.code === 'queue_pass_invalid')) queue.refresh();
    if (err.code === 'seat_unavailable' && tapped) lostSeat(tapped, err.message);
  } finally {
    changesInFlight--;
  }
  render();
}

// ---- Live seat map (D62) ----

/** A seat's status as the live map says it; a seat in this cart stays pressable. */
function setSeat(button, status) {
  button.dataset.status = status;
  if (button.getAttribute('aria-pressed') === 'true') return;
  button.disabled = status !== 'available';
}

/** A seat another buyer won as this one tapped it: grey, with the message beside it. */
function lostSeat(seatId, message) {
  const button = seatButton(seatId);
  if (button) {
    setSeat(button, 'held');
    seatNote(button.closest('.seatscroll'), { left: button.offsetLeft, top: button.offsetTop, size: button.offsetHeight }, message);
  } else if (compact) compact.lost(seatId, message);
}

const seatButton = (seatId) => document.querySelector(`button.seat[data-seat="${seatId}"]`);

/** The message of a lost race, beside the seat that was tapped (on a phone the cart is off-screen). */
function seatNote(box, seat, message) {
  document.querySelectorAll('.seat-note').forEach((n) => n.remove());
  if (!box) return;
  const note = document.createElement('p');
  note.className = 'seat-note';
  note.setAttribute('role', 'alert');
  note.textContent = message;
  box.appendChild(note);
  const top = seat.top + seat.size + 6;
  const left = Math.max(0, Math.min(seat.left - 8, box.scrollWidth - note.offsetWidth));
  note.style.top = `${top}px`;
  note.style.left = `${left}px`;
  setTimeout(() => note.remove(), 6000);
}

let liveCursor = null;

function applyAvailability(body) {
  liveCursor = body.cursor;
  const seats = document.querySelectorAll('button.seat');
  if (body.snapshot) {
    const taken = new Map(body.changes.map((c) => [c.session_seat_id, c.status]));
    seats.forEach((b) => setSeat(b, taken.get(Number(b.dataset.seat)) || 'available'));
  } else {
    for (const c of body.changes) {
      const b = seatButton(c.session_seat_id);
      if (b) setSeat(b, c.status);
    }
  }
  // The compact maps take every message, kept until their chunk has loaded.
  if (compact) compact.apply(body);
  else if (compactSections.length) compactPending.push(body);
  // The zones' free places are the live figures: this cart's places are counted in them already.
  // Not while a cart change is under way: the figures may count its places before this page
  // has its answer, and would be taken off twice; the next message after it brings them.
  if (changesInFlight > 0) return renderSaleState(body);
  for (const z of body.zones) {
    const el = document.querySelector(`[data-avail="${z.sector_id}"]`);
    if (el) el.dataset.base = String(z.available);
  }
  mineAtLoad = perSector(items());
  renderCounts(items());
  renderSaleState(body);
}

/** D59: before the sales start a countdown, after they end a notice; the map is shown either way. */
let saleTimer = null;
function renderSaleState(body) {
  const el = $('sale-state');
  if (!el) return;
  clearInterval(saleTimer);
  const scheduled = body.sale_state === 'scheduled' && body.sales_start_at;
  const ended = body.sale_state === 'ended';
  el.hidden = !scheduled && !ended;
  document.body.classList.toggle('not-on-sale', Boolean(scheduled || ended));
  if (ended) el.textContent = t.salesEnded;
  if (!scheduled) return;
  const start = new Date(body.sales_start_at).getTime();
  const tick = () => {
    const left = Math.max(0, Math.round((start - clock.now()) / 1000));
    const d = Math.floor(left / 86400);
    const hms = [Math.floor(left / 3600) % 24, Math.floor(left / 60) % 60, left % 60].map((n) => String(n).padStart(2, '0')).join(':');
    el.textContent = `${t.salesStartIn} ${d ? `${d} ${t.days} ` : ''}${hms}`;
    // At the start the live map says on_sale at its next answer; a poll is asked for now.
    if (left === 0) {
      clearInterval(saleTimer);
      setTimeout(pollOnce, 500);
    }
  };
  tick();
  saleTimer = setInterval(tick, 1000);
}

const availabilityUrl = () => `${base}/events/${data.eventId}/sessions/${data.sessionId}/availability`;

async function pollOnce() {
  try {
    const res = await fetch(availabilityUrl() + (liveCursor ? `?since=${encodeURIComponent(liveCursor)}` : ''), { headers: { accept: 'application/json' } });
    if (res.ok) applyAvailability((await res.json()).data);
  } catch {
    /* the next poll tries again */
  }
}

/** Server-Sent Events where the browser has them (one request), else a poll every 2 s. */
function followAvailability() {
  if (data.page !== 'session' || !data.eventId) return;
  if (window.EventSource) {
    const source = new EventSource(availabilityUrl());
    source.addEventListener('availability', (event) => applyAvailability(JSON.parse(event.data)));
    return;
  }
  pollOnce();
  setInterval(pollOnce, 2000);
}
followAvailability();

/**
 * Seats clicked while a seat change runs wait for it (before, two quick clicks on an empty cart made
 * two carts) and then go together: a new cart is created with all of them in one request (items,
 * D63, issue 27); an existing cart takes them one add at a time (the portal has no bulk add).
 */
let seatRunning = false;
let pickedSeats = [];

async function onSeat(seatId) {
  if (seatRunning) {
    if (!pickedSeats.includes(seatId)) pickedSeats.push(seatId);
    return;
  }
  seatRunning = true;
  try {
    await seatChange([seatId]);
    while (pickedSeats.length) {
      const seats = pickedSeats;
      pickedSeats = [];
      await seatChange(seats);
    }
  } finally {
    seatRunning = false;
  }
}

/** Removes the clicked seats that are in the cart, and holds the others (one create with all of them when there is no cart). */
async function seatChange(seatIds) {
  // Which seats go and which come is decided before the first request: a seat removed here is
  // not in the cart afterwards, and must not be held again.
  const removes = items().filter((i) => seatIds.includes(i.session_seat_id));
  const adds = seatIds.filter((id) => !removes.some((i) => i.session_seat_id === id));
  for (const item of removes) {
    await change(() => api('DELETE', `/orders/${encodeURIComponent(token)}/items/${item.id}`));
  }
  if (!adds.length) return;
  const rateId = Number($('seat-rate').value);
  const one = (id) => ({ session_seat_id: id, rate_id: rateId });
  // The tapped seat shows a lost race (live map, D62).
  const create = () => api('POST', '/orders', adds.length === 1 ? one(adds[0]) : { items: adds.map(one) });
  if (!token) return change(create, null, 'cart-error', adds.length === 1 ? adds[0] : null);
  for (const id of adds) {
    await change(() => api('POST', `/orders/${encodeURIComponent(token)}/items`, one(id)), () => api('POST', '/orders', one(id)), 'cart-error', id);
  }
}

function onZone(form) {
  const body = { sector_id: Number(form.dataset.sector), rate_id: Number(form.rate_id.value), quantity: Number(form.quantity.value) };
  const create = () => api('POST', '/orders', body);
  if (!token) return change(create);
  return change(() => api('POST', `/orders/${encodeURIComponent(token)}/items/sector`, body), create);
}

document.addEventListener('click', (event) => {
  const target = event.target instanceof Element ? event.target.closest('button') : null;
  if (!target) return;
  if (target.classList.contains('seat')) onSeat(Number(target.dataset.seat));
  else if (target.dataset.zoom) zoomSector(target);
  else if (target.dataset.remove) change(() => api('DELETE', `/orders/${encodeURIComponent(token)}/items/${target.dataset.remove}`));
  else if (target.dataset.voucher) change(() => api('DELETE', `/orders/${encodeURIComponent(token)}/vouchers/${encodeURIComponent(target.dataset.voucher)}`));
});

document.querySelectorAll('form.zone').forEach((form) =>
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    onZone(form);
  }),
);

const voucherForm = $('voucher-form');
if (voucherForm) {
  voucherForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const code = voucherForm.code.value.trim();
    if (!code || !token) return;
    await change(() => api('POST', `/orders/${encodeURIComponent(token)}/apply-voucher`, { code }), null, 'voucher-error');
    if (!$('voucher-error').textContent) voucherForm.code.value = '';
  });
}

const checkoutForm = $('checkout-form');
if (checkoutForm) {
  checkoutForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    const errorEl = $('checkout-error');
    errorEl.hidden = true;
    // Each field's own message sits under it and is its description (issue 16).
    checkoutForm.querySelectorAll('[aria-invalid]').forEach((el) => {
      el.removeAttribute('aria-invalid');
      el.removeAttribute('aria-describedby');
    });
    checkoutForm.querySelectorAll('.field-error').forEach((el) => {
      el.textContent = '';
      el.hidden = true;
    });
    const body = { order_token: token };
    for (const name of ['name', 'surname', 'email', 'phone']) {
      const input = checkoutForm.elements.namedItem(name);
      if (input && input.value.trim()) body[name] = input.value.trim();
    }
    const button = $('pay-button');
    button.disabled = true;
    try {
      const result = await api('POST', '/checkout', body);
      window.location.assign(safeRedirect(result.redirect_url));
    } catch (err) {
      button.disabled = false;
      errorEl.textContent = err.message;
      errorEl.hidden = false;
      for (const [field, texts] of Object.entries(err.fields || {})) {
        const input = checkoutForm.elements.namedItem(field);
        const fieldError = $(`${field}-error`);
        if (!input || !fieldError) continue;
        fieldError.textContent = texts.join(' ');
        fieldError.hidden = false;
        input.setAttribute('aria-invalid', 'true');
        input.setAttribute('aria-describedby', fieldError.id);
      }
      const first = checkoutForm.querySelector('[aria-invalid="true"]');
      if (first) first.focus();
    }
  });
}

// A seat's place on its sector's grid (the page writes it as the grid-area).
const row = (b) => parseInt(b.style.gridRowStart, 10);
const col = (b) => parseInt(b.style.gridColumnStart, 10);

/**
 * "Zoom in" on a sector: its seats get a finger's size and the sector scrolls in its own box
 * (by finger, or with the keyboard's arrows from seat to seat), its row names frozen at the left
 * like a spreadsheet's first column; "zoom out" fits the sector to the width again.
 */
function zoomSector(button) {
  const zoomed = button.getAttribute('aria-pressed') !== 'true';
  const section = button.closest('.sector');
  section.classList.toggle('zoomed', zoomed);
  button.setAttribute('aria-pressed', String(zoomed));
  button.firstChild.textContent = zoomed ? button.dataset.out : button.dataset.in;
  section.querySelector('.seatscroll').scrollLeft = 0;
  if (compact && section.classList.contains('compact')) compact.draw(mySeats);
}

// ---- The compact map of a big session (issue 29) ----
// Its sectors are the UI kit's CompactSeatMap (ui/seat-canvas.tsx), hydrated and kept up to date by
// ./compact-map.js: a chunk of its own, loaded only by a page that has such a map, so that the
// script of every other page stays small.
const compactSections = document.querySelectorAll('.sector.compact');
const compactPending = [];
let compact = null;
let mySeats = new Set();

// Seat maps are one Tab stop each (roving tabindex); arrow keys move between the free seats.
function rovingFocus(map) {
  const seats = () => [...map.querySelectorAll('button.seat:not([disabled])')];
  const current = () => seats().find((b) => b.tabIndex === 0);
  const setCurrent = (b) => {
    map.querySelectorAll('button.seat').forEach((s) => (s.tabIndex = -1));
    if (b) b.tabIndex = 0;
  };
  setCurrent(seats()[0]);
  map.addEventListener('focusin', (event) => {
    if (event.target instanceof HTMLButtonElement) setCurrent(event.target);
  });
  map.addEventListener('keydown', (event) => {
    const from = event.target;
    if (!(from instanceof HTMLButtonElement)) return;
    const x = col(from);
    const y = row(from);
    const list = seats();
    let next = null;
    if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') {
      const i = list.indexOf(from);
      next = list[event.key === 'ArrowRight' ? i + 1 : i - 1] || null;
    } else if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      const step = event.key === 'ArrowDown' ? 1 : -1;
      const rows = list.filter((b) => Math.sign(row(b) - y) === step);
      rows.sort((a, b) => Math.abs(row(a) - y) - Math.abs(row(b) - y) || Math.abs(col(a) - x) - Math.abs(col(b) - x));
      next = rows[0] || null;
    } else if (event.key === 'Home' || event.key === 'End') {
      next = event.key === 'Home' ? list[0] : list[list.length - 1];
    } else {
      return;
    }
    event.preventDefault();
    if (next) {
      setCurrent(next);
      next.focus();
    }
  });
  // A seat that became taken cannot hold the Tab stop.
  new MutationObserver(() => {
    const c = current();
    if (!c || c.disabled) setCurrent(seats()[0]);
  }).observe(map, { subtree: true, attributes: true, attributeFilter: ['disabled'] });
}
document.querySelectorAll('.seatmap').forEach(rovingFocus);

// Where a sector fitted to the width would give seats under 24 CSS px (a phone), it opens zoomed:
// every seat a finger can hit (WCAG 2.2 2.5.8); "zoom out" shows the whole sector on demand.
document.querySelectorAll('.sector').forEach((section) => {
  const seat = section.querySelector('.seat');
  const button = section.querySelector('button.zoom');
  if (seat && button && seat.getBoundingClientRect().width < 24) zoomSector(button);
});
if (compactSections.length) {
  import('./compact-map').then(({ startCompactMaps }) => {
    compact = startCompactMaps(compactSections, { t, mine: mySeats, onPick: onSeat, seatNote, zoom: zoomSector });
    for (const body of compactPending.splice(0)) compact.apply(body);
  });
}

if (data.page === 'order-pending') {
  // The provider's notification may arrive a moment after the buyer: look again shortly.
  setTimeout(() => window.location.reload(), 3000);
} else if (data.page) {
  load();
  if (queue) queue.refresh();
}
