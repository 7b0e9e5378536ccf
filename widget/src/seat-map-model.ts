import { rowLinesOfColumns, stageSide, type LayoutSeat, type RowLine, type StageSide } from '../../src/lib/seat-layout.js';
import type { MapSector, Rate, SessionDetail, SessionLayout } from './types.js';

type SeatStatus = 'available' | 'held' | 'sold' | 'blocked';

/** A seat as the map shows it: where it is (sector, row, x, y), its label, its state and its rates. Made on demand from the columns. */
export interface SeatView extends LayoutSeat {
  id: number;
  number: string;
  status: SeatStatus;
  rates: Rate[];
}

export interface SectorView {
  id: number;
  name: string;
  numbered: boolean;
  capacity: number;
  available: number;
  rates: Rate[];
  /** Its seats are the map's seats first .. first + count - 1 (in reading order). */
  first: number;
  count: number;
}

export interface SeatMap {
  sectors: SectorView[];
  /** The numbered sectors' seats, in columns, sector by sector in reading order. */
  seats: Seats;
  /** What the map shows: the seats, their row names, sector names and the stage, in map units. */
  box: Box;
  /** Every row with where it starts (its name is drawn there). */
  rows: RowLine[];
  /** The stage band, on the side of the front rows (src/lib/seat-layout.ts). */
  stage: { side: StageSide } & Box;
  /** Each numbered sector's seats' bounds, for "zoom to sector". */
  sectorBoxes: Map<number, Box>;
}

type Box = { x: number; y: number; w: number; h: number };

/** Room left of the seats for the row names, and above a sector for its name, in map units. */
const LABEL_ROOM = 2;
const STAGE_GAP = 1.6;
const STAGE_DEPTH = 1.4;

/** The statuses of Seats.status by code: 0 is available (a fresh Uint8Array is all free). */
const STATUSES: readonly SeatStatus[] = ['available', 'held', 'sold', 'blocked'];

function statusCode(status: string): number {
  if (status === 'available' || status === 'free') return 0;
  if (status === 'held' || status === 'reserved' || status === 'in_cart') return 1;
  if (status === 'sold') return 2;
  return 3;
}

/** Where each seat id is in the columns: a table over the ids' range when it is dense, else a Map. */
type IdIndex = { min: number; table: Int32Array } | Map<number, number>;

/**
 * How Seats finds an id, shared by the copies withStatus makes: the index, built at its first use
 * (a click, the cart, a live update: not before the first paint), and the last seat made by `at`,
 * which the action on a seat just found by position (a tap, the tab stop) asks for by id.
 */
interface IdLookup {
  index: IdIndex | null;
  last: number;
}

function idIndex(ids: Float64Array): IdIndex {
  let min = Infinity;
  let max = -Infinity;
  let integers = true;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    if (id < min) min = id;
    if (id > max) max = id;
    if (id !== Math.floor(id)) integers = false;
  }
  if (ids.length && integers && max - min <= 4 * ids.length + 1024) {
    const table = new Int32Array(max - min + 1).fill(-1);
    for (let i = 0; i < ids.length; i++) table[ids[i]! - min] = i;
    return { min, table };
  }
  const map = new Map<number, number>();
  for (let i = 0; i < ids.length; i++) map.set(ids[i]!, i);
  return map;
}

/**
 * The seats of a map in columns (issue 29): typed arrays and the layout's own arrays, no object
 * per seat, so that a 20,000-seat map is built, painted and hit-tested without allocating 20,000
 * objects first. `get`, `has`, `values` and `size` read like the Map of seats by id they replace;
 * a SeatView is made when one is asked for (a click, the tab stop, the cart).
 */
class Seats {
  readonly size: number;
  constructor(
    readonly ids: Float64Array,
    readonly sectorIds: Float64Array,
    readonly xs: Float64Array,
    readonly ys: Float64Array,
    readonly rowNames: ArrayLike<string | number>,
    readonly numbers: ArrayLike<string | number>,
    /** Each seat's rates: its own in the full detail, else its sector's. */
    readonly rates: readonly Rate[][],
    /** Each seat's status, an index of STATUSES. */
    readonly status: Uint8Array,
    private readonly lookup: IdLookup = { index: null, last: -1 },
  ) {
    this.size = ids.length;
  }

  /** Builds the id index now if it is not built (in idle time after the first paint). */
  prepare() {
    this.lookup.index ??= idIndex(this.ids);
  }

