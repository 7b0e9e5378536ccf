import { Type } from '@fastify/type-provider-typebox';
import { Lang } from '../../http/admin-api.js';
import { Amount as AmountOf, IdParam, Int32, Nullable, Timestamp } from '../../http/schemas.js';
import { httpUrlSchema } from '../../lib/url-rules.js';
import { MAX_TICKETS_PER_BUYER_LIMIT } from '../orders/hold-caps.service.js';
import { QueueSettingsInput, QueueSettingsView } from '../queue/queue.schemas.js';

// TypeBox schemas of the catalogue part of the admin API (/api/admin/v1): events, sessions, rates,
// fees and the catalogue import. Amounts are decimal numbers of the deployment currency;
// percentages are percentages (10 = 10 %); timestamps ISO 8601 with an offset.

const Amount = AmountOf();
const Id = IdParam;
const HttpUrl = httpUrlSchema();
// Closed: a key that is not a language is refused by the schema (D47), not met by the service as a non-string.
const Translations = Type.Record(Type.String({ pattern: '^[a-z]{2}$' }), Type.String({ maxLength: 300 }), { additionalProperties: false });
const Descriptions = Type.Record(Type.String({ pattern: '^[a-z]{2}$' }), Type.String({ maxLength: 10_000 }), { additionalProperties: false });

const EventStatus = Type.Union([Type.Literal('draft'), Type.Literal('published'), Type.Literal('archived')]);
const SessionStatus = Type.Union([Type.Literal('draft'), Type.Literal('on_sale'), Type.Literal('closed'), Type.Literal('cancelled')]);
const FeeKind = Type.Union([Type.Literal('fixed'), Type.Literal('percent')]);

