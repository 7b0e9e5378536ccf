import type { ChannelRecord } from '../../../db/channel-record.js';
import { EMAIL_MAX_LENGTH } from '../../../lib/email-address.js';
import { policyOf } from '../../../lib/integration-policy.js';
import type { BuyerDetails, BuyerRefund, OrderView, PaymentRow, StoreEvent, StoreSession, StoreSessionDetail } from '../storefront.service.js';
import { rowLines, sectorGrid, stageSide, type RowLine, type SectorGrid, type StageSide } from '../../../lib/seat-layout.js';
import { channelHome, JsonData } from './portal.layout.js';
import { CartLines } from '../../../../ui/cart.js';
import { CompactSeatMap, decodeSector, encodeSector, withStates, type CompactSector } from '../../../../ui/seat-canvas.js';
import { texts } from './portal.texts.js';

// The buyer-facing pages as Preact components (rendered on the server by portal.layout's
// renderPage): markup only; portal.pages.tsx reads the data and picks the page.

/** How the pages write dates and amounts: in the page's language and the deployment's time zone. */
export interface Formats {
  date: (d: Date) => string;
  /** The days of a run of sessions, short: "24–25 dic 2026". */
  days: (from: Date, to: Date) => string;
  money: (minor: number) => string;
}

export function NotFound({ lang }: { lang: string }) {
  const t = texts(lang);
  return (
    <>
      <h1>{t.notFound}</h1>
      <p>{t.notFoundText}</p>
    </>
  );
}

/** "Find my order" (D72): the form, or what happened to it. */
export function LookupPage({ channel, lang, state }: { channel: ChannelRecord; lang: string; state: { kind: 'form' } | { kind: 'invalid' | 'sent'; email: string } }) {
  const t = texts(lang);
  if (state.kind === 'sent') {
    return (
      <>
        <h1>{t.lookupTitle}</h1>
        <p role="status">{t.lookupSent.replace('{email}', state.email)}</p>
      </>
    );
  }
  return (
    <>
      <h1>{t.lookupTitle}</h1>
      <p>{t.lookupHelp}</p>
      <form method="post" action={`/${channel.slug}/${lang}/orders/lookup`} class="lookup">
        <label for="lookup-email">{t.email}</label>
        <input id="lookup-email" name="email" type="email" autocomplete="email" required maxLength={254} value={state.kind === 'invalid' ? state.email : undefined}
          aria-invalid={state.kind === 'invalid' ? 'true' : undefined} aria-describedby={state.kind === 'invalid' ? 'lookup-error' : undefined} />
        {state.kind === 'invalid' ? (
          <p id="lookup-error" class="error">
            {t.lookupInvalid}
          </p>
        ) : null}
        <button type="submit">{t.lookupSend}</button>
      </form>
    </>
  );
}

/** The cart panel the client script hydrates and fills in (storefront and checkout pages share it). */
function CartPanel({ lang, withCheckout }: { lang: string; withCheckout: boolean }) {
  const t = texts(lang);
  return (
    <section class="panel cart" aria-labelledby="cart-title" id="cart" data-checkout={withCheckout ? '1' : ''}>
      <h2 id="cart-title">{t.cart}</h2>
      <p class="countdown" id="countdown" role="timer" aria-live="off" hidden></p>
      <div id="cart-body" aria-live="polite">
        {/* The UI kit's cart (ui/cart.tsx), which the script hydrates and keeps up to date. */}
        <CartLines lines={[]} totals={null} editable={false} t={t} money={String} />
      </div>
      {/* The voucher comes before the checkout button, and its error right under its field: both in
          view on a phone without scrolling past the button. */}
      <form id="voucher-form" class="inline" hidden>
        <label for="voucher">{t.voucher}</label>
        <div class="row">
          <input id="voucher" name="code" autocomplete="off" maxlength={64} required aria-describedby="voucher-error" />
          <button type="submit">{t.apply}</button>
        </div>
        <p id="voucher-error" class="field-error" role="alert" hidden></p>
      </form>
      <p id="cart-error" class="alert error" role="alert" hidden></p>
      <div id="cart-actions"></div>
    </section>
  );
}

type Texts = ReturnType<typeof texts>;

