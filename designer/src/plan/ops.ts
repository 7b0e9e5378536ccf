import { curveSector, renumberSector, skewSector, type Numbering } from './geometry.js';
import { pos, type Category, type Flag, type Plan, type Point, type Row, type Sector, type Seat, type Shape } from './types.js';

// Edits of the plan for the designer's commands. Every function is pure and keeps the parts it
// does not change (the same objects), so that the canvas redraws only what changed and the undo
// history holds cheap snapshots. Seats are named by a key "sector.row.seat" (indices).

export type SeatKey = string;
export const seatKey = (sector: number, row: number, seat: number): SeatKey => `${sector}.${row}.${seat}`;
export function parseKey(key: SeatKey): [number, number, number] {
  const [s, r, i] = key.split('.').map(Number);
  return [s!, r!, i!];
}

/** The selected seats grouped: sector → row → seat indices. */
function group(keys: Iterable<SeatKey>): Map<number, Map<number, Set<number>>> {
  const out = new Map<number, Map<number, Set<number>>>();
  for (const key of keys) {
    const [s, r, i] = parseKey(key);
    let rows = out.get(s);
    if (!rows) out.set(s, (rows = new Map()));
    let seats = rows.get(r);
    if (!seats) rows.set(r, (seats = new Set()));
    seats.add(i);
  }
  return out;
}

/**
 * The plan with every sector holding seats of `keys` replaced by `change` (given that sector, which
 * has rows, and its selected seats by row); the other sectors stay the same objects.
 */
function mapSelectedSectors(
  plan: Plan,
  keys: Iterable<SeatKey>,
  change: (sector: Sector & { rows: Row[] }, selected: Map<number, Set<number>>) => Sector,
): Plan {
  const groups = group(keys);
  if (!groups.size) return plan;
  return {
    ...plan,
    sectors: plan.sectors.map((sector, s) => {
      const selected = groups.get(s);
      return selected && sector.rows ? change({ ...sector, rows: sector.rows }, selected) : sector;
    }),
  };
}

/** The plan with the rows of every sector holding seats of `keys` replaced by `change` (given those rows and the selected seats by row). */
function mapSelectedRows(plan: Plan, keys: Iterable<SeatKey>, change: (rows: Row[], selected: Map<number, Set<number>>) => Row[]): Plan {
  return mapSelectedSectors(plan, keys, (sector, selected) => ({ ...sector, rows: change(sector.rows, selected) }));
}

/** The rows with their selected seats changed by `change` (which returns the same seat for no change). */
const changeSeats = (rows: Row[], selected: Map<number, Set<number>>, change: (seat: Seat) => Seat): Row[] =>
  rows.map((row, r) => {
    const seats = selected.get(r);
    return seats ? { ...row, seats: row.seats.map((seat, i) => (seats.has(i) ? change(seat) : seat)) } : row;
  });

/** The plan with the seats of `keys` changed by `change` (which returns the same seat for no change). */
function mapSeats(plan: Plan, keys: Iterable<SeatKey>, change: (seat: Seat) => Seat): Plan {
  return mapSelectedRows(plan, keys, (rows, selected) => changeSeats(rows, selected, change));
}

/** The sector moved as a whole by (dx, dy): its position, so its drawings come along. */
function shiftSector(sector: Sector, dx: number, dy: number): Sector {
  const p = pos(sector.position);
  return { ...sector, position: { x: p.x + dx, y: p.y + dy } };
}

export const seatCount = (plan: Plan) => plan.sectors.reduce((n, s) => n + (s.rows ?? []).reduce((m, r) => m + r.seats.length, 0), 0);

/** Every seat key of a sector. */
export function sectorKeys(plan: Plan, s: number): SeatKey[] {
  const keys: SeatKey[] = [];
  plan.sectors[s]?.rows?.forEach((row, r) => row.seats.forEach((_, i) => keys.push(seatKey(s, r, i))));
  return keys;
}

/** A sector name not used yet: "Sector 1", "Sector 2"... */
export function freeName(plan: Plan, base = 'Sector'): string {
  const used = new Set(plan.sectors.map((s) => s.name));
  for (let n = 1; ; n++) if (!used.has(`${base} ${n}`)) return `${base} ${n}`;
}

export const addSector = (plan: Plan, sector: Sector): Plan => ({ ...plan, sectors: [...plan.sectors, sector] });

/** An unnumbered sector: a capacity, drawn as an area with its name. */
export function unnumberedSector(name: string, capacity: number, origin: Point, width = 240, height = 120): Sector {
  return {
    name,
    numbered: false,
    capacity,
    position: { x: origin.x, y: origin.y },
    shapes: [
      { kind: 'rectangle', role: 'area', position: { x: 0, y: 0 }, width, height, color: '#e4e8f0', border_color: '#4d5560' },
      { kind: 'text', role: 'label', position: { x: width / 2, y: height / 2 }, text: { text: `${name} (${capacity})`, position: { x: 0, y: 0 } } },
    ],
  };
}

