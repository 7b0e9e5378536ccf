import type { MapSector, Rate, SessionDetail } from './types.js';

type SeatStatus = 'available' | 'held' | 'sold' | 'blocked';

export interface SeatView {
  id: number;
  sectorId: number;
  row: string;
  number: string;
  x: number;
  y: number;
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
  /** Bounding box of all seats, in map units. */
  box: { x: number; y: number; w: number; h: number };
}

function normaliseStatus(status: string): SeatStatus {
  if (status === 'available' || status === 'free') return 'available';
  if (status === 'held' || status === 'reserved' || status === 'in_cart') return 'held';
  if (status === 'sold') return 'sold';
  return 'blocked';
}

/**
 * The map the widget draws: the session detail gives every seat's status and rates (D34); the maps
 * endpoint gives sector names and, where the detail lacks them, seat coordinates.
 */
export function buildSeatMap(detail: SessionDetail, maps: MapSector[] | null): SeatMap {
  const layoutBySector = new Map<number, MapSector>();
  const layoutByKey = new Map<string, { x: number; y: number }>();
  for (const sector of maps ?? []) {
    layoutBySector.set(sector.id, sector);
    for (const s of sector.seats ?? []) layoutByKey.set(`${sector.id}:${s.row}:${s.number}`, s);
  }
  const sectors: SectorView[] = detail.elements.sectors.map((s) => ({
    id: s.id,
    name: s.name ?? layoutBySector.get(s.id)?.name ?? `#${s.id}`,
    numbered: s.numbered,
    capacity: s.capacity ?? 0,
    available: s.available ?? 0,
    rates: s.rates ?? [],
    seats: [],
  }));
  const byId = new Map(sectors.map((s) => [s.id, s]));
  const seats = new Map<number, SeatView>();
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
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
    let sector = byId.get(raw.sector_id);
    if (!sector) {
      sector = { id: raw.sector_id, name: layoutBySector.get(raw.sector_id)?.name ?? `#${raw.sector_id}`, numbered: true, capacity: 0, available: 0, rates: [], seats: [] };
      byId.set(sector.id, sector);
      sectors.push(sector);
    }
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
  for (const sector of sectors) sector.seats.sort((a, b) => a.y - b.y || a.x - b.x);
  return { sectors, seats, box: { x: minX - 1, y: minY - 1, w: maxX - minX + 2, h: maxY - minY + 2 } };
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