/** Venue and city: "Teatro Demo, Madrid". */
const place = (e: StoreEvent) => (e.city ? `${e.venue}, ${e.city}` : e.venue);

/**
 * The storefront's search: words (name, venue, city) and a day; a plain GET form, no script. The
 * day is a list of the days with sessions on sale, written in the page's language (a date input
 * would show the browser's format, and offer days with nothing on).
 */
function SearchForm({ channel, lang, search, days, f, t }: { channel: ChannelRecord; lang: string; search: { q?: string; date?: string }; days: string[]; f: Formats; t: Texts }) {
  const active = !!(search.q || search.date);
  // Noon UTC is the same calendar day in every time zone a deployment would use.
  const label = (day: string) => f.days(new Date(`${day}T12:00:00Z`), new Date(`${day}T12:00:00Z`));
  return (
    <form class="search" role="search" method="get" action={`/${channel.slug}/${lang}/events`}>
      <div>
        <label for="q">{t.searchLabel}</label>
        <input id="q" name="q" type="search" value={search.q ?? ''} maxlength={100} />
      </div>
      <div class="search-date">
        <label for="date">{t.searchDate}</label>
        <select id="date" name="date">
          <option value="">{t.anyDate}</option>
          {days.map((d) => (
            <option value={d} selected={d === search.date}>
              {label(d)}
            </option>
          ))}
        </select>
      </div>
      <button type="submit">{t.search}</button>
      {active ? (
        <a class="clear" href={`/${channel.slug}/${lang}/events`}>
          {t.searchClear}
        </a>
      ) : null}
    </form>
  );
}

export function EventList({ channel, lang, events, days, search, f }: { channel: ChannelRecord; lang: string; events: StoreEvent[]; days: string[]; search: { q?: string; date?: string }; f: Formats }) {
  const t = texts(lang);
  const searching = !!(search.q || search.date);
  return (
    <>
      <h1>{t.events}</h1>
      <SearchForm channel={channel} lang={lang} search={search} days={days} f={f} t={t} />
      {searching ? (
        <p role="status" class="meta">
          {`${t.results}: ${events.length}`}
        </p>
      ) : null}
      {events.length ? (
        <ul class="cards">
          {events.map((e) => {
            const href = `/${channel.slug}/${lang}/events/${e.id}`;
            return (
              <li class="card">
                {/* Decorative: the event's name is the heading next to it. */}
                {e.image_url ? <img class="card-img" src={e.image_url} alt="" loading="lazy" width={640} height={360} /> : (
                  <div class="card-img none" aria-hidden="true">
                    {e.name.slice(0, 1)}
                  </div>
                )}
                <div class="card-body">
                  <h2>
                    <a href={href}>{e.name}</a>
                  </h2>
                  <p class="meta">{place(e)}</p>
                  {e.first_session ? <p class="dates">{e.days.length > 1 && e.last_session ? f.days(e.first_session, e.last_session) : f.date(e.first_session)}</p> : null}
                  {e.from_price !== null ? (
                    <p class="from">
                      {`${t.from} `}
                      <strong>{f.money(e.from_price)}</strong>
                    </p>
                  ) : null}
                  <a class="button" href={href} aria-label={`${t.seeSessions}: ${e.name}`}>
                    {t.seeSessions}
                  </a>
                </div>
              </li>
            );
          })}
        </ul>
      ) : (
        <p>{searching ? t.noResults : t.noEvents}</p>
      )}
      <p class="meta">
        <a href={`/${channel.slug}/${lang}/orders/lookup`}>{t.lookupLink}</a>
      </p>
    </>
  );
}