  /** The id of the seat at index `i`, remembered for the next indexOf. */
  idAt(i: number): number {
    this.lookup.last = i;
    return this.ids[i]!;
  }

  /** The index of seat `id` in the columns, or -1. */
  indexOf(id: number): number {
    const lookup = this.lookup;
    if (lookup.last >= 0 && this.ids[lookup.last] === id) return lookup.last;
    const index = (lookup.index ??= idIndex(this.ids));
    if (index instanceof Map) return index.get(id) ?? -1;
    const i = id - index.min;
    return i >= 0 && i < index.table.length ? (index.table[i] ?? -1) : -1;
  }

  has(id: number): boolean {
    return this.indexOf(id) >= 0;
  }

  get(id: number): SeatView | undefined {
    const i = this.indexOf(id);
    return i < 0 ? undefined : this.at(i);
  }

  /** The seat at index `i` of the columns. */
  at(i: number): SeatView {
    return {
      id: this.idAt(i),
      sectorId: this.sectorIds[i]!,
      row: String(this.rowNames[i]),
      number: String(this.numbers[i]),
      x: this.xs[i]!,
      y: this.ys[i]!,
      status: STATUSES[this.status[i]!]!,
      rates: this.rates[i]!,
    };
  }

  *values(): IterableIterator<SeatView> {
    for (let i = 0; i < this.size; i++) yield this.at(i);
  }

  /** The same seats with other statuses. */
  withStatus(status: Uint8Array): Seats {
    return new Seats(this.ids, this.sectorIds, this.xs, this.ys, this.rowNames, this.numbers, this.rates, status, this.lookup);
  }
}

/** The seats of one sector, as objects (the SVG layer of a small map, tests). */
export function sectorSeats(map: SeatMap, sector: SectorView): SeatView[] {
  const out: SeatView[] = [];
  for (let i = sector.first; i < sector.first + sector.count; i++) out.push(map.seats.at(i));
  return out;
}

/** The sectors of a session detail, seats still to add; `available` from the availability's zones where it has them. */
function sectorsOf(detail: SessionDetail, maps: MapSector[] | null, zones?: Map<number, number>) {
  const layoutBySector = new Map<number, MapSector>();
  for (const sector of maps ?? []) layoutBySector.set(sector.id, sector);
  const sectors: SectorView[] = detail.elements.sectors.map((s) => ({
    id: s.id,
    name: s.name ?? layoutBySector.get(s.id)?.name ?? `#${s.id}`,
    numbered: s.numbered,
    capacity: s.capacity ?? 0,
    available: zones?.get(s.id) ?? s.available ?? 0,
    rates: s.rates ?? [],
    first: 0,
    count: 0,
  }));
  const byId = new Map(sectors.map((s) => [s.id, s]));
  /** The sector of a seat; one the detail does not list is added, numbered, without rates. */
  const sectorOf = (id: number): SectorView => {
    let sector = byId.get(id);
    if (!sector) {
      sector = { id, name: layoutBySector.get(id)?.name ?? `#${id}`, numbered: true, capacity: 0, available: 0, rates: [], first: 0, count: 0 };
      byId.set(id, sector);
      sectors.push(sector);
    }
    return sector;
  };
  return { sectors, sectorOf };
}

/** The seats as they come (the layout's columns, or the detail's seats put in columns), before the reading order. */
interface RawColumns {
  id: ArrayLike<number>;
  sector_id: ArrayLike<number>;
  row: ArrayLike<string | number>;
  number: ArrayLike<string | number>;
  x: ArrayLike<number>;
  y: ArrayLike<number>;
  /** A seat's own rates (the full detail), where it has any. */
  rates?: (Rate[] | undefined)[];
}

/**
 * The map from its sectors and raw seat columns: the seats in reading order (sector by sector as
 * the sectors are listed, then row by row, left to right: keyboard navigation's natural sequence),
 * their statuses from `statusOf`, bounds, rows and stage. The layout comes in that order already:
 * then it is checked in one pass and kept, else sorted once.
 */
