import { useEffect, useLayoutEffect, useMemo, useState } from 'preact/hooks';
import type { Controller, Notice, WidgetState } from '../controller.js';
import { dateTime, money, translator, type Lang, type Translate } from '../i18n.js';
import { orderItems, seatIdsInOrder, secondsLeft } from '../order.js';
import { formatCountdown } from '../../../ui/format.js';
import { freeBySector, type SeatMap as Model, type SectorView } from '../seat-map-model.js';
import { allIn, feeOf, type FeeRule } from '../prices.js';
import { queueBlocks, queuePanelShown, queueScreen, queueStartPassed, type QueueView } from '../../../ui/queue.js';
import type { OrderItem, Rate } from '../types.js';
import { Legend, SeatMap } from './SeatMap.js';
import { themeStyle } from './styles.js';

interface Props {
  controller: Controller;
  lang: Lang;
}

/** The whole widget: header, map and zones on one side, cart on the other. */
export function App({ controller, lang }: Props) {
  const [state, setState] = useState<WidgetState>(controller.state);
  // Subscribed at mount (not after the first paint), catching up on any change made meanwhile.
  useLayoutEffect(() => {
    setState(controller.state);
    return controller.subscribe(setState);
  }, [controller]);
  const t = useMemo(() => translator(lang), [lang]);
  const formatDate = useMemo(() => dateTime(lang, state.channel?.timezone), [lang, state.channel?.timezone]);
  const fmt = useMemo(() => money(lang, state.channel?.currency ?? state.order?.currency ?? 'EUR'), [lang, state.channel, state.order?.currency]);
  const mine = useMemo(() => seatIdsInOrder(state.order), [state.order]);
  const branding = state.channel?.branding;
  // The waiting room (D60) keeps the map until the buyer's turn; its panel re-renders every second.
  const waiting = queueBlocks(state.queue, controller.now());

  // `dir`: the widget's texts are left to right (es, en) whatever the host page's direction; CSS
  // `all: initial` on the host does not reset the inherited `direction`.
  return (
    <div class="tw" dir="ltr" style={themeStyle(branding)} lang={lang} aria-busy={state.busy || state.phase === 'loading'}>
      <div class="head">
        {branding?.logo_url ? <img src={branding.logo_url} alt="" /> : null}
        <div>
          <h2>{state.eventName ?? t('title')}</h2>
          {state.sessionStart ? <p class="sub">{formatDate(state.sessionStart)}</p> : null}
        </div>
      </div>
      <Notice state={state} t={t} />
      {state.passes.length > 0 ? <Passes state={state} t={t} /> : null}
      {state.phase === 'failed' && state.canRetry ? (
        <button type="button" data-retry="" onClick={() => void controller.retry()}>
          {t('retry')}
        </button>
      ) : null}
      {state.phase === 'loading' ? <p role="status">{t('loading')}</p> : null}
      {state.phase === 'ready' && state.queue ? <QueuePanel queue={state.queue} itemsInCart={orderItems(state.order).length} controller={controller} t={t} lang={lang} /> : null}
      {state.phase === 'ready' && state.map ? (
        <div class="layout">
          <div>
            {!waiting && state.map.seats.size > 0 ? (
              <>
                <BestSeats state={state} controller={controller} t={t} />
                <SeatMap map={state.map} mine={mine} busy={state.busy} t={t} onToggle={(id) => void controller.toggleSeat(id)} />
                <Legend t={t} />
              </>
            ) : null}
            {waiting ? null : <Zones map={state.map} busy={state.busy} t={t} fmt={fmt} fees={state.fees} onAdd={(s, r, q) => void controller.addZone(s, r, q)} />}
            {waiting ? null : <WaitingList map={state.map} mine={mine} controller={controller} t={t} />}
          </div>
          <Cart state={state} controller={controller} t={t} fmt={fmt} seatsShown={!waiting && state.map.seats.size > 0} />
        </div>
      ) : null}
      {state.phase === 'ready' ? <CartBar state={state} controller={controller} t={t} fmt={fmt} /> : null}
    </div>
  );
}

/**
 * The waiting room (D60): the countdown to the sales start and "join the queue"; the number, the
 * people ahead and the estimated wait; the buyer's turn and its end. What it says is the UI kit's
 * (ui/queue.ts), the portal's too.
 */