export function EventPage({ channel, lang, event, sessions, f }: { channel: ChannelRecord; lang: string; event: StoreEvent; sessions: StoreSession[]; f: Formats }) {
  const t = texts(lang);
  return (
    <>
      <p>
        <a href={`/${channel.slug}/${lang}/events`}>← {t.events}</a>
      </p>
      <h1>{event.name}</h1>
      {event.image_url ? <img class="hero" src={event.image_url} alt="" width={960} height={400} /> : null}
      <p>{event.description ?? ''}</p>
      <p class="meta">{place(event)}</p>
      {event.from_price !== null ? (
        <p class="from">
          {`${t.from} `}
          <strong>{f.money(event.from_price)}</strong> <span class="meta">{t.allInNote}</span>
        </p>
      ) : null}
      <h2>{t.sessions}</h2>
      {sessions.length ? (
        <ul class="sessions">
          {sessions.map((s) => (
            <li>
              <span>{f.date(s.start_datetime)}</span> <span class="meta">{`${s.available} ${t.available}`}</span>{' '}
              <a class="button" href={`/${channel.slug}/${lang}/events/${event.id}/sessions/${s.id}`}>
                {t.chooseSeats}
                <span class="sr-only">: {f.date(s.start_datetime)}</span>
              </a>
            </li>
          ))}
        </ul>
      ) : (
        <p>{t.noSessions}</p>
      )}
    </>
  );
}

/** A sector's free places; portal.js keeps the figure in step with the buyer's cart. */
function Available({ sectorId, count, t }: { sectorId: number; count: number; t: Texts }) {
  return (
    <span class="meta">
      (<span data-avail={sectorId} data-base={count}>
        {count}
      </span>{' '}
      {t.available})
    </span>
  );
}

/** A numbered sector's heading (its name and free places, `sector-<id>`) and its zoom button: both maps have it. */
function SectorHead({ sector, t }: { sector: StoreSessionDetail['sectors'][number]; t: Texts }) {
  return (
    <div class="sector-head">
      <h3 id={`sector-${sector.id}`}>
        {sector.name} <Available sectorId={sector.id} count={sector.available} t={t} />
      </h3>
      <button type="button" class="zoom" aria-pressed="false" aria-controls={`map-${sector.id}`} data-zoom={sector.id} data-in={t.zoomSector} data-out={t.zoomSectorOut}>
        {t.zoomSector}
        <span class="sr-only">: {sector.name}</span>
      </button>
    </div>
  );
}

/**
 * One numbered sector: a grid with the row names in the first column and each seat at its place
 * (x in seat pitches, each row straight on its own line: seat-layout's sectorGrid). The grid fits
 * the width (an overview on a phone); "zoom in" gives the seats a finger's size (>= 24 CSS px,
 * WCAG 2.2 target size) and the sector scrolls inside its own box, its row names staying in view. The button sits in the heading, never over the seats.
 * Per seat only what the page needs (5,000 seats must stay under 150 KB compressed); portal.js
 * derives the rest.
 */
function SectorMap({ sector, place, free, t }: { sector: StoreSessionDetail['sectors'][number]; place: SectorPlaces; free: StoreSessionDetail['free']; t: Texts }) {
  const { seats, grid, lines } = place;
  const head = `sector-${sector.id}`;
  return (
    <section class="sector" data-sector={sector.id}>
      <SectorHead sector={sector} t={t} />
      <div class="seatscroll" id={`map-${sector.id}`}>
        <div class="seatmap" role="group" aria-labelledby={head} data-name={sector.name} style={`--cols:${grid.cols}`}>
          {lines.map((l) => (
            <span class="rl" aria-hidden="true" style={`grid-row:${grid.line(l.row) + 1}`}>
              {l.row}
            </span>
          ))}
          {seats.map((s) => (
            <button
              type="button"
              class="seat"
              data-seat={s.id}
              data-row={s.row}
              style={`grid-area:${grid.line(s.row) + 1}/${grid.col(s.x) + 2}`}
              aria-label={`${t.row} ${s.row}, ${t.seat} ${s.number}`}
              aria-pressed="false"
              disabled={!free(s.id)}
            >
              {s.number}
            </button>
          ))}
        </div>
      </div>
    </section>
  );
}

/** The words of the compact map (ui/seat-canvas.tsx). */
const compactWords = (t: Texts) => ({ row: t.row, seat: t.seat, seatFree: t.seatFree, seatTaken: t.seatTaken, seatMine: t.seatMine, keys: t.compactKeys });

/**
 * A numbered sector of a big session (issue 29): the heading and zoom button of SectorMap, then the
 * UI kit's compact map, a canvas that the page's script hydrates from the sector's compact seat list
 * (a few bytes a seat in the page's data, instead of a <button> of about 150 bytes).
 */
