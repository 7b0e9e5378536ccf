import type { FastifyRequest } from 'fastify';
import { isLanguage, type Language } from '../platform/i18n.js';
import { ERRORS, type ErrorCode, type FieldErrors } from './errors.js';

// Errors in the buyer's language (issue 16): the envelope's `code` and field keys never change,
// `message` and the field texts are written for the person in front of the page. The service's
// own messages are English (SPEC fixes some word for word), so English needs no table: a request
// that asks for English, or does not ask, keeps them as they are, except the field texts, which
// become sentences that can stand beside a form field. The Spanish of each code, and of each
// message with values, stands beside the code in errors.ts (issue 26).

/**
 * The language an error answer is written in, or null for the service's own English texts:
 * - the public portal API (`/api/portal/{slug}/{lang}/...`): the page's language, the `{lang}` of
 *   the path, as every page of the portal calls the API with its own language;
 * - the B2B interface: only when the client asks with `Accept-Language` (its first language, es or
 *   en): the widget sends its language; a channel's server that does not ask gets SPEC's texts.
 */
export function errorLanguage(request: FastifyRequest): Language | null {
  const url = request.url;
  if (url.startsWith('/api/portal/')) {
    const lang = (request.params as { lang?: unknown } | undefined)?.lang;
    return typeof lang === 'string' ? baseLanguage(lang) : null;
  }
  if (url.startsWith('/api/sales-channel/')) {
    const header = request.headers['accept-language'];
    const first = typeof header === 'string' ? header.split(',')[0]!.split(';')[0]!.trim() : '';
    return first ? baseLanguage(first) : null;
  }
  return null;
}

const baseLanguage = (tag: string): Language | null => {
  const base = tag.toLowerCase().split('-')[0]!;
  return isLanguage(base) ? base : null;
};

type Texts = Record<Language, string>;

/**
 * The field texts the service and the schema validator write, as sentences per language; a text
 * not listed keeps its English in English and becomes a generic sentence in Spanish.
 */
const FIELD_TEXTS: [RegExp, (m: RegExpMatchArray) => Texts][] = [
  [/^(is required|must have required property .*|must NOT have fewer than 1 characters?)$/, () => ({ es: 'Este campo es obligatorio.', en: 'This field is required.' })],
  [/^must be an e-mail address$|^must match format "email"$/, () => ({ es: 'Escribe una dirección de correo válida, como ana@ejemplo.com.', en: 'Enter a valid e-mail address, such as ana@example.com.' })],
  [/^must NOT have more than (\d+) characters?$/, (m) => ({ es: `Escribe como máximo ${m[1]} caracteres.`, en: `Use at most ${m[1]} characters.` })],
  [/^must NOT have fewer than (\d+) characters?$/, (m) => ({ es: `Escribe al menos ${m[1]} caracteres.`, en: `Use at least ${m[1]} characters.` })],
  [/^is not allowed$/, () => ({ es: 'Este campo no está permitido.', en: 'This field is not allowed.' })],
  [/^unknown voucher code$/, () => ({ es: 'El código no existe.', en: 'This code does not exist.' })],
  [/^not valid yet$/, () => ({ es: 'El código todavía no es válido.', en: 'This code is not valid yet.' })],
  [/^expired$/, () => ({ es: 'El código ha caducado.', en: 'This code has expired.' })],
  [/^does not apply to/, () => ({ es: 'El código no se aplica a las entradas de tu carrito.', en: 'This code does not apply to the tickets in your cart.' })],
  [/^must match pattern /, () => ({ es: 'El formato no es válido.', en: 'This value is not in a valid format.' })],
];

function fieldText(text: string, lang: Language): string {
  for (const [pattern, say] of FIELD_TEXTS) {
    const m = text.match(pattern);
    if (m) return say(m)[lang];
  }
  return lang === 'es' ? 'Este valor no es válido.' : text;
}

/**
 * The message and field texts of an error answer in `lang` (null: as the service wrote them).
 * `spanish` is the Spanish of this very message (AppError's `spanish`, written from the same
 * template and values as `message`); without it, the code's general Spanish text (errors.ts).
 */
export function localiseError(
  code: ErrorCode,
  message: string,
  fields: FieldErrors | undefined,
  lang: Language | null,
  spanish: string = ERRORS[code].es,
): { message: string; fields: FieldErrors | undefined } {
  if (!lang) return { message, fields };
  const localFields = fields && Object.fromEntries(Object.entries(fields).map(([key, texts]) => [key, [...new Set(texts.map((t) => fieldText(t, lang)))]]));
  if (lang === 'en') return { message: code === 'validation_failed' ? 'Please check the fields marked.' : message, fields: localFields };
  return { message: spanish, fields: localFields };
}
