import path from 'node:path';
import { fileURLToPath } from 'node:url';
import formbody from '@fastify/formbody';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../../http/errors.js';
import { EMAIL_MAX_LENGTH } from '../../../lib/email-address.js';
import { policyOf, type ModelPolicy } from '../../../lib/integration-policy.js';
import { cspNonce, usePagePolicy } from '../../../http/security-headers.js';
import type { ChannelRecord } from '../../../db/channel-record.js';
import { findChannelBySlug } from '../../channels/channels.service.js';
import { buildOrderView, type OrderView } from '../../orders/order-view.js';
import { ticketPdfUrls } from '../../tickets/tickets.service.js';
import { ensureBuyerCookie, registerBuyerCookies } from '../portal-buyer.js';
import { findChannelOrder, latestPaymentOfOrder } from '../portal.repo.js';
import { dateTime, esc, jsonData, layout, money } from './html.js';
import { isPageLang, texts } from './i18n.js';
import { registerSandboxPages } from './sandbox.pages.js';
import * as store from './storefront.repo.js';

/** Client-side code of the pages: plain ES modules and CSS in portal/ at the repository root. */
export const PORTAL_ASSETS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../portal');

/** Which channels a page serves, by their integration policy: the storefront's, or the checkout's (D25, D26). */
type PageFor = (policy: ModelPolicy) => boolean;
const STOREFRONT: PageFor = (p) => p.storefront;
const CHECKOUT: PageFor = (p) => p.portalCheckout !== null;

class PageNotFound extends Error {}

function notFoundPage(reply: FastifyReply, lang: string, channel: ChannelRecord | null) {
  const t = texts(lang);
  return reply
    .status(404)
    .type('text/html')
    .send(layout({ nonce: cspNonce(reply).style, lang, title: t.notFound, channel, body: `<h1>${esc(t.notFound)}</h1><p>${esc(t.notFoundText)}</p>` }));
}

interface PageParams {
  slug: string;
  lang: string;
}

/** Resolves the channel and language of a page, or answers 404 for a channel not served here. */
async function pageContext(app: FastifyInstance, params: PageParams, serves: PageFor): Promise<ChannelRecord> {
  if (!isPageLang(params.lang)) throw new PageNotFound();
  const channel = await findChannelBySlug(app.ctx, params.slug);
  if (!channel || !serves(policyOf(channel.integrationMode))) throw new PageNotFound();
  return channel;
}

const idOf = (raw: string) => (/^\d{1,9}$/.test(raw) ? Number(raw) : null);

/** The cart panel the client script fills in (storefront and checkout pages share it). */
function cartPanel(lang: string, withCheckout: boolean) {
  const t = texts(lang);
  return `<section class="panel cart" aria-labelledby="cart-title" id="cart" data-checkout="${withCheckout ? '1' : ''}">
  <h2 id="cart-title">${esc(t.cart)}</h2>
  <p class="countdown" id="countdown" role="timer" aria-live="off" hidden></p>
  <div id="cart-body" aria-live="polite"><p>${esc(t.emptyCart)}</p></div>
  <form id="voucher-form" class="inline" hidden>
    <label for="voucher">${esc(t.voucher)}</label>
    <div class="row"><input id="voucher" name="code" autocomplete="off" maxlength="64" required><button type="submit">${esc(t.apply)}</button></div>
  </form>
  <p id="cart-error" class="alert error" role="alert" hidden></p>
</section>`;
}

