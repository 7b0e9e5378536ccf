import { Type } from '@fastify/type-provider-typebox';
import { ChannelSlug, Envelope, IdParam, Int32, Text, EmailAddress } from '../../http/schemas.js';
import { httpUrlSchema } from '../../lib/url-rules.js';
import { adminErrors, Lang, Nullable, Params, Timestamp } from '../../http/admin-api.js';

// TypeBox schemas of the admin API (/api/admin/v1). Amounts are decimal numbers of the deployment
// currency; percentages are percentages (10 = 10 %); timestamps ISO 8601 with an offset.

export { adminErrors, Params };

const Id = IdParam;
const HttpUrl = httpUrlSchema();



// ---- accounts

export const Me = Type.Object({
  user_id: Nullable(Type.Integer()),
  email: Type.String(),
  role: Type.Union([Type.Literal('admin'), Type.Literal('promoter')]),
  organiser_id: Nullable(Type.Integer()),
});

export const UserCreate = Type.Object(
  {
    email: EmailAddress(),
    password: Type.Optional(Type.String({ minLength: 12, maxLength: 1024, description: 'The password, at least 12 characters; or leave it out and send invite: true' })),
    invite: Type.Optional(
      Type.Boolean({
        description: 'true: no password now; an invitation link valid 72 hours is returned and e-mailed to the person (D65). Exactly one of password and invite: true',
      }),
    ),
    role: Type.Union([Type.Literal('admin'), Type.Literal('promoter')]),
    organiser_id: Type.Optional(Id),
  },
  { additionalProperties: false },
);
const Invitation = Type.Object({
  link: Type.String({ description: 'The invitation link (also e-mailed to the account); shown only in this answer' }),
  expires_at: Timestamp,
});
export const InvitationSent = Type.Object({ user_id: Type.Integer(), email: Type.String(), invitation: Invitation });
export const User = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  role: Type.String(),
  organiser_id: Nullable(Type.Integer()),
  created_at: Timestamp,
  invitation: Type.Optional(Nullable(Invitation)),
});

const RefundFees = Type.Boolean({ description: 'Whether refunds give the fees back too (D58); default true' });
const ReplyTo = Nullable(EmailAddress("the box office address: Reply-To of the organiser's buyer e-mails (null: MAIL_REPLY_TO, else none)"));
export const OrganiserCreate = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200 }), refund_fees: Type.Optional(RefundFees), reply_to_email: Type.Optional(ReplyTo) },
  { additionalProperties: false },
);
export const OrganiserUpdate = Type.Object(
  { name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), refund_fees: Type.Optional(RefundFees), reply_to_email: Type.Optional(ReplyTo) },
  { additionalProperties: false, minProperties: 1 },
);
export const Organiser = Type.Object({ id: Type.Integer(), name: Type.String(), refund_fees: Type.Boolean(), reply_to_email: Nullable(Type.String()), created_at: Timestamp });


// ---- channels and keys

const Mode = Type.Union([
  Type.Literal('portal_only'),
  Type.Literal('portal_external_payment'),
  Type.Literal('widget_platform_payment'),
  Type.Literal('widget_external_payment'),
]);
/** `#rrggbb`, or empty to clear it; the maxLength states the bound the pattern implies. */
const Colour = Text(7, { pattern: '^(#[0-9a-fA-F]{6})?$' });
const Branding = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 300 })),
    logo_url: Type.Optional(Type.String({ maxLength: 300 })),
    primary_color: Type.Optional(Colour),
    accent_color: Type.Optional(Colour),
    font_family: Type.Optional(Type.String({ maxLength: 300 })),
  },
  { additionalProperties: false },
);
const channelFields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  integration_mode: Mode,
  checkout_url: Nullable(HttpUrl),
  website_url: Nullable(HttpUrl),
  branding: Branding,
  cart_ttl_seconds: Nullable(Int32({ minimum: 60, maximum: 86_400, description: 'cart lifetime; null = the deployment default' })),
  default_lang: Lang,
  event_ids: Type.Array(Id, { maxItems: 1000, description: 'events this channel sells' }),
};
export const ChannelCreate = Type.Object(
  {
    organiser_id: Type.Optional(Id),
    slug: ChannelSlug,
    name: channelFields.name,
    integration_mode: Mode,
    checkout_url: Type.Optional(channelFields.checkout_url),
    website_url: Type.Optional(channelFields.website_url),
    branding: Type.Optional(Branding),
    cart_ttl_seconds: Type.Optional(channelFields.cart_ttl_seconds),
    default_lang: Type.Optional(Lang),
    event_ids: Type.Optional(channelFields.event_ids),
  },
  { additionalProperties: false },
);
export const ChannelUpdate = Type.Partial(Type.Object(channelFields), { additionalProperties: false, minProperties: 1 });
export const Channel = Type.Object({
  id: Type.Integer(),
  organiser_id: Type.Integer(),
  slug: Type.String(),
  name: Type.String(),
  integration_mode: Type.String(),
  checkout_url: Nullable(Type.String()),
  website_url: Nullable(Type.String()),
  branding: Type.Record(Type.String(), Type.String()),
  cart_ttl_seconds: Nullable(Type.Integer()),
  default_lang: Type.String(),
  event_ids: Type.Array(Type.Integer()),
});

/** A widget key or a server key as listed: never the key itself. */
export const WidgetKey = Type.Object({
  id: Type.Integer(),
  last_four: Type.String(),
  created_at: Timestamp,
  revoked_at: Nullable(Timestamp),
});
export const NewWidgetKey = Type.Object({
  id: Type.Integer(),
  widget_key: Type.String({ description: 'shown once: store it now, it cannot be read again' }),
  last_four: Type.String(),
  created_at: Timestamp,
  revoked_at: Type.Null(),
});
export const NewServerKey = Type.Object({
  id: Type.Integer(),
  server_key: Type.String({ description: "shown once: store it in the channel's server configuration now, it cannot be read again; never put it in a web page" }),
  last_four: Type.String(),
  created_at: Timestamp,
  revoked_at: Type.Null(),
});

// ---- audit

export const AuditQuery = Type.Object(
  { before_id: Type.Optional(Id), limit: Type.Optional(Int32({ minimum: 1, maximum: 200, default: 50 })) },
  { additionalProperties: false },
);
export const AuditEntry = Type.Object({
  id: Type.Integer(),
  user_id: Nullable(Type.Integer()),
  user_email: Type.String(),
  action: Type.String(),
  target_type: Type.String(),
  target_id: Type.String(),
  organiser_id: Nullable(Type.Integer()),
  details: Type.Record(Type.String(), Type.Unknown()),
  created_at: Timestamp,
});

export { Envelope };