function CompactSectorMap({ sector, place, free, t }: { sector: StoreSessionDetail['sectors'][number]; place: SectorPlaces; free: StoreSessionDetail['free']; t: Texts }) {
  const { grid } = place;
  // The seats' places in compact form are the layout's (made once per layout); only their states are this view's.
  place.compact ??= encodeSector(
    sector.id,
    place.seats.map((s) => ({ id: s.id, row: s.row, number: s.number, r: grid.line(s.row), c: grid.col(s.x) })),
    grid.cols,
    grid.rows,
  );
  const head = `sector-${sector.id}`;
  // The server draws the empty canvas, which needs the sector's size, not its seats.
  const empty = decodeSector({ ...place.compact, lines: [] });
  return (
    <section class="sector compact" data-sector={sector.id} data-name={sector.name}>
      <SectorHead sector={sector} t={t} />
      <div class="seatscroll" id={`map-${sector.id}`} role="group" aria-labelledby={head}>
        <CompactSeatMap grid={empty} name={sector.name} zoomed={false} state={() => 'free'} version={0} t={compactWords(t)} />
      </div>
      <JsonData id={`seats-${sector.id}`} value={withStates(place.compact, free)} />
    </section>
  );
}

/** One numbered sector's seats, their grid and row lines, and once asked for their compact form: from the places alone. */
interface SectorPlaces {
  seats: StoreSessionDetail['seats'][number][];
  grid: SectorGrid;
  lines: RowLine[];
  compact?: CompactSector;
}

/** What a seat page derives from the layout alone (the stage's side, each sector's places), derived once per layout. */
const pageLayouts = new WeakMap<StoreSessionDetail['seats'], { side: StageSide; sectors: Map<number, SectorPlaces> }>();

function pageLayout(seats: StoreSessionDetail['seats']) {
  let layout = pageLayouts.get(seats);
  if (layout) return layout;
  const lines = rowLines(seats.map((s) => ({ sectorId: s.sector_id, row: s.row, x: s.x, y: s.y })));
  const bySector = new Map<number, SectorPlaces['seats']>();
  for (const s of seats) {
    const list = bySector.get(s.sector_id);
    if (list) list.push(s);
    else bySector.set(s.sector_id, [s]);
  }
  const sectors = new Map([...bySector].map(([id, list]): [number, SectorPlaces] => [id, { seats: list, grid: sectorGrid(list), lines: lines.filter((l) => l.sectorId === id) }]));
  layout = { side: stageSide(lines), sectors };
  pageLayouts.set(seats, layout);
  return layout;
}

/** The phone's sticky cart: count, countdown and total always in view, a link to the full cart. */
function CartBar({ t }: { t: Texts }) {
  return (
    <div class="cart-bar" id="cart-bar" hidden>
      <span>
        <strong id="bar-count"></strong> <span id="bar-countdown" class="bar-countdown"></span>
      </span>
      <strong id="bar-total"></strong>
      <a class="button" href="#cart">
        {t.viewCart}
      </a>
    </div>
  );
}

/** D69: joining the session's waiting list (portal.js posts it to the portal API and shows the position). */
function WaitingListForm({ t }: { t: ReturnType<typeof texts> }) {
  return (
    <section class="waitlist" aria-labelledby="waitlist-title">
      <h2 id="waitlist-title">{t.waitlistTitle}</h2>
      <p class="help">{t.waitlistHelp}</p>
      <form id="waitlist-form" class="row">
        <div>
          <label for="waitlist-email">{t.email}</label>
          <input id="waitlist-email" name="email" type="email" autocomplete="email" maxLength={320} required />
        </div>
        <div>
          <label for="waitlist-qty">{t.quantity}</label>
          <input id="waitlist-qty" name="quantity" type="number" min={1} max={10} value={1} required />
        </div>
        <button type="submit">{t.waitlistJoin}</button>
      </form>
      <p id="waitlist-result" role="status" hidden></p>
    </section>
  );
}

/** Whether a session's page draws the compact map (above `above` numbered seats: config portalCompactMapAbove) instead of a button a seat. */
export const isCompactMap = (detail: StoreSessionDetail, above: number) => detail.seats.length > above;

