import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';

/**
 * The one catalogue of error codes. Every error the service answers with carries one of these
 * stable codes in the envelope of DECISIONS D4; integrators branch on `code`, people read `message`.
 */
export const ERROR_CODES = {
  // 400 / 408 / 413 / 414 / 415 / 431: the request itself
  bad_request: 400,
  request_timeout: 408,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  headers_too_large: 431,
  // 401 / 403: who you are and what you may do
  unauthenticated: 401,
  invalid_credentials: 401,
  invalid_token: 401,
  unauthorized_sales_channel: 403,
  forbidden_for_integration_mode: 403,
  forbidden: 403,
  invalid_signature: 403,
  server_credential_required: 403,
  browser_origin_refused: 403,
  queue_pass_required: 403,
  queue_pass_invalid: 403,
  queue_ticket_invalid: 403,
  queue_challenge_failed: 403,
  // 404 / 405
  not_found: 404,
  route_not_found: 404,
  wallet_not_configured: 404,
  method_not_allowed: 405,
  // 409: the state of the world disagrees
  conflict: 409,
  seat_unavailable: 409,
  zone_capacity_exceeded: 409,
  no_seats_together: 409,
  order_expired: 409,
  order_not_modifiable: 409,
  order_completed: 409,
  order_token_taken: 409,
  voucher_exhausted: 409,
  voucher_withdrawn: 409,
  order_empty: 409,
  order_already_refunded: 409,
  ticket_already_refunded: 409,
  ticket_used: 409,
  idempotency_key_in_use: 409,
  payment_in_progress: 409,
  not_on_sale: 409,
  layout_seat_in_use: 409,
  rate_in_use: 409,
  seats_available: 409,
  already_on_waiting_list: 409,
  not_admitted_yet: 409,
  queue_closed: 409,
  queue_not_drawn: 409,
  // 410: it existed, it is gone for good
  ticket_void: 410,
  invitation_gone: 410,
  // 422: the data is well-formed JSON but wrong
  validation_failed: 422,
  date_range_too_long: 422,
  amount_mismatch: 422,
  voucher_invalid: 422,
  voucher_expired: 422,
  voucher_not_yet_valid: 422,
  voucher_not_applicable: 422,
  idempotency_key_reused: 422,
  // 429 / 5xx
  rate_limited: 429,
  hold_limit_reached: 429,
  internal_error: 500,
  payment_provider_refused: 502,
  service_unavailable: 503,
  overloaded: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Messages SPEC.md fixes word for word. */
export const SPEC_MESSAGES = {
  invalidData: 'The given data was invalid',
  unauthorizedChannel: 'Unauthorized sales channel',
  dateRangeTooLong: 'The date range cannot exceed 90 days',
} as const;

export type FieldErrors = Record<string, string[]>;

/** A domain error: thrown by services, turned into the envelope by the error handler. */
export class AppError extends Error {
  readonly status: number;
  /** Facts some codes carry, sent as the envelope's `data`: voucher_withdrawn the order (D75), not_on_sale the sales window (D59). */
  data?: unknown;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly fields?: FieldErrors,
    status?: number,
  ) {
    super(message);
    this.name = 'AppError';
    this.status = status ?? ERROR_CODES[code];
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
  const err = new AppError('not_on_sale', `Session ${sessionId} is not on sale`);
  err.data = { session_id: sessionId, sales_start_at: window.salesStartAt, sales_end_at: window.salesEndAt };
  return err;
}

export const notFound = (what: string) => new AppError('not_found', `${what} not found`);

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
