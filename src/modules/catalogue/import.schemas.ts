import { QueueSettingsInput } from '../queue/queue.schemas.js';
import { Type, type Static } from '@fastify/type-provider-typebox';
import { Amount as AmountOf, ChannelSlug } from '../../http/schemas.js';
import { colourSchema, httpUrlSchema } from '../../lib/url-rules.js';
import { MAX_TICKETS_PER_BUYER_LIMIT } from '../orders/hold-caps.service.js';

// The catalogue import document (docs/catalogue-import.md). `key` fields are references local to
// one document: a session names its rates' sector by the sector's key, a channel its events, etc.
// Amounts are decimal numbers in the deployment currency (converted to minor units on import).
// Every number and string has a bound (D47): integers fit the PostgreSQL `integer` columns.

const Key = Type.String({ minLength: 1, maxLength: 100 });
const Name = Type.String({ minLength: 1, maxLength: 300 });
const Translations = Type.Record(Type.String({ pattern: '^[a-z]{2}$' }), Type.String({ minLength: 1, maxLength: 10_000 }), { additionalProperties: false });
const Amount = AmountOf();
const Coordinate = (description?: string) => Type.Number({ minimum: -1_000_000, maximum: 1_000_000, ...(description ? { description } : {}) });

const SeatRow = Type.Object(
  {
    row: Type.String({ minLength: 1, maxLength: 10 }),
    seats: Type.Integer({ minimum: 1, maximum: 1000, description: 'how many seats in this row' }),
    start: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'first seat number, default 1' })),
    x: Coordinate('x of the first seat'),
    y: Coordinate(),
    dx: Type.Optional(Coordinate('distance between seats, default 1')),
  },
  { additionalProperties: false },
);

const Seat = Type.Object(
  { row: Type.String({ minLength: 1, maxLength: 10 }), number: Type.String({ minLength: 1, maxLength: 10 }), x: Coordinate(), y: Coordinate() },
  { additionalProperties: false },
);

const Sector = Type.Object(
  {
    key: Key,
    name: Name,
    numbered: Type.Boolean(),
    capacity: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000, description: 'unnumbered zones only' })),
    rows: Type.Optional(Type.Array(SeatRow, { description: 'numbered sectors: seats generated row by row' })),
    seats: Type.Optional(Type.Array(Seat, { description: 'numbered sectors: seats listed one by one' })),
  },
  { additionalProperties: false },
);

const Fee = Type.Object(
  {
    name: Name,
    kind: Type.Union([Type.Literal('fixed'), Type.Literal('percent')]),
    amount: AmountOf({ description: 'fixed: amount per ticket; percent: percentage of the base price' }),
  },
  { additionalProperties: false },
);

const Rate = Type.Object(
  {
    key: Key,
    name: Name,
    names: Type.Optional(Translations),
    price: Amount,
    sector: Type.Optional(Key),
    meta: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);

const Session = Type.Object(
  {
    key: Key,
    start_datetime: Type.String({ format: 'date-time' }),
    end_datetime: Type.Optional(Type.String({ format: 'date-time' })),
    sales_start_at: Type.Optional(Type.String({ format: 'date-time', description: 'sales window start (D59): cart writes from this instant' })),
    sales_end_at: Type.Optional(Type.String({ format: 'date-time', description: 'sales window end (D59, exclusive); after the start' })),
    max_tickets_per_buyer: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_TICKETS_PER_BUYER_LIMIT, description: 'seats and zone places one buyer may hold in live carts of this session (D44); absent = no session cap' }),
    ),
    queue: Type.Optional(QueueSettingsInput),
    rates: Type.Array(Rate, { minItems: 1 }),
    fees: Type.Optional(Type.Array(Fee)),
  },
  { additionalProperties: false },
);

