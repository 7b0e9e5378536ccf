// The UI kit's formats (issue 26): the one locale map and the one money formatter of every buyer
// screen: the widget and the portal's script in the browser, the portal's pages, e-mails and PDFs
// on the server (src/platform/i18n.ts formats minor units through it). No dependency: it runs in
// the browser and in Node alike.

/** The languages of the buyer's screens and the locale each is written in. */
export const LOCALES = { es: 'es-ES', en: 'en-GB' } as const;
export type Lang = keyof typeof LOCALES;

/** A language code to one of ours: "en", "en-GB", "EN" -> en; anything else -> es (the default). */
export const pickLang = (lang: string | undefined | null): Lang => (lang && lang.toLowerCase().startsWith('en') ? 'en' : 'es');

/** The locale a language is written in: "es-ES", "en-GB". */
export const localeOf = (lang: string): string => LOCALES[pickLang(lang)];

// Building an Intl formatter costs milliseconds (the first of a page tens: the locale data is
// loaded); a screen needs a handful, so they are built on first use and kept.
const moneyFormats = new Map<string, Intl.NumberFormat>();

/** An amount in currency units (the API's JSON numbers: 30 = €30.00): "30,00 €" (es), "€30.00" (en). */
export function formatAmount(amount: number, currency: string, lang: string): string {
  const locale = localeOf(lang);
  const key = `${locale}|${currency}`;
  let f = moneyFormats.get(key);
  if (!f) moneyFormats.set(key, (f = new Intl.NumberFormat(locale, { style: 'currency', currency })));
  return f.format(amount);
}

/** The same amount given in minor units (cents), as the service keeps them. */
export const formatMinor = (minor: number, currency: string, lang: string): string => formatAmount(Math.round(minor) / 100, currency, lang);

/** A cart's countdown, "mm:ss" (the widget's and the portal's). */
export function formatCountdown(seconds: number): string {
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  return `${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
}
