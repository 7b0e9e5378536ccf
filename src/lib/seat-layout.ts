/**
 * Reading a seat layout the way a buyer does: which side the stage is on, and where each row
 * starts. Shared by the portal's seat page (rendered on the server) and the widget's map (bundled
 * from widget/src), so both draw the stage on the same side and label the same rows.
 *
 * The catalogue has no stage or field of its own (a venue is sectors of seats with x, y): the
 * stage is where the rows start. The front row is the one whose name sorts first ("A", "1"); in
 * most venues it is nearest the stage, so the stage is drawn on the side of the map where the
 * front rows of the sectors lie (top = smaller y, as the seats are drawn).
 */

export interface LayoutSeat {
  sectorId: number;
  row: string;
  x: number;
  y: number;
}

export type StageSide = 'top' | 'bottom';

const byName = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/** Rows of one sector in layout order (by y, then name), with where they start and end. */
export interface RowLine {
  sectorId: number;
  row: string;
  y: number;
  minX: number;
  maxX: number;
}

/**
 * Every row of every sector, one entry per (sector, row), sorted by y. Runs on every widget load
 * over thousands of seats: maps by sector then row, no per-seat string keys.
 */
export function rowLines(seats: Iterable<LayoutSeat>): RowLine[] {
  const list = [...seats];
  return rowLinesOfColumns({ sectorId: list.map((s) => s.sectorId), row: list.map((s) => s.row), x: list.map((s) => s.x), y: list.map((s) => s.y) });
}

/** Seats in columns: seat i is in row `row[i]` of sector `sectorId[i]`, at (x[i], y[i]). */
interface SeatColumns {
  sectorId: ArrayLike<number>;
  row: ArrayLike<string | number>;
  x: ArrayLike<number>;
  y: ArrayLike<number>;
}

/** rowLines of seats in columns (the widget keeps a large map's seats so: no object per seat). */
export function rowLinesOfColumns(seats: SeatColumns): RowLine[] {
  type Line = RowLine & { sumY: number; n: number };
  const sectors = new Map<number, Map<string, Line>>();
  // Seats mostly come row by row: the last seat's row is looked up once, not per seat.
  let last: Line | undefined;
  let lastRow: string | number | undefined;
  for (let i = 0; i < seats.x.length; i++) {
    const sectorId = seats.sectorId[i]!;
    const x = seats.x[i]!;
    const y = seats.y[i]!;
    let line = last && last.sectorId === sectorId && lastRow === seats.row[i] ? last : undefined;
    if (!line) {
      lastRow = seats.row[i]!;
      const row = String(lastRow);
      let rows = sectors.get(sectorId);
      if (!rows) sectors.set(sectorId, (rows = new Map()));
      line = rows.get(row);
      if (!line) {
        rows.set(row, (last = { sectorId, row, y, minX: x, maxX: x, sumY: y, n: 1 }));
        continue;
      }
      last = line;
    }
    if (x < line.minX) line.minX = x;
    if (x > line.maxX) line.maxX = x;
    line.sumY += y;
    line.n += 1;
  }
  const out: RowLine[] = [];
  for (const rows of sectors.values()) {
    for (const { sectorId, row, minX, maxX, sumY, n } of rows.values()) out.push({ sectorId, row, minX, maxX, y: sumY / n });
  }
  return out.sort((a, b) => a.y - b.y || byName.compare(a.row, b.row));
}

/**
 * The stage's side: each sector with two rows or more votes for the side its front row is on;
 * a tie or no vote puts it at the top (the usual drawing of a theatre).
 */
export function stageSide(lines: RowLine[]): StageSide {
  const bySector = new Map<number, RowLine[]>();
  for (const line of lines) {
    const list = bySector.get(line.sectorId);
    if (list) list.push(line);
    else bySector.set(line.sectorId, [line]);
  }
  let vote = 0;
  for (const list of bySector.values()) {
    if (list.length < 2) continue;
    const front = [...list].sort((a, b) => byName.compare(a.row, b.row))[0]!;
    const mean = list.reduce((n, l) => n + l.y, 0) / list.length;
    if (front.y < mean) vote += 1;
    else if (front.y > mean) vote -= 1;
  }
  return vote < 0 ? 'bottom' : 'top';
}

/** Where one sector's seats fall on a grid of whole cells: the portal's seat buttons and the dashboard's heat map. */
export interface SectorGrid {
  minX: number;
  minY: number;
  /** Columns and rows the sector spans (a seat's cell is within 0..cols-1, 0..rows-1). */
  cols: number;
  rows: number;
}

/** The grid of one sector's seats: each seat at (x, y) rounded from the sector's top left seat. */
export function sectorGrid(seats: Iterable<{ x: number; y: number }>): SectorGrid {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const s of seats) {
    if (s.x < minX) minX = s.x;
    if (s.x > maxX) maxX = s.x;
    if (s.y < minY) minY = s.y;
    if (s.y > maxY) maxY = s.y;
  }
  if (minX === Infinity) return { minX: 0, minY: 0, cols: 0, rows: 0 };
  return { minX, minY, cols: Math.round(maxX - minX) + 1, rows: Math.round(maxY - minY) + 1 };
}

/** A seat's column on its sector's grid, from 0. */
export const gridCol = (g: SectorGrid, x: number) => Math.round(x - g.minX);
/** A seat's (or a row's) line on its sector's grid, from 0. */
export const gridRow = (g: SectorGrid, y: number) => Math.round(y - g.minY);
