import { rowLines, stageSide, type LayoutSeat, type RowLine, type StageSide } from '../../src/lib/seat-layout.js';
import type { MapSector, Rate, SessionDetail, SessionLayout } from './types.js';

type SeatStatus = 'available' | 'held' | 'sold' | 'blocked';

/** A seat as the map draws it: where it is (sector, row, x, y), its label, its state and its rates. */
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
  seats: SeatView[];
}

export interface SeatMap {
  sectors: SectorView[];
  /** Numbered sectors' seats by session_seat_id. */
  seats: Map<number, SeatView>;
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

function normaliseStatus(status: string): SeatStatus {
  if (status === 'available' || status === 'free') return 'available';
  if (status === 'held' || status === 'reserved' || status === 'in_cart') return 'held';
  if (status === 'sold') return 'sold';
  return 'blocked';
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
    seats: [],
  }));
  const byId = new Map(sectors.map((s) => [s.id, s]));
  /** The sector of a seat; one the detail does not list is added, numbered, without rates. */
  const sectorOf = (id: number): SectorView => {
    let sector = byId.get(id);
    if (!sector) {
      sector = { id, name: layoutBySector.get(id)?.name ?? `#${id}`, numbered: true, capacity: 0, available: 0, rates: [], seats: [] };
      byId.set(id, sector);
      sectors.push(sector);
    }
    return sector;
  };
  return { sectors, sectorOf };
}

/** The map from its sectors and seats (each already in its sector's list): bounds, reading order, rows, stage. */
function assemble(sectors: SectorView[], seats: Map<number, SeatView>): SeatMap {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const { x, y } of seats.values()) {
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
  }
  if (seats.size === 0) {
    minX = minY = 0;
    maxX = maxY = 1;
  }
  // Reading order (row by row, left to right) gives keyboard navigation a natural sequence.
  const sectorBoxes = new Map<number, Box>();
  for (const sector of sectors) {
    sector.seats.sort((a, b) => a.y - b.y || a.x - b.x);
    if (sector.seats.length === 0) continue;
    let x0 = Infinity;
    let x1 = -Infinity;
    for (const seat of sector.seats) {
      if (seat.x < x0) x0 = seat.x;
      if (seat.x > x1) x1 = seat.x;
    }
    const y0 = sector.seats[0]!.y;
    const y1 = sector.seats[sector.seats.length - 1]!.y;
    sectorBoxes.set(sector.id, { x: x0 - LABEL_ROOM, y: y0 - LABEL_ROOM, w: x1 - x0 + LABEL_ROOM + 1, h: y1 - y0 + LABEL_ROOM + 1 });
  }
  const rows = rowLines(seats.values());
  const side = stageSide(rows);
  const stageY = side === 'top' ? minY - LABEL_ROOM - STAGE_GAP - STAGE_DEPTH : maxY + STAGE_GAP;
  const stage = { side, x: minX, y: stageY, w: Math.max(1, maxX - minX), h: STAGE_DEPTH };
  const top = Math.min(minY - LABEL_ROOM, stage.y) - 0.5;
  const bottom = Math.max(maxY + 1, stage.y + stage.h + 0.5);
  return { sectors, seats, rows, stage, sectorBoxes, box: { x: minX - LABEL_ROOM - 0.5, y: top, w: maxX - minX + LABEL_ROOM + 1.5, h: bottom - top } };
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
  const seats = new Map<number, SeatView>();
  // Runs once per load over thousands of seats: no per-seat string keys unless the maps are needed.
  const withLayout = layoutByKey.size > 0;
  for (const raw of detail.elements.seats) {
    let x = raw.x;
    let y = raw.y;
    if (!Number.isFinite(x) || !Number.isFinite(y)) {
      const layout = withLayout ? layoutByKey.get(`${raw.sector_id}:${raw.row}:${raw.number}`) : undefined;
      x = Number.isFinite(x) ? x : (layout?.x ?? 0);
      y = Number.isFinite(y) ? y : (layout?.y ?? 0);
    }
    const sector = sectorOf(raw.sector_id);
    const seat: SeatView = {
      id: raw.id,
      sectorId: raw.sector_id,
      row: String(raw.row),
      number: String(raw.number),
      x,
      y,
      status: normaliseStatus(raw.status),
      rates: raw.rates?.length ? raw.rates : sector.rates,
    };
    sector.seats.push(seat);
    seats.set(seat.id, seat);
  }
  return assemble(sectors, seats);
}