export function SessionPage({ channel, lang, event, session, detail, f, queueClient = '', compactAbove = Infinity, now }: {
  channel: ChannelRecord;
  lang: string;
  event: StoreEvent;
  session: StoreSession;
  detail: StoreSessionDetail;
  f: Formats;
  queueClient?: string;
  /** Above this many seats the sectors are drawn as the UI kit's compact map (config portalCompactMapAbove). */
  compactAbove?: number;
  /** The service's clock as the page is drawn (ms): the script's countdowns start from it (ui/service-clock.ts). */
  now: number;
}) {
  const t = texts(lang);
  const RateOptions = ({ sectorId }: { sectorId: number }) => (
    <>
      {detail.rates
        .filter((r) => r.sector_id === null || r.sector_id === sectorId)
        .map((r) => (
          // D71: the price a buyer pays, fees included, with the fee named beside it.
          <option value={r.id}>{`${r.name} · ${f.money(r.price + r.fee)}${r.fee > 0 ? ` (${t.inclFees.replace('{fee}', f.money(r.fee))})` : ''}`}</option>
        ))}
    </>
  );
  const numbered = detail.sectors.filter((s) => s.numbered);
  const zones = detail.sectors.filter((s) => !s.numbered);
  const firstNumbered = numbered[0];
  // D69: no numbered seat left, the buyer may join the waiting list (docs/waiting-list.md).
  const soldOut = numbered.length > 0 && numbered.every((s) => s.available === 0);
  const { side, sectors } = pageLayout(detail.seats);
  const stage = numbered.length ? <p class={`stage ${side}`}>{t.stage}</p> : null;
  const compact = isCompactMap(detail, compactAbove);
  const maps = numbered.map((sector) => {
    const place = sectors.get(sector.id);
    if (!place) return null;
    return compact ? <CompactSectorMap sector={sector} place={place} free={detail.free} t={t} /> : <SectorMap sector={sector} place={place} free={detail.free} t={t} />;
  });
  const zoneForms = zones.map((z) => (
    <form class="zone" data-sector={z.id}>
      <h3 id={`zone-${z.id}`}>
        {z.name} <Available sectorId={z.id} count={z.available} t={t} />
      </h3>
      <div class="row">
        <div>
          <label for={`zone-qty-${z.id}`}>{t.quantity}</label>
          <input id={`zone-qty-${z.id}`} name="quantity" type="number" min={1} max={Math.max(1, Math.min(10, z.available))} value={1} required />
        </div>
        <div>
          <label for={`zone-rate-${z.id}`}>{t.rate}</label>
          <select id={`zone-rate-${z.id}`} name="rate_id">
            <RateOptions sectorId={z.id} />
          </select>
        </div>
        <button type="submit" disabled={!z.available}>
          {t.add}
        </button>
      </div>
    </form>
  ));
  return (
    <>
      <p>
        <a href={`/${channel.slug}/${lang}/events/${event.id}`}>← {t.sessions}</a>
      </p>
      <h1>{event.name}</h1>
      <p class="meta">{`${f.date(session.start_datetime)} · ${event.venue}`}</p>
      <div class="layout">
        <section class="panel" aria-labelledby="map-title">
          <h2 id="map-title">{t.map}</h2>
          <p id="sale-state" class="alert sale-state" role="status" hidden></p>
          {/* The waiting room (D60): portal.js fills it in when the session has one. */}
          <section id="queue" class="queue" aria-labelledby="queue-title" hidden>
            <h3 id="queue-title">{t.queueTitle}</h3>
            <p id="queue-status" role="status"></p>
            <p id="queue-detail" class="help"></p>
            <button type="button" id="queue-join" class="button" hidden>
              {t.queueJoin}
            </button>
          </section>
          <p id="map-help" class="help">{`${t.mapHelp} ${t.zoomHint} ${compact ? t.compactKeys : t.mapKeys}`}</p>
          <label for="seat-rate">{t.rate}</label>
          <select id="seat-rate">{firstNumbered ? <RateOptions sectorId={firstNumbered.id} /> : null}</select>
          <ul class="legend" aria-hidden="true">
            <li>
              <span class="seat"></span>
              {t.seatFree}
            </li>
            <li>
              <span class="seat mine"></span>
              {t.seatMine}
            </li>
            <li>
              <span class="seat" data-taken></span>
              {t.seatTaken}
            </li>
          </ul>
          {numbered.length ? (
            // "N best seats" (D61): portal.js asks the service and shows them as the cart's seats.
            <form class="best" id="best-form">
              <p class="help">{t.bestHelp}</p>
              <label for="best-qty">{t.quantity}</label>
              <input id="best-qty" name="quantity" type="number" min={1} max={10} value={2} required />
              <button type="submit">{t.bestSeats}</button>
              <button type="button" id="best-again" hidden>
                {t.chooseAgain}
              </button>
            </form>
          ) : null}
          <div class="maps">
            {side === 'top' ? stage : null}
            {maps}
            {side === 'bottom' ? stage : null}
          </div>
          {zones.length ? (
            <>
              <h2 class="zones-title">{t.zones}</h2>
              {zoneForms}
            </>
          ) : null}
          {soldOut ? <WaitingListForm t={t} /> : null}
        </section>
        <CartPanel lang={lang} withCheckout={true} />
      </div>
      <CartBar t={t} />
      <JsonData value={{ page: 'session', slug: channel.slug, lang, eventId: event.id, sessionId: session.id, queueClient, editable: true, compact, now, texts: t }} />
    </>
  );
}

