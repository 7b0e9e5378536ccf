import path from 'node:path';
import { fileURLToPath } from 'node:url';
import formbody from '@fastify/formbody';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { ComponentChildren } from 'preact';
import { AppError } from '../../../http/errors.js';
import { cspNonce, usePagePolicy } from '../../../http/security-headers.js';
import { policyOf, type ModelPolicy } from '../../../lib/integration-policy.js';
import { DEFAULT_LANGUAGE, formatDateTime, formatMoney, isLanguage } from '../../../platform/i18n.js';
import type { ChannelRecord } from '../../channels/channels.repo.js';
import type { OrderView } from '../../orders/order-view.js';
import { ensureBuyerCookie, registerBuyerCookies } from '../portal-buyer.js';
import type { PaymentRow } from '../portal.repo.js';
import * as storefront from '../storefront.service.js';
import type { StoreEvent, StoreSession, StoreSessionDetail } from '../storefront.service.js';
import { JsonData, renderPage, type PageOptions } from './portal.layout.js';
import { texts } from './portal.texts.js';
import { registerSandboxPages } from './sandbox.pages.js';

/** Client-side code of the pages: plain ES modules and CSS in portal/ at the repository root. */
const PORTAL_ASSETS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../portal');

/** Which channels a page serves, by their integration policy: the storefront's, or the checkout's (D25, D26). */
type PageFor = (policy: ModelPolicy) => boolean;
const STOREFRONT: PageFor = (p) => p.storefront;
const CHECKOUT: PageFor = (p) => p.portalCheckout !== null;

class PageNotFound extends Error {}

interface PageParams {
  slug: string;
  lang: string;
}

const idOf = (raw: string) => (/^\d{1,9}$/.test(raw) ? Number(raw) : null);

/** How the pages write dates and amounts: in the page's language and the deployment's time zone. */
interface Formats {
  date: (d: Date) => string;
  money: (minor: number) => string;
}

function NotFound({ lang }: { lang: string }) {
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

function EventList({ channel, lang, events, f }: { channel: ChannelRecord; lang: string; events: StoreEvent[]; f: Formats }) {
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

function EventPage({ channel, lang, event, sessions, f }: { channel: ChannelRecord; lang: string; event: StoreEvent; sessions: StoreSession[]; f: Formats }) {
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

function SessionPage({ channel, lang, event, session, detail, f }: { channel: ChannelRecord; lang: string; event: StoreEvent; session: StoreSession; detail: StoreSessionDetail; f: Formats }) {
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

function CheckoutClosed({ channel, lang, emptyCart }: { channel: ChannelRecord; lang: string; emptyCart: boolean }) {
  const t = texts(lang);
  return (
    <>
      <h1>{t.checkout}</h1>
      <p class="alert" role="status">
        {emptyCart ? t.emptyCart : t.expired}
      </p>
      {STOREFRONT(policyOf(channel.integrationMode)) ? (
        <p>
          <a class="button" href={`/${channel.slug}/${lang}/events`}>
            {t.events}
          </a>
        </p>
      ) : null}
    </>
  );
}

function CheckoutPage({ channel, lang, orderToken, payment }: { channel: ChannelRecord; lang: string; orderToken: string; payment: string | undefined }) {
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
                <label for="name">{t.name}</label>
                <input id="name" name="name" autocomplete="given-name" required maxlength={100} />
                <label for="surname">{t.surname}</label>
                <input id="surname" name="surname" autocomplete="family-name" required maxlength={100} />
                <label for="email">{t.email}</label>
                <input id="email" name="email" type="email" autocomplete="email" required maxlength={200} />
                <label for="phone">{t.phone}</label>
                <input id="phone" name="phone" type="tel" autocomplete="tel" maxlength={40} />
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
          editable: STOREFRONT(policyOf(channel.integrationMode)),
          texts: t,
        }}
      />
    </>
  );
}

/** The order's state as the buyer reads it; null when the order is still a cart (the checkout shows it). */
function orderStatus(view: OrderView, payment: PaymentRow | null, lang: string): { text: string; kind: string; role: 'status' | 'alert'; refresh?: boolean } | null {
  const t = texts(lang);
  if (view.status === 'completed') return { text: t.orderCompleted, kind: 'alert success', role: 'status' };
  if (payment?.status === 'refund_required') return { text: t.refundPending, kind: 'alert error', role: 'alert' };
  if (view.status === 'pending' && payment?.status === 'pending') return { text: t.orderPending, kind: 'alert', role: 'status', refresh: true };
  if (view.status === 'pending') return null;
  return { text: view.status === 'cancelled' ? t.orderCancelled : t.orderExpired, kind: 'alert', role: 'status' };
}

function OrderPage({ lang, view, status, ticketUrls, f }: { lang: string; view: OrderView; status: NonNullable<ReturnType<typeof orderStatus>>; ticketUrls: string[]; f: Formats }) {
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
      {status.refresh ? <JsonData value={{ page: 'order-pending' }} /> : null}
    </>
  );
}

