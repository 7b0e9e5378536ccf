import { Type } from '@fastify/type-provider-typebox';
import { ChannelLangParams, Envelope, IdParam, LangParam, Nullable, SlugParam } from '../../http/schemas.js';

// Response schemas double as the serialiser: a key not listed here never leaves (SPEC Catalogue
// rules 1-2 are enforced by omission as well as by the services).

export { ChannelLangParams };
export const EventParams = Type.Object({ salesChannelSlug: SlugParam, lang: LangParam, eventId: IdParam });
export const SessionParams = Type.Object({ salesChannelSlug: SlugParam, lang: LangParam, eventId: IdParam, sessionId: IdParam });

const DateTime = Type.String({ format: 'date-time', description: 'ISO 8601 with UTC offset' });

const Venue = Type.Object({ id: Type.Integer(), name: Type.String(), city: Nullable(Type.String()) });

const EventHeader = {
  id: Type.Integer(),
  name: Type.String({ description: 'in the requested language, else the event default language' }),
  description: Nullable(Type.String()),
  image_url: Nullable(Type.String()),
  default_lang: Type.String(),
  venue: Venue,
};

/** The sales window and state of a session (D59). */
const SaleFields = {
  sales_start_at: Type.Union([DateTime, Type.Null()], { description: 'cart writes from this instant; null: no window start' }),
  sales_end_at: Type.Union([DateTime, Type.Null()], { description: 'cart writes until this instant (exclusive); null: no window end' }),
  sale_state: Type.Union([Type.Literal('scheduled'), Type.Literal('on_sale'), Type.Literal('ended'), Type.Literal('sold_out')], {
    description: 'scheduled: before sales_start_at; ended: after sales_end_at or once started; sold_out: nothing free',
  }),
};

export const EventListResponse = Envelope(
  Type.Array(
    Type.Object({
      ...EventHeader,
      sessions: Type.Array(Type.Object({ id: Type.Integer(), start_datetime: DateTime, ...SaleFields }), {
        description: 'upcoming sessions on sale',
      }),
    }),
  ),
);

const SessionSummary = Type.Object({
  id: Type.Integer(),
  event_id: Type.Integer(),
  start_datetime: DateTime,
  end_datetime: Nullable(DateTime),
  status: Type.String(),
  capacity: Type.Integer({ description: 'sellable units: numbered seats plus zone places' }),
  available: Type.Integer({ description: 'units free now' }),
  ...SaleFields,
});

export const EventResponse = Envelope(
  Type.Object({
    ...EventHeader,
    fees: Type.Array(
      Type.Object({
        name: Type.String(),
        kind: Type.Union([Type.Literal('fixed'), Type.Literal('percent')]),
        amount: Type.Number({ description: 'fixed: currency units per ticket; percent: percentage of the base price' }),
        session_id: Type.Union([Type.Integer(), Type.Null()], { description: 'null: applies to every session of the event' }),
      }),
    ),
    manual_promotions: Type.Array(Type.Object({})),
    sessions: Type.Array(SessionSummary),
  }),
);

export const SessionListResponse = Envelope(Type.Array(SessionSummary));

const Rate = Type.Object({
  id: Type.Integer({ description: 'rate_id' }),
  name: Type.String(),
  price: Type.Number(),
  meta: Type.Record(Type.String(), Type.Unknown()),
});

/** Documentation of the session detail; its bytes come from the payload cache, not this schema. */
export const SessionDetailResponse = Envelope(
  Type.Object({
    session: Type.Object({
      id: Type.Integer(),
      event_id: Type.Integer(),
      event_name: Type.String(),
      start_datetime: DateTime,
      status: Type.String(),
      ...SaleFields,
    }),
    elements: Type.Object({
      seats: Type.Array(
        Type.Object({
          id: Type.Integer({ description: 'session_seat_id' }),
          sector_id: Type.Integer(),
          row: Type.String(),
          number: Type.String(),
          x: Type.Number(),
          y: Type.Number(),
          status: Type.Union([Type.Literal('available'), Type.Literal('held'), Type.Literal('sold'), Type.Literal('blocked')]),
          rates: Type.Array(Rate),
        }),
      ),
      sectors: Type.Array(
        Type.Object({
          id: Type.Integer({ description: 'sector_id' }),
          name: Type.String(),
          numbered: Type.Boolean(),
          capacity: Type.Integer(),
          available: Type.Integer(),
          rates: Type.Array(Rate),
        }),
      ),
    }),
  }),
);

