import type { FastifyRequest } from 'fastify';
import { isLanguage, type Language } from '../platform/i18n.js';
import type { ErrorCode, FieldErrors } from './errors.js';

// Errors in the buyer's language (issue 16): the envelope's `code` and field keys never change,
// `message` and the field texts are written for the person in front of the page. The service's
// own messages are English (SPEC fixes some word for word), so English needs no table: a request
// that asks for English, or does not ask, keeps them as they are, except the field texts, which
// become sentences that can stand beside a form field.

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

/** Every code in Spanish: what went wrong, said to a buyer. */
const ES_MESSAGES: Record<ErrorCode, string> = {
  bad_request: 'La petición no es válida.',
  request_timeout: 'La petición ha tardado demasiado.',
  payload_too_large: 'Los datos enviados son demasiado grandes.',
  uri_too_long: 'La dirección es demasiado larga.',
  unsupported_media_type: 'Formato de datos no admitido.',
  headers_too_large: 'Las cabeceras de la petición son demasiado grandes.',
  unauthenticated: 'Falta la identificación del canal de venta.',
  invalid_credentials: 'Las credenciales no son válidas.',
  invalid_token: 'La sesión del canal de venta ha caducado. Vuelve a intentarlo.',
  unauthorized_sales_channel: 'Canal de venta no autorizado.',
  forbidden_for_integration_mode: 'Este canal de venta no permite esta operación.',
  forbidden: 'No tienes permiso para hacer esto.',
  invalid_signature: 'La firma no es válida.',
  server_credential_required: 'Esta operación solo se puede hacer desde el servidor del canal de venta.',
  browser_origin_refused: 'Esta operación no se puede hacer desde un navegador.',
  queue_pass_required: 'Esta sesión tiene cola virtual: espera tu turno en la cola antes de elegir entradas.',
  queue_pass_invalid: 'Tu turno de la cola no es válido o ha caducado. Vuelve a la cola.',
  queue_ticket_invalid: 'Tu lugar en la cola no es válido. Vuelve a entrar en la cola.',
  queue_challenge_failed: 'No se ha podido comprobar tu navegador. Vuelve a intentarlo.',
  not_found: 'No se ha encontrado lo que buscas.',
  route_not_found: 'Esta dirección no existe.',
  wallet_not_configured: 'Este servicio no ofrece pases de monedero.',
  method_not_allowed: 'Operación no permitida.',
  layout_seat_in_use: 'La nueva versión del plano quita o renumera asientos vendidos o reservados.',
  rate_in_use: 'La tarifa tiene entradas vendidas o reservadas, o vales o listas de espera que la usan: no se puede borrar.',
  conflict: 'No se ha podido completar la operación. Inténtalo de nuevo.',
  seat_unavailable: 'Ese asiento ya no está disponible. Elige otro.',
  zone_capacity_exceeded: 'No quedan tantas plazas libres en esa zona.',
  no_seats_together: 'No quedan tantas butacas libres juntas.',
  order_expired: 'Tu reserva ha caducado. Vuelve a elegir tus entradas.',
  order_not_modifiable: 'Este pedido ya no se puede cambiar.',
  order_completed: 'Este pedido ya está pagado.',
  order_token_taken: 'Ese identificador de pedido ya está en uso.',
  voucher_exhausted: 'Ese código de descuento ya se ha agotado.',
  voucher_withdrawn: 'El organizador ha retirado tu código de descuento y lo hemos quitado de tu carrito. Revisa el nuevo total.',
  order_empty: 'Tu carrito está vacío.',
  order_already_refunded: 'Este pedido ya se ha devuelto.',
  not_on_sale: 'Las entradas de esta sesión no están a la venta en este momento.',
  seats_available: 'Todavía quedan entradas libres: cómpralas ya, sin lista de espera.',
  already_on_waiting_list: 'Esta dirección ya está en la lista de espera de esta sesión.',
  not_admitted_yet: 'Todavía no es tu turno. Te avisaremos cuando lo sea.',
  queue_closed: 'La cola de esta sesión no está abierta.',
  queue_not_drawn: 'El sorteo de la cola todavía no se ha hecho.',
  ticket_already_refunded: 'Esa entrada ya se ha devuelto.',
  ticket_used: 'Esa entrada ya se ha usado para entrar.',
  idempotency_key_in_use: 'La misma operación se está procesando. Espera un momento.',
  payment_in_progress: 'Hay un pago con tarjeta en curso para este pedido: el carrito no se puede cambiar hasta que termine.',
  ticket_void: 'Esta entrada ya no es válida.',
  invitation_gone: 'Esta invitación ya no es válida: ha caducado o ya se ha usado.',
  validation_failed: 'Revisa los datos marcados.',
  date_range_too_long: 'El intervalo de fechas no puede superar los 90 días.',
  amount_mismatch: 'El importe no coincide con el total del pedido.',
  voucher_invalid: 'Ese código de descuento no existe.',
  voucher_expired: 'Ese código de descuento ha caducado.',
  voucher_not_yet_valid: 'Ese código de descuento todavía no es válido.',
  voucher_not_applicable: 'Ese código de descuento no se aplica a ninguna entrada de tu carrito.',
  idempotency_key_reused: 'La clave de idempotencia ya se usó con otros datos.',
  rate_limited: 'Demasiadas peticiones. Espera un momento y vuelve a intentarlo.',
  hold_limit_reached: 'Has alcanzado el máximo de entradas que puedes reservar a la vez.',
  internal_error: 'Algo ha ido mal. Inténtalo de nuevo.',
  payment_provider_refused: 'El proveedor de pago ha rechazado la devolución.',
  service_unavailable: 'El servicio no está disponible ahora mismo. Inténtalo de nuevo en unos segundos.',
  overloaded: 'El servicio está saturado ahora mismo. Inténtalo de nuevo en unos segundos.',
};

