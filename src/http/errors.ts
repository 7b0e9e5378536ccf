import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';

/**
 * A message with parameters: `{name}` stands for the parameter `name`. `en` is the service's own
 * text (the envelope's `message`, SPEC's and DECISIONS' wording); `es`, when given, is what a
 * Spanish reader gets instead of the code's general `es` (issue 26: no translation by parsing).
 */
export interface Template {
  readonly en: string;
  readonly es?: string;
}

interface CodeEntry {
  readonly status: number;
  /** Any message of the code, said to a Spanish-speaking buyer. */
  readonly es: string;
  /** What `new AppError(code, params)` says. */
  readonly template?: Template;
  /** What `new AppError('code.name', params)` says: a code used for several things. */
  readonly templates?: Readonly<Record<string, Template>>;
}

/**
 * The one catalogue of error codes. Every error the service answers with carries one of these
 * stable codes in the envelope of DECISIONS D4; integrators branch on `code`, people read `message`.
 * Each code has its HTTP status, its Spanish text and the templates of its messages with values.
 */
export const ERRORS = {
  // 400 / 408 / 413 / 414 / 415 / 431: the request itself
  bad_request: {
    status: 400,
    es: 'La petición no es válida.',
    templates: {
      not_json: { en: '{file} is not valid JSON: {reason}' },
      unreadable_json: { en: 'Cannot read {file} as JSON: {reason}' },
    },
  },
  request_timeout: { status: 408, es: 'La petición ha tardado demasiado.' },
  payload_too_large: { status: 413, es: 'Los datos enviados son demasiado grandes.' },
  uri_too_long: { status: 414, es: 'La dirección es demasiado larga.' },
  unsupported_media_type: { status: 415, es: 'Formato de datos no admitido.' },
  headers_too_large: { status: 431, es: 'Las cabeceras de la petición son demasiado grandes.' },
  // 401 / 403: who you are and what you may do
  unauthenticated: { status: 401, es: 'Falta la identificación del canal de venta.' },
  invalid_credentials: { status: 401, es: 'Las credenciales no son válidas.' },
  invalid_token: { status: 401, es: 'La sesión del canal de venta ha caducado. Vuelve a intentarlo.' },
  unauthorized_sales_channel: { status: 403, es: 'Canal de venta no autorizado.' },
  forbidden_for_integration_mode: { status: 403, es: 'Este canal de venta no permite esta operación.' },
  forbidden: {
    status: 403,
    es: 'No tienes permiso para hacer esto.',
    templates: {
      demo_data: { en: 'demo:load needs DEMO_DATA=true when APP_ENV={env} (the demo widget keys are public)' },
    },
  },
  invalid_signature: { status: 403, es: 'La firma no es válida.' },
  server_credential_required: { status: 403, es: 'Esta operación solo se puede hacer desde el servidor del canal de venta.' },
  browser_origin_refused: { status: 403, es: 'Esta operación no se puede hacer desde un navegador.' },
  queue_pass_required: {
    status: 403,
    es: 'Esta sesión tiene cola virtual: espera tu turno en la cola antes de elegir entradas.',
    template: { en: 'Session {session} has a waiting room: send the Queue-Pass header of an admitted buyer' },
  },
  queue_pass_invalid: { status: 403, es: 'Tu turno de la cola no es válido o ha caducado. Vuelve a la cola.' },
  queue_ticket_invalid: { status: 403, es: 'Tu lugar en la cola no es válido. Vuelve a entrar en la cola.' },
  queue_challenge_failed: {
    status: 403,
    es: 'No se ha podido comprobar tu navegador. Vuelve a intentarlo.',
    template: { en: 'The proof-of-work challenge was not solved: {failure}' },
  },
  // 404 / 405
  not_found: {
    status: 404,
    es: 'No se ha encontrado lo que buscas.',
    templates: {
      thing: { en: '{what} not found' },
      seat: { en: 'Seat {seat} not found' },
      sector: { en: 'Sector {sector} not found' },
      item: { en: 'Item {item} not found' },
      session: { en: 'Session {session} not found' },
      order: { en: 'No order {reference}' },
      sales_channel: { en: 'Sales channel "{slug}" not found' },
      voucher_not_applied: { en: 'Voucher {code} is not applied to this order' },
      key_or_revoked: { en: '{key} key not found or already revoked' },
      payment_provider: { en: 'Payment provider {provider} is not enabled' },
      file: { en: 'Cannot read {file}: {reason}' },
    },
  },
  route_not_found: { status: 404, es: 'Esta dirección no existe.' },
  wallet_not_configured: { status: 404, es: 'Este servicio no ofrece pases de monedero.' },
  method_not_allowed: { status: 405, es: 'Operación no permitida.' },
  // 409: the state of the world disagrees
  conflict: {
    status: 409,
    es: 'No se ha podido completar la operación. Inténtalo de nuevo.',
    templates: {
      account_email: { en: 'An account with e-mail {email} already exists' },
      account_has_password: { en: '{email} has set a password already: there is nothing to accept' },
      account_disabled: { en: '{email} is disabled: enable it first' },
      nothing_to_send: { en: 'Order {reference} has no tickets to send ({type}, {status})' },
      no_valid_tickets: { en: 'Order {reference} has no valid tickets' },
      no_buyer_email: { en: 'Order {reference} has no buyer e-mail address' },
      offered_twice: { en: 'waiting-list entry {entry} was offered seats twice' },
      voucher_code_taken: { en: 'A voucher with code {code} already exists' },
      channel_slug_taken: { en: 'A sales channel with slug "{slug}" already exists' },
      key_revoked: { en: 'This {key} is already revoked' },
      nothing_captured: { en: 'Payment {payment} has captured no money to refund' },
      refund_exceeds: { en: 'The refund exceeds what is left of payment {payment}' },
    },
  },
  seat_unavailable: {
    status: 409,
    es: 'Ese asiento ya no está disponible. Elige otro.',
    template: { en: 'Seat {sector}, row {row}, number {number} is not available', es: 'El asiento {sector}, fila {row}, número {number} ya no está disponible. Elige otro.' },
    templates: {
      id: { en: 'Seat {seat} is not available' },
    },
  },
  zone_capacity_exceeded: {
    status: 409,
    es: 'No quedan tantas plazas libres en esa zona.',
    template: { en: 'Not enough free places in {zone} for {quantity} tickets', es: 'No quedan {quantity} plazas libres en {zone}.' },
  },
  no_seats_together: {
    status: 409,
    es: 'No quedan tantas butacas libres juntas.',
    templates: {
      accessible: { en: 'No {accessible} free wheelchair places with {companions} companion seats beside them' },
      together: { en: 'No {quantity} free seats next to each other' },
      any: { en: 'Fewer than {quantity} seats are free' },
    },
  },
  order_expired: { status: 409, es: 'Tu reserva ha caducado. Vuelve a elegir tus entradas.' },
  order_not_modifiable: { status: 409, es: 'Este pedido ya no se puede cambiar.' },
  order_completed: { status: 409, es: 'Este pedido ya está pagado.' },
  order_token_taken: { status: 409, es: 'Ese identificador de pedido ya está en uso.' },
  voucher_exhausted: {
    status: 409,
    es: 'Ese código de descuento ya se ha agotado.',
    template: { en: 'Voucher code {code} has been used up', es: 'El código de descuento {code} ya se ha agotado.' },
  },
  voucher_withdrawn: {
    status: 409,
    es: 'El organizador ha retirado tu código de descuento y lo hemos quitado de tu carrito. Revisa el nuevo total.',
    template: { en: 'Voucher code {code} was withdrawn by the organiser and removed from the order; the new total is {total}', es: 'El organizador ha retirado el código de descuento {code} y lo hemos quitado de tu pedido; el nuevo total es {total}.' },
  },
  order_empty: { status: 409, es: 'Tu carrito está vacío.' },
  order_already_refunded: {
    status: 409,
    es: 'Este pedido ya se ha devuelto.',
    templates: {
      order: { en: 'Order {reference} is already refunded' },
      session: { en: 'Order {reference} is already refunded for session {session}' },
    },
  },
  ticket_already_refunded: {
    status: 409,
    es: 'Esa entrada ya se ha devuelto.',
    template: { en: 'Ticket {tickets} of order {reference} is already refunded' },
  },
  ticket_used: {
    status: 409,
    es: 'Esa entrada ya se ha usado para entrar.',
    template: { en: 'Ticket {tickets} has been checked in; send allow_used: true to refund it anyway' },
  },
  idempotency_key_in_use: { status: 409, es: 'La misma operación se está procesando. Espera un momento.' },
  payment_in_progress: { status: 409, es: 'Hay un pago con tarjeta en curso para este pedido: el carrito no se puede cambiar hasta que termine.' },
  not_on_sale: {
    status: 409,
    es: 'Las entradas de esta sesión no están a la venta en este momento.',
    template: { en: 'Session {session} is not on sale' },
  },
  layout_seat_in_use: { status: 409, es: 'La nueva versión del plano quita o renumera asientos vendidos o reservados.' },
  rate_in_use: {
    status: 409,
    es: 'La tarifa tiene entradas vendidas o reservadas, o vales o listas de espera que la usan: no se puede borrar.',
    template: { en: 'Rate "{rate}" cannot be deleted: {uses}. Change its price or name instead.' },
  },
  seats_available: {
    status: 409,
    es: 'Todavía quedan entradas libres: cómpralas ya, sin lista de espera.',
    template: { en: '{available} seats are available: buy them instead of joining the waiting list' },
  },
  already_on_waiting_list: { status: 409, es: 'Esta dirección ya está en la lista de espera de esta sesión.' },
  not_admitted_yet: {
    status: 409,
    es: 'Todavía no es tu turno. Te avisaremos cuando lo sea.',
    template: { en: 'Number {number} is not admitted yet' },
  },
  queue_closed: {
    status: 409,
    es: 'La cola de esta sesión no está abierta.',
    template: { en: 'Session {session} has no waiting room' },
  },
  queue_not_drawn: { status: 409, es: 'El sorteo de la cola todavía no se ha hecho.' },
  // 410: it existed, it is gone for good
  ticket_void: { status: 410, es: 'Esta entrada ya no es válida.' },
  invitation_gone: { status: 410, es: 'Esta invitación ya no es válida: ha caducado o ya se ha usado.' },
  // 422: the data is well-formed JSON but wrong
  validation_failed: { status: 422, es: 'Revisa los datos marcados.' },
  date_range_too_long: { status: 422, es: 'El intervalo de fechas no puede superar los 90 días.' },
  amount_mismatch: { status: 422, es: 'El importe no coincide con el total del pedido.' },
  voucher_invalid: {
    status: 422,
    es: 'Ese código de descuento no existe.',
    template: { en: 'Voucher code {code} is not valid', es: 'El código de descuento {code} no existe.' },
  },
  voucher_expired: {
    status: 422,
    es: 'Ese código de descuento ha caducado.',
    template: { en: 'Voucher code {code} has expired', es: 'El código de descuento {code} ha caducado.' },
  },
  voucher_not_yet_valid: {
    status: 422,
    es: 'Ese código de descuento todavía no es válido.',
    template: { en: 'Voucher code {code} is not valid yet', es: 'El código de descuento {code} todavía no es válido.' },
  },
  voucher_not_applicable: {
    status: 422,
    es: 'Ese código de descuento no se aplica a ninguna entrada de tu carrito.',
    template: { en: 'Voucher code {code} does not apply to any item of this order', es: 'El código de descuento {code} no se aplica a ninguna entrada de tu carrito.' },
  },
  idempotency_key_reused: { status: 422, es: 'La clave de idempotencia ya se usó con otros datos.' },
  // 429 / 5xx
  rate_limited: {
    status: 429,
    es: 'Demasiadas peticiones. Espera un momento y vuelve a intentarlo.',
    template: { en: '{limit}; retry in {seconds} s' },
  },
  hold_limit_reached: {
    status: 429,
    es: 'Has alcanzado el máximo de entradas que puedes reservar a la vez.',
    templates: {
      items_per_order: { en: 'An order holds at most {limit} items' },
      live_orders: { en: 'A buyer may hold at most {limit} live carts at once; complete or cancel one first' },
      session_tickets: { en: 'Session {session} allows at most {limit} tickets per buyer' },
    },
  },
  internal_error: { status: 500, es: 'Algo ha ido mal. Inténtalo de nuevo.' },
  payment_provider_refused: {
    status: 502,
    es: 'El proveedor de pago ha rechazado la devolución.',
    template: { en: 'The payment provider refused the refund: {reason}' },
  },
  service_unavailable: { status: 503, es: 'El servicio no está disponible ahora mismo. Inténtalo de nuevo en unos segundos.' },
  overloaded: { status: 503, es: 'El servicio está saturado ahora mismo. Inténtalo de nuevo en unos segundos.' },
} as const satisfies Record<string, CodeEntry>;