function assemble(sectors: SectorView[], sectorOf: (id: number) => SectorView, raw: RawColumns, statusOf: (seats: Seats, order: number[] | null) => Uint8Array): SeatMap {
  const n = raw.id.length;
  const rank = new Int32Array(n);
  const xs = new Float64Array(n);
  const ys = new Float64Array(n);
  let sector: SectorView | null = null;
  let sectorIndex = 0;
  let ordered = true;
  for (let i = 0; i < n; i++) {
    const sectorId = raw.sector_id[i]!;
    // The layout lists a sector's seats together: one look-up per sector, not per seat.
    if (sector?.id !== sectorId) {
      sector = sectorOf(sectorId);
      sectorIndex = sectors.indexOf(sector);
    }
    rank[i] = sectorIndex;
    const x = raw.x[i]!;
    const y = raw.y[i]!;
    xs[i] = Number.isFinite(x) ? x : 0;
    ys[i] = Number.isFinite(y) ? y : 0;
    if (i > 0 && ordered) ordered = rank[i - 1]! < rank[i]! || (rank[i - 1] === rank[i] && (ys[i - 1]! < ys[i]! || (ys[i - 1] === ys[i] && xs[i - 1]! <= xs[i]!)));
  }
  const order = ordered ? null : Array.from({ length: n }, (_, i) => i).sort((a, b) => rank[a]! - rank[b]! || ys[a]! - ys[b]! || xs[a]! - xs[b]!);
  const pick = <T,>(column: ArrayLike<T>): ArrayLike<T> => (order ? order.map((i) => column[i]!) : column);
  // The typed array's constructor copies a plain array natively (Float64Array.from iterates it).
  const floats = (column: ArrayLike<number>) => (order ? Float64Array.from(order, (i) => column[i]!) : new Float64Array(column));
  const sectorRank = order ? Int32Array.from(order, (i) => rank[i]!) : rank;
  const rates: Rate[][] = new Array<Rate[]>(n);
  for (let i = 0, k = 0; k < sectors.length; k++) {
    const s = sectors[k]!;
    s.first = i;
    while (i < n && sectorRank[i] === k) i++;
    s.count = i - s.first;
    rates.fill(s.rates, s.first, i);
  }
  if (raw.rates) {
    const own = pick(raw.rates);
    for (let i = 0; i < n; i++) if (own[i]?.length) rates[i] = own[i]!;
  }
  const columns = new Seats(floats(raw.id), floats(raw.sector_id), order ? floats(xs) : xs, order ? floats(ys) : ys, pick(raw.row), pick(raw.number), rates, new Uint8Array(n));
  const seats = columns.withStatus(statusOf(columns, order));

  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  const X = seats.xs;
  const Y = seats.ys;
  for (let i = 0; i < n; i++) {
    if (X[i]! < minX) minX = X[i]!;
    if (X[i]! > maxX) maxX = X[i]!;
    if (Y[i]! < minY) minY = Y[i]!;
    if (Y[i]! > maxY) maxY = Y[i]!;
  }
  if (n === 0) {
    minX = minY = 0;
    maxX = maxY = 1;
  }
  const sectorBoxes = new Map<number, Box>();
  for (const s of sectors) {
    if (s.count === 0) continue;
    let x0 = Infinity;
    let x1 = -Infinity;
    for (let i = s.first; i < s.first + s.count; i++) {
      if (X[i]! < x0) x0 = X[i]!;
      if (X[i]! > x1) x1 = X[i]!;
    }
    const y0 = Y[s.first]!;
    const y1 = Y[s.first + s.count - 1]!;
    sectorBoxes.set(s.id, sectorBox(x0, y0, x1, y1));
  }
  const rows = rowLinesOfColumns({ sectorId: seats.sectorIds, row: seats.rowNames, x: X, y: Y });
  return finish(sectors, seats, rows, sectorBoxes, { min_x: minX, min_y: minY, max_x: maxX, max_y: maxY });
}

type Bounds = { min_x: number; min_y: number; max_x: number; max_y: number };

/** The box "zoom to sector" shows: its seats' bounds with the room of its row names and name. */
const sectorBox = (x0: number, y0: number, x1: number, y1: number): Box => ({ x: x0 - LABEL_ROOM, y: y0 - LABEL_ROOM, w: x1 - x0 + LABEL_ROOM + 1, h: y1 - y0 + LABEL_ROOM + 1 });