export const EventCreate = Type.Object(
  {
    organiser_id: Type.Optional(Id),
    venue_id: Id,
    names: Translations,
    descriptions: Type.Optional(Descriptions),
    default_lang: Type.Optional(Lang),
    image_url: Type.Optional(Nullable(HttpUrl)),
    status: Type.Optional(EventStatus),
  },
  { additionalProperties: false },
);
export const EventUpdate = Type.Object(
  {
    names: Type.Optional(Translations),
    descriptions: Type.Optional(Descriptions),
    default_lang: Type.Optional(Lang),
    image_url: Type.Optional(Nullable(HttpUrl)),
    status: Type.Optional(EventStatus),
  },
  { additionalProperties: false, minProperties: 1 },
);
const Session = Type.Object({
  id: Type.Integer(),
  event_id: Type.Integer(),
  venue_id: Type.Integer(),
  start_datetime: Timestamp,
  end_datetime: Nullable(Timestamp),
  status: Type.String(),
  max_tickets_per_buyer: Nullable(Type.Integer({ description: 'seats and zone places one buyer may hold in live carts of the session (D44); null = no session cap' })),
  sales_start_at: Nullable(Timestamp),
  sales_end_at: Nullable(Timestamp),
  cancelled_at: Nullable(Timestamp),
  queue: Nullable(QueueSettingsView),
});
export const Fee = Type.Object({
  id: Type.Integer(),
  event_id: Nullable(Type.Integer()),
  session_id: Nullable(Type.Integer()),
  name: Type.String(),
  kind: Type.String(),
  amount: Type.Number({ description: 'fixed: amount per ticket; percent: percentage of the base price' }),
});
export const Rate = Type.Object({
  id: Type.Integer(),
  session_id: Type.Integer(),
  sector_id: Nullable(Type.Integer()),
  name: Type.String(),
  names: Type.Record(Type.String(), Type.String()),
  price: Type.Number(),
  meta: Type.Record(Type.String(), Type.Unknown()),
  sort_order: Type.Integer(),
});
export const Event = Type.Object({
  id: Type.Integer(),
  organiser_id: Type.Integer(),
  venue_id: Type.Integer(),
  status: Type.String(),
  default_lang: Type.String(),
  image_url: Nullable(Type.String()),
  names: Type.Record(Type.String(), Type.String()),
  descriptions: Type.Record(Type.String(), Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export const EventDetail = Type.Object({ ...Event.properties, sessions: Type.Array(Session), fees: Type.Array(Fee) });
export const SessionDetail = Type.Object({ ...Session.properties, rates: Type.Array(Rate), fees: Type.Array(Fee) });

export const SessionCreate = Type.Object(
  {
    start_datetime: Timestamp,
    end_datetime: Type.Optional(Nullable(Timestamp)),
    status: Type.Optional(SessionStatus),
    // One schema with a type list, not a union with null: Ajv's type coercion would turn 0 into
    // null in the null branch and silently remove the cap instead of answering 422.
    max_tickets_per_buyer: Type.Optional(
      Type.Unsafe<number | null>({ type: ['integer', 'null'], format: 'int32', minimum: 1, maximum: MAX_TICKETS_PER_BUYER_LIMIT, description: 'hold cap per buyer (D44); null = none' }),
    ),
    // D59: the sales window; outside it every cart write answers 409 not_on_sale. null = open end.
    sales_start_at: Type.Optional(Nullable(Timestamp)),
    sales_end_at: Type.Optional(Nullable(Timestamp)),
    // D60: the waiting room; null removes it.
    queue: Type.Optional(Nullable(QueueSettingsInput)),
  },
  { additionalProperties: false },
);
export const SessionUpdate = Type.Partial(SessionCreate, { additionalProperties: false, minProperties: 1 });

export const SessionCancel = Type.Object(
  { refund: Type.Optional(Type.Boolean({ description: 'refund every completed order of the session (D58), with the buyers\' e-mails' })) },
  { additionalProperties: false },
);
export const SessionCancelResult = Type.Object({
  session_id: Type.Integer(),
  status: Type.Literal('cancelled'),
  newly_cancelled: Type.Boolean({ description: 'false when the session was already cancelled' }),
  cancelled_carts: Type.Integer(),
  refunded_orders: Type.Integer(),
  refund_failures: Type.Array(Type.Object({ reference: Type.String(), code: Type.String(), message: Type.String() })),
});

export const RateCreate = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    names: Type.Optional(Translations),
    price: Amount,
    sector_id: Type.Optional(Nullable(Id)),
    meta: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    sort_order: Type.Optional(Int32({ minimum: 0, maximum: 10_000 })),
  },
  { additionalProperties: false },
);
export const RateUpdate = Type.Partial(RateCreate, { additionalProperties: false, minProperties: 1 });
export const RatesCopy = Type.Object(
  { from_session_id: Int32({ minimum: 1, description: 'The session whose rates are copied (same organiser)' }) },
  { additionalProperties: false },
);
export const RatesCopied = Type.Object({
  added: Type.Array(Rate),
  skipped: Type.Integer({ description: 'Rates of the source whose name this session has already (left alone)' }),
});
export const SessionSeriesCreate = Type.Object(
  {
    start_date: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', maxLength: 10, description: 'The first day (YYYY-MM-DD) in the deployment time zone (TIMEZONE)' }),
    time: Type.String({ pattern: '^\\d{2}:\\d{2}$', maxLength: 5, description: 'The start of every session (HH:MM, 24 h) in the deployment time zone; kept across summer-time changes' }),
    repeat: Type.Union([Type.Literal('daily'), Type.Literal('weekly')]),
    count: Int32({ minimum: 1, description: 'How many sessions, at most 100 at once (422 beyond)' }),
    duration_minutes: Type.Optional(Nullable(Int32({ minimum: 1, maximum: 10_080, description: 'Each session ends this long after its start; null: no end' }))),
    rates_from_session_id: Type.Optional(Nullable(Int32({ minimum: 1, description: "Each new session gets a copy of this session's rates" }))),
    dry_run: Type.Optional(Type.Boolean({ description: 'true: only answer the dates (200), create nothing' })),
  },
  { additionalProperties: false },
);
export const SessionSeries = Type.Object({
  sessions: Type.Array(
    Type.Object({
      id: Nullable(Type.Integer({ description: 'The new session; null when the event had a session at this start already (skipped) or in a dry run' })),
      start_datetime: Timestamp,
      end_datetime: Nullable(Timestamp),
      exists: Type.Boolean(),
      rates: Type.Integer({ description: 'Rates copied onto it' }),
    }),
  ),
  created: Type.Integer(),
  skipped: Type.Integer(),
});

export const FeeCreate = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 200 }), kind: FeeKind, amount: Amount },
  { additionalProperties: false },
);
export const FeeUpdate = Type.Partial(FeeCreate, { additionalProperties: false, minProperties: 1 });

const ImportCounts = Type.Object(
  {
    organisers: Type.Integer(),
    venues: Type.Integer(),
    events: Type.Integer(),
    sessions: Type.Integer(),
    rates: Type.Integer(),
    vouchers: Type.Integer(),
    channels: Type.Integer(),
  },
  { additionalProperties: false },
);
/** What a catalogue import did (docs/catalogue-import.md): the document's records per kind, and what changed (issue 29). */
export const ImportSummary = Type.Object(
  {
    organisers: Type.Integer({ description: "the document's organisers (created, updated or unchanged)" }),
    venues: Type.Integer(),
    seats: Type.Integer({ description: "seats of the document's venue plans" }),
    events: Type.Integer(),
    sessions: Type.Integer(),
    rates: Type.Integer(),
    vouchers: Type.Integer(),
    channels: Type.Integer(),
    changes: Type.Object(
      {
        created: ImportCounts,
        updated: ImportCounts,
        unchanged: ImportCounts,
      },
      { additionalProperties: false, description: 'without an import_key in the document everything is created' },
    ),
    sessions_moved: Type.Integer({ description: "upcoming sessions moved onto a venue's new layout version because the document's plan changed" }),
  },
  { additionalProperties: false },
);