export type ErrorCode = keyof typeof ERRORS;

/** Each code's HTTP status. */
export const ERROR_CODES = Object.fromEntries(Object.entries(ERRORS).map(([code, e]) => [code, e.status])) as {
  readonly [C in ErrorCode]: (typeof ERRORS)[C]['status'];
};

type Catalogue = typeof ERRORS;
type KeysOf<C extends ErrorCode> =
  | (Catalogue[C] extends { template: Template } ? C : never)
  | (Catalogue[C] extends { templates: infer M } ? `${C}.${keyof M & string}` : never);
/** `code` for a code's own template, `code.name` for one of its named templates. */
export type TemplateKey = { [C in ErrorCode]: KeysOf<C> }[ErrorCode];
type TemplateAt<K extends TemplateKey> = K extends `${infer C extends ErrorCode}.${infer N}`
  ? Catalogue[C] extends { templates: infer M } ? M[N & keyof M] : never
  : Catalogue[K & ErrorCode] extends { template: infer T } ? T : never;
type Placeholders<S> = S extends `${string}{${infer P}}${infer Rest}` ? P | Placeholders<Rest> : never;
/** Parameter values, written as a template literal writes them (null as "null", undefined as "undefined": as before templates). */
export type Params = Readonly<Record<string, string | number | null | undefined>>;
/** The parameters a template names, each required. */
export type ParamsOf<K extends TemplateKey> = TemplateAt<K> extends { en: infer S } ? { readonly [P in Placeholders<S>]: string | number | null | undefined } : never;

