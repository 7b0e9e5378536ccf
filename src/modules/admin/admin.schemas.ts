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

// ---- orders and audit

export const OrdersQuery = Type.Object(
  {
    channel_id: Type.Optional(Id),
    status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('completed'), Type.Literal('cancelled'), Type.Literal('expired')])),
    type: Type.Optional(Type.Union([Type.Literal('purchase'), Type.Literal('refund'), Type.Literal('reservation')])),
    before_id: Type.Optional(Id),
    search: Type.Optional(Text(200, { description: "The order reference, or part of the buyer's e-mail or name (case-insensitive)" })),
    limit: Type.Optional(Int32({ minimum: 1, maximum: 200, default: 50 })),
  },
  { additionalProperties: false },
);
export const OrderRow = Type.Object({
  id: Type.Integer(),
  reference: Type.String(),
  channel_id: Type.Integer(),
  sales_channel_slug: Type.String(),
  type: Type.String(),
  status: Type.String(),
  total_amount: Type.Number(),
  currency: Type.String(),
  created_at: Timestamp,
  buyer_name: Nullable(Type.String()),
  buyer_email: Nullable(Type.String()),
});
/** D73: card payments, e.g. `?status=refund_required` (money taken that completed no order, until refunded). */
export const PaymentsQuery = Type.Object(
  {
    status: Type.Optional(
      Type.Union(['pending', 'succeeded', 'declined', 'cancelled', 'refund_required', 'refunded'].map((s) => Type.Literal(s)), {
        description: 'Only payments in this status',
      }),
    ),
    channel_id: Type.Optional(Id),
    before: Type.Optional(Text(80, { description: 'Keyset pagination: payments created before this payment id' })),
    limit: Type.Optional(Int32({ minimum: 1, maximum: 200, default: 50 })),
  },
  { additionalProperties: false },
);
export const PaymentRow = Type.Object({
  id: Type.String(),
  order_id: Type.Integer(),
  order_reference: Type.String(),
  channel_id: Type.Integer(),
  sales_channel_slug: Type.String(),
  provider: Type.String(),
  provider_ref: Nullable(Type.String()),
  status: Type.String(),
  amount: Type.Number(),
  currency: Type.String(),
  buyer_name: Type.String(),
  buyer_email: Type.String(),
  failure_reason: Nullable(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
  closed_at: Nullable(Timestamp),
  refund_attempts: Type.Integer(),
  refund_next_at: Nullable(Timestamp),
  refund_error: Nullable(Type.String()),
  refunded_at: Nullable(Timestamp),
  refund_ref: Nullable(Type.String()),
});
export const OrderDetail = Type.Object({
  id: Type.Integer(),
  reference: Type.String(),
  channel_id: Type.Integer(),
  sales_channel_slug: Type.String(),
  type: Type.String(),
  status: Type.String(),
  lang: Type.String(),
  total_amount: Type.Number(),
  currency: Type.String(),
  payment_method: Nullable(Type.String()),
  created_at: Timestamp,
  completed_at: Nullable(Timestamp),
  refund_reference: Nullable(Type.String()),
  buyer: Nullable(Type.Object({ name: Type.String(), surname: Type.String(), email: Type.String(), phone: Nullable(Type.String()) })),
  items: Type.Array(
    Type.Object({
      event_name: Type.String(),
      session_start: Timestamp,
      venue_name: Type.String(),
      sector_name: Type.String(),
      row: Nullable(Type.String()),
      seat: Nullable(Type.String()),
      rate_name: Type.String(),
      total_amount: Type.Number(),
      ticket_code: Nullable(Type.String()),
      ticket_status: Nullable(Type.String()),
      ticket_id: Nullable(Type.Integer()),
      fee_amount: Type.Number(),
      refund_reference: Nullable(Type.String({ description: 'The refund that covered this item (D58)' })),
    }),
  ),
  payments: Type.Array(
    Type.Object({
      id: Type.String(),
      provider: Type.String(),
      status: Type.String(),
      amount: Type.Number(),
      currency: Type.String(),
      failure_reason: Nullable(Type.String()),
      created_at: Timestamp,
    }),
  ),
  history: Type.Array(
    Type.Object({ action: Type.String(), user_email: Type.String(), target_id: Type.String(), details: Type.Record(Type.String(), Type.Unknown()), created_at: Timestamp }),
  ),
  refunds: Type.Array(
    Type.Object({
      reference: Type.String(),
      created_at: Timestamp,
      reason: Type.String(),
      actor: Type.String(),
      total_amount: Type.Number({ description: 'Negative: what this refund gave back' }),
      fee_amount: Type.Number(),
      fees_refunded: Type.Boolean(),
      ticket_ids: Type.Array(Type.Integer()),
      provider: Nullable(Type.String({ description: 'The card provider that refunded (sandbox, stripe); null when no card payment of this service paid the order' })),
      provider_refund_reference: Nullable(Type.String({ description: "The card provider's refund reference" })),
    }),
    { description: 'Refunds of the order (D58), oldest first' },
  ),
});
export const TicketResend = Type.Object({
  reference: Type.String(),
  recipient: Type.String(),
  email_id: Type.Integer({ description: 'The queued e-mail; the e-mail queue sends it within seconds' }),
  resends: Type.Integer({ description: 'How often this order\'s ticket e-mail has been resent, this time included' }),
});

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

// ---- refunds and reservations

export const ReferenceParam = Type.Object({ reference: Type.String({ minLength: 1, maxLength: 64 }) });
/** The reason recorded for an admin API refund that gives none (D58 asks only for the tickets). */
export const API_REFUND_REASON = 'Refunded through the admin API';
export const RefundCreate = Type.Object(
  {
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, pattern: '\\S', description: `Kept with the refund and in the audit log; "${API_REFUND_REASON}" when absent` })),
    ticket_ids: Type.Optional(
      Type.Array(Id, { minItems: 1, maxItems: 500, description: 'Refund only these tickets of the order (D58); every ticket not refunded yet when absent' }),
    ),
    allow_used: Type.Optional(Type.Boolean({ description: 'Refund checked-in tickets too; without it a checked-in ticket is 409 ticket_used' })),
  },
  { additionalProperties: false },
);
export const Refund = Type.Object({
  refund_order_id: Type.Integer(),
  refund_reference: Type.String(),
  refunded_order_reference: Type.String(),
  total_amount: Type.Number({ description: 'Negative: the amount given back' }),
  fee_amount: Type.Number({ description: 'Negative: the fees given back; 0 when the organiser keeps them (refund_fees false)' }),
  fees_refunded: Type.Boolean(),
  released_seats: Type.Integer(),
  voided_tickets: Type.Integer(),
  ticket_ids: Type.Array(Type.Integer(), { description: 'The tickets this refund covered' }),
  card_refund: Nullable(
    Type.Object({
      provider: Type.String(),
      payment_id: Type.String(),
      reference: Type.String({ description: "The card provider's refund reference (Stripe re_..., sandbox re_sbx_...)" }),
      amount: Type.Number({ description: 'Positive: what went back to the card' }),
    }),
  ),
  email_queued: Type.Boolean({ description: "Whether the buyer's refund e-mail was queued (models A, B and C)" }),
});
export const ReservationCreate = Type.Object(
  {
    items: Type.Array(Type.Object({ session_seat_id: Id, rate_id: Id }, { additionalProperties: false }), { minItems: 1, maxItems: 100 }),
    buyer: Type.Object(
      {
        name: Type.String({ minLength: 1, maxLength: 200 }),
        surname: Type.String({ minLength: 1, maxLength: 200 }),
        email: EmailAddress("buyer's e-mail"),
        phone: Type.Optional(Type.String({ maxLength: 40 })),
      },
      { additionalProperties: false },
    ),
    lang: Type.Optional(Lang),
  },
  { additionalProperties: false },
);
export const Reservation = Type.Object({
  order_id: Type.Integer(),
  order_token: Type.String(),
  reference: Type.String(),
  total_amount: Type.Number(),
  ticket_pdf_urls: Type.Array(Type.String()),
});
