/**
 * Best available (D61): which free seats of a session to offer for a request, as a pure function
 * of the layout and of which seats are free. The service (best-available.service.ts) claims the
 * choice in the same transaction; test/orders/best-available.property.test.ts checks the rules on
 * generated layouts.
 *
 * The rules, in order (docs/onsale.md "Best available"):
 * 1. The seats are in one row and next to each other when such a block exists (`together: false`
 *    lets a request fall back to split seats when none does).
 * 2. Among those blocks, one that leaves no single free seat stranded in its row beats one that
 *    does (the "no orphan" rule): a block never leaves exactly one free seat between itself and a
 *    taken seat, an aisle or the end of the row, unless every block does.
 * 3. Then the layout's row priority, then the distance from the block's centre to the focal point
 *    of its sector, then the row's place.
 * Wheelchair places and companion seats are offered only to `accessible` requests: n wheelchair
 * places and the rest of the quantity beside them in the same block, companion seats before
 * ordinary ones (that comes even before rule 2: the companion seats exist for this).
 *
 * A layout (D64) may give its rows a priority (`row_priority` of its seats, higher first) and a
 * focal point. Without them the default is: the sectors in their order (the first sector of a venue
 * is its front one), in each the front rows first (the row whose name sorts first is the front one,
 * as src/lib/seat-layout.ts reads a map), and its centre: the middle of the sector's width, on its
 * front row. The layout's row priority comes first, the default order breaks its ties.
 */

export interface LayoutSeat {
  id: number;
  sectorId: number;
  row: string;
  x: number;
  y: number;
  wheelchair: boolean;
  companion: boolean;
  /** The layout's priority of the seat's row (D64 `row_priority`): higher rows are offered first; 0 by default. */
  rowPriority?: number;
}

export interface LayoutSector {
  id: number;
  /** The sector's place in the venue (sort order): by default a sector's rows all come before the next sector's. */
  order: number;
  /** Row name -> priority across the layout (lower is better). Default: the sectors in their order, each front row first. */
  rowPriority?: ReadonlyMap<string, number>;
  /** The point the seats are chosen around. Default: the sector's centre, on its front row. */
  focal?: { x: number; y: number };
}

/** One row of one sector, its seats in order along the row. */
interface Row {
  sectorId: number;
  /** Lower is better: the layout's row priority, or the default (see LayoutSector.rowPriority). */
  priority: number;
  y: number;
  focalX: number;
  focalY: number;
  ids: number[];
  xs: number[];
  /** joined[i]: seat i sits right next to seat i - 1 (no aisle or gap between them). */
  joined: boolean[];
  wheelchair: boolean[];
  companion: boolean[];
}

/** A layout prepared once per session (kept in memory: a layout does not change). */
export interface PreparedLayout {
  /** Rows by priority, then sector order: the best rows first. */
  rows: Row[];
  /** The sector of each seat. */
  sectorOf: ReadonlyMap<number, number>;
}

const byName = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/** A gap wider than this many times the row's usual spacing is an aisle: the seats are not together. */
const AISLE_FACTOR = 1.5;

/** Default priorities: sector k's rows are k * ROWS_PER_SECTOR + their place (a venue has fewer rows per sector). */
const ROWS_PER_SECTOR = 100_000;

export function prepareLayout(seats: readonly LayoutSeat[], sectors: readonly LayoutSector[]): PreparedLayout {
  const sectorById = new Map(sectors.map((s) => [s.id, s]));
  const sectorRank = new Map([...sectors].sort((a, b) => a.order - b.order || a.id - b.id).map((s, i) => [s.id, i]));
  const grouped = new Map<number, Map<string, LayoutSeat[]>>();
  for (const seat of seats) {
    let rows = grouped.get(seat.sectorId);
    if (!rows) grouped.set(seat.sectorId, (rows = new Map()));
    const list = rows.get(seat.row);
    if (list) list.push(seat);
    else rows.set(seat.row, [seat]);
  }
  const rows: Row[] = [];
  for (const [sectorId, sectorRows] of grouped) {
    const sector = sectorById.get(sectorId) ?? { id: sectorId, order: Number.MAX_SAFE_INTEGER };
    const names = [...sectorRows.keys()].sort(byName.compare);
    // Default: the sector's place first, then its rows by name (ROWS_PER_SECTOR apart). A row the
    // layout's priority leaves out comes after the rows it names.
    const base = (sectorRank.get(sectorId) ?? sectors.length) * ROWS_PER_SECTOR;
    // The layout's row priority (D64, higher first) comes before the default order.
    const layoutPriority = (name: string) => -(sectorRows.get(name)![0]!.rowPriority ?? 0) * ROWS_PER_SECTOR * (sectors.length + 1);
    const priorityOf = (name: string) =>
      sector.rowPriority?.get(name) ?? layoutPriority(name) + base + names.indexOf(name) + (sector.rowPriority ? ROWS_PER_SECTOR * sectors.length : 0);
    names.sort((a, b) => priorityOf(a) - priorityOf(b));
    let minX = Infinity;
    let maxX = -Infinity;
    for (const list of sectorRows.values()) {
      for (const s of list) {
        minX = Math.min(minX, s.x);
        maxX = Math.max(maxX, s.x);
      }
    }
    const front = sectorRows.get(names[0]!)!;
    const focal = sector.focal ?? { x: (minX + maxX) / 2, y: front.reduce((n, s) => n + s.y, 0) / front.length };
    // The sector's seat spacing: the smallest gap between two seats of a row.
    let spacing = Infinity;
    for (const list of sectorRows.values()) {
      list.sort((a, b) => a.x - b.x || a.id - b.id);
      for (let i = 1; i < list.length; i++) if (list[i]!.x > list[i - 1]!.x) spacing = Math.min(spacing, list[i]!.x - list[i - 1]!.x);
    }
    for (const [name, list] of sectorRows) {
      rows.push({
        sectorId,
        priority: priorityOf(name),
        y: list.reduce((n, s) => n + s.y, 0) / list.length,
        focalX: focal.x,
        focalY: focal.y,
        ids: list.map((s) => s.id),
        xs: list.map((s) => s.x),
        joined: list.map((s, i) => i > 0 && s.x - list[i - 1]!.x <= spacing * AISLE_FACTOR),
        wheelchair: list.map((s) => s.wheelchair),
        companion: list.map((s) => s.companion),
      });
    }
  }
  rows.sort((a, b) => a.priority - b.priority || a.sectorId - b.sectorId || a.y - b.y);
  return { rows, sectorOf: new Map(seats.map((s) => [s.id, s.sectorId])) };
}