/** A template's text with its parameters written in (as a template literal would write them). */
const render = (text: string, params: Params): string => text.replace(/\{(\w+)\}/g, (_, name: string) => String(params[name]));

/** The template a key names, or undefined. */
function templateOf(key: string): Template | undefined {
  const dot = key.indexOf('.');
  const entry: CodeEntry | undefined = ERRORS[(dot < 0 ? key : key.slice(0, dot)) as ErrorCode];
  return dot < 0 ? entry?.template : entry?.templates?.[key.slice(dot + 1)];
}

/** Every template key, for the tests that render them all. */
export const TEMPLATE_KEYS = Object.entries(ERRORS as Record<string, CodeEntry>).flatMap(([code, e]) => [
  ...(e.template ? [code] : []),
  ...Object.keys(e.templates ?? {}).map((name) => `${code}.${name}`),
]) as TemplateKey[];

/**
 * AppError's arguments: a code and a fixed English message (its Spanish is the code's `es`), or a
 * template key and its parameters; then, for either, the field errors.
 */
export type AppErrorArgs =
  | [code: ErrorCode, message: string, fields?: FieldErrors, status?: number]
  | { [K in TemplateKey]: [key: K, params: ParamsOf<K>, fields?: FieldErrors] }[TemplateKey];

/** Messages SPEC.md fixes word for word. */
export const SPEC_MESSAGES = {
  invalidData: 'The given data was invalid',
  unauthorizedChannel: 'Unauthorized sales channel',
  dateRangeTooLong: 'The date range cannot exceed 90 days',
} as const;

