/**
 * A uniform grid over the seats' centres, for the canvas seat layer: which seat is under a point
 * (a click or a tap) without a scan of every seat. Cells hold indices into the seat arrays in one
 * flat list (compressed rows: `starts[c]..starts[c + 1]` are the seats of cell c), built in two
 * passes over the seats.
 */
export interface HitGrid {
  x0: number;
  y0: number;
  cell: number;
  cols: number;
  rows: number;
  /** starts[c]..starts[c + 1] index `items` for cell c (length cols * rows + 1). */
  starts: Int32Array;
  /** Seat indices, cell by cell. */
  items: Int32Array;
  xs: Float64Array;
  ys: Float64Array;
}

/**
 * The grid of seats at (xs[i], ys[i]). Cells are one map unit (seats are about a unit apart) unless
 * the seats are spread so thinly that the grid would be much larger than the seats: then the cell
 * doubles until the grid has at most about four cells per seat.
 */
export function buildHitGrid(xs: Float64Array, ys: Float64Array): HitGrid {
  const n = xs.length;
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (let i = 0; i < n; i++) {
    const x = xs[i]!;
    const y = ys[i]!;
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
  }
  if (n === 0) minX = minY = maxX = maxY = 0;
  let cell = 1;
  let cols = 0;
  let rows = 0;
  for (;;) {
    cols = Math.floor((maxX - minX) / cell) + 1;
    rows = Math.floor((maxY - minY) / cell) + 1;
    if (cols * rows <= Math.max(4 * n, 1024)) break;
    cell *= 2;
  }
  const starts = new Int32Array(cols * rows + 1);
  const cellOf = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const c = Math.floor((ys[i]! - minY) / cell) * cols + Math.floor((xs[i]! - minX) / cell);
    cellOf[i] = c;
    starts[c + 1]!++;
  }
  for (let c = 0; c < cols * rows; c++) starts[c + 1]! += starts[c]!;
  const fill = starts.slice(0, cols * rows);
  const items = new Int32Array(n);
  for (let i = 0; i < n; i++) items[fill[cellOf[i]!]!++] = i;
  return { x0: minX, y0: minY, cell, cols, rows, starts, items, xs, ys };
}

/** The index of the seat whose centre is nearest to (x, y) within `radius` map units, or -1. */
export function seatIndexAt(grid: HitGrid, x: number, y: number, radius: number): number {
  const { x0, y0, cell, cols, rows, starts, items, xs, ys } = grid;
  const cx0 = Math.max(0, Math.floor((x - radius - x0) / cell));
  const cx1 = Math.min(cols - 1, Math.floor((x + radius - x0) / cell));
  const cy0 = Math.max(0, Math.floor((y - radius - y0) / cell));
  const cy1 = Math.min(rows - 1, Math.floor((y + radius - y0) / cell));
  let best = -1;
  let bestD = radius * radius;
  for (let cy = cy0; cy <= cy1; cy++) {
    for (let cx = cx0; cx <= cx1; cx++) {
      const c = cy * cols + cx;
      for (let k = starts[c]!; k < starts[c + 1]!; k++) {
        const i = items[k]!;
        const dx = xs[i]! - x;
        const dy = ys[i]! - y;
        const d = dx * dx + dy * dy;
        if (d <= bestD) {
          bestD = d;
          best = i;
        }
      }
    }
  }
  return best;
}
