import { buildHitGrid, seatIndexAt, type HitGrid } from '../hit-grid.js';
import type { SeatMap, SeatView } from '../seat-map-model.js';
import { seatPoints, type SeatState } from './seat-layer.js';

/**
 * The seats of a large map (CANVAS_FROM seats and more) painted on a <canvas> under the <svg> of
 * the labels, instead of one SVG element per seat: measured with bench:widget, 100,000 polygons
 * cost seconds of style and layout to open and tens of milliseconds of main-thread work per pan
 * frame; a canvas costs one pass over the seats per view change and nothing while the map is
 * dragged (the pan moves the painted pixels with a CSS transform, as before).
 *
 * What the seat elements gave for free is kept: a click or a tap finds its seat through a grid
 * (hit-grid.ts); the keyboard's tab stop is one real SVG <polygon> (role checkbox, accessible name,
 * data-id), drawn over the painted seat and moved from seat to seat by SeatMap's roving focus, so
 * screen readers and the focus ring work as on a small map. Colours come from the stylesheet: one
 * hidden probe element per state, read with getComputedStyle, so a theme restyles both layers.
 */

/** From this many numbered seats on, the widget paints seats on a canvas. */
export const CANVAS_FROM = 8000;

const SVG_NS = 'http://www.w3.org/2000/svg';
const STATES: SeatState[] = ['a', 'h', 'x', 'm'];
/** A seat's drawn state (an index of STATES) by its status code (seat-map-model's STATUSES: available, held, sold, blocked). */
const STATE_OF_STATUS = [0, 1, 2, 2];
const MINE = 3;
const HALF: Record<SeatState, number> = { a: 0.36, m: 0.36, h: 0.34, x: 0.2 };

type Box = { x: number; y: number; w: number; h: number };
interface Paint {
  fill: string;
  fillOpacity: number;
  stroke: string | null;
  strokeWidth: number;
}
/** The row names' font, read from the stylesheet (`.row-label`): size in map units. */
interface LabelFont {
  weight: string;
  family: string;
  size: number;
  fill: string;
}

export class CanvasSeatLayer {
  private map: SeatMap;
  private mine: Set<number>;
  private view: Box;
  /** Each seat's drawn state (an index of STATES), in the columns' order; the grid over the seats' centres. */
  private states: Uint8Array = new Uint8Array(0);
  private grid: HitGrid | null = null;
  private proxy: SVGPolygonElement;
  private probes = new Map<SeatState, Element>();
  private labelProbe: Element;
  private paints: Map<SeatState, Paint> | null = null;
  private labelFont: LabelFont | null = null;
  private frame = 0;
  private resize: ResizeObserver | null = null;
  private drawnSize = [0, 0];

  constructor(
    private readonly root: SVGGElement,
    private readonly canvas: HTMLCanvasElement,
    map: SeatMap,
    mine: Set<number>,
    view: Box,
  ) {
    this.map = map;
    this.mine = mine;
    this.view = view;
    const doc = root.ownerDocument;
    root.textContent = '';
    const probes = doc.createElementNS(SVG_NS, 'g');
    probes.setAttribute('aria-hidden', 'true');
    probes.setAttribute('class', 'probes');
    for (const state of STATES) {
      const el = doc.createElementNS(SVG_NS, 'polygon');
      el.setAttribute('class', `s ${state}`);
      probes.appendChild(el);
      this.probes.set(state, el);
    }
    // The row names are painted too (SeatMap leaves them out of the <svg> on a painted map): one
    // <text> per row cost more style, layout and paint on the first frame than the seats.
    this.labelProbe = doc.createElementNS(SVG_NS, 'text');
    this.labelProbe.setAttribute('class', 'row-label');
    probes.appendChild(this.labelProbe);
    root.appendChild(probes);
    this.proxy = doc.createElementNS(SVG_NS, 'polygon');
    root.appendChild(this.proxy);
    this.states = statesOf(map, mine);
    this.draw();
    if (typeof ResizeObserver !== 'undefined') {
      // Its first call (on observe) finds the size just drawn: nothing to do.
      this.resize = new ResizeObserver(() => {
        if (canvas.clientWidth !== this.drawnSize[0] || canvas.clientHeight !== this.drawnSize[1]) this.schedule();
      });
      this.resize.observe(canvas);
    }
  }

  /** Builds the hit-test grid now if it is not built: on a press, before its click needs it (not before the first paint). */
  prepareHits() {
    if (this.map.seats.size) this.hitGrid();
  }

  private hitGrid(): HitGrid {
    return (this.grid ??= buildHitGrid(this.map.seats.xs, this.map.seats.ys));
  }

  /** The seat under a point of the map (map units), or null: the nearest centre within half a seat pitch. */
  seatAt(x: number, y: number): SeatView | null {
    const i = this.map.seats.size ? seatIndexAt(this.hitGrid(), x, y, 0.5) : -1;
    return i < 0 ? null : this.map.seats.at(i);
  }