/** The buyer-facing pages: storefront (A, B), checkout (A, B, C), order page, sandbox card page. */
const portalPages: FastifyPluginAsync = async (app) => {
  usePagePolicy(app, 'portal');
  await app.register(formbody);
  await registerBuyerCookies(app);
  await app.register(fastifyStatic, { root: PORTAL_ASSETS_DIR, prefix: '/portal-assets/', maxAge: 60_000 });
  registerSandboxPages(app);

  const { ctx } = app;
  const formatsOf = (lang: string): Formats => ({
    date: (d) => formatDateTime(d, lang, ctx.config.timezone),
    money: (minor) => formatMoney(minor, ctx.config.currency, lang),
  });
  const send = (reply: FastifyReply, opts: Omit<PageOptions, 'nonce'>, body: ComponentChildren) =>
    reply.type('text/html').send(renderPage({ ...opts, nonce: cspNonce(reply).style }, body));

  const page = <P extends PageParams>(
    serves: PageFor,
    handler: (channel: ChannelRecord, params: P, query: Record<string, string | undefined>, reply: FastifyReply) => Promise<unknown>,
  ) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const params = request.params as P;
      // `/:slug/:lang` also matches unknown API paths such as /api/nothing: those get the API's
      // 404 in the envelope (D47), not a storefront page.
      if (params.slug === 'api') return reply.callNotFound();
      try {
        const channel = await storefront.pageChannel(ctx, params.slug, params.lang, serves);
        if (!channel) throw new PageNotFound();
        reply.header('cache-control', 'no-store');
        // The storefront's buyers build carts: each browser gets its buyer id for the hold caps (D44).
        if (STOREFRONT(policyOf(channel.integrationMode))) ensureBuyerCookie(app, request, reply);
        return await handler(channel, params, (request.query ?? {}) as Record<string, string | undefined>, reply);
      } catch (err) {
        if (err instanceof PageNotFound || (err instanceof AppError && err.status === 404)) {
          const lang = isLanguage(params.lang) ? params.lang : DEFAULT_LANGUAGE;
          return send(reply.status(404), { lang, title: texts(lang).notFound, channel: null }, <NotFound lang={lang} />);
        }
        throw err;
      }
    };

  app.get('/:slug/:lang', { schema: { hide: true } }, page(STOREFRONT, async (channel, p, _q, reply) => reply.redirect(`/${channel.slug}/${p.lang}/events`)));

  app.get(
    '/:slug/:lang/events',
    { schema: { hide: true } },
    page(STOREFRONT, async (channel, { lang }, _q, reply) => {
      const events = await storefront.storeEvents(ctx, channel, lang);
      return send(reply, { lang, title: texts(lang).events, channel, langPath: '/events' }, <EventList channel={channel} lang={lang} events={events} f={formatsOf(lang)} />);
    }),
  );

  app.get(
    '/:slug/:lang/events/:eventId',
    { schema: { hide: true } },
    page<PageParams & { eventId: string }>(STOREFRONT, async (channel, { lang, eventId }, _q, reply) => {
      const id = idOf(eventId);
      const found = id && (await storefront.storeEvent(ctx, channel, id, lang));
      if (!found) throw new PageNotFound();
      const { event, sessions } = found;
      return send(reply, { lang, title: event.name, channel, langPath: `/events/${event.id}` }, <EventPage channel={channel} lang={lang} event={event} sessions={sessions} f={formatsOf(lang)} />);
    }),
  );

  app.get(
    '/:slug/:lang/events/:eventId/sessions/:sessionId',
    { schema: { hide: true } },
    page<PageParams & { eventId: string; sessionId: string }>(STOREFRONT, async (channel, { lang, eventId, sessionId }, _q, reply) => {
      const eId = idOf(eventId);
      const sId = idOf(sessionId);
      const found = eId && sId && (await storefront.storeSession(ctx, channel, eId, sId, lang));
      if (!found) throw new PageNotFound();
      const { event, session, detail } = found;
      return send(
        reply,
        { lang, title: event.name, channel, langPath: `/events/${event.id}/sessions/${session.id}`, scripts: ['portal.js'] },
        <SessionPage channel={channel} lang={lang} event={event} session={session} detail={detail} f={formatsOf(lang)} />,
      );
    }),
  );

  app.get(
    '/:slug/:lang/checkout',
    { schema: { hide: true } },
    page(CHECKOUT, async (channel, { lang }, query, reply) => {
      const token = query.order_token ?? '';
      const order = await storefront.channelOrder(ctx, channel, token);
      if (!order) throw new PageNotFound();
      if (order.status === 'completed') return reply.redirect(`/${channel.slug}/${lang}/orders/${encodeURIComponent(token)}`);
      const opts = { lang, title: texts(lang).checkout, channel, langPath: `/checkout?order_token=${encodeURIComponent(token)}` };
      const now = ctx.clock.now();
      if (order.status !== 'pending' || (order.expiresAt && order.expiresAt <= now) || order.itemCount === 0) {
        return send(reply, opts, <CheckoutClosed channel={channel} lang={lang} emptyCart={order.itemCount === 0 && order.status === 'pending'} />);
      }
      return send(reply, { ...opts, scripts: ['portal.js'] }, <CheckoutPage channel={channel} lang={lang} orderToken={token} payment={query.payment} />);
    }),
  );

  app.get(
    '/:slug/:lang/orders/:orderToken',
    { schema: { hide: true } },
    page<PageParams & { orderToken: string }>(CHECKOUT, async (channel, { lang, orderToken }, _query, reply) => {
      const order = await storefront.channelOrder(ctx, channel, orderToken);
      if (!order) throw new PageNotFound();
      const { view, payment, ticketUrls } = await storefront.orderPage(ctx, order, lang);
      const status = orderStatus(view, payment, lang);
      if (!status) return reply.redirect(`/${channel.slug}/${lang}/checkout?order_token=${encodeURIComponent(orderToken)}`);
      return send(
        reply,
        { lang, title: `${texts(lang).order} ${view.reference}`, channel, langPath: `/orders/${encodeURIComponent(orderToken)}`, scripts: status.refresh ? ['portal.js'] : [] },
        <OrderPage lang={lang} view={view} status={status} ticketUrls={ticketUrls} f={formatsOf(lang)} />,
      );
    }),
  );
};

export default portalPages;
