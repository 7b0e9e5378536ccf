// The compact seat map of the UI kit (issue 29): for a session larger than a few thousand seats the
// portal does not write one <button> per seat (20,000 of them are about 3 MB of HTML) but, per
// sector, a compact list of its seats (`encodeSector`, a few bytes a seat before compression) and
// one <canvas> that the page's script hydrates and draws (`CompactSeatMap`). A tap or a click picks
// the seat under it; the keyboard moves a cursor from seat to seat (arrows, Home, End) and Enter or
// Space picks it, with the seat's name and state said through a live region.
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';

/** A seat as the server knows it: its grid place (row and column of its sector's grid, from 0). */
export interface GridSeat {
  id: number;
  row: string;
  number: string;
  r: number;
  c: number;
}

/**
 * One line of a sector (the seats of one row name on one grid row, left to right):
 * [row name, grid row, ids (the first, then differences), columns (likewise), numbers (the first
 * number when they count up by one from it, else each seat's own), free ('1'/'0' a seat)].
 */
type CompactLine = [string, number, number[], number[], number | string[], string];

export interface CompactSector {
  id: number;
  cols: number;
  rows: number;
  lines: CompactLine[];
}

const deltas = (xs: number[]) => xs.map((x, i) => (i === 0 ? x : x - xs[i - 1]!));
const undelta = (xs: number[]) => {
  const out: number[] = [];
  for (const x of xs) out.push(out.length ? out[out.length - 1]! + x : x);
  return out;
};

/**
 * A sector's seats in compact form, for the page (server side): their places, without their states
 * (each seat free; `withStates` gives them), so that the server can keep it as long as the layout.
 */
export function encodeSector(id: number, seats: GridSeat[], cols: number, rows: number): CompactSector {
  const groups = new Map<string, GridSeat[]>();
  for (const s of seats) {
    const key = `${s.r}\u0000${s.row}`;
    const g = groups.get(key);
    if (g) g.push(s);
    else groups.set(key, [s]);
  }
  const lines: CompactLine[] = [];
  for (const g of groups.values()) {
    g.sort((a, b) => a.c - b.c);
    const first = Number(g[0]!.number);
    const counting = Number.isInteger(first) && String(first) === g[0]!.number && g.every((s, i) => s.number === String(first + i));
    lines.push([g[0]!.row, g[0]!.r, deltas(g.map((s) => s.id)), deltas(g.map((s) => s.c)), counting ? first : g.map((s) => s.number), '1'.repeat(g.length)]);
  }
  lines.sort((a, b) => a[1] - b[1] || a[3][0]! - b[3][0]!);
  return { id, cols, rows, lines };
}

/** The sector with each seat's state now: free where `free(id)` says so, else taken. */
export function withStates(sector: CompactSector, free: (id: number) => boolean): CompactSector {
  const lines = sector.lines.map(([row, r, ids, cols, numbers]): CompactLine => {
    let id = 0;
    let states = '';
    for (let i = 0; i < ids.length; i++) {
      id = i ? id + ids[i]! : ids[0]!;
      states += free(id) ? '1' : '0';
    }
    return [row, r, ids, cols, numbers, states];
  });
  return { ...sector, lines };
}

/** A sector ready to draw and to hit-test (browser side). */
export interface SeatGrid {
  id: number;
  cols: number;
  rows: number;
  ids: number[];
  r: number[];
  c: number[];
  rowName: string[];
  number: string[];
  /** Free when the page was drawn. */
  free: boolean[];
  /** The seat's index at a grid cell (r * cols + c). */
  at: Map<number, number>;
  /** Row names and their grid rows, for the left column. */
  labels: [string, number][];
}