/** The map of seats in reading order with their rows and bounds: the stage and the box around it all. */
function finish(sectors: SectorView[], seats: Seats, rows: RowLine[], sectorBoxes: Map<number, Box>, { min_x: minX, min_y: minY, max_x: maxX, max_y: maxY }: Bounds): SeatMap {
  const side = stageSide(rows);
  const stageY = side === 'top' ? minY - LABEL_ROOM - STAGE_GAP - STAGE_DEPTH : maxY + STAGE_GAP;
  const stage = { side, x: minX, y: stageY, w: Math.max(1, maxX - minX), h: STAGE_DEPTH };
  const top = Math.min(minY - LABEL_ROOM, stage.y) - 0.5;
  const bottom = Math.max(maxY + 1, stage.y + stage.h + 0.5);
  return { sectors, seats, rows, stage, sectorBoxes, box: { x: minX - LABEL_ROOM - 0.5, y: top, w: maxX - minX + LABEL_ROOM + 1.5, h: bottom - top } };
}

/** Seats with status code 0 (available) among indices from .. to - 1. */
function countFree(status: Uint8Array, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (status[i] === 0) n++;
  return n;
}

/**
 * The map the widget draws: the session detail gives every seat's status and rates (D34); the maps
 * endpoint gives sector names and, where the detail lacks them, seat coordinates.
 */
export function buildSeatMap(detail: SessionDetail, maps: MapSector[] | null): SeatMap {
  const layoutByKey = new Map<string, { x: number; y: number }>();
  for (const sector of maps ?? []) {
    for (const s of sector.seats ?? []) layoutByKey.set(`${sector.id}:${s.row}:${s.number}`, s);
  }
  const { sectors, sectorOf } = sectorsOf(detail, maps);
  const list = detail.elements.seats;
  // Runs once per load over thousands of seats: no per-seat string keys unless the maps are needed.
  const withLayout = layoutByKey.size > 0;
  const place = (raw: (typeof list)[number]) => {
    if (Number.isFinite(raw.x) && Number.isFinite(raw.y)) return raw;
    const layout = withLayout ? layoutByKey.get(`${raw.sector_id}:${raw.row}:${raw.number}`) : undefined;
    return { x: Number.isFinite(raw.x) ? raw.x : (layout?.x ?? 0), y: Number.isFinite(raw.y) ? raw.y : (layout?.y ?? 0) };
  };
  const places = list.map(place);
  const raw: RawColumns = {
    id: list.map((s) => s.id),
    sector_id: list.map((s) => s.sector_id),
    row: list.map((s) => s.row),
    number: list.map((s) => s.number),
    x: places.map((p) => p.x),
    y: places.map((p) => p.y),
    rates: list.map((s) => s.rates),
  };
  return assemble(sectors, sectorOf, raw, (seats) => {
    const status = new Uint8Array(seats.size);
    for (const s of list) status[seats.indexOf(s.id)] = statusCode(s.status);
    return status;
  });
}

/**
 * The same map from the session's `seats=none` detail, the layout's columns and an availability
 * snapshot (issue 29), without the full detail's form in between: a seat is available unless the
 * snapshot lists it, takes its sector's rates (as in the full form), and a zone its free places
 * from the snapshot. The layout's arrays are the map's columns. A layout in reading order with its
 * sectors' ranges, rows and bounds (the service computes them once per layout) and a snapshot by
 * index into it (`form=index`) make the map without a pass over the seats in script: no ordering,
 * bounds or rows to work out, no id to look up.
 */
export function seatMapFromLayout(detail: SessionDetail, layout: LayoutAnswer, snapshot: AvailabilityBody): SeatMap {
  const zones = new Map((snapshot.zones ?? []).map((z) => [z.sector_id, z.available]));
  const { sectors, sectorOf } = sectorsOf(detail, null, zones);
  const byIndex = snapshot.index_by_status && snapshot.layout === layout.version ? snapshot.index_by_status : null;
  const ready = inReadingOrder(sectors, sectorOf, layout, (seats) =>
    byIndex ? statusesAt(new Uint8Array(seats.size), byIndex) : statusesAfter(seats, new Uint8Array(seats.size), snapshot.seats_by_status),
  );
  if (ready) return ready;
  return assemble(sectors, sectorOf, layout.seats, (seats, order) => {
    const status = new Uint8Array(seats.size);
    if (!byIndex) return statusesAfter(seats, status, snapshot.seats_by_status);
    // Indices into the columns as they came: written before the reading order moves them.
    statusesAt(status, byIndex);
    return order ? Uint8Array.from(order, (i) => status[i]!) : status;
  });
}

