import { Type, type Static, type TProperties, type TSchema } from '@fastify/type-provider-typebox';
import { IdParam, Nullable } from '../../http/schemas.js';

// The two layout formats of D64 (docs/venues.md): Taquilla's own layout document, and pretix's
// published seating-plan format (src/pretix/static/seating/seating-plan.schema.json in the pretix
// repository), written here as TypeBox with the same properties, requirements and closed objects,
// plus the bounds every input has (D47). test/catalogue/pretix-plan.test.ts checks that both
// accept and refuse the same documents as pretix's own schema file.

const Text = (max = 1000) => Type.String({ maxLength: max });
const Coordinate = Type.Number({ minimum: -1_000_000, maximum: 1_000_000 });
const Size = Type.Integer({ minimum: -1_000_000, maximum: 1_000_000 });
const Position = Type.Object({ x: Coordinate, y: Coordinate }, { additionalProperties: false });
const list = <T extends TSchema>(item: T, max: number) => Type.Array(item, { maxItems: max });

/** Most seats one layout may hold (a stadium). */
export const MAX_LAYOUT_SEATS = 100_000;

// ---- pretix's seating plan

const PretixSeat = Type.Object(
  {
    seat_guid: Text(),
    seat_number: Text(),
    uuid: Type.Optional(Text()),
    start_direction: Type.Optional(Type.Union([Text(), Type.Null()])),
    radius: Type.Optional(Size),
    position: Position,
    category: Text(),
  },
  { additionalProperties: false },
);

const PretixRow = Type.Object(
  {
    row_number: Text(),
    row_label: Type.Optional(Type.Union([Text(), Type.Null()])),
    seat_label: Type.Optional(Type.Union([Text(), Type.Null()])),
    uuid: Type.Optional(Text()),
    seats: list(PretixSeat, MAX_LAYOUT_SEATS),
    row_number_position: Type.Optional(Type.Union([Type.Literal('start'), Type.Literal('end'), Type.Literal('both'), Type.Null()])),
    position: Type.Optional(Position),
  },
  { additionalProperties: false },
);

const PretixArea = Type.Object(
  {
    color: Type.Optional(Text()),
    border_color: Type.Optional(Text()),
    rotation: Type.Optional(Coordinate),
    position: Type.Optional(Position),
    uuid: Type.Optional(Text()),
    shape: Type.Optional(Type.Union([Type.Literal('polygon'), Type.Literal('rectangle'), Type.Literal('ellipse'), Type.Literal('circle'), Type.Literal('text')])),
    polygon: Type.Optional(Type.Object({ points: list(Position, 10_000) }, { additionalProperties: false })),
    rectangle: Type.Optional(Type.Object({ width: Size, height: Size }, { additionalProperties: false })),
    ellipse: Type.Optional(Type.Object({ radius: Position }, { additionalProperties: false })),
    circle: Type.Optional(Type.Object({ radius: Size }, { additionalProperties: false })),
    text: Type.Optional(
      Type.Object({ text: Text(), color: Type.Optional(Text()), size: Type.Optional(Size), position: Position }, { additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
);

const PretixZone = Type.Object(
  {
    name: Type.Optional(Text()),
    zone_id: Type.Optional(Text()),
    uuid: Type.Optional(Text()),
    position: Position,
    rows: list(PretixRow, MAX_LAYOUT_SEATS),
    areas: Type.Optional(list(PretixArea, 10_000)),
  },
  { additionalProperties: false },
);

export const PretixPlan = Type.Object(
  {
    name: Text(),
    zones: list(PretixZone, 1000),
    categories: list(Type.Object({ name: Text(), color: Type.Optional(Text()) }, { additionalProperties: false }), 1000),
    size: Type.Object({ width: Size, height: Size }, { additionalProperties: false }),
  },
  { additionalProperties: false },
);
export type PretixPlan = Static<typeof PretixPlan>;
export type PretixZone = Static<typeof PretixZone>;
export type PretixArea = Static<typeof PretixArea>;

// ---- Taquilla's layout document

/**
 * pretix's properties that Taquilla has no meaning for (ids, label templates, the seat radius),
 * kept as they came so that an imported plan exports unchanged.
 */
const PretixExtras = <P extends TProperties>(props: P) =>
  Type.Optional(Type.Object(props, { additionalProperties: false, description: "pretix's own properties, kept for export" }));

const Seat = Type.Object(
  {
    number: Type.String({ minLength: 1, maxLength: 100 }),
    x: Coordinate,
    y: Coordinate,
    category: Type.Optional(Text(300)),
    wheelchair: Type.Optional(Type.Boolean({ description: 'a place for a wheelchair (D61 accessible)' })),
    companion: Type.Optional(Type.Boolean({ description: "a companion's seat beside a wheelchair place" })),
    restricted_view: Type.Optional(Type.Boolean()),
    pretix: PretixExtras({
      seat_guid: Type.Optional(Text()),
      uuid: Type.Optional(Text()),
      start_direction: Type.Optional(Type.Union([Text(), Type.Null()])),
      radius: Type.Optional(Size),
    }),
  },
  { additionalProperties: false, description: 'x and y are relative to the row position' },
);

const Row = Type.Object(
  {
    label: Type.String({ minLength: 1, maxLength: 100 }),
    priority: Type.Optional(Type.Integer({ minimum: -1000, maximum: 1000, description: 'best available offers rows of higher priority first (D61); default 0' })),
    position: Type.Optional(Position),
    seats: list(Seat, MAX_LAYOUT_SEATS),
    pretix: PretixExtras({
      row_label: Type.Optional(Type.Union([Text(), Type.Null()])),
      seat_label: Type.Optional(Type.Union([Text(), Type.Null()])),
      uuid: Type.Optional(Text()),
      row_number_position: Type.Optional(Type.Union([Type.Literal('start'), Type.Literal('end'), Type.Literal('both'), Type.Null()])),
    }),
  },
  { additionalProperties: false, description: 'position is relative to the sector position' },
);

/** A drawing-only element: the stage, an aisle, a label. Its position is relative to its sector's (or the plan's). */
const Shape = Type.Object(
  {
    kind: Type.Union([Type.Literal('rectangle'), Type.Literal('ellipse'), Type.Literal('circle'), Type.Literal('polygon'), Type.Literal('text')]),
    role: Type.Optional(Type.Union([Type.Literal('stage'), Type.Literal('aisle'), Type.Literal('label'), Type.Literal('area')])),
    position: Type.Optional(Position),
    rotation: Type.Optional(Coordinate),
    color: Type.Optional(Text(100)),
    border_color: Type.Optional(Text(100)),
    width: Type.Optional(Size),
    height: Type.Optional(Size),
    radius: Type.Optional(Size),
    radius_xy: Type.Optional(Position),
    points: Type.Optional(list(Position, 10_000)),
    text: Type.Optional(
      Type.Object({ text: Text(), color: Type.Optional(Text(100)), size: Type.Optional(Size), position: Position }, { additionalProperties: false }),
    ),
    pretix: PretixExtras({ uuid: Type.Optional(Text()), no_shape: Type.Optional(Type.Boolean()) }),
  },
  { additionalProperties: false },
);

const Sector = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 300 }),
    numbered: Type.Boolean(),
    capacity: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LAYOUT_SEATS, description: 'unnumbered sectors only' })),
    position: Type.Optional(Position),
    rows: Type.Optional(list(Row, MAX_LAYOUT_SEATS)),
    shapes: Type.Optional(list(Shape, 10_000)),
    pretix: PretixExtras({ zone_id: Type.Optional(Text()), uuid: Type.Optional(Text()), name_absent: Type.Optional(Type.Boolean()) }),
  },
  { additionalProperties: false },
);