export function decodeSector(s: CompactSector): SeatGrid {
  const g: SeatGrid = { id: s.id, cols: s.cols, rows: s.rows, ids: [], r: [], c: [], rowName: [], number: [], free: [], at: new Map(), labels: [] };
  const seen = new Set<string>();
  for (const [name, r, ids, cols, numbers, free] of s.lines) {
    const idList = undelta(ids);
    const colList = undelta(cols);
    idList.forEach((id, i) => {
      g.at.set(r * s.cols + colList[i]!, g.ids.length);
      g.ids.push(id);
      g.r.push(r);
      g.c.push(colList[i]!);
      g.rowName.push(name);
      g.number.push(typeof numbers === 'number' ? String(numbers + i) : numbers[i]!);
      g.free.push(free[i] === '1');
    });
    const key = `${name}\u0000${r}`;
    if (!seen.has(key)) {
      seen.add(key);
      g.labels.push([name, r]);
    }
  }
  return g;
}

export type SeatState = 'free' | 'taken' | 'mine';

export interface CompactMapWords {
  row: string;
  seat: string;
  seatFree: string;
  seatTaken: string;
  seatMine: string;
  /** How to use the map with the keyboard. */
  keys: string;
}

/** A cell's size when the sector fits the width, and zoomed (a finger's size: >= 24 CSS px, WCAG 2.2 2.5.8). */
const ZOOMED_CELL = 28;
const LABEL_COLUMN = 24;
const MIN_CELL = 3;

/** The cell size of a sector in a box `width` CSS px wide. */
export const fittedCell = (width: number, cols: number) => Math.max(MIN_CELL, Math.min(ZOOMED_CELL, Math.floor((width - LABEL_COLUMN) / Math.max(1, cols))));

/**
 * One sector's seats on a canvas. `state` says each seat's state (the live map and the cart keep it:
 * the page's script re-renders with a new `version` when it changes); `onPick` gets a seat's id
 * when it is clicked, tapped, or chosen with Enter or Space. On the server it renders the empty
 * canvas and the map's accessible name, which the browser hydrates.
 */