/**
 * The map of a layout that comes in reading order with its sectors' ranges, rows and bounds; null
 * when it does not (an older service), or its sectors are not in the detail's order.
 */
function inReadingOrder(sectors: SectorView[], sectorOf: (id: number) => SectorView, layout: LayoutAnswer, statusOf: (seats: Seats) => Uint8Array): SeatMap | null {
  const { seats: raw, sectors: ranges, rows, bounds } = layout;
  const n = raw.id.length;
  if (!ranges || !rows || bounds === undefined || (n > 0 && !bounds)) return null;
  let last = -1;
  let next = 0;
  for (const range of ranges) {
    const k = sectors.indexOf(sectorOf(range.id));
    if (k <= last || range.first !== next) return null;
    last = k;
    next += range.count;
  }
  if (next !== n) return null;
  const rates = new Array<Rate[]>(n);
  const sectorBoxes = new Map<number, Box>();
  for (const range of ranges) {
    const sector = sectorOf(range.id);
    sector.first = range.first;
    sector.count = range.count;
    rates.fill(sector.rates, range.first, range.first + range.count);
    sectorBoxes.set(range.id, sectorBox(range.min_x, range.min_y, range.max_x, range.max_y));
  }
  // A sector without seats starts where the seats of the one before it end (as assemble says).
  for (let k = 0, end = 0; k < sectors.length; k++) {
    const sector = sectors[k]!;
    if (sector.count) end = sector.first + sector.count;
    else sector.first = end;
  }
  const columns = new Seats(new Float64Array(raw.id), new Float64Array(raw.sector_id), new Float64Array(raw.x), new Float64Array(raw.y), raw.row, raw.number, rates, new Uint8Array(n));
  const seats = columns.withStatus(statusOf(columns));
  const lines: RowLine[] = rows.row.map((row, i) => ({ sectorId: rows.sector_id[i]!, row, y: rows.y[i]!, minX: rows.min_x[i]!, maxX: rows.max_x[i]! }));
  return finish(sectors, seats, lines, sectorBoxes, bounds ?? { min_x: 0, min_y: 0, max_x: 1, max_y: 1 });
}

/** The layout route's answer: its seats' columns, and the rest where the service is recent enough to send it. */
type LayoutAnswer = Pick<SessionLayout, 'seats'> & Partial<SessionLayout>;

/** `status` with the seats of an availability answer by index written in (indices out of range are skipped). */
function statusesAt(status: Uint8Array, changed: Partial<Record<SeatStatus, number[]>>): Uint8Array {
  STATUSES.forEach((name, code) => {
    for (const i of changed[name] ?? []) if (i >= 0 && i < status.length) status[i] = code;
  });
  return status;
}

/** `status` with the seats of an availability answer written in (seats the map does not have are skipped). */
function statusesAfter(seats: Seats, status: Uint8Array, changed: AvailabilityBody['seats_by_status'] | undefined): Uint8Array {
  STATUSES.forEach((name, code) => {
    for (const id of changed?.[name] ?? []) {
      const i = seats.indexOf(id);
      if (i >= 0) status[i] = code;
    }
  });
  return status;
}

/** Map units per CSS pixel so that a free seat (0.72 units wide) is at least 24 px: WCAG 2.2 2.5.8. */
export const MIN_PX_PER_UNIT = 34;

/**
 * The viewBox that shows a sector on a map of `width` x `height` px: the whole sector if its seats
 * are big enough to touch that way, else the part from its front row and row names on, at the
 * touch size (the rest is a pan away). Same aspect as the element, so what is set is what shows.
 */
export function sectorView(map: SeatMap, sectorId: number, width: number, height: number): Box | null {
  const b = map.sectorBoxes.get(sectorId);
  if (!b || width <= 0 || height <= 0) return null;
  const fit = Math.min(width / b.w, height / b.h);
  const scale = Math.max(fit, MIN_PX_PER_UNIT);
  const w = width / scale;
  const h = height / scale;
  const x = fit >= MIN_PX_PER_UNIT ? b.x - (w - b.w) / 2 : b.x;
  const fromBottom = map.stage.side === 'bottom';
  const y = fit >= MIN_PX_PER_UNIT ? b.y - (h - b.h) / 2 : fromBottom ? b.y + b.h - h : b.y;
  return { x, y, w, h };
}

/** The last answer of freeBySector: the map and the waiting-list form ask for the same one in a render. */
let lastFree: { map: SeatMap; mine: Set<number>; out: Map<number, number> } | null = null;

