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
    // The first row whose name sorts first (a pass, not a sort: the collator is slow, issue 29).
    const front = list.reduce((best, line) => (byName.compare(line.row, best.row) < 0 ? line : best));
    const mean = list.reduce((n, l) => n + l.y, 0) / list.length;
    if (front.y < mean) vote += 1;
    else if (front.y > mean) vote -= 1;
  }
  return vote < 0 ? 'bottom' : 'top';
}

/** Where one sector's seats fall on a grid of whole cells: the portal's seat buttons and the dashboard's heat map. */
export interface SectorGrid {
  /** Columns and rows the sector spans (a seat's cell is within 0..cols-1, 0..rows-1). */
  cols: number;
  rows: number;
  /** The column of a seat at `x`, from 0. */
  col(x: number): number;
  /** The grid line of a row (by its name), from 0: every seat of a row is drawn on its row's line. */
  line(row: string): number;
}

/** The (lower) median of the positive gaps: the seat pitch, aisles being the few larger gaps; 1 when there is none. */
function typicalGap(gaps: number[]): number {
  const positive = gaps.filter((g) => g > 1e-6).sort((a, b) => a - b);
  return positive.length ? positive[Math.floor((positive.length - 1) / 2)]! : 1;
}

/**
 * The grid of one sector's seats, in seat pitches: a column is the typical distance between two
 * neighbours of a row, a line the typical distance between two rows. A catalogue that places seats
 * one unit apart keeps its coordinates as cells; a layout drawn in the designer (seats 30 units
 * apart, rows curved or skewed) gets one cell per seat, its aisles kept as empty cells. Each row is
 * drawn straight on the line of its mean y: a grid is a plan of rows, and a curve would otherwise
 * spread a row over several lines among its neighbours.
 */
export function sectorGrid(seats: Iterable<{ row: string; x: number; y: number }>): SectorGrid {
  const rows = new Map<string, { sumY: number; n: number; xs: number[] }>();
  let minX = Infinity;
  let maxX = -Infinity;
  for (const s of seats) {
    if (s.x < minX) minX = s.x;
    if (s.x > maxX) maxX = s.x;
    const row = rows.get(s.row);
    if (row) {
      row.sumY += s.y;
      row.n += 1;
      row.xs.push(s.x);
    } else rows.set(s.row, { sumY: s.y, n: 1, xs: [s.x] });
  }
  if (rows.size === 0) return { cols: 0, rows: 0, col: () => 0, line: () => 0 };
  const seatGaps: number[] = [];
  for (const { xs } of rows.values()) {
    xs.sort((a, b) => a - b);
    for (let i = 1; i < xs.length; i++) seatGaps.push(xs[i]! - xs[i - 1]!);
  }
  const pitch = typicalGap(seatGaps);
  const ys = [...rows].map(([name, r]) => ({ name, y: r.sumY / r.n })).sort((a, b) => a.y - b.y);
  const rowPitch = typicalGap(ys.slice(1).map((r, i) => r.y - ys[i]!.y));
  const lines = new Map(ys.map((r) => [r.name, Math.round((r.y - ys[0]!.y) / rowPitch)]));
  return {
    cols: Math.round((maxX - minX) / pitch) + 1,
    rows: Math.max(...lines.values()) + 1,
    col: (x) => Math.round((x - minX) / pitch),
    line: (row) => lines.get(row) ?? 0,
  };
}