export type FieldErrors = Record<string, string[]>;

/** A domain error: thrown by services, turned into the envelope by the error handler. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly fields?: FieldErrors;
  /** The template and parameters the message was written from (absent: a fixed message). */
  private readonly template?: Template;
  private readonly params?: Params;
  /** Facts some codes carry, sent as the envelope's `data`: voucher_withdrawn the order (D75), not_on_sale the sales window (D59). */
  data?: unknown;
  constructor(...args: AppErrorArgs) {
    const [key, said, fields, status] = args as [string, string | Params, FieldErrors?, number?];
    const template = typeof said === 'string' ? undefined : templateOf(key);
    if (typeof said !== 'string' && !template) throw new TypeError(`No error template ${key}`);
    super(template ? render(template.en, said as Params) : (said as string));
    this.name = 'AppError';
    this.code = key.split('.')[0] as ErrorCode;
    this.status = status ?? ERRORS[this.code].status;
    this.fields = fields;
    if (template) {
      this.template = template;
      this.params = said as Params;
    }
  }

  /** The message for a Spanish reader: the template's Spanish with the same values, else the code's. */
  get spanish(): string {
    return this.template?.es && this.params ? render(this.template.es, this.params) : ERRORS[this.code].es;
  }

  /** This error with `data` in its envelope. */
  withData(data: unknown): this {
    this.data = data;
    return this;
  }
}