/** Query of the session detail: `seats=none` leaves the seats out (issue 29: large venues read them from the layout and availability routes). */
export const SessionDetailQuery = Type.Object(
  {
    seats: Type.Optional(
      Type.Union([Type.Literal('all'), Type.Literal('none')], {
        description:
          '`all` (the default): every numbered seat with its status and rates. `none`: `elements.seats` is empty; the seat layout comes from `.../layout` (kept by the client) and the statuses from `.../availability`',
      }),
    ),
  },
  { additionalProperties: false },
);

/** The session's seat layout in columns: seat i is `id[i]`, `sector_id[i]`, `row[i]`, `number[i]`, `x[i]`, `y[i]`. */
/** Bounds of seats' centres, in layout units. */
const LayoutBounds = { min_x: Type.Number(), min_y: Type.Number(), max_x: Type.Number(), max_y: Type.Number() };

export const SessionLayoutResponse = Envelope(
  Type.Object({
    session_id: Type.Integer(),
    seats: Type.Object(
      {
        id: Type.Array(Type.Integer(), { description: 'session_seat_id of each seat' }),
        sector_id: Type.Array(Type.Integer()),
        row: Type.Array(Type.String()),
        number: Type.Array(Type.String()),
        x: Type.Array(Type.Number()),
        y: Type.Array(Type.Number()),
      },
      {
        description:
          'The numbered seats in columns of equal length, in reading order: sector by sector as the session detail lists its sectors, then by y, then by x; ' +
          'their rates are their sector\'s (session detail `sectors[].rates`)',
      },
    ),
    sectors: Type.Array(
      Type.Object({
        id: Type.Integer({ description: 'sector_id' }),
        first: Type.Integer({ description: 'Index of its first seat in the columns' }),
        count: Type.Integer({ description: 'Its seats are first .. first + count - 1' }),
        ...LayoutBounds,
      }),
      { description: 'The sectors with seats, in the order of the columns, with their seats\' range and bounds' },
    ),
    rows: Type.Object(
      {
        sector_id: Type.Array(Type.Integer()),
        row: Type.Array(Type.String()),
        y: Type.Array(Type.Number({ description: 'The mean y of its seats' })),
        min_x: Type.Array(Type.Number()),
        max_x: Type.Array(Type.Number()),
      },
      { description: 'Every row of every sector in columns, sorted by y, then by name: where it starts and ends (a map draws the row name there)' },
    ),
    bounds: Type.Union([Type.Object(LayoutBounds), Type.Null()], { description: 'The bounds of all the seats; null without seats' }),
    version: Type.String({ description: 'Names this layout in this order: the availability\'s `form=index` indexes the columns of the version it names' }),
  }),
);

export const MapsResponse = Envelope(
  Type.Array(
    Type.Object({
      id: Type.Integer({ description: 'sector_id' }),
      name: Type.String(),
      numbered: Type.Boolean(),
      capacity: Type.Integer(),
      seats: Type.Array(
        Type.Object({
          id: Type.Integer({ description: 'seat id (the layout, the same for every session)' }),
          row: Type.String(),
          number: Type.String(),
          x: Type.Number(),
          y: Type.Number(),
        }),
      ),
    }),
  ),
);

/** A numbered seat of a session (`id` = session_seat_id) with its place on the map. */
export interface LayoutUnitRow {
  id: number;
  sector_id: number;
  row: string;
  number: string;
  x: number;
  y: number;
}