/**
 * The way back from the portal's last page (issue 16): the storefront's events (models A, B) or
 * the partner's own site (model C, its `website_url`); nothing when the channel has neither.
 */
function WayBack({ channel, lang }: { channel: ChannelRecord; lang: string }) {
  const t = texts(lang);
  const home = channelHome(channel, lang);
  if (!home) return null;
  const storefront = policyOf(channel.integrationMode).storefront;
  return (
    <p class="way-back">
      <a class="button" href={home} id="way-back">
        {storefront ? t.moreEvents : t.backTo.replace('{site}', channel.branding.name ?? channel.name)}
      </a>
    </p>
  );
}

export function CheckoutClosed({ channel, lang, emptyCart }: { channel: ChannelRecord; lang: string; emptyCart: boolean }) {
  const t = texts(lang);
  return (
    <>
      <h1>{t.checkout}</h1>
      <p class="alert" role="status">
        {emptyCart ? t.emptyCart : t.expired}
      </p>
      <WayBack channel={channel} lang={lang} />
    </>
  );
}

/** A labelled input of the checkout with the place for its own error, filled in by portal.js. */
function BuyerField({ name, label, value, ...attrs }: { name: string; label: string; value: string | undefined; autocomplete: string; maxlength: number; type?: string; required?: boolean }) {
  return (
    <div class="field">
      <label for={name}>{label}</label>
      <input id={name} name={name} value={value ?? ''} {...attrs} />
      <p class="field-error" id={`${name}-error`} hidden></p>
    </div>
  );
}

export function CheckoutPage({ channel, lang, orderToken, payment, storefront, buyer }: { channel: ChannelRecord; lang: string; orderToken: string; payment: string | undefined; storefront: boolean; buyer: BuyerDetails | null }) {
  const t = texts(lang);
  const external = policyOf(channel.integrationMode).portalCheckout === 'external_page';
  const notice = payment === 'declined' ? t.paymentDeclined : payment === 'cancelled' ? t.paymentCancelled : '';
  return (
    <>
      <h1>{t.checkout}</h1>
      {notice ? (
        <p class={`alert ${payment === 'declined' ? 'error' : ''}`} role="alert">
          {notice}
        </p>
      ) : null}
      <div class="layout">
        <CartPanel lang={lang} withCheckout={false} />
        <section class="panel" aria-labelledby="pay-title">
          <h2 id="pay-title">{t.payment}</h2>
          <form id="checkout-form" novalidate>
            {external ? null : (
              <fieldset>
                <legend>{t.buyer}</legend>
                <BuyerField name="name" label={t.name} value={buyer?.name} autocomplete="given-name" required maxlength={100} />
                <BuyerField name="surname" label={t.surname} value={buyer?.surname} autocomplete="family-name" required maxlength={100} />
                <BuyerField name="email" label={t.email} value={buyer?.email} type="email" autocomplete="email" required maxlength={EMAIL_MAX_LENGTH} />
                <BuyerField name="phone" label={t.phone} value={buyer?.phone} type="tel" autocomplete="tel" maxlength={40} />
              </fieldset>
            )}
            <p id="checkout-error" class="alert error" role="alert" hidden></p>
            <button type="submit" class="primary" id="pay-button">
              {external ? t.continueToChannel : t.pay}
            </button>
          </form>
        </section>
      </div>
      <JsonData
        value={{
          page: 'checkout',
          slug: channel.slug,
          lang,
          orderToken,
          external,
          // Model C's cart was built by the widget: the checkout page shows it, it does not edit it.
          editable: storefront,
          texts: t,
        }}
      />
    </>
  );
}