  /** The keyboard's tab stop: the one SVG element, put on seat `id`. */
  element(id: number): Element | null {
    const i = this.map.seats.indexOf(id);
    if (i < 0) return null;
    const seat = this.map.seats.at(i);
    const state = STATES[this.states[i]!]!;
    const el = this.proxy;
    el.setAttribute('class', `s ${state}`);
    el.setAttribute('points', seatPoints(seat.x, seat.y, state));
    el.setAttribute('data-id', String(seat.id));
    return el;
  }

  update(map: SeatMap, mine: Set<number>) {
    if (map === this.map && mine === this.mine) return;
    // Another layout (other columns): the grid's indices no longer hold.
    if (map.seats.xs !== this.map.seats.xs || map.seats.ys !== this.map.seats.ys) this.grid = null;
    this.map = map;
    this.mine = mine;
    this.states = statesOf(map, mine);
    const id = Number(this.proxy.getAttribute('data-id'));
    if (id && map.seats.has(id)) this.element(id);
    this.draw();
  }

  setView(view: Box) {
    this.view = view;
    this.draw();
  }

  destroy() {
    this.resize?.disconnect();
    if (this.frame) cancelAnimationFrame(this.frame);
  }

  private schedule() {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  }

  private readPaints(): Map<SeatState, Paint> {
    const out = new Map<SeatState, Paint>();
    for (const [state, el] of this.probes) {
      const cs = getComputedStyle(el);
      out.set(state, {
        fill: cs.fill,
        fillOpacity: Number(cs.fillOpacity || 1),
        stroke: cs.stroke && cs.stroke !== 'none' ? cs.stroke : null,
        strokeWidth: parseFloat(cs.strokeWidth) || 0,
      });
    }
    const cs = getComputedStyle(this.labelProbe);
    this.labelFont = { weight: cs.fontWeight || '700', family: cs.fontFamily || 'sans-serif', size: parseFloat(cs.fontSize) || 0.5, fill: cs.fill || '#555d6e' };
    return out;
  }

  /**
   * The row names in view, where the <svg> drew them (right-aligned 0.7 units left of the row's
   * first seat, centred on the row), in device pixels; none while they would be under 2 px high.
   */
  private drawRowNames(ctx: CanvasRenderingContext2D, k: number, tx: number, ty: number, x0: number, x1: number, y0: number, y1: number) {
    const font = this.labelFont;
    if (!font || font.size * k < 2) return;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.globalAlpha = 1;
    ctx.font = `${font.weight} ${font.size * k}px ${font.family}`;
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    ctx.fillStyle = font.fill;
    for (const r of this.map.rows) {
      const x = r.minX - 0.7;
      if (r.y < y0 || r.y > y1 || x < x0 - 2 || x > x1 + 2) continue;
      ctx.fillText(r.row, tx + x * k, ty + r.y * k);
    }
  }

  /** Writes every seat in view as pixels: a square per seat, an outline where the state has one. */
  private drawPixels(ctx: CanvasRenderingContext2D, w: number, h: number, k: number, tx: number, ty: number): number {
    const img = ctx.createImageData(w, h);
    const buf = new Uint32Array(img.data.buffer);
    const fills = new Uint32Array(STATES.length);
    const edges = new Uint32Array(STATES.length);
    const hasEdge = STATES.map((state, k) => {
      const p = this.paints!.get(state)!;
      fills[k] = pixel(rgba(p.fill), p.fillOpacity);
      edges[k] = p.stroke ? pixel(rgba(p.stroke), 1) : 0;
      return p.stroke !== null;
    });
    // The half size of each state in device pixels; the diamond of a held seat covers about half
    // its box: a smaller square.
    const half = STATES.map((state) => (state === 'h' ? HALF.h * 0.75 : HALF[state]) * k);
    const { xs, ys, size } = this.map.seats;
    const states = this.states;
    let drawn = 0;
    for (let i = 0; i < size; i++) {
      const s = states[i]!;
      const r = half[s]!;
      const cx = tx + xs[i]! * k;
      const cy = ty + ys[i]! * k;
      let x0 = Math.floor(cx - r);
      let y0 = Math.floor(cy - r);
      let x1 = Math.max(x0 + 1, Math.round(cx + r));
      let y1 = Math.max(y0 + 1, Math.round(cy + r));
      if (x1 <= 0 || y1 <= 0 || x0 >= w || y0 >= h) continue;
      drawn++;
      const fill = fills[s]!;
      const edge = edges[s]!;
      const outline = hasEdge[s] && x1 - x0 >= 3 && y1 - y0 >= 3;
      const ex0 = x0;
      const ey0 = y0;
      const ex1 = x1 - 1;
      const ey1 = y1 - 1;
      if (x0 < 0) x0 = 0;
      if (y0 < 0) y0 = 0;
      if (x1 > w) x1 = w;
      if (y1 > h) y1 = h;
      if (!outline) {
        // Too small for an outline: one colour (a free seat's outline colour, else its fill).
        const solid = hasEdge[s] && s === 0 ? edge : fill;
        for (let y = y0; y < y1; y++) buf.fill(solid, y * w + x0, y * w + x1);
        continue;
      }
      for (let y = y0; y < y1; y++) {
        const row = y * w;
        for (let x = x0; x < x1; x++) buf[row + x] = x === ex0 || x === ex1 || y === ey0 || y === ey1 ? edge : fill;
      }
    }
    ctx.putImageData(img, 0, 0);
    return drawn;
  }

