import { sectorSeats, type SeatMap, type SeatView } from '../seat-map-model.js';

/**
 * The seats of the map, drawn and updated outside Preact's diff: thousands of elements are built
 * once per map (cloned from one prototype element, into a fragment attached once), and later
 * changes (a seat added to the cart, a refreshed availability) touch only the seats whose state
 * changed. Preact owns the <svg> around them, never the seats. No markup strings: a partner page
 * that enforces Trusted Types (`require-trusted-types-for 'script'`) blocks `innerHTML`.
 */

const SVG_NS = 'http://www.w3.org/2000/svg';

/** Drawn state of a seat: free, mine (in the cart), held by someone else, sold or blocked. */
export type SeatState = 'a' | 'm' | 'h' | 'x';

const STATE: Record<SeatView['status'], SeatState> = { available: 'a', held: 'h', sold: 'x', blocked: 'x' };

const seatState = (seat: SeatView, mine: Set<number>): SeatState => (mine.has(seat.id) ? 'm' : STATE[seat.status]);

/**
 * Each state has its own shape and size besides its colour: free = large hollow square, mine =
 * large filled square with a dark outline, held = medium diamond, sold or blocked = small square.
 * Seats are <polygon>s, not <circle>s: a circle's cx and cy are CSS properties (presentation
 * attributes), so 5,000 different positions make 5,000 different styles for the browser to
 * compute, while `points` is not a CSS property and seats of one state share one computed style
 * (about half the style time of the first frame).
 */
const HALF: Record<SeatState, number> = { a: 0.36, m: 0.36, h: 0.34, x: 0.2 };

const r2 = (n: number) => Math.round(n * 100) / 100;

/** The outline of a seat of `state` centred on (x, y), in map units. */
export function seatPoints(x: number, y: number, state: SeatState): string {
  const h = HALF[state];
  if (state === 'h') return `${r2(x)},${r2(y - h)} ${r2(x + h)},${r2(y)} ${r2(x)},${r2(y + h)} ${r2(x - h)},${r2(y)}`;
  const x1 = r2(x - h);
  const x2 = r2(x + h);
  const y1 = r2(y - h);
  const y2 = r2(y + h);
  return `${x1},${y1} ${x2},${y1} ${x2},${y2} ${x1},${y2}`;
}

function applyState(el: Element, seat: SeatView, state: SeatState) {
  el.setAttribute('class', `s ${state}`);
  el.setAttribute('points', seatPoints(seat.x, seat.y, state));
}

export class SeatLayer {
  private map: SeatMap;
  private mine: Set<number>;
  /** Seat elements by id, filled as they are created. */
  private index = new Map<number, Element>();

  constructor(
    private readonly root: SVGGElement,
    map: SeatMap,
    mine: Set<number>,
  ) {
    this.map = map;
    this.mine = mine;
    this.draw();
  }

  /**
   * One labelled group per sector, its seats cloned from one empty <polygon> (a shallow clone is
   * cheaper than createElementNS per seat), built in a detached fragment and attached in one step:
   * one style and layout pass, as with the markup string this replaces. Per seat only what drawing
   * and hit-testing need (class, position, id); role and label go on the focused seat only (roving
   * focus in SeatMap).
   */
  private draw() {
    const doc = this.root.ownerDocument;
    const proto = doc.createElementNS(SVG_NS, 'polygon');
    const out = doc.createDocumentFragment();
    const index = new Map<number, Element>();
    for (const sector of this.map.sectors) {
      if (sector.count === 0) continue;
      const group = doc.createElementNS(SVG_NS, 'g');
      group.setAttribute('role', 'group');
      group.setAttribute('aria-label', sector.name);
      group.setAttribute('data-sector', String(sector.id));
      for (const seat of sectorSeats(this.map, sector)) {
        const state = seatState(seat, this.mine);
        const el = proto.cloneNode(false) as Element;
        el.setAttribute('class', `s ${state}`);
        el.setAttribute('points', seatPoints(seat.x, seat.y, state));
        el.setAttribute('data-id', String(seat.id));
        group.appendChild(el);
        index.set(seat.id, el);
      }
      out.appendChild(group);
    }
    this.root.textContent = '';
    this.root.appendChild(out);
    this.index = index;
  }

  element(id: number): Element | null {
    return this.index.get(id) ?? null;
  }

  /**
   * Shows a new availability or cart: only seats whose drawn state changed are touched, so the
   * elements (and the keyboard focus on one of them) stay. A different set of seats is redrawn.
   */
  update(map: SeatMap, mine: Set<number>) {
    if (map === this.map && mine === this.mine) return;
    const before = this.map;
    const beforeMine = this.mine;
    this.map = map;
    this.mine = mine;
    if (!sameSeats(before, map)) return this.draw();
    const els = this.index;
    for (const seat of map.seats.values()) {
      const state = seatState(seat, mine);
      if (state !== seatState(before.seats.get(seat.id)!, beforeMine)) applyState(els.get(seat.id)!, seat, state);
    }
  }
}

/** Same seats at the same places and in the same sectors (the usual case of a refresh: the same columns). */
function sameSeats(a: SeatMap, b: SeatMap): boolean {
  const [x, y] = [a.seats, b.seats];
  if (x.ids === y.ids && x.xs === y.xs && x.ys === y.ys && x.sectorIds === y.sectorIds) return true;
  if (x.size !== y.size) return false;
  for (let i = 0; i < y.size; i++) {
    const j = x.indexOf(y.ids[i]!);
    if (j < 0 || x.xs[j] !== y.xs[i] || x.ys[j] !== y.ys[i] || x.sectorIds[j] !== y.sectorIds[i]) return false;
  }
  return true;
}