/**
 * 409 `not_on_sale` (D59, D74): the session is outside its sales window, started, cancelled, closed
 * or its event unpublished. `data` carries the session's window so that a client can say when.
 */
export function notOnSale(sessionId: number, window: { salesStartAt: string | null; salesEndAt: string | null }): AppError {
  const err = new AppError('not_on_sale', { session: sessionId });
  err.data = { session_id: sessionId, sales_start_at: window.salesStartAt, sales_end_at: window.salesEndAt };
  return err;
}

export const notFound = (what: string) => new AppError('not_found.thing', { what });

/** The 422 of DECISIONS D4: "The given data was invalid" with the field errors. */
export const invalidData = (fields: FieldErrors) =>
  new AppError('validation_failed', SPEC_MESSAGES.invalidData, fields);

/**
 * TypeBox's errors of a value against a schema, in the field-error shape of the HTTP envelope
 * (error-handler.ts `fieldErrors`): keyed by the dotted path ("events.0.venue"), `whole` for the
 * value itself; a missing or an unexpected property keyed by its own path. At most `limit` fields;
 * null when the value is valid. For input that does not come through a route (CLI, import file).
 */
export function schemaErrors(schema: TSchema, value: unknown, whole: string, limit = 20): FieldErrors | null {
  if (Value.Check(schema, value)) return null;
  const errors: FieldErrors = {};
  const add = (path: string, text: string) => {
    const key = path.replace(/^\//, '').replace(/\//g, '.') || whole;
    const list = (errors[key] ??= []);
    if (!list.includes(text)) list.push(text);
  };
  for (const e of Value.Errors(schema, value)) {
    const params = e.params as { additionalProperties?: string[]; requiredProperties?: string[] };
    if (e.keyword === 'additionalProperties' && params.additionalProperties) {
      for (const p of params.additionalProperties) add(`${e.instancePath}/${p}`, 'is not allowed');
    } else if (e.keyword === 'required' && params.requiredProperties) {
      for (const p of params.requiredProperties) add(`${e.instancePath}/${p}`, `must have required property '${p}'`);
    } else if (!(e.keyword === 'boolean' && e.schemaPath.endsWith('/additionalProperties'))) {
      // (the "schema is false" of each unexpected property repeats the additionalProperties error)
      add(e.instancePath, e.message);
    }
    if (Object.keys(errors).length >= limit) break;
  }
  return errors;
}
