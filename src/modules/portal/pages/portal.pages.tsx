import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import formbody from '@fastify/formbody';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { ComponentChildren } from 'preact';
import { AppError } from '../../../http/errors.js';
import { cspNonce, usePagePolicy } from '../../../http/security-headers.js';
import { policyOf, type ModelPolicy } from '../../../lib/integration-policy.js';
import { PROJECT_ROOT } from '../../../lib/project-root.js';
import { DEFAULT_LANGUAGE, formatDateTime, formatDayRange, formatMoney, isLanguage } from '../../../platform/i18n.js';
import type { ChannelRecord } from '../../../db/channel-record.js';
import { ensureBuyerCookie, registerBuyerCookies } from '../../../http/buyer-cookie.js';
import { portalQueueClient } from '../../queue/queue.service.js';
import * as storefront from '../storefront.service.js';
import { abandonAttempt } from '../payments/payments.service.js';
import { requestOrderLookup } from '../portal.service.js';
import { orderLookupCounter } from '../../../http/rate-limits.js';
import { emailProblem, EMAIL_MAX_LENGTH } from '../../../lib/email-address.js';
import { renderPage, type PageOptions } from './portal.layout.js';
import { CheckoutClosed, CheckoutPage, EventList, EventPage, isCompactMap, LookupPage, NotFound, OrderPage, orderStatus, SessionPage, type Formats } from './portal.views.js';
import { texts } from './portal.texts.js';
import { registerLandingPages } from './landing.pages.js';
import { registerSandboxPages } from './sandbox.pages.js';
import { eventDescription, eventPageUrl, sessionJsonLd, sessionUrl } from './event-meta.js';

/** The pages' stylesheet and icon: portal/ at the repository root. */
const PORTAL_ASSETS_DIR = path.join(PROJECT_ROOT, 'portal');
/** Their script, built from portal/src and the UI kit (ui/) by `npm run build:portal`: portal/dist/portal.js. */
const PORTAL_BUILD_DIR = path.join(PORTAL_ASSETS_DIR, 'dist');
/** What /portal-assets/ serves: the built script and its chunks, the stylesheet, the icon; never the sources or the build's config. */
const PORTAL_ASSET = /^\/?(portal(-[\w-]+)?\.js|portal\.css|favicon\.svg)$/;

/** Which channels a page serves, by their integration policy: the storefront's, or the checkout's (D25, D26). */
type PageFor = (policy: ModelPolicy) => boolean;
const STOREFRONT: PageFor = (p) => p.storefront;
const CHECKOUT: PageFor = (p) => p.portalCheckout !== null;

class PageNotFound extends Error {}

/**
 * The built name of one of the script's chunks (portal-<name>-<hash>.js), or null before a build.
 * Read from the build's directory once it is there.
 */
const chunks = new Map<string, string>();
function builtChunk(name: string): string | null {
  if (!chunks.has(name)) {
    const file = existsSync(PORTAL_BUILD_DIR) ? readdirSync(PORTAL_BUILD_DIR).find((f) => f.startsWith(`portal-${name}-`) && f.endsWith('.js')) : undefined;
    if (!file) return null;
    chunks.set(name, file);
  }
  return chunks.get(name)!;
}

interface PageParams {
  slug: string;
  lang: string;
}

const idOf = (raw: string) => (/^\d{1,9}$/.test(raw) ? Number(raw) : null);