export const removeSector = (plan: Plan, s: number): Plan => ({ ...plan, sectors: plan.sectors.filter((_, i) => i !== s) });

export const updateSector = (plan: Plan, s: number, change: (sector: Sector) => Sector): Plan => {
  const sector = plan.sectors[s];
  if (!sector) return plan;
  const next = change(sector);
  return next === sector ? plan : { ...plan, sectors: plan.sectors.map((x, i) => (i === s ? next : x)) };
};

export function renameSector(plan: Plan, s: number, name: string): Plan {
  return updateSector(plan, s, (sector) => ({
    ...sector,
    name,
    // An unnumbered sector's label follows its name.
    shapes: sector.numbered ? sector.shapes : sector.shapes?.map((sh) => (sh.kind === 'text' && sh.role === 'label' && sh.text ? { ...sh, text: { ...sh.text, text: `${name} (${sector.capacity ?? ''})` } } : sh)),
  }));
}

export function setCapacity(plan: Plan, s: number, capacity: number): Plan {
  return updateSector(plan, s, (sector) =>
    sector.numbered
      ? sector
      : {
          ...sector,
          capacity,
          shapes: sector.shapes?.map((sh) => (sh.kind === 'text' && sh.role === 'label' && sh.text ? { ...sh, text: { ...sh.text, text: `${sector.name} (${capacity})` } } : sh)),
        },
  );
}

export const curve = (plan: Plan, s: number, amount: number) => updateSector(plan, s, (sector) => curveSector(sector, amount));
export const skew = (plan: Plan, s: number, amount: number) => updateSector(plan, s, (sector) => skewSector(sector, amount));

/** Numbers again the rows holding selected seats (whole rows: numbers stay unique in the row). */
export function renumber(plan: Plan, keys: Iterable<SeatKey>, numbering: Numbering): Plan {
  let next = plan;
  for (const [s, rows] of group(keys)) next = updateSector(next, s, (sector) => renumberSector(sector, numbering, new Set(rows.keys())));
  return next;
}

/** Removes the seats; rows left without seats go too. */
export function deleteSeats(plan: Plan, keys: Iterable<SeatKey>): Plan {
  return mapSelectedRows(plan, keys, (rows, selected) =>
    rows
      .map((row, r) => {
        const gone = selected.get(r);
        return gone ? { ...row, seats: row.seats.filter((_, i) => !gone.has(i)) } : row;
      })
      .filter((row) => row.seats.length > 0),
  );
}

/**
 * Moves the seats by (dx, dy). A sector whose every seat is selected moves as a whole (its
 * position, so its drawings come along); otherwise the seats move inside their rows.
 */
export function moveSeats(plan: Plan, keys: Iterable<SeatKey>, dx: number, dy: number): Plan {
  if (dx === 0 && dy === 0) return plan;
  return mapSelectedSectors(plan, keys, (sector, selected) =>
    sector.rows.every((row, r) => selected.get(r)?.size === row.seats.length)
      ? shiftSector(sector, dx, dy)
      : { ...sector, rows: changeSeats(sector.rows, selected, (seat) => ({ ...seat, x: seat.x + dx, y: seat.y + dy })) },
  );
}

/** Moves whole sectors (their positions). */
export function moveSector(plan: Plan, s: number, dx: number, dy: number): Plan {
  return updateSector(plan, s, (sector) => shiftSector(sector, dx, dy));
}

/** Sets (or, with null, clears) the category of the seats. */
export function setCategory(plan: Plan, keys: Iterable<SeatKey>, category: string | null): Plan {
  return mapSeats(plan, keys, (seat) => {
    if ((seat.category ?? null) === category) return seat;
    const { category: _old, ...rest } = seat;
    return category === null ? rest : { ...rest, category };
  });
}

/**
 * Sets or clears a flag on the seats. A wheelchair place is never also a companion seat (the API
 * refuses it): setting one clears the other.
 */
export function setFlag(plan: Plan, keys: Iterable<SeatKey>, flag: Flag, on: boolean): Plan {
  return mapSeats(plan, keys, (seat) => {
    if (Boolean(seat[flag]) === on) return seat;
    const next: Seat = { ...seat };
    if (on) {
      next[flag] = true;
      if (flag === 'wheelchair') delete next.companion;
      if (flag === 'companion') delete next.wheelchair;
    } else delete next[flag];
    return next;
  });
}

/** The rows holding the seats: [sector, row] pairs. */
export function rowsOf(keys: Iterable<SeatKey>): [number, number][] {
  const out: [number, number][] = [];
  for (const [s, rows] of group(keys)) for (const r of rows.keys()) out.push([s, r]);
  return out;
}

