import { sql, type SQL } from 'drizzle-orm';
import { formatMinor, LOCALES as KIT_LOCALES } from '../../ui/format.js';
import { ambiguityMark } from '../lib/zoned-time.js';

// Languages, the language fallback rule and the formats of dates and money, in one place: the
// catalogue, orders, reports, tickets, the ticket e-mail and the portal pages all use these.

/** The languages the service writes its own texts in (portal pages, e-mail, tickets, channels). */
export const LANGUAGES = ['es', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];

/** The service's own language when a requested one is not among LANGUAGES (as the widget does). */
export const DEFAULT_LANGUAGE: Language = 'es';

export const isLanguage = (lang: string): lang is Language => (LANGUAGES as readonly string[]).includes(lang);

/** The base of a language code: "en" for "en-GB". */
const baseOf = (lang: string): string => lang.split('-')[0]!;

/**
 * The language of the service's own texts and formats for a requested code: the code itself when
 * spoken, else its base ("en-GB" -> "en"), else DEFAULT_LANGUAGE.
 */
export function spokenLanguage(lang: string): Language {
  if (isLanguage(lang)) return lang;
  const base = baseOf(lang);
  return isLanguage(base) ? base : DEFAULT_LANGUAGE;
}

/**
 * THE fallback rule for catalogue texts (docs/catalogue.md, "Texts ... come in that language"): the
 * requested language ("en-GB"), then its base ("en"), then the event's default language, then
 * whatever text exists (pickByLanguage). Each text field falls back on its own: a translation that
 * lacks a description still gives its name.
 */
export function languageChain(lang: string, defaultLang: string): string[] {
  return [...new Set([lang, baseOf(lang), defaultLang])];
}

type ByLanguage<T> = ReadonlyMap<string, T> | Readonly<Record<string, T>>;

const present = <T>(value: T | null | undefined): value is T => value !== undefined && value !== null && value !== '';

/**
 * The first text present (not missing, null or empty) along the chain, else the text of the first
 * other language in language order (as eventTextSql does).
 */
export function pickByLanguage<T>(byLang: ByLanguage<T> | null | undefined, chain: readonly string[]): T | undefined {
  if (!byLang) return undefined;
  const get = byLang instanceof Map ? (l: string) => byLang.get(l) : (l: string) => (byLang as Record<string, T>)[l];
  for (const lang of chain) {
    const found = get(lang);
    if (present(found)) return found;
  }
  const entries = byLang instanceof Map ? [...byLang.entries()] : Object.entries(byLang);
  return entries
    .filter(([, text]) => present(text))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))[0]?.[1];
}

/** A name with optional translations (rates): its translations along the chain, else its plain name. */
export function translatedName(plain: string, names: Readonly<Record<string, string>> | null | undefined, chain: readonly string[]): string {
  for (const lang of chain) {
    const found = names?.[lang];
    if (typeof found === 'string' && found !== '') return found;
  }
  return plain;
}

/**
 * The same rule in SQL, for queries that name events: the event's text `field` (one field on its
 * own, empty counts as missing) ranked by the chain of `lang` and the event's `defaultLang`, then
 * any other language in language order.
 */
export function eventTextSql(field: 'name' | 'description', eventId: SQL, lang: string | SQL, defaultLang: SQL): SQL {
  // Its own alias, so that it cannot be confused with a `t` of the query around it.
  const column = sql.raw(`evt_tr.${field}`);
  return sql`(SELECT ${column} FROM event_translations evt_tr WHERE evt_tr.event_id = ${eventId} AND ${column} <> ''
    ORDER BY array_position(ARRAY[${lang}::text, split_part(${lang}::text, '-', 1), ${defaultLang}::text], evt_tr.lang) NULLS LAST, evt_tr.lang LIMIT 1)`;
}

/** A rate's name in SQL by the same rule as translatedName: `names` (jsonb) along the chain, else `plain`. */
export function rateNameSql(names: SQL, plain: SQL, lang: string, defaultLang: SQL): SQL {
  const translated = [...new Set([lang, baseOf(lang)])].map((l) => sql`NULLIF(${names} ->> ${l}, '')`);
  return sql`COALESCE(${sql.join(translated, sql`, `)}, NULLIF(${names} ->> ${defaultLang}, ''), ${plain})`;
}

// Formats: the locale map and money are the UI kit's (ui/format.ts), shared with the widget and the
// portal's script. Building an Intl formatter costs milliseconds; a deployment needs a handful, so they are kept.
const LOCALES: Record<Language, string> = KIT_LOCALES;
const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** An amount in minor units, e.g. "30,00 €" (es) or "€30.00" (en). */
export function formatMoney(minor: number, currency: string, lang: string): string {
  return formatMinor(minor, currency, spokenLanguage(lang));
}

/**
 * A date with its time, in full ("jueves, 31 de diciembre de 2026, 20:30"), in `timeZone`: the
 * deployment's time zone (config `timezone`, TIMEZONE, D12), where the events take place. A time
 * that the zone's clocks show twice (the night they go back) carries the zone's abbreviation
 * ("domingo, 25 de octubre de 2026, 2:30 CEST", then "… 2:30 CET").
 */
export function formatDateTime(date: Date, lang: string, timeZone: string): string {
  const locale = LOCALES[spokenLanguage(lang)];
  const key = `${locale}|${timeZone}`;
  let f = dateFormats.get(key);
  if (!f) dateFormats.set(key, (f = new Intl.DateTimeFormat(locale, { dateStyle: 'full', timeStyle: 'short', timeZone })));
  return f.format(date) + ambiguityMark(date, timeZone, locale);
}

/** The days from `from` to `to` as one short range ("24–25 dic 2026"), in the deployment's zone. */
export function formatDayRange(from: Date, to: Date, lang: string, timeZone: string): string {
  const f = new Intl.DateTimeFormat(LOCALES[spokenLanguage(lang)], { day: 'numeric', month: 'short', year: 'numeric', timeZone });
  return f.formatRange(from, to);
}
