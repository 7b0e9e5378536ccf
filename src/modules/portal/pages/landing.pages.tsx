import type { FastifyInstance, FastifyReply } from 'fastify';
import { cspNonce } from '../../../http/security-headers.js';
import { policyOf } from '../../../lib/integration-policy.js';
import { DEFAULT_LANGUAGE, isLanguage, LANGUAGES, type Language } from '../../../platform/i18n.js';
import type { ChannelRecord } from '../../../db/channel-record.js';
import { findChannelBySlug, listChannels } from '../../channels/channels.service.js';
import { channelHome, renderPage } from './portal.layout.js';
import { texts } from './portal.texts.js';

// The deployment's front door (issue 16): `/` says what runs here, and `/{slug}` (a channel
// without a language) leads to the channel's page, so that the printed address is never a 404.

const LANDING = {
  es: {
    title: 'Taquilla',
    intro: 'Servicio de venta de entradas: canales de venta, mapas de asientos, carritos que nunca venden dos veces el mismo asiento, entradas y widget.',
    channels: 'Canales de venta',
    storefront: 'tienda en el portal',
    widgetPage: 'página de ejemplo con el widget',
    site: 'web del canal',
    noPage: 'sin página pública aquí',
    tools: 'Para operadores e integradores',
    dashboard: 'Panel de administración',
    apiDocs: 'Referencia de la API (OpenAPI)',
    docs: 'Documentación: la carpeta docs/ del repositorio (empieza por docs/README.md).',
    production: 'Este servicio vende entradas a través de sus canales de venta.',
  },
  en: {
    title: 'Taquilla',
    intro: 'Ticketing service: sales channels, seat maps, carts that never sell a seat twice, tickets and a widget.',
    channels: 'Sales channels',
    storefront: 'storefront on the portal',
    widgetPage: 'example page with the widget',
    site: "the channel's site",
    noPage: 'no public page here',
    tools: 'For operators and integrators',
    dashboard: 'Admin dashboard',
    apiDocs: 'API reference (OpenAPI)',
    docs: "Documentation: the repository's docs/ folder (start with docs/README.md).",
    production: 'This service sells tickets through its sales channels.',
  },
} as const;

const MODEL: Record<ChannelRecord['integrationMode'], string> = {
  portal_only: 'A',
  portal_external_payment: 'B',
  widget_platform_payment: 'C',
  widget_external_payment: 'D',
};

/** Where a channel is seen outside production: storefront, the example widget page, its own site. */
function channelLink(channel: ChannelRecord, lang: Language, examples: boolean): { href: string; what: string } | null {
  const l = LANDING[lang];
  if (policyOf(channel.integrationMode).storefront) return { href: `/${channel.slug}/${lang}/events`, what: l.storefront };
  const model = MODEL[channel.integrationMode].toLowerCase();
  // The example pages are written for the demo channels (their widget keys are in the page).
  if (examples && channel.slug === `demo-${model}`) return { href: `/widget/examples/model-${model}.html?lang=${lang}`, what: l.widgetPage };
  return channel.websiteUrl ? { href: channel.websiteUrl, what: l.site } : null;
}

function Landing({ lang, channels, examples }: { lang: Language; channels: ChannelRecord[] | null; examples: boolean }) {
  const l = LANDING[lang];
  if (!channels) {
    return (
      <>
        <h1>{l.title}</h1>
        <p>{l.production}</p>
      </>
    );
  }
  const other = LANGUAGES.find((x) => x !== lang)!;
  return (
    <>
      <p class="meta">
        <a href={`/?lang=${other}`} lang={other} hreflang={other}>
          {other === 'en' ? 'English' : 'Español'}
        </a>
      </p>
      <h1>{l.title}</h1>
      <p>{l.intro}</p>
      <section class="panel" aria-labelledby="channels-title">
        <h2 id="channels-title">{l.channels}</h2>
        <ul class="sessions" id="landing-channels">
          {channels.map((c) => {
            const link = channelLink(c, lang, examples);
            return (
              <li>
                <span>
                  <strong>{c.name}</strong> <span class="meta">{`(${c.slug}, ${MODEL[c.integrationMode]})`}</span>
                </span>
                {link ? (
                  <a class="button" href={link.href}>
                    {link.what}
                    <span class="sr-only">{`: ${c.name}`}</span>
                  </a>
                ) : (
                  <span class="meta">{l.noPage}</span>
                )}
              </li>
            );
          })}
        </ul>
      </section>
      <section class="panel" aria-labelledby="tools-title">
        <h2 id="tools-title">{l.tools}</h2>
        <ul>
          <li>
            <a href="/admin">{l.dashboard}</a>
          </li>
          <li>
            <a href="/api/docs">{l.apiDocs}</a>
          </li>
          <li>{l.docs}</li>
        </ul>
      </section>
    </>
  );
}

export function registerLandingPages(app: FastifyInstance): void {
  const { ctx } = app;
  const send = (reply: FastifyReply, lang: Language, body: ReturnType<typeof Landing>) =>
    reply
      .header('cache-control', 'no-store')
      .type('text/html')
      .send(renderPage({ lang, title: LANDING[lang].title, channel: null, nonce: cspNonce(reply).style }, body));

  app.get<{ Querystring: { lang?: string } }>('/', { schema: { hide: true } }, async (request, reply) => {
    const production = ctx.config.appEnv === 'production';
    if (production && ctx.config.landingRedirectUrl) return reply.redirect(ctx.config.landingRedirectUrl);
    const asked = request.query.lang ?? '';
    const lang = isLanguage(asked) ? asked : DEFAULT_LANGUAGE;
    // In production the list of channels is the operator's business, not the public's.
    const channels = production ? null : await listChannels(ctx);
    return send(reply, lang, <Landing lang={lang} channels={channels} examples={ctx.config.appEnv === 'development'} />);
  });

  // `/demo-a`: the channel's page in its own language. `/api`, `/admin` and the like are routes of
  // their own; anything else that is not a channel is the portal's 404 page.
  app.get<{ Params: { slug: string } }>('/:slug', { schema: { hide: true } }, async (request, reply) => {
    const { slug } = request.params;
    if (slug === 'api') return reply.callNotFound();
    const channel = /^[a-z0-9][a-z0-9-]{0,62}$/.test(slug) ? await findChannelBySlug(ctx, slug) : null;
    const lang = channel && isLanguage(channel.defaultLang) ? channel.defaultLang : DEFAULT_LANGUAGE;
    const home = channel ? (channelHome(channel, lang) ?? '/') : null;
    if (home) return reply.redirect(home);
    const t = texts(lang);
    return reply
      .status(404)
      .type('text/html')
      .send(
        renderPage(
          { lang, title: t.notFound, channel: null, nonce: cspNonce(reply).style },
          <>
            <h1>{t.notFound}</h1>
            <p>{t.notFoundText}</p>
            <p>
              <a href="/">Taquilla</a>
            </p>
          </>,
        ),
      );
  });
}