function QueuePanel({ queue, itemsInCart, controller, t, lang }: { queue: QueueView; itemsInCart: number; controller: Controller; t: Translate; lang: Lang }) {
  const now = useServiceNow(controller, true);
  const shown = queuePanelShown(queue, now, itemsInCart);
  const { stage, text, detail, canJoin } = queueScreen(queue, now, t, lang);
  const startPassed = queueStartPassed(queue, now);
  useEffect(() => {
    if (startPassed) void controller.refreshQueue();
  }, [startPassed, controller]);
  // Screen readers hear a new stage once, not every tick of its countdown.
  const [said, setSaid] = useState<string | null>(null);
  useEffect(() => setSaid(stage), [stage]);
  // It ticks each second, so a pass that runs out while the cart has seats shows again at once.
  if (!shown) return null;
  return (
    <section class={`queue ${stage}`} aria-label={t('queueTitle')} data-queue={stage}>
      <h3>{t('queueTitle')}</h3>
      <p class="queue-status" aria-live={said === stage ? 'off' : 'polite'} data-queue-status="">
        {text}
      </p>
      {detail ? <p class="sub">{detail}</p> : null}
      {canJoin ? (
        <button type="button" class="primary" data-queue-join="" disabled={queue.joining} onClick={() => void controller.joinQueue()}>
          {t('queueJoin')}
        </button>
      ) : null}
    </section>
  );
}

function Notice({ state, t }: { state: WidgetState; t: Translate }) {
  const n = state.notice;
  // The live regions stay in the DOM so screen readers announce changes to their text.
  return (
    <>
      <div role="alert" class={n?.kind === 'error' ? 'notice error' : ''} data-notice={n?.kind === 'error' ? n.key : undefined}>
        {n?.kind === 'error' ? t(n.key, n.params) : null}
      </div>
      <div role="status" class={n?.kind === 'info' ? 'notice info' : ''} data-notice={n?.kind === 'info' ? n.key : undefined}>
        {n?.kind === 'info' ? t(n.key, n.params) : null}
      </div>
    </>
  );
}

/**
 * The confirmation's wallet buttons (D70), one pair per ticket as on the order page: only the
 * wallets the deployment offers (the confirm response's links are null otherwise). Each link's
 * accessible name starts with its visible text and names the ticket (WCAG 2.5.3).
 */