/** The buyer-facing pages: storefront (A, B), checkout (A, B, C), order page, sandbox card page. */
const portalPages: FastifyPluginAsync = async (app) => {
  usePagePolicy(app, 'portal');
  await app.register(formbody);
  await registerBuyerCookies(app);
  await app.register(fastifyStatic, { root: PORTAL_ASSETS_DIR, prefix: '/portal-assets/', maxAge: 60_000 });
  registerSandboxPages(app);

  const tz = app.ctx.config.timezone;
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
        const channel = await pageContext(app, params, serves);
        reply.header('cache-control', 'no-store');
        // The storefront's buyers build carts: each browser gets its buyer id for the hold caps (D44).
        if (STOREFRONT(policyOf(channel.integrationMode))) ensureBuyerCookie(app, request, reply);
        return await handler(channel, params, (request.query ?? {}) as Record<string, string | undefined>, reply);
      } catch (err) {
        if (err instanceof PageNotFound || (err instanceof AppError && err.status === 404)) {
          return notFoundPage(reply, isPageLang(params.lang) ? params.lang : 'es', null);
        }
        throw err;
      }
    };
  const html = (reply: FastifyReply, body: string) => reply.type('text/html').send(body);

  app.get('/:slug/:lang', { schema: { hide: true } }, page(STOREFRONT, async (channel, p, _q, reply) => reply.redirect(`/${channel.slug}/${p.lang}/events`)));

  app.get(
    '/:slug/:lang/events',
    { schema: { hide: true } },
    page(STOREFRONT, async (channel, { lang }, _q, reply) => {
      const t = texts(lang);
      const events = await store.listEvents(app.ctx.db, channel.id, lang, app.ctx.clock.now());
      const list = events.length
        ? `<ul class="cards">${events
            .map(
              (e) => `<li class="card"><h2><a href="/${esc(channel.slug)}/${lang}/events/${e.id}">${esc(e.name)}</a></h2>
<p>${esc(e.description ?? '')}</p>
<p class="meta">${esc(e.venue)}${e.city ? `, ${esc(e.city)}` : ''}${e.first_session ? ` · ${esc(t.nextSession)}: ${esc(dateTime(e.first_session, lang, tz))}` : ''}</p>
<a class="button" href="/${esc(channel.slug)}/${lang}/events/${e.id}" aria-label="${esc(t.seeSessions)}: ${esc(e.name)}">${esc(t.seeSessions)}</a></li>`,
            )
            .join('')}</ul>`
        : `<p>${esc(t.noEvents)}</p>`;
      return html(reply, layout({ nonce: cspNonce(reply).style, lang, title: t.events, channel, langPath: '/events', body: `<h1>${esc(t.events)}</h1>${list}` }));
    }),
  );

  app.get(
    '/:slug/:lang/events/:eventId',
    { schema: { hide: true } },
    page<PageParams & { eventId: string }>(STOREFRONT, async (channel, { lang, eventId }, _q, reply) => {
      const t = texts(lang);
      const now = app.ctx.clock.now();
      const id = idOf(eventId);
      const event = id && (await store.findEvent(app.ctx.db, channel.id, id, lang, now));
      if (!event) throw new PageNotFound();
      const sessions = await store.listSessions(app.ctx.db, event.id, now);
      const list = sessions.length
        ? `<ul class="sessions">${sessions
            .map(
              (s) => `<li><span>${esc(dateTime(s.start_datetime, lang, tz))}</span> <span class="meta">${s.available} ${esc(t.available)}</span>
<a class="button" href="/${esc(channel.slug)}/${lang}/events/${event.id}/sessions/${s.id}">${esc(t.chooseSeats)}<span class="sr-only">: ${esc(dateTime(s.start_datetime, lang, tz))}</span></a></li>`,
            )
            .join('')}</ul>`
        : `<p>${esc(t.noSessions)}</p>`;
      const body = `<p><a href="/${esc(channel.slug)}/${lang}/events">← ${esc(t.events)}</a></p>
<h1>${esc(event.name)}</h1><p>${esc(event.description ?? '')}</p><p class="meta">${esc(event.venue)}${event.city ? `, ${esc(event.city)}` : ''}</p>
<h2>${esc(t.sessions)}</h2>${list}`;
      return html(reply, layout({ nonce: cspNonce(reply).style, lang, title: event.name, channel, langPath: `/events/${event.id}`, body }));
    }),
  );

  app.get(
    '/:slug/:lang/events/:eventId/sessions/:sessionId',
    { schema: { hide: true } },
    page<PageParams & { eventId: string; sessionId: string }>(STOREFRONT, async (channel, { lang, eventId, sessionId }, _q, reply) => {
      const t = texts(lang);
      const now = app.ctx.clock.now();
      const eId = idOf(eventId);
      const sId = idOf(sessionId);
      const event = eId && (await store.findEvent(app.ctx.db, channel.id, eId, lang, now));
      const session = event && sId && (await store.sessionOfEvent(app.ctx.db, event.id, sId, now));
      if (!event || !session) throw new PageNotFound();
      const detail = await store.sessionDetail(app.ctx.db, session.id, lang, now);
      const currency = app.ctx.config.currency;
      const ratesFor = (sectorId: number) => detail.rates.filter((r) => r.sector_id === null || r.sector_id === sectorId);
      const rateOptions = (sectorId: number) =>
        ratesFor(sectorId)
          .map((r) => `<option value="${r.id}">${esc(r.name)} · ${esc(money(r.price, currency, lang))}</option>`)
          .join('');
      const numbered = detail.sectors.filter((s) => s.numbered);
      const zones = detail.sectors.filter((s) => !s.numbered);
      const firstNumbered = numbered[0];
      const maps = numbered
        .map((sector) => {
          const seats = detail.seats.filter((s) => s.sector_id === sector.id);
          const minY = Math.min(...seats.map((s) => s.y));
          const cols = Math.max(...seats.map((s) => s.x)) + 1;
          const buttons = seats
            .map((s) => {
              const label = `${sector.name}, ${t.row} ${s.row}, ${t.seat} ${s.number}`;
              return `<button type="button" class="seat" data-seat="${s.id}" data-sector="${sector.id}" data-x="${Math.round(s.x)}" data-y="${Math.round(s.y)}" data-label="${esc(label)}" style="grid-column:${Math.round(s.x) + 1};grid-row:${Math.round(s.y - minY) + 1}" aria-pressed="false" aria-label="${esc(label)} – ${esc(s.free ? t.seatFree : t.seatTaken)}"${s.free ? '' : ' disabled'}>${esc(s.number)}</button>`;
            })
            .join('');
          return `<h3 id="sector-${sector.id}">${esc(sector.name)} <span class="meta">(${sector.available} ${esc(t.available)})</span></h3>
<div class="seatmap" role="group" aria-labelledby="sector-${sector.id}" style="grid-template-columns:repeat(${cols}, minmax(1.9rem, 1fr))">${buttons}</div>`;
        })
        .join('');
      const zoneForms = zones
        .map(
          (z) => `<form class="zone" data-sector="${z.id}">
<h3 id="zone-${z.id}">${esc(z.name)} <span class="meta">(${z.available} ${esc(t.available)})</span></h3>
<div class="row"><div><label for="zone-qty-${z.id}">${esc(t.quantity)}</label><input id="zone-qty-${z.id}" name="quantity" type="number" min="1" max="${Math.max(1, Math.min(10, z.available))}" value="1" required></div>
<div><label for="zone-rate-${z.id}">${esc(t.rate)}</label><select id="zone-rate-${z.id}" name="rate_id">${rateOptions(z.id)}</select></div>
<button type="submit"${z.available ? '' : ' disabled'}>${esc(t.add)}</button></div></form>`,
        )
        .join('');
      const body = `<p><a href="/${esc(channel.slug)}/${lang}/events/${event.id}">← ${esc(t.sessions)}</a></p>
<h1>${esc(event.name)}</h1><p class="meta">${esc(dateTime(session.start_datetime, lang, tz))} · ${esc(event.venue)}</p>
<div class="layout">
<section class="panel" aria-labelledby="map-title">
<h2 id="map-title">${esc(t.map)}</h2>
<p id="map-help">${esc(t.mapHelp)} ${esc(t.mapKeys)}</p>
<label for="seat-rate">${esc(t.rate)}</label>
<select id="seat-rate">${firstNumbered ? rateOptions(firstNumbered.id) : ''}</select>
<ul class="legend" aria-hidden="true"><li><span class="seat"></span>${esc(t.seatFree)}</li><li><span class="seat mine"></span>${esc(t.seatMine)}</li><li><span class="seat" data-taken></span>${esc(t.seatTaken)}</li></ul>
<div class="maps">${maps}</div>
${zones.length ? `<h2>${esc(t.zones)}</h2>${zoneForms}` : ''}
</section>
${cartPanel(lang, true)}
</div>
<script type="application/json" id="portal-data">${jsonData({ page: 'session', slug: channel.slug, lang, sessionId: session.id, editable: true, texts: t })}</script>`;
      return html(reply, layout({ nonce: cspNonce(reply).style, lang, title: event.name, channel, langPath: `/events/${event.id}/sessions/${session.id}`, body, scripts: ['portal.js'] }));
    }),
  );

  app.get(
    '/:slug/:lang/checkout',
    { schema: { hide: true } },
    page(CHECKOUT, async (channel, { lang }, query, reply) => {
      const t = texts(lang);
      const token = query.order_token ?? '';
      const order = /^[A-Za-z0-9_-]{8,64}$/.test(token) ? await findChannelOrder(app.ctx.db, channel.id, token) : null;
      if (!order) throw new PageNotFound();
      if (order.status === 'completed') return reply.redirect(`/${channel.slug}/${lang}/orders/${encodeURIComponent(token)}`);
      const now = app.ctx.clock.now();
      if (order.status !== 'pending' || (order.expiresAt && order.expiresAt <= now) || order.itemCount === 0) {
        const again = STOREFRONT(policyOf(channel.integrationMode))
          ? `<p><a class="button" href="/${esc(channel.slug)}/${lang}/events">${esc(t.events)}</a></p>`
          : '';
        const body = `<h1>${esc(t.checkout)}</h1><p class="alert" role="status">${esc(order.itemCount === 0 && order.status === 'pending' ? t.emptyCart : t.expired)}</p>${again}`;
        return html(reply, layout({ nonce: cspNonce(reply).style, lang, title: t.checkout, channel, langPath: `/checkout?order_token=${encodeURIComponent(token)}`, body }));
      }
      const external = policyOf(channel.integrationMode).portalCheckout === 'external_page';
      const notice =
        query.payment === 'declined' ? t.paymentDeclined : query.payment === 'cancelled' ? t.paymentCancelled : '';
      const buyerFields = external
        ? ''
        : `<fieldset><legend>${esc(t.buyer)}</legend>
<label for="name">${esc(t.name)}</label><input id="name" name="name" autocomplete="given-name" required maxlength="100">
<label for="surname">${esc(t.surname)}</label><input id="surname" name="surname" autocomplete="family-name" required maxlength="100">
<label for="email">${esc(t.email)}</label><input id="email" name="email" type="email" autocomplete="email" required maxlength="${EMAIL_MAX_LENGTH}">
<label for="phone">${esc(t.phone)}</label><input id="phone" name="phone" type="tel" autocomplete="tel" maxlength="40">
</fieldset>`;
      const body = `<h1>${esc(t.checkout)}</h1>
${notice ? `<p class="alert ${query.payment === 'declined' ? 'error' : ''}" role="alert">${esc(notice)}</p>` : ''}
<div class="layout">
${cartPanel(lang, false)}
<section class="panel" aria-labelledby="pay-title">
<h2 id="pay-title">${esc(t.payment)}</h2>
<form id="checkout-form" novalidate>
${buyerFields}
<p id="checkout-error" class="alert error" role="alert" hidden></p>
<button type="submit" class="primary" id="pay-button">${esc(external ? t.continueToChannel : t.pay)}</button>
</form>
</section>
</div>
<script type="application/json" id="portal-data">${jsonData({
        page: 'checkout',
        slug: channel.slug,
        lang,
        orderToken: token,
        external,
        // Model C's cart was built by the widget: the checkout page shows it, it does not edit it.
        editable: STOREFRONT(policyOf(channel.integrationMode)),
        texts: t,
      })}</script>`;
      return html(reply, layout({ nonce: cspNonce(reply).style, lang, title: t.checkout, channel, langPath: `/checkout?order_token=${encodeURIComponent(token)}`, body, scripts: ['portal.js'] }));
    }),
  );

  app.get(
    '/:slug/:lang/orders/:orderToken',
    { schema: { hide: true } },
    page<PageParams & { orderToken: string }>(CHECKOUT, async (channel, { lang, orderToken }, _query, reply) => {
      const t = texts(lang);
      const order = /^[A-Za-z0-9_-]{8,64}$/.test(orderToken) ? await findChannelOrder(app.ctx.db, channel.id, orderToken) : null;
      if (!order) throw new PageNotFound();
      const view: OrderView = await buildOrderView(app.ctx, order.id, lang, app.ctx.clock.now());
      const payment = await latestPaymentOfOrder(app.ctx.db, order.id);
      const cur = view.currency;
      const amount = (n: number) => money(Math.round(n * 100), cur, lang);
      let status: string;
      let tickets = '';
      let refresh = false;
      if (view.status === 'completed') {
        status = `<p class="alert success" role="status">${esc(t.orderCompleted)}</p>`;
        const urls = await ticketPdfUrls(app.ctx, order.id);
        const items = view.events.flatMap((e) => e.sessions.flatMap((s) => s.items.map((i) => ({ e, i }))));
        tickets = `<h2>${esc(t.tickets)}</h2><ul class="tickets">${urls
          .map((url, n) => {
            const it = items[n];
            const what = it ? `${it.e.name} · ${it.i.sector_name}${it.i.row ? ` ${t.row} ${it.i.row} ${t.seat} ${it.i.number}` : ''}` : `#${n + 1}`;
            return `<li><a class="button" href="${esc(url)}" download>${esc(t.download)} ${n + 1}<span class="sr-only">: ${esc(what)}</span></a> <span>${esc(what)}</span></li>`;
          })
          .join('')}</ul>`;
      } else if (payment?.status === 'refund_required') {
        status = `<p class="alert error" role="alert">${esc(t.refundPending)}</p>`;
      } else if (view.status === 'pending' && payment?.status === 'pending') {
        status = `<p class="alert" role="status">${esc(t.orderPending)}</p>`;
        refresh = true;
      } else if (view.status === 'pending') {
        return reply.redirect(`/${channel.slug}/${lang}/checkout?order_token=${encodeURIComponent(orderToken)}`);
      } else {
        status = `<p class="alert" role="status">${esc(view.status === 'cancelled' ? t.orderCancelled : t.orderExpired)}</p>`;
      }
      const lines = view.events
        .flatMap((e) =>
          e.sessions.map(
            (s) => `<li><strong>${esc(e.name)}</strong> · ${esc(dateTime(new Date(s.start_datetime), lang, tz))}<ul>${s.items
              .map((i) => `<li>${esc(i.sector_name)}${i.row ? ` · ${esc(t.row)} ${esc(i.row)} · ${esc(t.seat)} ${esc(i.number)}` : ''} · ${esc(i.rate_name)} · ${esc(amount(i.total_amount))}</li>`)
              .join('')}</ul></li>`,
          ),
        )
        .join('');
      const body = `<h1>${esc(t.order)} ${esc(view.reference)}</h1>${status}
<section class="panel"><ul class="lines">${lines}</ul>
<p class="total">${esc(t.total)}: <strong>${esc(amount(view.total_amount))}</strong></p></section>${tickets}
${refresh ? '<script type="application/json" id="portal-data">{"page":"order-pending"}</script>' : ''}`;
      return html(reply, layout({ nonce: cspNonce(reply).style, lang, title: `${t.order} ${view.reference}`, channel, langPath: `/orders/${encodeURIComponent(orderToken)}`, body, scripts: refresh ? ['portal.js'] : [] }));
    }),
  );
};

export default portalPages;