/** The buyer-facing pages: storefront (A, B), checkout (A, B, C), order page, sandbox card page. */
const portalPages: FastifyPluginAsync = async (app) => {
  usePagePolicy(app, 'portal');
  await app.register(formbody);
  await registerBuyerCookies(app);
  await app.register(fastifyStatic, {
    root: [PORTAL_BUILD_DIR, PORTAL_ASSETS_DIR],
    prefix: '/portal-assets/',
    maxAge: 60_000,
    allowedPath: (pathName) => PORTAL_ASSET.test(pathName),
  });
  // Browsers ask every page's origin for /favicon.ico when a page names no icon (the dashboard, the
  // widget's example pages, error pages): the portal's icon, not a 404 in their console (D72).
  app.get('/favicon.ico', { schema: { hide: true } }, (_request, reply) => reply.header('cache-control', 'public, max-age=86400').sendFile('favicon.svg', PORTAL_ASSETS_DIR));
  registerSandboxPages(app);
  registerLandingPages(app);

  const { ctx } = app;
  const formatsOf = (lang: string): Formats => ({
    date: (d) => formatDateTime(d, lang, ctx.config.timezone),
    days: (from, to) => formatDayRange(from, to, lang, ctx.config.timezone),
    money: (minor) => formatMoney(minor, ctx.config.currency, lang),
  });
  const where = (channel: ChannelRecord, lang: string) => ({ channel, lang, baseUrl: ctx.config.publicBaseUrl.replace(/\/+$/, ''), currency: ctx.config.currency });
  const send = (reply: FastifyReply, opts: Omit<PageOptions, 'nonce'>, body: ComponentChildren) =>
    reply.type('text/html').send(renderPage({ ...opts, nonce: cspNonce(reply).style }, body));

  const page = <P extends PageParams>(
    serves: PageFor,
    handler: (channel: ChannelRecord, params: P, query: Record<string, string | undefined>, reply: FastifyReply, buyerId: string | null) => Promise<unknown>,
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
        const buyerId = STOREFRONT(policyOf(channel.integrationMode)) ? ensureBuyerCookie(app, request, reply) : null;
        return await handler(channel, params, (request.query ?? {}) as Record<string, string | undefined>, reply, buyerId);
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
    page(STOREFRONT, async (channel, { lang }, query, reply) => {
      // Text inputs are free: a search too long or oddly typed is cut, never an error page.
      const search = { q: typeof query.q === 'string' ? query.q.slice(0, 100) : undefined, date: typeof query.date === 'string' ? query.date.slice(0, 10) : undefined };
      const { events, days } = await storefront.storeEvents(ctx, channel, lang, search);
      return send(reply, { lang, title: texts(lang).events, channel, langPath: '/events' }, <EventList channel={channel} lang={lang} events={events} days={days} search={search} f={formatsOf(lang)} />);
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
      const w = where(channel, lang);
      const meta = {
        description: eventDescription(event, sessions[0] ? formatsOf(lang).date(sessions[0].start_datetime) : null),
        url: eventPageUrl(w, event.id),
        image: event.image_url,
        jsonLd: sessions.map((s) => sessionJsonLd(w, event, s)),
      };
      return send(reply, { lang, title: event.name, channel, langPath: `/events/${event.id}`, meta }, <EventPage channel={channel} lang={lang} event={event} sessions={sessions} f={formatsOf(lang)} />);
    }),
  );

  app.get(
    '/:slug/:lang/events/:eventId/sessions/:sessionId',
    { schema: { hide: true } },
    page<PageParams & { eventId: string; sessionId: string }>(STOREFRONT, async (channel, { lang, eventId, sessionId }, _q, reply, buyerId) => {
      const eId = idOf(eventId);
      const sId = idOf(sessionId);
      const found = eId && sId && (await storefront.storeSession(ctx, channel, eId, sId, lang));
      if (!found) throw new PageNotFound();
      const { event, session, detail } = found;
      const w = where(channel, lang);
      const when = formatsOf(lang).date(session.start_datetime);
      const meta = { description: eventDescription(event, when), url: sessionUrl(w, event.id, session.id), image: event.image_url, jsonLd: sessionJsonLd(w, event, session) };
      // A big session's compact map is drawn by a chunk that portal.js imports: fetched beside it, not after it has run.
      const compactMap = isCompactMap(detail, ctx.config.portalCompactMapAbove) ? builtChunk('compact-map') : null;
      return send(
        reply,
        { lang, title: `${event.name} · ${when}`, channel, langPath: `/events/${event.id}/sessions/${session.id}`, scripts: ['portal.js'], preload: compactMap ? [compactMap] : [], meta },
        <SessionPage
          channel={channel}
          lang={lang}
          event={event}
          session={session}
          detail={detail}
          f={formatsOf(lang)}
          // The waiting room's client id of this browser (D60): from its buyer cookie, which scripts cannot read.
          queueClient={buyerId ? portalQueueClient(ctx.config.signingSecret, buyerId) : ''}
          compactAbove={ctx.config.portalCompactMapAbove}
          now={ctx.clock.now().getTime()}
        />,
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
      // The provider's cancel link (D73): the buyer gave the attempt up, the cart opens again.
      if (query.payment === 'cancelled' && query.payment_id) await abandonAttempt(ctx, order.id, query.payment_id);
      const opts = { lang, title: texts(lang).checkout, channel, langPath: `/checkout?order_token=${encodeURIComponent(token)}` };
      const now = ctx.clock.now();
      if (order.status !== 'pending' || (order.expiresAt && order.expiresAt <= now) || order.itemCount === 0) {
        return send(reply, opts, <CheckoutClosed channel={channel} lang={lang} emptyCart={order.itemCount === 0 && order.status === 'pending'} />);
      }
      // After a declined or cancelled card the form comes back filled in with what the buyer typed.
      const buyer = await storefront.lastBuyerOf(ctx, order);
      return send(
        reply,
        { ...opts, scripts: ['portal.js'] },
        <CheckoutPage channel={channel} lang={lang} orderToken={token} payment={query.payment} storefront={STOREFRONT(policyOf(channel.integrationMode))} buyer={buyer} />,
      );
    }),
  );

  // "Find my order" (D72) without scripts: a form, and the same answer whether or not the address
  // has orders (the API twin is POST /api/portal/{slug}/{lang}/orders/lookup).
  app.get(
    '/:slug/:lang/orders/lookup',
    { schema: { hide: true } },
    page(CHECKOUT, async (channel, { lang }, _q, reply) =>
      send(reply, { lang, title: texts(lang).lookupTitle, channel, langPath: '/orders/lookup' }, <LookupPage channel={channel} lang={lang} state={{ kind: 'form' }} />),
    ),
  );
  app.post(
    '/:slug/:lang/orders/lookup',
    { schema: { hide: true } },
    page(CHECKOUT, async (channel, { lang }, _q, reply) => {
      const body = (reply.request.body ?? {}) as Record<string, unknown>;
      const email = typeof body.email === 'string' ? body.email.trim().slice(0, EMAIL_MAX_LENGTH + 1) : '';
      const opts = { lang, title: texts(lang).lookupTitle, channel, langPath: '/orders/lookup' };
      if (!email || emailProblem(email)) return send(reply.status(422), opts, <LookupPage channel={channel} lang={lang} state={{ kind: 'invalid', email }} />);
      const counter = orderLookupCounter(email);
      await app.rateLimits.assertAllowed(reply, [counter]);
      await app.rateLimits.recordFailure([counter]);
      await requestOrderLookup(ctx, channel.slug, lang, email);
      return send(reply, opts, <LookupPage channel={channel} lang={lang} state={{ kind: 'sent', email }} />);
    }),
  );

  app.get(
    '/:slug/:lang/orders/:orderToken',
    { schema: { hide: true } },
    page<PageParams & { orderToken: string }>(CHECKOUT, async (channel, { lang, orderToken }, _query, reply) => {
      // A reservation (issued without payment, docs/admin.md) has its page too: its ticket e-mail links here.
      const order = await storefront.channelOrder(ctx, channel, orderToken, { reservations: true });
      if (!order) throw new PageNotFound();
      const { view, payment, tickets, refunds, orderLinks } = await storefront.orderPage(ctx, channel, order, lang);
      const status = orderStatus(view, payment, lang, tickets);
      if (!status) return reply.redirect(`/${channel.slug}/${lang}/checkout?order_token=${encodeURIComponent(orderToken)}`);
      return send(
        reply,
        { lang, title: `${texts(lang).order} ${view.reference}`, channel, langPath: `/orders/${encodeURIComponent(orderToken)}`, scripts: status.refresh ? ['portal.js'] : [] },
        <OrderPage channel={channel} lang={lang} view={view} status={status} tickets={tickets} refunds={refunds} orderLinks={orderLinks} f={formatsOf(lang)} />,
      );
    }),
  );
};

export default portalPages;