function Passes({ state, t }: { state: WidgetState; t: Translate }) {
  return (
    <section class="passes" aria-labelledby="tw-passes" data-passes="">
      <h3 id="tw-passes">{t('passes')}</h3>
      <ul>
        {state.passes.map((p, n) => {
          const what = p.item ? itemLabel(p.item, state.map, t) : t('ticketN', { n: n + 1 });
          return (
            <li key={n}>
              <span>{what}</span>
              {p.apple ? (
                <a class="wallet" href={p.apple} aria-label={`${t('addToAppleWallet')}: ${what}`} data-wallet="apple">
                  {t('addToAppleWallet')}
                </a>
              ) : null}
              {p.google ? (
                <a class="wallet" href={p.google} aria-label={`${t('addToGoogleWallet')}: ${what}`} data-wallet="google">
                  {t('addToGoogleWallet')}
                </a>
              ) : null}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

function RateSelect({ rates, value, label, disabled, fmt, fees, t, onChange }: {
  rates: Rate[];
  value: number | undefined;
  label: string;
  disabled: boolean;
  fmt: (n: number) => string;
  fees: FeeRule[];
  t: Translate;
  onChange: (rateId: number) => void;
}) {
  return (
    <select aria-label={label} value={value} disabled={disabled} onChange={(e) => onChange(Number((e.target as HTMLSelectElement).value))}>
      {rates.map((r) => {
        // D71: the price the buyer pays, fees included, with the fee named beside it.
        const fee = feeOf(r.price, fees);
        return (
          <option key={r.id} value={r.id}>
            {r.name} · {fmt(allIn(r.price, fees))}
            {fee > 0 ? ` (${t('inclFees', { fee: fmt(fee) })})` : ''}
          </option>
        );
      })}
    </select>
  );
}

/** What the zones' pickers need besides their zone. */
interface ZonePickerProps {
  busy: boolean;
  t: Translate;
  fmt: (n: number) => string;
  fees: FeeRule[];
  onAdd: (sectorId: number, rateId: number, quantity: number) => void;
}

function Zones({ map, busy, t, fmt, fees, onAdd }: ZonePickerProps & { map: Model }) {
  const zones = map.sectors.filter((s) => !s.numbered);
  if (zones.length === 0) return null;
  return (
    <section aria-label={t('zones')}>
      <h3>{t('zones')}</h3>
      {zones.map((z) => (
        <ZonePicker key={z.id} zone={z} busy={busy} t={t} fmt={fmt} fees={fees} onAdd={onAdd} />
      ))}
    </section>
  );
}

function ZonePicker({ zone, busy, t, fmt, fees, onAdd }: ZonePickerProps & { zone: SectorView }) {
  const [qty, setQty] = useState(1);
  const [rateId, setRateId] = useState<number | undefined>(zone.rates[0]?.id);
  const max = Math.max(0, Math.min(zone.available, 20));
  const id = `tw-zone-${zone.id}`;
  return (
    <div class="zone" data-zone={zone.id}>
      <strong id={id}>{zone.name}</strong>
      <span class="sub">{t('placesLeft', { n: zone.available })}</span>
      <RateSelect rates={zone.rates} value={rateId} label={`${t('rate')} · ${zone.name}`} disabled={busy} fmt={fmt} fees={fees} t={t} onChange={setRateId} />
      <div class="qty" role="group" aria-labelledby={id}>
        <button type="button" aria-label={t('decrease')} disabled={qty <= 1} onClick={() => setQty(Math.max(1, qty - 1))}>
          −
        </button>
        <input
          type="number"
          min={1}
          max={max || 1}
          value={qty}
          aria-label={`${t('quantity')} · ${zone.name}`}
          onInput={(e) => setQty(Math.max(1, Math.min(max || 1, Number((e.target as HTMLInputElement).value) || 1)))}
        />
        <button type="button" aria-label={t('increase')} disabled={qty >= max} onClick={() => setQty(Math.min(max, qty + 1))}>
          +
        </button>
        <button type="button" disabled={busy || max === 0 || rateId === undefined} onClick={() => rateId !== undefined && onAdd(zone.id, rateId, qty)}>
          {t('add')}
        </button>
      </div>
    </div>
  );
}

/**
 * D69: when the session, or a sector or zone of it, is sold out, "join the waiting list" with an
 * e-mail, a quantity and an optional sector (the sold-out ones); the answer is the position.
 */
function WaitingList({ map, mine, controller, t }: { map: Model; mine: Set<number>; controller: Controller; t: Translate }) {
  const free = freeBySector(map, mine);
  const soldOut = map.sectors.filter((s) => (free.get(s.id) ?? 0) === 0);
  const [email, setEmail] = useState('');
  const [qty, setQty] = useState(1);
  const [sector, setSector] = useState('');
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<{ position: number | null } | null>(null);
  const [error, setError] = useState<{ notice: Notice; fields: string[] } | null>(null);
  if (soldOut.length === 0) return null;
  const all = soldOut.length === map.sectors.length;
  const bad = (field: string) => (error?.fields.includes(field) ? 'true' : undefined);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    const answer = await controller.joinWaitingList(email.trim(), qty, sector ? Number(sector) : undefined);
    setBusy(false);
    if (answer.ok) {
      setDone({ position: answer.position });
      setError(null);
    } else setError({ notice: answer.notice, fields: answer.fields ?? [] });
  };
  return (
    <section class="waitlist" aria-label={t('waitlistTitle')} data-waitlist="">
      <h3>{t('waitlistTitle')}</h3>
      {all ? <p class="sub">{t('wlSoldOut')}</p> : null}
      {done ? (
        <p role="status" class="notice info" data-waitlist-joined="">
          {done.position !== null ? t('wlJoined', { position: done.position }) : t('wlJoinedNoPosition')}
        </p>
      ) : (
        <form onSubmit={(e) => void submit(e)}>
          <label>
            {t('email')}
            <input type="email" required autocomplete="email" value={email} aria-invalid={bad('email')} onInput={(e) => setEmail((e.target as HTMLInputElement).value)} />
          </label>
          <label>
            {t('quantity')}
            <input type="number" min={1} max={20} value={qty} aria-invalid={bad('quantity')} onInput={(e) => setQty(Math.max(1, Math.min(20, Number((e.target as HTMLInputElement).value) || 1)))} />
          </label>
          <label>
            {t('wlSector')}
            <select value={sector} aria-invalid={bad('sector_id')} onChange={(e) => setSector((e.target as HTMLSelectElement).value)}>
              {all ? <option value="">{t('wlAny')}</option> : null}
              {soldOut.map((s) => (
                <option key={s.id} value={String(s.id)}>
                  {s.name}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" class="primary" disabled={busy || !email.trim()} data-waitlist-join="">
            {t('wlJoin')}
          </button>
        </form>
      )}
      {error ? (
        <p class="field-error" role="alert" data-waitlist-error={error.notice.key}>
          {t(error.notice.key, error.notice.params)}
        </p>
      ) : null}
    </section>
  );
}

/** "N best seats" beside the map (D61): the service picks them; "choose others" swaps them. */
function BestSeats({ state, controller, t }: { state: WidgetState; controller: Controller; t: Translate }) {
  const [qty, setQty] = useState(2);
  const picked = state.bestPick.length > 0;
  return (
    <div class="best" role="group" aria-label={t('bestSeats', { n: qty })} data-best="">
      <div class="qty">
        <button type="button" aria-label={t('decrease')} disabled={qty <= 1} onClick={() => setQty(qty - 1)}>
          −
        </button>
        <output aria-label={t('quantity')}>{qty}</output>
        <button type="button" aria-label={t('increase')} disabled={qty >= 10} onClick={() => setQty(qty + 1)}>
          +
        </button>
      </div>
      <button type="button" class="secondary" disabled={state.busy} onClick={() => void controller.bestSeats(qty)} data-best-seats="">
        {t('bestSeats', { n: qty })}
      </button>
      {picked ? (
        <button type="button" disabled={state.busy} onClick={() => void controller.chooseAgain()} data-choose-again="">
          {t('chooseAgain')}
        </button>
      ) : (
        <span class="sub">{t('bestHelp')}</span>
      )}
    </div>
  );
}

function itemLabel(item: OrderItem, map: Model | null, t: Translate): string {
  const seat = item.session_seat_id != null ? map?.seats.get(item.session_seat_id) : undefined;
  const sectorId = seat?.sectorId ?? item.sector_id;
  const sector = map?.sectors.find((s) => s.id === sectorId);
  const sectorName = sector?.name ?? '';
  const row = seat?.row ?? item.row;
  const number = seat?.number ?? item.number;
  if (row && number) return t('seatLabel', { sector: sectorName, row, number });
  return t('itemZone', { sector: sectorName });
}

function ratesFor(item: OrderItem, map: Model | null): Rate[] {
  const seat = item.session_seat_id != null ? map?.seats.get(item.session_seat_id) : undefined;
  if (seat?.rates.length) return seat.rates;
  const sectorId = seat?.sectorId ?? item.sector_id;
  return map?.sectors.find((s) => s.id === sectorId)?.rates ?? [];
}

/**
 * On a phone the cart is under the map: this bar keeps its count, countdown and total in view at
 * the bottom of the screen (sticky within the widget), with a button to the cart.
 */
function CartBar({ state, controller, t, fmt }: { state: WidgetState; controller: Controller; t: Translate; fmt: (n: number) => string }) {
  const items = orderItems(state.order);
  if (items.length === 0) return null;
  return (
    <div class="cartbar" data-cartbar="">
      <span>{t('seatsInCart', { n: items.length })}</span>
      <Countdown state={state} controller={controller} t={t} short />
      <strong data-bar-total="">{fmt(state.order?.total_amount ?? 0)}</strong>
      <button
        type="button"
        onClick={(e) => {
          const cart = ((e.currentTarget as HTMLElement).getRootNode() as ShadowRoot).querySelector('.cart');
          cart?.scrollIntoView({ block: 'start' });
          (cart?.querySelector('h3') as HTMLElement | null)?.focus();
        }}
      >
        {t('viewCart')}
      </button>
    </div>
  );
}

/**
 * The service's time at this render, and a render every second while `ticking`. Read at each render,
 * never kept: a countdown drawn by a change (a cart's first seat) counts from now, not from the last
 * tick or the moment it mounted (the cart's countdown showed 20:04 for a second on a 15-minute hold).
 */
function useServiceNow(controller: Controller, ticking: boolean): number {
  const [, tick] = useState(0);
  useEffect(() => {
    if (!ticking) return;
    const timer = setInterval(() => tick((n) => n + 1), 1000);
    return () => clearInterval(timer);
  }, [controller, ticking]);
  return controller.now();
}

function Countdown({ state, controller, t, short }: { state: WidgetState; controller: Controller; t: Translate; short?: boolean }) {
  const holding = secondsLeft(state.order, 0) !== null; // seats held until an expiry
  const left = secondsLeft(state.order, useServiceNow(controller, holding));
  useEffect(() => {
    // The cart's countdown ends the hold; the bar's copy only shows it.
    if (left === 0 && !short) controller.expire();
  }, [left, controller, short]);
  if (left === null) return null;
  // D62: the hold's last minute is said once (an alert), and shown in the warning colour.
  const soon = left <= 60;
  if (short) return <time class={soon ? 'countdown warn' : 'countdown'} data-bar-countdown="">{formatCountdown(left)}</time>;
  return (
    <p class={soon ? 'countdown warn' : 'countdown'} data-countdown="" data-warn={soon ? '' : undefined} role={soon ? 'alert' : undefined}>
      {t(soon ? 'expiresSoon' : 'expiresIn')} <time aria-live="off">{formatCountdown(left)}</time>
    </p>
  );
}

/** The sum of one amount over the cart's items, to the cent. */
const sum = (items: OrderItem[], field: 'base_amount' | 'fee_amount' | 'discount_amount') => Math.round(items.reduce((n, i) => n + (Number(i[field]) || 0) * 100, 0)) / 100;

/** `seatsShown`: the seat map is on screen (not a zones-only session, not behind the waiting room), so the empty cart points to it. */
function Cart({ state, controller, t, fmt, seatsShown }: { state: WidgetState; controller: Controller; t: Translate; fmt: (n: number) => string; seatsShown: boolean }) {
  const [code, setCode] = useState('');
  const items = orderItems(state.order);
  const vouchers = state.order?.vouchers ?? [];
  const showCheckout = state.channel?.integration_mode === 'widget_platform_payment' && state.channel.show_checkout_button !== false;
  return (
    <section class="cart" aria-label={t('cart')}>
      <h3 tabIndex={-1}>{t('cart')}</h3>
      <Countdown state={state} controller={controller} t={t} />
      {items.length === 0 ? (
        <p class="sub" data-empty-cart="">{t(seatsShown ? 'emptyCartPickSeats' : 'emptyCart')}</p>
      ) : (
        <ul>
          {items.map((item) => {
            const label = itemLabel(item, state.map, t);
            return (
              <li key={item.id} data-item={item.id}>
                <span>{label}</span>
                <span class="price">{fmt(item.total_amount)}</span>
                <span class="detail">
                  <RateSelect
                    rates={ratesFor(item, state.map)}
                    value={item.rate_id}
                    label={`${t('rate')} · ${label}`}
                    disabled={state.busy}
                    fmt={fmt}
                    fees={state.fees}
                    t={t}
                    onChange={(rateId) => void controller.changeRate(item.id, rateId)}
                  />
                  {item.fee_amount ? <span class="sub">+{fmt(item.fee_amount)} {t('fee')}</span> : null}
                  {item.discount_amount ? <span class="sub">{fmt(item.discount_amount)} {t('discount')}</span> : null}
                  <button type="button" aria-label={`${t('remove')}: ${label}`} disabled={state.busy} onClick={() => void controller.removeItem(item.id)}>
                    {t('remove')}
                  </button>
                </span>
              </li>
            );
          })}
        </ul>
      )}
      {items.length > 0 ? (
        // D71: the cart breaks the all-in total down: the tickets' prices, the fees, the discounts.
        <dl class="breakdown" data-breakdown="">
          <dt>{t('subtotal')}</dt>
          <dd data-subtotal="">{fmt(sum(items, 'base_amount'))}</dd>
          <dt>{t('fees')}</dt>
          <dd data-fees="">{fmt(sum(items, 'fee_amount'))}</dd>
          {sum(items, 'discount_amount') ? (
            <>
              <dt>{t('discounts')}</dt>
              <dd data-discounts="">{fmt(-Math.abs(sum(items, 'discount_amount')))}</dd>
            </>
          ) : null}
        </dl>
      ) : null}
      <p class="total">
        <span>{t('total')}</span>
        <span data-total="">{fmt(state.order?.total_amount ?? 0)}</span>
      </p>
      {state.order && items.length > 0 ? (
        <form
          class="voucher"
          onSubmit={(e) => {
            e.preventDefault();
            void controller.applyVoucher(code).then(() => {
              if (!controller.state.voucherError) setCode('');
            });
          }}
        >
          <input
            value={code}
            aria-label={t('voucher')}
            placeholder={t('voucher')}
            aria-invalid={state.voucherError ? 'true' : undefined}
            aria-describedby={state.voucherError ? 'tw-voucher-error' : undefined}
            onInput={(e) => setCode((e.target as HTMLInputElement).value)}
          />
          <button type="submit" disabled={state.busy || !code.trim()}>
            {t('apply')}
          </button>
        </form>
      ) : null}
      {state.voucherError ? (
        <p id="tw-voucher-error" class="field-error" role="alert">
          {state.voucherError}
        </p>
      ) : null}
      {vouchers.length > 0 ? (
        <ul class="chips">
          {vouchers.map((v) => (
            <li key={v.code}>
              <button type="button" data-voucher={v.code} aria-label={t('removeVoucher', { code: v.code })} disabled={state.busy} onClick={() => void controller.removeVoucher(v.code)}>
                {v.code} ✕
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {showCheckout && items.length > 0 ? (
        <button type="button" class="primary" disabled={state.busy} onClick={() => controller.startCheckout()}>
          {t('checkout')}
        </button>
      ) : null}
    </section>
  );
}