/** An order's ticket on its page: the item it is for, valid with its link, or voided by a refund. */
export interface PageTicket {
  id: number;
  itemId: number;
  status: 'valid' | 'void';
  voidedAt: Date | null;
  url: string | null;
  /** "Add to Apple Wallet" / "Add to Google Wallet" links (D70); absent or null when not offered. */
  appleWalletUrl?: string | null;
  googleWalletUrl?: string | null;
}

/**
 * The order's state as the buyer reads it; null when the order is still a cart (the checkout shows
 * it). A completed order whose tickets were all refunded says so, one refunded in part too (D58).
 */
export function orderStatus(view: OrderView, payment: PaymentRow | null, lang: string, tickets: PageTicket[] = []): { text: string; kind: string; role: 'status' | 'alert'; refresh?: boolean } | null {
  const t = texts(lang);
  if (view.status === 'completed') {
    const voided = tickets.filter((x) => x.status === 'void').length;
    if (voided > 0 && voided === tickets.length) return { text: t.orderRefunded, kind: 'alert', role: 'status' };
    if (voided > 0) return { text: t.orderPartlyRefunded, kind: 'alert', role: 'status' };
    return { text: t.orderCompleted, kind: 'alert success', role: 'status' };
  }
  if (payment?.status === 'refund_required') return { text: t.refundPending, kind: 'alert error', role: 'alert' };
  if (view.status === 'pending' && payment?.status === 'pending') return { text: t.orderPending, kind: 'alert', role: 'status', refresh: true };
  if (view.status === 'pending') return null;
  return { text: view.status === 'cancelled' ? t.orderCancelled : t.orderExpired, kind: 'alert', role: 'status' };
}

