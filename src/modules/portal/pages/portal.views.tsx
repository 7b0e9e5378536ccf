import type { ChannelRecord } from '../../../db/channel-record.js';
import { EMAIL_MAX_LENGTH } from '../../../lib/email-address.js';
import { policyOf } from '../../../lib/integration-policy.js';
import type { BuyerDetails, OrderView, PaymentRow, StoreEvent, StoreSession, StoreSessionDetail } from '../storefront.service.js';
import { channelHome, JsonData } from './portal.layout.js';
import { texts } from './portal.texts.js';

// The buyer-facing pages as Preact components (rendered on the server by portal.layout's
// renderPage): markup only; portal.pages.tsx reads the data and picks the page.

/** How the pages write dates and amounts: in the page's language and the deployment's time zone. */
export interface Formats {
  date: (d: Date) => string;
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

/** The cart panel the client script fills in (storefront and checkout pages share it). */
function CartPanel({ lang, withCheckout }: { lang: string; withCheckout: boolean }) {
  const t = texts(lang);
  return (
    <section class="panel cart" aria-labelledby="cart-title" id="cart" data-checkout={withCheckout ? '1' : ''}>
      <h2 id="cart-title">{t.cart}</h2>
      <p class="countdown" id="countdown" role="timer" aria-live="off" hidden></p>
      <div id="cart-body" aria-live="polite">
        <p>{t.emptyCart}</p>
      </div>
      <form id="voucher-form" class="inline" hidden>
        <label for="voucher">{t.voucher}</label>
        <div class="row">
          <input id="voucher" name="code" autocomplete="off" maxlength={64} required />
          <button type="submit">{t.apply}</button>
        </div>
      </form>
      <p id="cart-error" class="alert error" role="alert" hidden></p>
    </section>
  );
}

/** Venue and city: "Teatro Demo, Madrid". */
const place = (e: StoreEvent) => (e.city ? `${e.venue}, ${e.city}` : e.venue);

export function EventList({ channel, lang, events, f }: { channel: ChannelRecord; lang: string; events: StoreEvent[]; f: Formats }) {
  const t = texts(lang);
  return (
    <>
      <h1>{t.events}</h1>
      {events.length ? (
        <ul class="cards">
          {events.map((e) => (
            <li class="card">
              <h2>
                <a href={`/${channel.slug}/${lang}/events/${e.id}`}>{e.name}</a>
              </h2>
              <p>{e.description ?? ''}</p>
              <p class="meta">
                {place(e)}
                {e.first_session ? ` · ${t.nextSession}: ${f.date(e.first_session)}` : ''}
              </p>
              <a class="button" href={`/${channel.slug}/${lang}/events/${e.id}`} aria-label={`${t.seeSessions}: ${e.name}`}>
                {t.seeSessions}
              </a>
            </li>
          ))}
        </ul>
      ) : (
        <p>{t.noEvents}</p>
      )}
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
      <p>{event.description ?? ''}</p>
      <p class="meta">{place(event)}</p>
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

export function SessionPage({ channel, lang, event, session, detail, f }: { channel: ChannelRecord; lang: string; event: StoreEvent; session: StoreSession; detail: StoreSessionDetail; f: Formats }) {
  const t = texts(lang);
  const RateOptions = ({ sectorId }: { sectorId: number }) => (
    <>
      {detail.rates
        .filter((r) => r.sector_id === null || r.sector_id === sectorId)
        .map((r) => (
          <option value={r.id}>{`${r.name} · ${f.money(r.price)}`}</option>
        ))}
    </>
  );
  const numbered = detail.sectors.filter((s) => s.numbered);
  const zones = detail.sectors.filter((s) => !s.numbered);
  const firstNumbered = numbered[0];
  const maps = numbered.map((sector) => {
    const seats = detail.seats.filter((s) => s.sector_id === sector.id);
    const minY = Math.min(...seats.map((s) => s.y));
    const cols = Math.max(...seats.map((s) => s.x)) + 1;
    return (
      <>
        <h3 id={`sector-${sector.id}`}>
          {sector.name} <span class="meta">{`(${sector.available} ${t.available})`}</span>
        </h3>
        <div class="seatmap" role="group" aria-labelledby={`sector-${sector.id}`} style={`grid-template-columns:repeat(${cols}, minmax(1.9rem, 1fr))`}>
          {seats.map((s) => {
            const label = `${sector.name}, ${t.row} ${s.row}, ${t.seat} ${s.number}`;
            return (
              <button
                type="button"
                class="seat"
                data-seat={s.id}
                data-sector={sector.id}
                data-x={Math.round(s.x)}
                data-y={Math.round(s.y)}
                data-label={label}
                style={`grid-column:${Math.round(s.x) + 1};grid-row:${Math.round(s.y - minY) + 1}`}
                aria-pressed="false"
                aria-label={`${label} – ${s.free ? t.seatFree : t.seatTaken}`}
                disabled={!s.free}
              >
                {s.number}
              </button>
            );
          })}
        </div>
      </>
    );
  });
  const zoneForms = zones.map((z) => (
    <form class="zone" data-sector={z.id}>
      <h3 id={`zone-${z.id}`}>
        {z.name} <span class="meta">{`(${z.available} ${t.available})`}</span>
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
          <p id="map-help">{`${t.mapHelp} ${t.mapKeys}`}</p>
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
          <div class="maps">{maps}</div>
          {zones.length ? (
            <>
              <h2>{t.zones}</h2>
              {zoneForms}
            </>
          ) : null}
        </section>
        <CartPanel lang={lang} withCheckout={true} />
      </div>
      <JsonData value={{ page: 'session', slug: channel.slug, lang, sessionId: session.id, editable: true, texts: t }} />
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

/** The order's state as the buyer reads it; null when the order is still a cart (the checkout shows it). */
export function orderStatus(view: OrderView, payment: PaymentRow | null, lang: string): { text: string; kind: string; role: 'status' | 'alert'; refresh?: boolean } | null {
  const t = texts(lang);
  if (view.status === 'completed') return { text: t.orderCompleted, kind: 'alert success', role: 'status' };
  if (payment?.status === 'refund_required') return { text: t.refundPending, kind: 'alert error', role: 'alert' };
  if (view.status === 'pending' && payment?.status === 'pending') return { text: t.orderPending, kind: 'alert', role: 'status', refresh: true };
  if (view.status === 'pending') return null;
  return { text: view.status === 'cancelled' ? t.orderCancelled : t.orderExpired, kind: 'alert', role: 'status' };
}

export function OrderPage({ channel, lang, view, status, ticketUrls, f }: { channel: ChannelRecord; lang: string; view: OrderView; status: NonNullable<ReturnType<typeof orderStatus>>; ticketUrls: string[]; f: Formats }) {
  const t = texts(lang);
  // The view's amounts are JSON numbers (D11); the formats take minor units.
  const amount = (n: number) => f.money(Math.round(n * 100));
  const items = view.events.flatMap((e) => e.sessions.flatMap((s) => s.items.map((i) => ({ e, i }))));
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
                  {s.items.map((i) => (
                    <li>{`${i.sector_name}${i.row ? ` · ${t.row} ${i.row} · ${t.seat} ${i.number}` : ''} · ${i.rate_name} · ${amount(i.total_amount)}`}</li>
                  ))}
                </ul>
              </li>
            )),
          )}
        </ul>
        <p class="total">
          {`${t.total}: `}
          <strong>{amount(view.total_amount)}</strong>
        </p>
      </section>
      {view.status === 'completed' ? (
        <>
          <h2>{t.tickets}</h2>
          <ul class="tickets">
            {ticketUrls.map((url, n) => {
              const it = items[n];
              const what = it ? `${it.e.name} · ${it.i.sector_name}${it.i.row ? ` ${t.row} ${it.i.row} ${t.seat} ${it.i.number}` : ''}` : `#${n + 1}`;
              return (
                <li>
                  <a class="button" href={url} download>
                    {`${t.download} ${n + 1}`}
                    <span class="sr-only">: {what}</span>
                  </a>{' '}
                  <span>{what}</span>
                </li>
              );
            })}
          </ul>
        </>
      ) : null}
      <WayBack channel={channel} lang={lang} />
      {status.refresh ? <JsonData value={{ page: 'order-pending' }} /> : null}
    </>
  );
}

