import { pos, type Plan, type Row, type Sector, type Seat } from './types.js';

// Drawing blocks of rows and seats, bending and slanting them, numbering them. Pure functions on
// the layout document: every one returns new objects and leaves its input as it was.

/** Row labels A, B, ... Z, AA, AB, ...: the label of the row at `index` (0 = A). */
export function rowLabel(index: number): string {
  let n = Math.max(0, Math.floor(index));
  let label = '';
  do {
    label = String.fromCharCode(65 + (n % 26)) + label;
    n = Math.floor(n / 26) - 1;
  } while (n >= 0);
  return label;
}

/** The index of a row label ("A" = 0, "AA" = 26), or null when it is not letters only. */
export function rowIndex(label: string): number | null {
  if (!/^[A-Za-z]{1,4}$/.test(label)) return null;
  let n = 0;
  for (const ch of label.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

export type Direction = 'ltr' | 'rtl';
/** `all` numbers 1, 2, 3...; `odd` 1, 3, 5...; `even` 2, 4, 6... (one side of a centre aisle each). */
export type Parity = 'all' | 'odd' | 'even';

export interface Numbering {
  direction: Direction;
  parity: Parity;
  /** The first number (raised to the next odd or even one when the parity asks). Default 1. */
  start?: number;
}

/** The numbers of `count` seats in left-to-right order. */
export function seatNumbers(count: number, numbering: Numbering): string[] {
  const step = numbering.parity === 'all' ? 1 : 2;
  let first = Math.max(1, Math.floor(numbering.start ?? 1));
  if (numbering.parity === 'odd' && first % 2 === 0) first++;
  if (numbering.parity === 'even' && first % 2 === 1) first++;
  const numbers = Array.from({ length: count }, (_, i) => String(first + i * step));
  return numbering.direction === 'rtl' ? numbers.reverse() : numbers;
}

export interface BlockSpec extends Numbering {
  name: string;
  rows: number;
  seatsPerRow: number;
  /** Where the block's top-left seat goes (the sector's position). */
  origin: { x: number; y: number };
  /** The label of the first row (default "A"); rows follow as A, B, C... */
  firstRow?: string;
  seatSpacing?: number;
  rowSpacing?: number;
  category?: string;
}

export const SEAT_SPACING = 30;
export const ROW_SPACING = 36;

/** A numbered sector of `rows` x `seatsPerRow` seats on a grid. */
export function makeBlock(spec: BlockSpec): Sector {
  const dx = spec.seatSpacing ?? SEAT_SPACING;
  const dy = spec.rowSpacing ?? ROW_SPACING;
  const first = rowIndex(spec.firstRow ?? 'A') ?? 0;
  const numbers = seatNumbers(spec.seatsPerRow, spec);
  const rows: Row[] = Array.from({ length: spec.rows }, (_, r) => ({
    label: rowLabel(first + r),
    position: { x: 0, y: r * dy },
    seats: numbers.map((number, i) => ({ number, x: i * dx, y: 0, ...(spec.category ? { category: spec.category } : {}) })),
  }));
  return { name: spec.name, numbered: true, position: { x: spec.origin.x, y: spec.origin.y }, rows };
}

/** The horizontal extent of a sector's seats (relative to the sector): centre and half width. */
function span(sector: Sector): { centre: number; half: number } | null {
  let min = Infinity;
  let max = -Infinity;
  for (const row of sector.rows ?? []) {
    const rx = pos(row.position).x;
    for (const seat of row.seats) {
      min = Math.min(min, rx + seat.x);
      max = Math.max(max, rx + seat.x);
    }
  }
  if (min === Infinity) return null;
  return { centre: (min + max) / 2, half: (max - min) / 2 };
}

/**
 * Bends a sector's rows into an arc: each seat moves down by `amount` times the square of its
 * distance from the block's centre (1 at either end), so the ends move `amount` and the middle
 * stays; a negative amount bends the other way. Seats keep their x, so bending by `-amount`
 * undoes a bend by `amount`.
 */
export function curveSector(sector: Sector, amount: number): Sector {
  const s = span(sector);
  if (!s || s.half === 0 || amount === 0) return sector;
  return {
    ...sector,
    rows: sector.rows!.map((row) => {
      const rx = pos(row.position).x;
      return { ...row, seats: row.seats.map((seat) => ({ ...seat, y: seat.y + amount * ((rx + seat.x - s.centre) / s.half) ** 2 })) };
    }),
  };
}

/** Slants a sector's rows: row n (0 = the first) moves `amount` * n to the right; `-amount` undoes it. */
export function skewSector(sector: Sector, amount: number): Sector {
  if (amount === 0 || !sector.rows?.length) return sector;
  return {
    ...sector,
    rows: sector.rows.map((row, n) => {
      const p = pos(row.position);
      return { ...row, position: { x: p.x + amount * n, y: p.y } };
    }),
  };
}

/** A row's seats sorted left to right by position (ties keep their order). */
function leftToRight(seats: Seat[]): Seat[] {
  return seats.map((seat, i) => ({ seat, i })).sort((a, b) => a.seat.x - b.seat.x || a.i - b.i).map((e) => e.seat);
}

/**
 * Numbers the seats of the given rows of a sector again (all rows when `rows` is absent): left to
 * right or right to left by position, consecutive, odd or even. The seats come out in left-to-right order.
 */
export function renumberSector(sector: Sector, numbering: Numbering, rows?: ReadonlySet<number>): Sector {
  if (!sector.rows) return sector;
  return {
    ...sector,
    rows: sector.rows.map((row, r) => {
      if (rows && !rows.has(r)) return row;
      const sorted = leftToRight(row.seats);
      const numbers = seatNumbers(sorted.length, numbering);
      return { ...row, seats: sorted.map((seat, i) => ({ ...seat, number: numbers[i]! })) };
    }),
  };
}

/** Labels a sector's rows again from `first` (A, B, C... in their order in the sector). */
export function relabelRows(sector: Sector, first = 'A'): Sector {
  if (!sector.rows) return sector;
  const start = rowIndex(first) ?? 0;
  return { ...sector, rows: sector.rows.map((row, r) => ({ ...row, label: rowLabel(start + r) })) };
}

/** Every seat's absolute position, in plan order. */
export function absoluteSeats(plan: Plan): { sector: number; row: number; seat: number; x: number; y: number }[] {
  const out: { sector: number; row: number; seat: number; x: number; y: number }[] = [];
  plan.sectors.forEach((sector, s) => {
    const sp = pos(sector.position);
    sector.rows?.forEach((row, r) => {
      const rp = pos(row.position);
      row.seats.forEach((seat, i) => out.push({ sector: s, row: r, seat: i, x: sp.x + rp.x + seat.x, y: sp.y + rp.y + seat.y }));
    });
  });
  return out;
}