/**
 * The same map from the session's `seats=none` detail, the layout's columns and an availability
 * snapshot (issue 29), without the full detail's form in between: a seat is available unless the
 * snapshot lists it, takes its sector's rates (as in the full form), and a zone its free places
 * from the snapshot. One object per seat, made straight from the columns.
 */
export function seatMapFromLayout(detail: SessionDetail, layout: SessionLayout, snapshot: AvailabilityBody): SeatMap {
  const status = new Map<number, SeatStatus>();
  for (const c of snapshot.changes) status.set(c.session_seat_id, normaliseStatus(c.status));
  const zones = new Map((snapshot.zones ?? []).map((z) => [z.sector_id, z.available]));
  const { sectors, sectorOf } = sectorsOf(detail, null, zones);
  const c = layout.seats;
  const seats = new Map<number, SeatView>();
  let sector: SectorView | null = null;
  for (let i = 0; i < c.id.length; i++) {
    const id = c.id[i]!;
    const sectorId = c.sector_id[i]!;
    // The layout lists a sector's seats together: one look-up per sector, not per seat.
    if (sector?.id !== sectorId) sector = sectorOf(sectorId);
    const x = c.x[i]!;
    const y = c.y[i]!;
    const seat: SeatView = {
      id,
      sectorId,
      row: String(c.row[i]),
      number: String(c.number[i]),
      x: Number.isFinite(x) ? x : 0,
      y: Number.isFinite(y) ? y : 0,
      status: status.get(id) ?? 'available',
      rates: sector.rates,
    };
    sector.seats.push(seat);
    seats.set(id, seat);
  }
  return assemble(sectors, seats);
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
  for (const sector of map.sectors) {
    if (!sector.numbered || sector.seats.length === 0) {
      out.set(sector.id, sector.available);
      continue;
    }
    let n = 0;
    for (const seat of sector.seats) if (seat.status === 'available' && !mine.has(seat.id)) n++;
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
  let best: SeatView | null = null;
  let bestScore = Infinity;
  for (const seat of map.seats.values()) {
    if (seat === from) continue;
    const dx = seat.x - from.x;
    const dy = seat.y - from.y;
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
      best = seat;
    }
  }
  return best;
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

/** An answer of the live map (D62, `GET .../availability`): a snapshot of the seats that are not free, or the changes since a cursor. */
export interface AvailabilityBody {
  cursor: string;
  snapshot: boolean;
  changes: { session_seat_id: number; status: string }[];
  zones?: { sector_id: number; available: number }[];
}

/**
 * The map after a live-map answer: seats whose status changed become new objects (the seat layer
 * redraws only those), the others stay; the same map when nothing changed.
 */
export function applyAvailability(map: SeatMap, body: AvailabilityBody): SeatMap {
  const next = new Map<number, SeatStatus>();
  if (body.snapshot) for (const id of map.seats.keys()) next.set(id, 'available');
  for (const c of body.changes) next.set(c.session_seat_id, normaliseStatus(c.status));
  const zones = new Map((body.zones ?? []).map((z) => [z.sector_id, z.available]));
  let changed = false;
  const seats = new Map(map.seats);
  for (const [id, status] of next) {
    const seat = seats.get(id);
    if (seat && seat.status !== status) {
      seats.set(id, { ...seat, status });
      changed = true;
    }
  }
  const sectors = map.sectors.map((sector) => {
    if (!sector.numbered) {
      const available = zones.get(sector.id);
      if (available === undefined || available === sector.available) return sector;
      changed = true;
      return { ...sector, available };
    }
    if (!changed) return sector;
    const list = sector.seats.map((s) => seats.get(s.id)!);
    return { ...sector, seats: list, available: list.filter((s) => s.status === 'available').length };
  });
  return changed ? { ...map, sectors, seats } : map;
}