export function CompactSeatMap({ grid, name, zoomed, state, version, onPick, t }: {
  grid: SeatGrid;
  name: string;
  zoomed: boolean;
  state: (index: number) => SeatState;
  version: number;
  onPick?: (seatId: number, index: number, canvas: HTMLCanvasElement) => void;
  t: CompactMapWords;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [width, setWidth] = useState(0);
  const [cursor, setCursor] = useState(-1);
  const [said, setSaid] = useState('');
  // Drawn once it comes near the screen: on a phone a big venue's sectors are zoomed, each canvas
  // thousands of pixels across, and drawing those below the fold delayed the first one (issue 29).
  const [near, setNear] = useState(false);
  const cell = zoomed ? ZOOMED_CELL : fittedCell(width, grid.cols);

  // The box's width decides the fitted size; it is read once drawn and on every resize.
  useLayoutEffect(() => {
    const el = canvas.current;
    const box = el?.parentElement?.parentElement;
    if (!el || !box) return;
    setWidth(box.clientWidth);
    const seen = new ResizeObserver(() => setWidth(box.clientWidth));
    seen.observe(box);
    const coming = new IntersectionObserver(
      (entries) => {
        if (!entries.some((e) => e.isIntersecting)) return;
        setNear(true);
        coming.disconnect();
      },
      // A screen's height ahead: a sector is drawn before it scrolls into view.
      { rootMargin: '100% 0px' },
    );
    coming.observe(el);
    return () => {
      seen.disconnect();
      coming.disconnect();
    };
  }, []);

  useEffect(() => {
    const el = canvas.current;
    if (!el || !width || !near) return;
    draw(el, grid, cell, state, cursor);
  }, [grid, cell, width, near, version, cursor]);

  const describe = (i: number) => `${t.row} ${grid.rowName[i]}, ${t.seat} ${grid.number[i]}: ${{ free: t.seatFree, taken: t.seatTaken, mine: t.seatMine }[state(i)]}`;
  const move = (i: number) => {
    setCursor(i);
    setSaid(describe(i));
  };
  const hit = (event: MouseEvent) => {
    const el = event.currentTarget as HTMLCanvasElement;
    const box = el.getBoundingClientRect();
    const c = Math.floor((event.clientX - box.left - LABEL_COLUMN) / cell);
    const r = Math.floor((event.clientY - box.top) / cell);
    const i = c >= 0 ? grid.at.get(r * grid.cols + c) : undefined;
    if (i === undefined) return;
    setCursor(-1);
    if (state(i) !== 'taken') onPick?.(grid.ids[i]!, i, el);
  };
  const keys = (event: KeyboardEvent) => {
    const here = cursor >= 0 ? cursor : 0;
    let next = -1;
    if (event.key === 'ArrowRight' || event.key === 'ArrowLeft') next = nearest(grid, here, 0, event.key === 'ArrowRight' ? 1 : -1);
    else if (event.key === 'ArrowDown' || event.key === 'ArrowUp') next = nearest(grid, here, event.key === 'ArrowDown' ? 1 : -1, 0);
    else if (event.key === 'Home') next = 0;
    else if (event.key === 'End') next = grid.ids.length - 1;
    else if ((event.key === 'Enter' || event.key === ' ') && cursor >= 0) {
      event.preventDefault();
      if (state(cursor) !== 'taken') onPick?.(grid.ids[cursor]!, cursor, event.currentTarget as HTMLCanvasElement);
      else setSaid(describe(cursor));
      return;
    } else return;
    event.preventDefault();
    if (next >= 0) {
      move(next);
      scrollToCell(event.currentTarget as HTMLCanvasElement, grid, next, cell);
    }
  };
  // Said again after a pick, once the cart has answered (the state changed). The cursor is a
  // dependency too: this effect runs after the paint, and an arrow pressed between a live map's
  // redraw and its effect would otherwise be said over by the seat it left.
  useEffect(() => {
    if (cursor >= 0) setSaid(describe(cursor));
  }, [version, cursor]);

  const w = LABEL_COLUMN + grid.cols * cell;
  const h = grid.rows * cell;
  return (
    <div class="bigmap" data-zoomed={zoomed ? '' : undefined}>
      <canvas
        ref={canvas}
        tabIndex={0}
        // An application: the map takes the arrow keys, Enter and Space itself (a screen reader passes them on).
        role="application"
        aria-label={`${name}. ${t.keys}`}
        data-sector={grid.id}
        style={width ? `width:${w}px;height:${h}px` : undefined}
        onClick={hit}
        onKeyDown={keys}
        onFocus={() => (cursor < 0 ? move(firstFree(grid, state)) : undefined)}
        onBlur={() => setCursor(-1)}
      />
      <p class="sr-only" aria-live="polite">
        {said}
      </p>
    </div>
  );
}

function firstFree(grid: SeatGrid, state: (i: number) => SeatState): number {
  for (let i = 0; i < grid.ids.length; i++) if (state(i) !== 'taken') return i;
  return 0;
}

/** The seat nearest to `from` in a direction: the same row for left/right, the next row above or below. */
function nearest(grid: SeatGrid, from: number, dr: number, dc: number): number {
  const r0 = grid.r[from]!;
  const c0 = grid.c[from]!;
  let best = -1;
  let bestScore = Infinity;
  for (let i = 0; i < grid.ids.length; i++) {
    const r = grid.r[i]!;
    const c = grid.c[i]!;
    let score: number;
    if (dc) {
      if (r !== r0 || Math.sign(c - c0) !== dc) continue;
      score = Math.abs(c - c0);
    } else {
      if (Math.sign(r - r0) !== dr) continue;
      score = Math.abs(r - r0) * 10_000 + Math.abs(c - c0);
    }
    if (score < bestScore) {
      bestScore = score;
      best = i;
    }
  }
  return best;
}

function scrollToCell(el: HTMLCanvasElement, grid: SeatGrid, i: number, cell: number) {
  const box = el.parentElement?.parentElement;
  if (!box) return;
  const x = LABEL_COLUMN + grid.c[i]! * cell;
  if (x < box.scrollLeft + LABEL_COLUMN || x + cell > box.scrollLeft + box.clientWidth) box.scrollLeft = Math.max(0, x - box.clientWidth / 2);
}

/** The seat's place on the page, for a message shown beside it. */
export function seatBox(grid: SeatGrid, i: number, el: HTMLCanvasElement): { left: number; top: number; size: number } {
  const cell = (el.clientWidth - LABEL_COLUMN) / grid.cols;
  return { left: el.offsetLeft + LABEL_COLUMN + grid.c[i]! * cell, top: el.offsetTop + grid.r[i]! * cell, size: cell };
}

const COLOURS: Record<SeatState, [fill: string, stroke: string]> = {
  free: ['#ffffff', '#1f4fd1'],
  taken: ['#d5d8dd', '#8a8f98'],
  mine: ['#0b6b34', '#0b6b34'],
};

function draw(el: HTMLCanvasElement, grid: SeatGrid, cell: number, state: (i: number) => SeatState, cursor: number) {
  const w = LABEL_COLUMN + grid.cols * cell;
  const h = grid.rows * cell;
  // The backing store follows the screen's density, up to about 16 million pixels (a browser's limit).
  const dpr = Math.max(1, Math.min(window.devicePixelRatio || 1, Math.sqrt(16e6 / Math.max(1, w * h))));
  el.width = Math.round(w * dpr);
  el.height = Math.round(h * dpr);
  const ctx = el.getContext('2d');
  if (!ctx) return;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, w, h);
  const gap = cell >= 12 ? 3 : cell >= 6 ? 1 : 0;
  const size = cell - gap;
  // One path per state: three fills and three strokes for the whole sector.
  // The outline is drawn inside the seat's square, so that neighbours' outlines never touch.
  const line = size >= 16 ? 2 : size >= 5 ? 1 : 0;
  for (const s of ['free', 'taken', 'mine'] as SeatState[]) {
    const [fill, stroke] = COLOURS[s];
    ctx.beginPath();
    for (let i = 0; i < grid.ids.length; i++) {
      if (state(i) === s) ctx.rect(LABEL_COLUMN + grid.c[i]! * cell + gap / 2 + line / 2, grid.r[i]! * cell + gap / 2 + line / 2, size - line, size - line);
    }
    ctx.fillStyle = fill;
    ctx.fill();
    if (line) {
      ctx.strokeStyle = stroke;
      ctx.lineWidth = line;
      ctx.stroke();
    }
  }
  // Numbers on seats big enough to read them.
  if (cell >= 20) {
    ctx.font = `${Math.round(cell * 0.42)}px system-ui, sans-serif`;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    for (let i = 0; i < grid.ids.length; i++) {
      const s = state(i);
      ctx.fillStyle = s === 'mine' ? '#ffffff' : s === 'taken' ? '#3d4148' : '#1f4fd1';
      ctx.fillText(grid.number[i]!, LABEL_COLUMN + grid.c[i]! * cell + cell / 2, grid.r[i]! * cell + cell / 2 + 1);
    }
  }
  // Row names in the left column.
  ctx.fillStyle = '#555555';
  ctx.font = `700 ${Math.max(7, Math.min(12, Math.round(cell * 0.6)))}px system-ui, sans-serif`;
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  if (cell >= 7) for (const [name, r] of grid.labels) ctx.fillText(name, LABEL_COLUMN - 4, r * cell + cell / 2);
  // The keyboard's cursor: the focus colours of the page (a yellow ring on black).
  if (cursor >= 0) {
    const x = LABEL_COLUMN + grid.c[cursor]! * cell;
    const y = grid.r[cursor]! * cell;
    ctx.lineWidth = 3;
    ctx.strokeStyle = '#1a1a1a';
    ctx.strokeRect(x - 1, y - 1, cell + 2, cell + 2);
    ctx.strokeStyle = '#ffbf47';
    ctx.lineWidth = 2;
    ctx.strokeRect(x, y, cell, cell);
  }
}