/** Sets the priority of the rows holding the seats (0 removes it: the default). */
export function setRowPriority(plan: Plan, keys: Iterable<SeatKey>, priority: number): Plan {
  const groups = group(keys);
  return {
    ...plan,
    sectors: plan.sectors.map((sector, s) => {
      const rows = groups.get(s);
      if (!rows || !sector.rows) return sector;
      return {
        ...sector,
        rows: sector.rows.map((row, r): Row => {
          if (!rows.has(r)) return row;
          const { priority: _old, ...rest } = row;
          return priority === 0 ? rest : { ...rest, priority };
        }),
      };
    }),
  };
}

// ---- stage, focal point, categories

export const stageOf = (plan: Plan): Shape | undefined => plan.shapes?.find((s) => s.role === 'stage');

/** Places the stage: one rectangle with role stage on the plan (replacing the previous one). */
export function setStage(plan: Plan, rect: { x: number; y: number; width: number; height: number }): Plan {
  const stage: Shape = { kind: 'rectangle', role: 'stage', position: { x: rect.x, y: rect.y }, width: Math.round(rect.width), height: Math.round(rect.height), color: '#3a3f47' };
  const others = (plan.shapes ?? []).filter((s) => s.role !== 'stage');
  return { ...plan, shapes: [stage, ...others] };
}

export const removeStage = (plan: Plan): Plan => ({ ...plan, shapes: (plan.shapes ?? []).filter((s) => s.role !== 'stage') });

export const setFocalPoint = (plan: Plan, point: Point | null): Plan => ({ ...plan, focal_point: point ? { x: point.x, y: point.y } : null });

export function addCategory(plan: Plan, category: Category): Plan {
  if ((plan.categories ?? []).some((c) => c.name === category.name)) return plan;
  return { ...plan, categories: [...(plan.categories ?? []), category] };
}

/** Renames or recolours a category; seats of the old name follow a rename. */
export function updateCategory(plan: Plan, name: string, next: Category): Plan {
  const categories = (plan.categories ?? []).map((c) => (c.name === name ? next : c));
  if (next.name === name) return { ...plan, categories };
  const renamed = { ...plan, categories };
  return {
    ...renamed,
    sectors: renamed.sectors.map((sector) =>
      sector.rows?.some((row) => row.seats.some((seat) => seat.category === name))
        ? { ...sector, rows: sector.rows.map((row) => ({ ...row, seats: row.seats.map((seat) => (seat.category === name ? { ...seat, category: next.name } : seat)) })) }
        : sector,
    ),
  };
}

/** Removes a category; its seats keep no category. */
export function removeCategory(plan: Plan, name: string): Plan {
  return {
    ...plan,
    categories: (plan.categories ?? []).filter((c) => c.name !== name),
    sectors: plan.sectors.map((sector) =>
      sector.rows?.some((row) => row.seats.some((seat) => seat.category === name))
        ? {
            ...sector,
            rows: sector.rows.map((row) => ({
              ...row,
              seats: row.seats.map((seat) => {
                if (seat.category !== name) return seat;
                const { category: _c, ...rest } = seat;
                return rest;
              }),
            })),
          }
        : sector,
    ),
  };
}

/** The extent of everything drawn: seats, sector drawings, plan shapes, the focal point. */
export function bounds(plan: Plan): { minX: number; minY: number; maxX: number; maxY: number } | null {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  const add = (x: number, y: number) => {
    minX = Math.min(minX, x);
    minY = Math.min(minY, y);
    maxX = Math.max(maxX, x);
    maxY = Math.max(maxY, y);
  };
  const shape = (sh: Shape, ox: number, oy: number) => {
    const p = pos(sh.position);
    add(ox + p.x, oy + p.y);
    if (sh.width !== undefined && sh.height !== undefined) add(ox + p.x + sh.width, oy + p.y + sh.height);
  };
  for (const sector of plan.sectors) {
    const sp = pos(sector.position);
    for (const row of sector.rows ?? []) {
      const rp = pos(row.position);
      for (const seat of row.seats) add(sp.x + rp.x + seat.x, sp.y + rp.y + seat.y);
    }
    for (const sh of sector.shapes ?? []) shape(sh, sp.x, sp.y);
  }
  for (const sh of plan.shapes ?? []) shape(sh, 0, 0);
  if (plan.focal_point) add(plan.focal_point.x, plan.focal_point.y);
  return minX === Infinity ? null : { minX, minY, maxX, maxY };
}

/** The plan's size grown to hold everything drawn (with a margin), as the seat maps scale to it. */
export function fitSize(plan: Plan, margin = 40): Plan {
  const b = bounds(plan);
  if (!b) return plan;
  const width = Math.max(plan.size?.width ?? 0, Math.ceil(b.maxX + margin));
  const height = Math.max(plan.size?.height ?? 0, Math.ceil(b.maxY + margin));
  if (plan.size && plan.size.width === width && plan.size.height === height) return plan;
  return { ...plan, size: { width, height } };
}
