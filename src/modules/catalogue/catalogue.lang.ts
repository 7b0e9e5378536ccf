/**
 * Language fallback for catalogue texts: the requested language ("en-GB"), then its base ("en"),
 * then the event's default language, then whatever exists.
 */
export function languageChain(lang: string, defaultLang: string): string[] {
  const base = lang.split('-')[0]!;
  return [...new Set([lang, base, defaultLang])];
}

/** The first value present along the chain, else the first value of any language (by key order). */
export function pickByLanguage<T>(byLang: ReadonlyMap<string, T>, chain: readonly string[]): T | undefined {
  for (const lang of chain) {
    const found = byLang.get(lang);
    if (found !== undefined) return found;
  }
  return byLang.values().next().value;
}

/** A rate's name: its `names` translations along the chain, else its plain `name`. */
export function rateName(rate: { name: string; names: Record<string, string> }, chain: readonly string[]): string {
  for (const lang of chain) {
    const found = rate.names[lang];
    if (typeof found === 'string' && found !== '') return found;
  }
  return rate.name;
}
