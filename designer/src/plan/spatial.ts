import { seatKey, type SeatKey } from './ops.js';
import { pos, type Plan, type Seat } from './types.js';

// What the canvas draws: every seat at its absolute position, bucketed into square tiles so that
// only the tiles on screen are drawn and a click or a box finds its seats without a scan.

export interface PlacedSeat {
  key: SeatKey;
  x: number;
  y: number;
  seat: Seat;
  /** The row's label (for the first seat of a row: the label is drawn beside it). */
  rowLabel: string;
  rowStart: boolean;
}

export interface Tile {
  id: string;
  seats: PlacedSeat[];
}

export interface SeatIndex {
  size: number;
  seats: PlacedSeat[];
  tiles: Map<string, Tile>;
  /** The placed seats of each sector (index = the sector's): the same array while a sector is unchanged. */
  sectors: PlacedSeat[][];
}

/** The tile of each placed seat of a sector's list, computed once per list (lists of unchanged sectors are kept). */
const tileKeys = new WeakMap<PlacedSeat[], string[]>();

const TILE = 240;
export const SEAT_RADIUS = 11;

const tileId = (tx: number, ty: number) => `${tx}:${ty}`;

/**
 * The index of a plan's seats. Sectors that did not change keep their placed seats (same objects)
 * from `previous`, and tiles whose seats are all kept stay the same objects, so an edit of one
 * sector leaves the other sectors' tiles as they were.
 */
export function indexSeats(plan: Plan, previous?: { plan: Plan; perSector: PlacedSeat[][]; tiles?: Map<string, Tile> }): { index: SeatIndex; perSector: PlacedSeat[][] } {
  const perSector = plan.sectors.map((sector, s) => {
    // A sector object unchanged at the same index keeps its seats (keys carry the index).
    if (previous && previous.plan.sectors[s] === sector && previous.perSector[s]) return previous.perSector[s]!;
    const out: PlacedSeat[] = [];
    const sp = pos(sector.position);
    sector.rows?.forEach((row, r) => {
      const rp = pos(row.position);
      let leftmost = -1;
      row.seats.forEach((seat, i) => {
        if (leftmost < 0 || seat.x < row.seats[leftmost]!.x) leftmost = i;
      });
      row.seats.forEach((seat, i) => out.push({ key: seatKey(s, r, i), x: sp.x + rp.x + seat.x, y: sp.y + rp.y + seat.y, seat, rowLabel: row.label, rowStart: i === leftmost }));
    });
    return out;
  });
  const tiles = new Map<string, Tile>();
  const seats: PlacedSeat[] = [];
  for (const list of perSector) {
    let keys = tileKeys.get(list);
    if (!keys) tileKeys.set(list, (keys = list.map((p) => tileId(Math.floor(p.x / TILE), Math.floor(p.y / TILE)))));
    for (let k = 0; k < list.length; k++) {
      const p = list[k]!;
      seats.push(p);
      const id = keys[k]!;
      let tile = tiles.get(id);
      if (!tile) tiles.set(id, (tile = { id, seats: [] }));
      tile.seats.push(p);
    }
  }
  // A tile whose seats are the same objects as before stays the same object, so that the canvas
  // draws again only the tiles an edit touched (moving a 500-seat block of a 100,000-seat plan
  // draws a few tiles, not all of them).
  const before = previous?.tiles;
  if (before) {
    for (const [id, tile] of tiles) {
      const old = before.get(id);
      if (old && old.seats.length === tile.seats.length && old.seats.every((p, k) => p === tile.seats[k])) tiles.set(id, old);
    }
  }
  return { index: { size: seats.length, seats, tiles, sectors: perSector }, perSector };
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The tiles that meet a rectangle of the plan (the screen, with a margin). */
export function tilesIn(index: SeatIndex, view: Rect): Tile[] {
  const out: Tile[] = [];
  const x0 = Math.floor(view.x / TILE);
  const x1 = Math.floor((view.x + view.width) / TILE);
  const y0 = Math.floor(view.y / TILE);
  const y1 = Math.floor((view.y + view.height) / TILE);
  // A view wider than the plan: walk the tiles that exist instead of the empty grid.
  if ((x1 - x0 + 1) * (y1 - y0 + 1) > index.tiles.size) {
    for (const tile of index.tiles.values()) {
      const [tx, ty] = tile.id.split(':').map(Number) as [number, number];
      if (tx >= x0 && tx <= x1 && ty >= y0 && ty <= y1) out.push(tile);
    }
    return out;
  }
  for (let tx = x0; tx <= x1; tx++) {
    for (let ty = y0; ty <= y1; ty++) {
      const tile = index.tiles.get(tileId(tx, ty));
      if (tile) out.push(tile);
    }
  }
  return out;
}

/** The seats whose centres lie in the rectangle. */
export function seatsInRect(index: SeatIndex, rect: Rect): SeatKey[] {
  const out: SeatKey[] = [];
  for (const tile of tilesIn(index, rect)) {
    for (const p of tile.seats) if (p.x >= rect.x && p.x <= rect.x + rect.width && p.y >= rect.y && p.y <= rect.y + rect.height) out.push(p.key);
  }
  return out;
}

/** The seat under a point (the nearest within its radius), or null. */
export function seatAt(index: SeatIndex, x: number, y: number, radius = SEAT_RADIUS + 2): PlacedSeat | null {
  let best: PlacedSeat | null = null;
  let bestD = radius * radius;
  for (const tile of tilesIn(index, { x: x - radius, y: y - radius, width: radius * 2, height: radius * 2 })) {
    for (const p of tile.seats) {
      const d = (p.x - x) ** 2 + (p.y - y) ** 2;
      if (d <= bestD) {
        best = p;
        bestD = d;
      }
    }
  }
  return best;
}