  /** Paints the seats in view, one path per state; as the <svg> shows its viewBox (xMidYMid meet). */
  draw() {
    const canvas = this.canvas;
    const cssW = canvas.clientWidth;
    const cssH = canvas.clientHeight;
    if (!cssW || !cssH) return;
    const dpr = Math.min(3, globalThis.devicePixelRatio || 1);
    const w = Math.round(cssW * dpr);
    const h = Math.round(cssH * dpr);
    if (canvas.width !== w || canvas.height !== h) {
      canvas.width = w;
      canvas.height = h;
    }
    const ctx = canvas.getContext('2d');
    if (!ctx) return;
    this.drawnSize = [cssW, cssH];
    this.paints ??= this.readPaints();
    const b = this.view;
    const scale = Math.min(cssW / b.w, cssH / b.h);
    const ox = (cssW - b.w * scale) / 2;
    const oy = (cssH - b.h * scale) / 2;
    // Seats a few device pixels wide (a whole stadium in view): written as pixels, which costs a
    // few milliseconds for 100,000 seats where filling and stroking paths costs most of a second
    // in a software-rendered canvas. Closer, the seats in view are drawn as paths.
    const k = scale * dpr;
    const tx = (ox - b.x * scale) * dpr;
    const ty = (oy - b.y * scale) * dpr;
    // The map units in view, with a seat's margin.
    const x0 = b.x - ox / scale - 1;
    const x1 = b.x + (cssW - ox) / scale + 1;
    const y0 = b.y - oy / scale - 1;
    const y1 = b.y + (cssH - oy) / scale + 1;
    if (k < PIXEL_BELOW) {
      const drawn = this.drawPixels(ctx, w, h, k, tx, ty);
      this.drawRowNames(ctx, k, tx, ty, x0, x1, y0, y1);
      canvas.setAttribute('data-drawn', String(drawn));
      return;
    }
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, w, h);
    ctx.setTransform(k, 0, 0, k, tx, ty);
    const paths = STATES.map(() => new Path2D());
    const { xs, ys, size } = this.map.seats;
    let drawn = 0;
    for (let i = 0; i < size; i++) {
      const x = xs[i]!;
      const y = ys[i]!;
      if (x < x0 || x > x1 || y < y0 || y > y1) continue;
      const s = this.states[i]!;
      const path = paths[s]!;
      const r = HALF[STATES[s]!];
      if (s === 1) {
        path.moveTo(x, y - r);
        path.lineTo(x + r, y);
        path.lineTo(x, y + r);
        path.lineTo(x - r, y);
        path.closePath();
      } else path.rect(x - r, y - r, 2 * r, 2 * r);
      drawn++;
    }
    for (const [k, state] of STATES.entries()) {
      const paint = this.paints.get(state)!;
      const path = paths[k]!;
      ctx.globalAlpha = paint.fillOpacity;
      ctx.fillStyle = paint.fill;
      ctx.fill(path);
      ctx.globalAlpha = 1;
      // At least one device pixel: a free seat is a white square drawn by its outline.
      if (paint.stroke && paint.strokeWidth > 0) {
        ctx.strokeStyle = paint.stroke;
        ctx.lineWidth = Math.max(paint.strokeWidth, 1 / (scale * dpr));
        ctx.stroke(path);
      }
    }
    this.drawRowNames(ctx, k, tx, ty, x0, x1, y0, y1);
    canvas.setAttribute('data-drawn', String(drawn));
  }
}

/** Device pixels per map unit below which seats are written as pixels (see draw). */
const PIXEL_BELOW = 8;

/** "rgb(1, 2, 3)" or "rgba(1, 2, 3, 0.5)" -> [r, g, b, a 0..1]. */
function rgba(color: string): [number, number, number, number] {
  const m = /rgba?\(([^)]*)\)/.exec(color);
  if (!m) return [0, 0, 0, 1];
  const [r = 0, g = 0, b = 0, a = 1] = m[1]!.split(/[ ,/]+/).filter(Boolean).map(Number);
  return [r, g, b, a];
}

/** One RGBA pixel as the little-endian Uint32 view of ImageData holds it. */
const pixel = ([r, g, b, a]: [number, number, number, number], opacity: number) => ((Math.round(a * opacity * 255) << 24) | (b << 16) | (g << 8) | r) >>> 0;

/** Each seat's drawn state (an index of STATES): its status's, or mine for the seats in the cart. */
function statesOf(map: SeatMap, mine: Set<number>): Uint8Array {
  const { status, size } = map.seats;
  const states = new Uint8Array(size);
  for (let i = 0; i < size; i++) states[i] = STATE_OF_STATUS[status[i]!]!;
  for (const id of mine) {
    const i = map.seats.indexOf(id);
    if (i >= 0) states[i] = MINE;
  }
  return states;
}
