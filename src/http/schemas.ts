import { EMAIL_MAX_LENGTH, EMAIL_PATTERN } from '../lib/email-address.js';
import { Type, type TNumberOptions, type TSchema, type TStringOptions } from '@fastify/type-provider-typebox';

// Input bounds (D47): every integer of a request fits the PostgreSQL `integer` (int4) columns it
// meets and every string has a length bound, declared here once so that the OpenAPI shows them
// (`format: int32`, `maximum`, `maxLength`). NUL characters and non-finite numbers, which no
// schema keyword can refuse, are refused for every route by http/input-guard.ts.

/** The largest PostgreSQL `integer`: 2^31 - 1. */
export const INT32_MAX = 2_147_483_647;

/** An integer within int4; pass `minimum`/`maximum` for tighter bounds. */
export const Int32 = (opts: TNumberOptions = {}) =>
  Type.Integer({ format: 'int32', minimum: -INT32_MAX - 1, maximum: INT32_MAX, ...opts });

/** A row id (serial): 1 to 2^31 - 1. */
const Id = (opts: TNumberOptions = {}) => Int32({ minimum: 1, ...opts });

/**
 * The schema keyword of "at most N decimals" (D11, D56), checked on the number's shortest decimal
 * form (lib/money.ts), never by floating-point division as `multipleOf: 0.01` is: that refuses
 * 19.99, 33.33 or 1.15. Fastify's Ajv knows it (http/strict-bodies.ts); a document checked with
 * TypeBox's Value (the catalogue import) is checked again in minor units by its service.
 */
export const MAX_DECIMALS_KEYWORD = 'x-max-decimals';

/**
 * An amount of the deployment currency, or a percentage, as a JSON number with at most two
 * decimals: 0 to 1,000,000 unless `opts` says otherwise.
 */
export const Amount = (opts: TNumberOptions = {}) =>
  Type.Number({ ...(opts.exclusiveMinimum === undefined ? { minimum: 0 } : {}), maximum: 1_000_000, [MAX_DECIMALS_KEYWORD]: 2, ...opts });

/** The e-mail rule (lib/email-address.ts) as a schema, for route bodies (Fastify's Ajv) and documents (TypeBox Value). */
export const EmailAddress = (description = 'e-mail address') =>
  Type.String({ maxLength: EMAIL_MAX_LENGTH, pattern: EMAIL_PATTERN, description });

/** A string of at most `maxLength` characters. */
export const Text = (maxLength: number, opts: TStringOptions = {}) => Type.String({ maxLength, ...opts });

/** A value or `null` (a field the row may not have). */
export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/** A moment, ISO 8601 with an offset. */
export const Timestamp = Text(40, { format: 'date-time' });

/** A sales channel's slug, the name in its API paths (the database CHECK of sales_channels, 0340_baseline.sql, says the same). */
const CHANNEL_SLUG_PATTERN = '^[a-z0-9][a-z0-9-]{0,62}$';
export const ChannelSlug = Text(63, { pattern: CHANNEL_SLUG_PATTERN });

/** Path parameters shared by the B2B routes. */
export const SlugParam = Text(63, { pattern: CHANNEL_SLUG_PATTERN, description: 'sales_channel_slug' });
export const LangParam = Text(5, { pattern: '^[a-z]{2}(-[A-Za-z]{2})?$', description: 'language code, e.g. es or en' });
export const IdParam = Id();

export const ChannelParams = Type.Object({ salesChannelSlug: SlugParam });
export const ChannelLangParams = Type.Object({ salesChannelSlug: SlugParam, lang: LangParam });

/** The success envelope of D33 around `data`. */
export const Envelope = <T extends TSchema>(data: T) =>
  Type.Object({
    status: Type.Integer(),
    success: Type.Boolean(),
    data,
    message: Type.String(),
  });

/** The error envelope of D4, for the OpenAPI output. */
export const ErrorEnvelope = Type.Object(
  {
    status: Type.Integer(),
    success: Type.Literal(false),
    message: Type.String(),
    code: Type.String(),
    errors: Type.Optional(Type.Record(Type.String(), Type.Array(Type.String()))),
    data: Type.Optional(Type.Unknown({ description: 'Facts some codes carry: voucher_withdrawn the order (D35) with its new total, not_on_sale the session\'s sales window' })),
  },
  { $id: 'ErrorEnvelope' },
);

/** Standard error responses for the OpenAPI document of a bearer-protected route. */
export const bearerErrors = {
  401: Type.Ref('ErrorEnvelope'),
  403: Type.Ref('ErrorEnvelope'),
  422: Type.Ref('ErrorEnvelope'),
};
