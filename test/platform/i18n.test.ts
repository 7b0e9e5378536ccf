import { describe, expect, it } from 'vitest';
import {
  DEFAULT_LANGUAGE,
  formatDateTime,
  formatMoney,
  languageChain,
  pickByLanguage,
  spokenLanguage,
  translatedName,
} from '../../src/platform/i18n.js';

// One case per step of the fallback rule (docs/catalogue.md): requested language, its base, the
// event's default language, then whatever text exists; each text field on its own.

const names = { es: 'Concierto de Año Nuevo', en: "New Year's Concert" };

describe('catalogue texts: the fallback chain', () => {
  it('exact match', () => {
    expect(pickByLanguage(names, languageChain('en', 'es'))).toBe("New Year's Concert");
    expect(pickByLanguage(names, languageChain('es', 'en'))).toBe('Concierto de Año Nuevo');
  });

  it('region -> base language: en-GB reads en, not the default', () => {
    expect(languageChain('en-GB', 'es')).toEqual(['en-GB', 'en', 'es']);
    expect(pickByLanguage(names, languageChain('en-GB', 'es'))).toBe("New Year's Concert");
    // A text in the region itself wins over the base.
    expect(pickByLanguage({ ...names, 'en-GB': 'New Year’s Concert (UK)' }, languageChain('en-GB', 'es'))).toBe('New Year’s Concert (UK)');
  });

  it("unknown language -> the event's default language", () => {
    expect(pickByLanguage(names, languageChain('fr', 'es'))).toBe('Concierto de Año Nuevo');
    expect(pickByLanguage(names, languageChain('fr', 'en'))).toBe("New Year's Concert");
  });

  it('no text in the chain -> whatever text exists; no text at all -> undefined', () => {
    expect(pickByLanguage(new Map([['de', 'Neujahrskonzert']]), languageChain('fr', 'es'))).toBe('Neujahrskonzert');
    // Among other languages, the first in language order, whatever order the texts came in.
    expect(pickByLanguage({ it: 'Concerto', de: 'Neujahrskonzert' }, languageChain('fr', 'es'))).toBe('Neujahrskonzert');
    expect(pickByLanguage({}, languageChain('fr', 'es'))).toBeUndefined();
    expect(pickByLanguage(null, languageChain('fr', 'es'))).toBeUndefined();
  });

  it('a missing translation of one field falls back for that field only', () => {
    const descriptions = { es: 'Valses y polcas', en: null };
    const chain = languageChain('en', 'es');
    expect(pickByLanguage(names, chain)).toBe("New Year's Concert");
    expect(pickByLanguage(descriptions, chain)).toBe('Valses y polcas');
    // An empty text counts as missing too.
    expect(pickByLanguage({ es: 'Valses y polcas', en: '' }, chain)).toBe('Valses y polcas');
  });

  it("a rate's name: its translations along the chain, else its plain name", () => {
    const rate = { name: 'General', names: { es: 'General (es)', en: 'General admission' } };
    expect(translatedName(rate.name, rate.names, languageChain('en-GB', 'es'))).toBe('General admission');
    expect(translatedName(rate.name, rate.names, languageChain('fr', 'es'))).toBe('General (es)');
    expect(translatedName(rate.name, { en: 'General admission' }, languageChain('fr', 'es'))).toBe('General');
    expect(translatedName(rate.name, null, languageChain('en', 'es'))).toBe('General');
  });
});

describe("the service's own texts and formats", () => {
  it('exact, base, else the default language', () => {
    expect(spokenLanguage('en')).toBe('en');
    expect(spokenLanguage('en-GB')).toBe('en');
    expect(spokenLanguage('es-MX')).toBe('es');
    expect(spokenLanguage('fr')).toBe(DEFAULT_LANGUAGE);
  });

  it("dates in the deployment's time zone, in the language's own words", () => {
    const date = new Date('2026-12-31T19:30:00Z');
    expect(formatDateTime(date, 'es', 'Europe/Madrid')).toMatch(/^jueves, 31 de diciembre de 2026, 20:30$/);
    expect(formatDateTime(date, 'en-GB', 'Europe/Madrid')).toMatch(/^Thursday(,)? 31 December 2026 at 20:30$/);
    // The same instant is already the next day in Tokyo: the zone, not the server's, decides.
    expect(formatDateTime(date, 'en', 'Asia/Tokyo')).toMatch(/^Friday(,)? 1 January 2027 at 04:30$/);
  });

  it('a time the clocks show twice (Europe/Madrid, 25 October 2026) carries the zone abbreviation; others do not', () => {
    const madrid = (iso: string, lang = 'es') => formatDateTime(new Date(iso), lang, 'Europe/Madrid');
    // 02:30 CEST (00:30 UTC), then the clocks go back at 03:00 CEST and 02:30 comes again in CET (01:30 UTC)
    expect(madrid('2026-10-25T00:30:00Z')).toBe('domingo, 25 de octubre de 2026, 2:30 CEST');
    expect(madrid('2026-10-25T01:30:00Z')).toBe('domingo, 25 de octubre de 2026, 2:30 CET');
    expect(madrid('2026-10-25T00:30:00Z', 'en')).toMatch(/^Sunday(,)? 25 October 2026 at 02:30 CEST$/);
    expect(madrid('2026-10-25T01:30:00Z', 'en')).toMatch(/^Sunday(,)? 25 October 2026 at 02:30 CET$/);
    // the edges of the repeated hour: 02:00 twice, 01:59 and 03:00 once
    expect(madrid('2026-10-25T00:00:00Z')).toMatch(/ 2:00 CEST$/);
    expect(madrid('2026-10-25T01:00:00Z')).toMatch(/ 2:00 CET$/);
    expect(madrid('2026-10-24T23:59:00Z')).toMatch(/ 1:59$/);
    expect(madrid('2026-10-25T02:00:00Z')).toMatch(/ 3:00$/);
    // the same night's other times, and the night the clocks go forward (02:30 never happens), plain
    expect(madrid('2026-10-25T19:00:00Z')).toBe('domingo, 25 de octubre de 2026, 20:00');
    expect(madrid('2026-03-29T01:30:00Z')).toBe('domingo, 29 de marzo de 2026, 3:30');
    // a zone without summer time never marks
    expect(formatDateTime(new Date('2026-10-25T00:30:00Z'), 'en', 'Asia/Tokyo')).toMatch(/^Sunday(,)? 25 October 2026 at 09:30$/);
  });

  it('money from minor units, in the language of the page', () => {
    expect(formatMoney(3150, 'EUR', 'es').replace(/\s/g, ' ')).toBe('31,50 €');
    expect(formatMoney(3150, 'EUR', 'en')).toBe('€31.50');
    expect(formatMoney(3150, 'EUR', 'fr').replace(/\s/g, ' ')).toBe('31,50 €');
  });
});