export interface ChoiceRequest {
  quantity: number;
  /** How many of the seats are wheelchair places (the others: their companions, beside them). */
  accessible: number;
  /** false: split seats when no block of `quantity` exists. */
  together: boolean;
  /** The sectors the request may take seats in (a sector, the rate's sectors); null: all. */
  sectors: ReadonlySet<number> | null;
}

export interface Choice {
  /** The chosen seats (session_seat ids), row by row, along each row. */
  ids: number[];
  /** All in one row, side by side (D61 `next_to_each_other`). */
  together: boolean;
}

/** The ranking of a block: lower is better, compared field by field. */
type Key = [ordinary: number, orphan: number, priority: number, distance: number, row: number, start: number];

const better = (a: Key, b: Key) => {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return false;
};

/**
 * The best block of `n` seats side by side in one row among those `usable` allows, with exactly
 * `wheelchairs` wheelchair places in it (0: none of the accessible seats at all). Null: none.
 */
function bestBlock(layout: PreparedLayout, usable: (id: number) => boolean, n: number, wheelchairs: number, sectors: ReadonlySet<number> | null) {
  let best: { key: Key; row: Row; start: number } | null = null;
  for (let r = 0; r < layout.rows.length; r++) {
    const row = layout.rows[r]!;
    // Rows come best first: once a block without an orphan (and, for wheelchairs, with companion
    // seats only) is found, a row of a lower priority cannot beat it.
    if (best && best.key[0] === 0 && best.key[1] === 0 && row.priority > best.key[2]) break;
    if (sectors && !sectors.has(row.sectorId)) continue;
    const len = row.ids.length;
    const ok = (k: number) => usable(row.ids[k]!) && (wheelchairs > 0 || (!row.wheelchair[k] && !row.companion[k]));
    let i = 0;
    while (i < len) {
      // One segment: seats usable, each next to the one before.
      if (!ok(i)) {
        i++;
        continue;
      }
      let end = i + 1;
      while (end < len && row.joined[end] && ok(end)) end++;
      const size = end - i;
      for (let s = 0; s + n <= size; s++) {
        const from = i + s;
        let wheel = 0;
        let ordinary = 0;
        if (wheelchairs > 0) {
          for (let k = from; k < from + n; k++) {
            if (row.wheelchair[k]) wheel++;
            else if (!row.companion[k]) ordinary++;
          }
          if (wheel !== wheelchairs) continue;
        }
        const orphan = s === 1 || size - n - s === 1 ? 1 : 0;
        const centre = (row.xs[from]! + row.xs[from + n - 1]!) / 2;
        const distance = Math.hypot(centre - row.focalX, row.y - row.focalY);
        const key: Key = [ordinary, orphan, row.priority, distance, r, from];
        if (!best || better(key, best.key)) best = { key, row, start: from };
      }
      i = end;
    }
  }
  return best && best.row.ids.slice(best.start, best.start + n);
}

/** Choose the seats of a request, or null when it cannot be met (409 no_seats_together). */
export function chooseSeats(layout: PreparedLayout, isFree: (id: number) => boolean, req: ChoiceRequest): Choice | null {
  const block = bestBlock(layout, isFree, req.quantity, req.accessible, req.sectors);
  if (block) return { ids: block, together: true };
  // Wheelchair places always come with their companions beside them: never split.
  if (!req.together && req.accessible === 0) return splitSeats(layout, isFree, req);
  return null;
}

/**
 * `together: false` without a block: the largest blocks first (each by the same rules), so that
 * the party is split into as few groups as the free seats allow.
 */
function splitSeats(layout: PreparedLayout, isFree: (id: number) => boolean, req: ChoiceRequest): Choice | null {
  const taken = new Set<number>();
  const usable = (id: number) => !taken.has(id) && isFree(id);
  const ids: number[] = [];
  while (ids.length < req.quantity) {
    const longest = longestSegment(layout, usable, req.sectors);
    if (longest === 0) return null;
    const block = bestBlock(layout, usable, Math.min(longest, req.quantity - ids.length), 0, req.sectors)!;
    for (const id of block) taken.add(id);
    ids.push(...block);
  }
  return { ids, together: false };
}

/** The most ordinary seats side by side that `usable` allows in any row. */
function longestSegment(layout: PreparedLayout, usable: (id: number) => boolean, sectors: ReadonlySet<number> | null): number {
  let longest = 0;
  for (const row of layout.rows) {
    if (sectors && !sectors.has(row.sectorId)) continue;
    let run = 0;
    for (let k = 0; k < row.ids.length; k++) {
      const ok = usable(row.ids[k]!) && !row.wheelchair[k] && !row.companion[k];
      run = ok ? (row.joined[k] ? run + 1 : 1) : 0;
      if (run > longest) longest = run;
    }
  }
  return longest;
}
