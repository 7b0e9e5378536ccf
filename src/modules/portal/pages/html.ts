import type { ChannelRecord } from '../../../db/channel-record.js';
import { isColour } from '../../../lib/url-rules.js';
import { texts } from './i18n.js';

/** Escapes text for HTML content and attribute values. */
export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const locale = (lang: string) => (lang === 'en' ? 'en-GB' : 'es-ES');

export function money(minor: number, currency: string, lang: string): string {
  return new Intl.NumberFormat(locale(lang), { style: 'currency', currency }).format(minor / 100);
}

export function dateTime(date: Date, lang: string, timeZone: string): string {
  return new Intl.DateTimeFormat(locale(lang), { dateStyle: 'full', timeStyle: 'short', timeZone }).format(date);
}

/** JSON for a <script type="application/json"> block: `<` escaped so it cannot close the tag. */
export const jsonData = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

export interface PageOptions {
  lang: string;
  title: string;
  channel: ChannelRecord | null;
  body: string;
  /** Same page in the other language (path after /{slug}/{lang}). */
  langPath?: string;
  scripts?: string[];
  /** The reply's CSP nonce for the inline <style> (D50). */
  nonce: string;
}

/** The common page frame: language, skip link, header with the channel name, main landmark. */
export function layout(opts: PageOptions): string {
  const t = texts(opts.lang);
  const brand = opts.channel ? (opts.channel.branding.name ?? opts.channel.name) : 'Taquilla';
  const primary = opts.channel?.branding.primary_color ?? '#1f4fd1';
  const langLinks =
    opts.channel && opts.langPath !== undefined
      ? `<nav class="langs" aria-label="${esc(t.language)}">${['es', 'en']
          .map((l) =>
            l === opts.lang
              ? `<span aria-current="true" lang="${l}">${l.toUpperCase()}</span>`
              : `<a href="/${esc(opts.channel!.slug)}/${l}${esc(opts.langPath)}" lang="${l}" hreflang="${l}">${l.toUpperCase()}</a>`,
          )
          .join(' ')}</nav>`
      : '';
  const home = opts.channel ? `/${esc(opts.channel.slug)}/${esc(opts.lang)}/events` : '#';
  return `<!doctype html>
<html lang="${esc(opts.lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(opts.title)} · ${esc(brand)}</title>
<link rel="stylesheet" href="/portal-assets/portal.css">
<style nonce="${esc(opts.nonce)}">:root{--primary:${isColour(primary) ? primary : '#1f4fd1'}}</style>
</head>
<body>
<a class="skip" href="#main">${esc(t.skip)}</a>
<header class="top"><a class="brand" href="${home}">${esc(brand)}</a>${langLinks}</header>
<main id="main" tabindex="-1">
${opts.body}
</main>
${(opts.scripts ?? []).map((s) => `<script type="module" src="/portal-assets/${esc(s)}"></script>`).join('\n')}
</body>
</html>`;
}