export function OrderPage({ channel, lang, view, status, tickets, refunds, orderLinks, f }: { channel: ChannelRecord; lang: string; view: OrderView; status: NonNullable<ReturnType<typeof orderStatus>>; tickets: PageTicket[]; refunds: BuyerRefund[]; orderLinks?: { all_tickets_pdf_url: string; calendar_url: string } | null; f: Formats }) {
  const t = texts(lang);
  // The view's amounts are JSON numbers (D11); the formats take minor units.
  const amount = (n: number) => f.money(Math.round(n * 100));
  const items = view.events.flatMap((e) => e.sessions.flatMap((s) => s.items.map((i) => ({ e, s, i }))));
  const ticketOfItem = new Map(tickets.map((x) => [x.itemId, x]));
  const itemOfTicket = new Map(tickets.map((x) => [x.id, items.find((it) => it.i.id === x.itemId)]));
  const seatText = (it: (typeof items)[number]) => `${it.i.sector_name}${it.i.row ? ` · ${t.row} ${it.i.row} · ${t.seat} ${it.i.number}` : ''}`;
  const refundedTotal = refunds.reduce((n, r) => n + r.amount, 0);
  return (
    <>
      <h1>{`${t.order} ${view.reference}`}</h1>
      <p class={status.kind} role={status.role}>
        {status.text}
      </p>
      <section class="panel">
        <ul class="lines">
          {view.events.flatMap((e) =>
            e.sessions.map((s) => (
              <li>
                <strong>{e.name}</strong>
                {` · ${f.date(new Date(s.start_datetime))}`}
                <ul>
                  {s.items.map((i) => {
                    const refunded = ticketOfItem.get(i.id)?.status === 'void';
                    return (
                      <li class={refunded ? 'refunded' : undefined}>
                        {`${i.sector_name}${i.row ? ` · ${t.row} ${i.row} · ${t.seat} ${i.number}` : ''} · ${i.rate_name} · ${amount(i.total_amount)}`}
                        {refunded ? (
                          <>
                            {' '}
                            <span class="tag">{t.refunded}</span>
                          </>
                        ) : null}
                      </li>
                    );
                  })}
                </ul>
              </li>
            )),
          )}
        </ul>
        {refunds.length ? (
          <dl class="totals">
            <dt>{t.paidTotal}</dt>
            <dd>{amount(view.total_amount)}</dd>
            <dt>{t.refundedAmount}</dt>
            <dd>{`−${f.money(refundedTotal)}`}</dd>
          </dl>
        ) : (
          <p class="total">
            {`${t.total}: `}
            <strong>{amount(view.total_amount)}</strong>
          </p>
        )}
      </section>
      {view.status === 'completed' ? (
        <>
          <h2>{t.tickets}</h2>
          <ul class="tickets">
            {tickets.map((ticket, n) => {
              const it = itemOfTicket.get(ticket.id);
              const what = it ? `${it.e.name} · ${seatText(it)}` : `#${n + 1}`;
              if (!ticket.url) {
                return (
                  <li class="void">
                    <span class="tag">{t.ticketVoid}</span> <span>{ticket.voidedAt ? `${what} · ${t.refundedOn.replace('{date}', f.date(ticket.voidedAt))}` : what}</span>
                  </li>
                );
              }
              return (
                <li>
                  {/* The seat first, its buttons under it: on a phone each ticket reads as one block. */}
                  <span class="what">{what}</span>{' '}
                  <a class="button" href={ticket.url} download>
                    {`${t.download} ${n + 1}`}
                    <span class="sr-only">: {what}</span>
                  </a>{' '}
                  {ticket.appleWalletUrl || ticket.googleWalletUrl ? (
                    <span class="wallet-links">
                      {ticket.appleWalletUrl ? (
                        <a class="button wallet apple" href={ticket.appleWalletUrl}>
                          {t.addToAppleWallet}
                          <span class="sr-only">: {what}</span>
                        </a>
                      ) : null}{' '}
                      {ticket.googleWalletUrl ? (
                        <a class="button wallet google" href={ticket.googleWalletUrl}>
                          {t.addToGoogleWallet}
                          <span class="sr-only">: {what}</span>
                        </a>
                      ) : null}
                    </span>
                  ) : null}
                </li>
              );
            })}
          </ul>
          {orderLinks ? (
            <p class="order-links">
              <a class="button" href={orderLinks.all_tickets_pdf_url} download>
                {t.downloadAll}
              </a>{' '}
              <a class="button" href={orderLinks.calendar_url} download="tickets.ics">
                {t.addToCalendar}
              </a>
            </p>
          ) : null}
          {refunds.length ? (
            <section class="refunds" aria-labelledby="refunds-title">
              <h2 id="refunds-title">{t.refunds}</h2>
              {refunds.map((r) => (
                <div class="panel">
                  <h3>{t.refundOf.replace('{reference}', r.reference)}</h3>
                  <p>
                    <span>{f.date(r.at)}</span> · <strong>{f.money(r.amount)}</strong>
                  </p>
                  {r.ticketIds.length ? (
                    <>
                      <p class="meta">{t.refundTickets}:</p>
                      <ul>
                        {r.ticketIds.map((id) => {
                          const it = itemOfTicket.get(id);
                          return <li>{it ? `${it.e.name} · ${seatText(it)} · ${it.i.rate_name}` : `#${id}`}</li>;
                        })}
                      </ul>
                    </>
                  ) : null}
                  {r.providerRef ? <p>{t.refundToCard.replace('{ref}', r.providerRef)}</p> : null}
                </div>
              ))}
            </section>
          ) : null}
        </>
      ) : null}
      <WayBack channel={channel} lang={lang} />
      {status.refresh ? <JsonData value={{ page: 'order-pending' }} /> : null}
    </>
  );
}