/** Free places of each sector now: the seats free and not in this cart (they follow the cart). Read-only: shared between callers. */
export function freeBySector(map: SeatMap, mine: Set<number>): Map<number, number> {
  if (lastFree && lastFree.map === map && lastFree.mine === mine) return lastFree.out;
  const out = new Map<number, number>();
  const { seats } = map;
  for (const sector of map.sectors) {
    if (!sector.numbered || sector.count === 0) {
      out.set(sector.id, sector.available);
      continue;
    }
    let n = countFree(seats.status, sector.first, sector.first + sector.count);
    for (const id of mine) {
      const i = seats.indexOf(id);
      if (i >= sector.first && i < sector.first + sector.count && seats.status[i] === 0) n--;
    }
    out.set(sector.id, n);
  }
  lastFree = { map, mine, out };
  return out;
}

export type Direction = 'left' | 'right' | 'up' | 'down';

/**
 * The seat the keyboard moves to from `from`: left and right go to the neighbour on the same row,
 * up and down to the closest seat on the nearest row above or below (across sectors).
 */
export function neighbour(map: SeatMap, from: SeatView, direction: Direction): SeatView | null {
  const { ids, xs, ys, size } = map.seats;
  let best = -1;
  let bestScore = Infinity;
  for (let i = 0; i < size; i++) {
    if (ids[i] === from.id) continue;
    const dx = xs[i]! - from.x;
    const dy = ys[i]! - from.y;
    let score: number;
    if (direction === 'left' || direction === 'right') {
      if (Math.abs(dy) > 1e-6) continue;
      if (direction === 'left' ? dx >= 0 : dx <= 0) continue;
      score = Math.abs(dx);
    } else {
      if (direction === 'up' ? dy >= -1e-6 : dy <= 1e-6) continue;
      // Nearest row first, then nearest column.
      score = Math.abs(dy) * 10_000 + Math.abs(dx);
    }
    if (score < bestScore) {
      bestScore = score;
      best = i;
    }
  }
  return best < 0 ? null : map.seats.at(best);
}

/** Zooms a viewBox by `factor` (< 1 zooms in) around the point (cx, cy), within sane limits. */
export function zoomBox(
  box: { x: number; y: number; w: number; h: number },
  full: { w: number; h: number },
  factor: number,
  cx = box.x + box.w / 2,
  cy = box.y + box.h / 2,
) {
  const w = Math.min(full.w * 1.5, Math.max(full.w / 40, box.w * factor));
  const f = w / box.w;
  const h = box.h * f;
  return { x: cx - (cx - box.x) * f, y: cy - (cy - box.y) * f, w, h };
}

/**
 * An answer of the live map (D62, `GET .../availability?form=ids`): a snapshot of the seats that
 * are not free, or the seats that changed since a cursor, their ids under their status.
 */
export interface AvailabilityBody {
  cursor: string;
  snapshot: boolean;
  seats_by_status?: Partial<Record<SeatStatus, number[]>>;
  /** `form=index`: the same seats as indices into the columns of the layout of version `layout`. */
  index_by_status?: Partial<Record<SeatStatus, number[]>>;
  layout?: string;
  zones?: { sector_id: number; available: number }[];
}

/**
 * The map after a live-map answer: new statuses (the seat layers redraw the seats whose state
 * changed), the same columns; the same map when nothing changed.
 */
export function applyAvailability(map: SeatMap, body: AvailabilityBody): SeatMap {
  const before = map.seats.status;
  const status = statusesAfter(map.seats, body.snapshot ? new Uint8Array(before.length) : before.slice(), body.seats_by_status);
  let changed = false;
  for (let i = 0; i < status.length && !changed; i++) changed = status[i] !== before[i];
  const seats = changed ? map.seats.withStatus(status) : map.seats;
  const zones = new Map((body.zones ?? []).map((z) => [z.sector_id, z.available]));
  let zoneChanged = false;
  const sectors = map.sectors.map((sector) => {
    if (!sector.numbered) {
      const available = zones.get(sector.id);
      if (available === undefined || available === sector.available) return sector;
      zoneChanged = true;
      return { ...sector, available };
    }
    if (!changed) return sector;
    return { ...sector, available: countFree(status, sector.first, sector.first + sector.count) };
  });
  return changed || zoneChanged ? { ...map, sectors, seats } : map;
}