export const Layout = Type.Object(
  {
    name: Type.Optional(Text(300)),
    size: Type.Optional(Type.Object({ width: Size, height: Size }, { additionalProperties: false })),
    focal_point: Type.Optional(Type.Union([Position, Type.Null()], { description: 'where the stage is seen from best: best available measures distances to it (D61)' })),
    categories: Type.Optional(list(Type.Object({ name: Text(300), color: Type.Optional(Text(100)) }, { additionalProperties: false }), 1000)),
    sectors: list(Sector, 1000),
    shapes: Type.Optional(list(Shape, 10_000)),
  },
  { additionalProperties: false, title: 'Taquilla layout' },
);
export type Layout = Static<typeof Layout>;
export type LayoutSector = Static<typeof Sector>;
export type LayoutShape = Static<typeof Shape>;

// ---- the admin API

export const VenueCreate = Type.Object(
  {
    organiser_id: Type.Optional(IdParam),
    name: Type.String({ minLength: 1, maxLength: 300 }),
    address: Type.Optional(Type.Union([Type.String({ maxLength: 300 }), Type.Null()])),
    city: Type.Optional(Type.Union([Type.String({ maxLength: 300 }), Type.Null()])),
  },
  { additionalProperties: false },
);
export type VenueCreate = Static<typeof VenueCreate>;

export const VenueUpdate = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 300 })),
    address: Type.Optional(Type.Union([Type.String({ maxLength: 300 }), Type.Null()])),
    city: Type.Optional(Type.Union([Type.String({ maxLength: 300 }), Type.Null()])),
  },
  { additionalProperties: false },
);
export type VenueUpdate = Static<typeof VenueUpdate>;

export const LayoutCreate = Type.Object(
  {
    format: Type.Union([Type.Literal('taquilla'), Type.Literal('pretix')]),
    plan: Type.Object({}, { additionalProperties: true, description: 'a Taquilla layout, or a pretix seating plan (checked against its format)' }),
  },
  { additionalProperties: false },
);
export type LayoutCreate = Static<typeof LayoutCreate>;


export const VenueView = Type.Object({
  id: Type.Integer(),
  organiser_id: Type.Integer(),
  name: Type.String(),
  address: Nullable(Type.String()),
  city: Nullable(Type.String()),
  layout_version: Nullable(Type.Integer({ description: 'the newest layout version; null before the first' })),
  sectors: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String(), numbered: Type.Boolean(), capacity: Type.Integer() }), {
    description: 'the sectors of the newest version',
  }),
  created_at: Type.String({ format: 'date-time' }),
});

export const LayoutSummary = Type.Object({
  version: Type.Integer(),
  seats: Type.Integer(),
  capacity: Type.Integer({ description: 'numbered seats plus unnumbered places' }),
  sessions: Type.Integer({ description: 'sessions using this version' }),
  created_at: Type.String({ format: 'date-time' }),
});

export const LayoutView = Type.Object({
  venue_id: Type.Integer(),
  version: Type.Integer(),
  format: Type.Union([Type.Literal('taquilla'), Type.Literal('pretix')]),
  plan: Type.Unknown({ description: 'the layout in the format asked for: what POST took as `plan` comes back as `plan`' }),
  created_at: Type.String({ format: 'date-time' }),
  sessions_moved: Type.Optional(Type.Array(Type.Integer(), { description: 'on creation: the upcoming sessions moved onto this version' })),
});