/**
 * Spanish messages that keep what the English one names: the seat (D18), the voucher code, the zone.
 * Tried before the code's general message; the English message is matched, so it stays the source.
 */
const ES_NAMED: [RegExp, (m: RegExpMatchArray) => string][] = [
  [/^Seat (.+), row (.+), number (.+) is not available$/, (m) => `El asiento ${m[1]}, fila ${m[2]}, número ${m[3]} ya no está disponible. Elige otro.`],
  [/^Voucher code (\S+) is not valid$/, (m) => `El código de descuento ${m[1]} no existe.`],
  [/^Voucher code (\S+) is not valid yet$/, (m) => `El código de descuento ${m[1]} todavía no es válido.`],
  [/^Voucher code (\S+) has expired$/, (m) => `El código de descuento ${m[1]} ha caducado.`],
  [/^Voucher code (\S+) does not apply/, (m) => `El código de descuento ${m[1]} no se aplica a ninguna entrada de tu carrito.`],
  [/^Voucher code (\S+) has been used up$/, (m) => `El código de descuento ${m[1]} ya se ha agotado.`],
  [
    /^Voucher code (\S+) was withdrawn by the organiser and removed from the order; the new total is (\S+)$/,
    (m) => `El organizador ha retirado el código de descuento ${m[1]} y lo hemos quitado de tu pedido; el nuevo total es ${m[2]}.`,
  ],
  [/^Not enough free places in (.+) for (\d+) tickets$/, (m) => `No quedan ${m[2]} plazas libres en ${m[1]}.`],
];

const esMessage = (code: ErrorCode, message: string): string => {
  for (const [pattern, say] of ES_NAMED) {
    const m = message.match(pattern);
    if (m) return say(m);
  }
  return ES_MESSAGES[code];
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

/** The message and field texts of an error answer in `lang` (null: as the service wrote them). */
export function localiseError(code: ErrorCode, message: string, fields: FieldErrors | undefined, lang: Language | null): { message: string; fields: FieldErrors | undefined } {
  if (!lang) return { message, fields };
  const localFields = fields && Object.fromEntries(Object.entries(fields).map(([key, texts]) => [key, [...new Set(texts.map((t) => fieldText(t, lang)))]]));
  if (lang === 'en') return { message: code === 'validation_failed' ? 'Please check the fields marked.' : message, fields: localFields };
  return { message: esMessage(code, message), fields: localFields };
}
