import { Type, type TString } from '@fastify/type-provider-typebox';
import { Lang } from '../../http/admin-api.js';
import { ChannelSlug, IdParam as Id, Int32, Nullable, Text, Timestamp } from '../../http/schemas.js';
import { httpUrlSchema } from '../../lib/url-rules.js';

// TypeBox schemas of the channels part of the admin API (/api/admin/v1/channels): channels, widget
// keys and server keys.

const HttpUrl = httpUrlSchema();

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
/** A key just generated: as listed, with the key itself in `field`, shown only this once. */
const newKey = <K extends string>(field: K, description: string) =>
  Type.Object({
    id: Type.Integer(),
    ...({ [field]: Type.String({ description }) } as Record<K, TString>),
    last_four: Type.String(),
    created_at: Timestamp,
    revoked_at: Type.Null(),
  });
export const NewWidgetKey = newKey('widget_key', 'shown once: store it now, it cannot be read again');
export const NewServerKey = newKey('server_key', "shown once: store it in the channel's server configuration now, it cannot be read again; never put it in a web page");
