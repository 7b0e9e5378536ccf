import type { ComponentChildren } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { policyOf } from '../../../lib/integration-policy.js';
import { isColour } from '../../../lib/url-rules.js';
import { LANGUAGES } from '../../../platform/i18n.js';
import type { ChannelRecord } from '../../../db/channel-record.js';
import { texts } from './portal.texts.js';

// The pages are Preact components rendered to a string: every text and attribute is escaped by
// construction. Markup that is not escaped is only ever our own JSON and CSS (see JsonData).

export interface PageOptions {
  lang: string;
  title: string;
  channel: ChannelRecord | null;
  /** Same page in the other language (path after /{slug}/{lang}). */
  langPath?: string;
  scripts?: string[];
  /** Chunks a script of the page will import (asset names): fetched from the start, beside the script (modulepreload). */
  preload?: string[];
  /** The reply's CSP nonce for the inline <style> (D50). */
  nonce: string;
  /** What search engines and link previews read (D72); pages without it get the title only. */
  meta?: PageMeta;
}

/** A page's description for search engines and link previews (D72). */
interface PageMeta {
  description: string;
  /** The page's absolute address (Open Graph's og:url). */
  url: string;
  image?: string | null;
  /** schema.org data (an Event, or a list of them), written as JSON-LD. */
  jsonLd?: unknown;
}

const OG_LOCALES: Record<string, string> = { es: 'es_ES', en: 'en_GB' };

/** The head's tags for search engines and link previews: description, Open Graph, JSON-LD. */
function MetaTags({ meta, title, lang, brand }: { meta: PageMeta; title: string; lang: string; brand: string }) {
  const description = meta.description.length > 300 ? `${meta.description.slice(0, 297)}...` : meta.description;
  return (
    <>
      <meta name="description" content={description} />
      <link rel="canonical" href={meta.url} />
      <meta property="og:type" content="website" />
      <meta property="og:site_name" content={brand} />
      <meta property="og:title" content={title} />
      <meta property="og:description" content={description} />
      <meta property="og:url" content={meta.url} />
      <meta property="og:locale" content={OG_LOCALES[lang] ?? lang} />
      {meta.image ? <meta property="og:image" content={meta.image} /> : null}
      <meta name="twitter:card" content={meta.image ? 'summary_large_image' : 'summary'} />
      {/* A data block, never run (so outside the script policy); `<` escaped so it cannot close the tag. */}
      {meta.jsonLd ? <script type="application/ld+json" dangerouslySetInnerHTML={{ __html: JSON.stringify(meta.jsonLd).replace(/</g, '\\u003c') }} /> : null}
    </>
  );
}

const DEFAULT_PRIMARY = '#1f4fd1';

/**
 * Where the channel's name in the header leads: its storefront (models A, B), else the partner's
 * own site (models C, D have no storefront here: a link to one would be a 404), else nowhere.
 */
export function channelHome(channel: ChannelRecord, lang: string): string | null {
  if (policyOf(channel.integrationMode).storefront) return `/${channel.slug}/${lang}/events`;
  return channel.websiteUrl;
}

/** The common page frame: language, skip link, header with the channel name, main landmark. */
function Page({ opts, children }: { opts: PageOptions; children: ComponentChildren }) {
  const t = texts(opts.lang);
  const channel = opts.channel;
  const brand = channel ? (channel.branding.name ?? channel.name) : 'Taquilla';
  const primary = channel?.branding.primary_color ?? DEFAULT_PRIMARY;
  const home = channel ? channelHome(channel, opts.lang) : null;
  const langLinks =
    channel && opts.langPath !== undefined ? (
      <nav class="langs" aria-label={t.language}>
        {LANGUAGES.map((l, i) => [
          i > 0 ? ' ' : null,
          l === opts.lang ? (
            <span aria-current="true" lang={l}>
              {l.toUpperCase()}
            </span>
          ) : (
            <a href={`/${channel.slug}/${l}${opts.langPath}`} lang={l} hreflang={l}>
              {l.toUpperCase()}
            </a>
          ),
        ])}
      </nav>
    ) : null;
  return (
    <html lang={opts.lang}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${opts.title} · ${brand}`}</title>
        <link rel="icon" href="/portal-assets/favicon.svg" type="image/svg+xml" />
        {opts.meta ? <MetaTags meta={opts.meta} title={opts.title} lang={opts.lang} brand={brand} /> : null}
        <link rel="stylesheet" href="/portal-assets/portal.css" />
        {(opts.preload ?? []).map((s) => (
          <link rel="modulepreload" href={`/portal-assets/${s}`} />
        ))}
        {/* A colour checked by isColour is CSS we wrote, not text: it goes in as it is. */}
        <style nonce={opts.nonce} dangerouslySetInnerHTML={{ __html: `:root{--primary:${isColour(primary) ? primary : DEFAULT_PRIMARY}}` }} />
      </head>
      <body>
        <a class="skip" href="#main">
          {t.skip}
        </a>
        <header class="top">
          {home ? (
            <a class="brand" href={home}>
              {brand}
            </a>
          ) : (
            <span class="brand">{brand}</span>
          )}
          {langLinks}
        </header>
        <main id="main" tabindex={-1}>
          {children}
        </main>
        {(opts.scripts ?? []).map((s) => (
          <script type="module" src={`/portal-assets/${s}`} />
        ))}
      </body>
    </html>
  );
}

/** A whole HTML document: the doctype and the page frame around `body`. */
export function renderPage(opts: PageOptions, body: ComponentChildren): string {
  return `<!doctype html>\n${renderToString(<Page opts={opts}>{body}</Page>)}`;
}

/**
 * Data for the page's script, as <script type="application/json">. Script content is not HTML, so
 * it is not entity-escaped: `<` is written as \u003c instead, so the JSON cannot close the tag.
 */
export function JsonData({ value, id = 'portal-data' }: { value: unknown; id?: string }) {
  return <script type="application/json" id={id} dangerouslySetInnerHTML={{ __html: JSON.stringify(value).replace(/</g, '\\u003c') }} />;
}