const Event = Type.Object(
  {
    key: Key,
    organiser: Key,
    venue: Key,
    default_lang: Type.Optional(Type.String({ pattern: '^[a-z]{2}$' })),
    names: Translations,
    descriptions: Type.Optional(Translations),
    image_url: Type.Optional(httpUrlSchema()),
    status: Type.Optional(Type.Union([Type.Literal('draft'), Type.Literal('published')])),
    fees: Type.Optional(Type.Array(Fee)),
    sessions: Type.Array(Session),
  },
  { additionalProperties: false },
);

const Voucher = Type.Object(
  {
    organiser: Key,
    code: Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' }),
    kind: Type.Union([Type.Literal('percent'), Type.Literal('fixed')]),
    value: AmountOf({ exclusiveMinimum: 0, description: 'percent: percentage off; fixed: amount off the order' }),
    valid_from: Type.Optional(Type.String({ format: 'date-time' })),
    valid_until: Type.Optional(Type.String({ format: 'date-time' })),
    max_uses: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
    event: Type.Optional(Key),
    session: Type.Optional(Key),
    rate: Type.Optional(Key),
  },
  { additionalProperties: false },
);

const Channel = Type.Object(
  {
    organiser: Key,
    slug: ChannelSlug,
    name: Name,
    integration_mode: Type.Union([
      Type.Literal('portal_only'),
      Type.Literal('portal_external_payment'),
      Type.Literal('widget_platform_payment'),
      Type.Literal('widget_external_payment'),
    ]),
    checkout_url: Type.Optional(httpUrlSchema("the channel's own checkout page (model B)")),
    website_url: Type.Optional(httpUrlSchema("the partner's own web site: the portal's pages link back to it (model C)")),
    branding: Type.Optional(
      Type.Object(
        {
          name: Type.Optional(Type.String({ maxLength: 300 })),
          logo_url: Type.Optional(httpUrlSchema()),
          primary_color: Type.Optional(colourSchema()),
          accent_color: Type.Optional(colourSchema()),
          font_family: Type.Optional(Type.String({ maxLength: 300 })),
        },
        { additionalProperties: false },
      ),
    ),
    cart_ttl_seconds: Type.Optional(Type.Integer({ minimum: 60, maximum: 86_400 })),
    default_lang: Type.Optional(Type.String({ pattern: '^[a-z]{2}$' })),
    events: Type.Union([Type.Literal('all'), Type.Array(Key)], { description: 'event keys this channel sells, or "all"' }),
    widget_keys: Type.Optional(
      Type.Array(Type.String({ pattern: '^wk_[A-Za-z0-9_]{1,61}$' }), { description: 'fixed keys (demo and tests only)' }),
    ),
    server_keys: Type.Optional(
      Type.Array(Type.String({ pattern: '^sk_[A-Za-z0-9_]{1,61}$' }), {
        description: "fixed server keys (demo and tests only; D43): their tokens may confirm and read the report in models C and D",
      }),
    ),
  },
  { additionalProperties: false },
);

export const CatalogueDocument = Type.Object(
  {
    import_key: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description:
          "this document's own identity: importing a document with the same import_key again updates what the earlier import created (by the document's keys) instead of creating copies; absent = every import creates new records",
      }),
    ),
    organisers: Type.Array(Type.Object({ key: Key, name: Name }, { additionalProperties: false })),
    venues: Type.Array(
      Type.Object(
        {
          key: Key,
          organiser: Key,
          name: Name,
          address: Type.Optional(Type.String({ maxLength: 300 })),
          city: Type.Optional(Type.String({ maxLength: 300 })),
          sectors: Type.Array(Sector, { minItems: 1 }),
        },
        { additionalProperties: false },
      ),
    ),
    events: Type.Array(Event),
    vouchers: Type.Optional(Type.Array(Voucher)),
    channels: Type.Optional(Type.Array(Channel)),
  },
  { additionalProperties: false, $id: 'https://taquilla.dev/schemas/catalogue-import.json', title: 'Taquilla catalogue import' },
);

export type CatalogueDocument = Static<typeof CatalogueDocument>;
