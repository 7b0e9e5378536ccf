import { memo } from 'preact/compat';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { SeatKey } from '../plan/ops.js';
import { SEAT_RADIUS, seatAt, seatsInRect, tilesIn, type PlacedSeat, type Rect, type SeatIndex, type Tile } from '../plan/spatial.js';
import { pos, type Plan, type Point, type Shape } from '../plan/types.js';

// The drawing: an SVG whose viewBox is the part of the plan on screen. Seats are drawn per tile of
// the spatial index, only the tiles on screen, each a few <path>s (one per category), and a tile
// draws again only when its seats or their selection change. Panning, the selection box and
// dragging seats change attributes of the DOM directly while the pointer moves; the state (and a
// redraw of the tiles that come on screen) follows when the pointer is released. The selection is
// one path of rings over the tiles.

export interface View {
  /** The plan point at the top-left corner of the canvas. */
  x: number;
  y: number;
  /** Screen pixels per plan unit. */
  scale: number;
}

export type Mode = 'select' | 'pan' | 'block' | 'stage' | 'focal';

export const UNCATEGORISED = '#8a93a0';
const r = SEAT_RADIUS;

/** Detail by zoom: 0 dots, 1 seats with flags and row labels, 2 seat numbers too. */
const detail = (scale: number) => (scale < 0.3 ? 0 : scale < 1.2 ? 1 : 2);

const circle = (x: number, y: number, radius: number) => `M${x - radius} ${y}a${radius} ${radius} 0 1 0 ${2 * radius} 0a${radius} ${radius} 0 1 0 ${-2 * radius} 0`;

interface TileProps {
  tile: Tile;
  colors: Map<string, string>;
  lod: number;
}

const SeatTile = memo(function SeatTile({ tile, colors, lod }: TileProps) {
  const byColor = new Map<string, string[]>();
  const wheelchair: string[] = [];
  const companion: string[] = [];
  const restricted: string[] = [];
  for (const p of tile.seats) {
    const color = (p.seat.category && colors.get(p.seat.category)) || UNCATEGORISED;
    let list = byColor.get(color);
    if (!list) byColor.set(color, (list = []));
    list.push(lod === 0 ? `M${p.x - r} ${p.y - r}h${2 * r}v${2 * r}h${-2 * r}z` : circle(p.x, p.y, r));
    if (lod === 0) continue;
    if (p.seat.wheelchair) wheelchair.push(`M${p.x - 5} ${p.y - 5}h10v10h-10z`);
    if (p.seat.companion) companion.push(circle(p.x, p.y, 4));
    if (p.seat.restricted_view) restricted.push(`M${p.x - 7} ${p.y + 7}L${p.x + 7} ${p.y - 7}`);
  }
  return (
    <g data-tile={tile.id}>
      {[...byColor].map(([color, parts]) => (
        <path key={color} d={parts.join('')} fill={color} />
      ))}
      {wheelchair.length > 0 && <path class="flag-wheelchair" d={wheelchair.join('')} />}
      {companion.length > 0 && <path class="flag-companion" d={companion.join('')} />}
      {restricted.length > 0 && <path class="flag-restricted" d={restricted.join('')} />}
      {lod === 2 &&
        tile.seats.map((p) => (
          <text key={p.key} class="seat-number" x={p.x} y={p.y + 3}>
            {p.seat.number}
          </text>
        ))}
      {lod >= 1 &&
        tile.seats
          .filter((p) => p.rowStart)
          .map((p) => (
            <text key={`row-${p.key}`} class="row-label" x={p.x - r - 6} y={p.y + 4}>
              {p.rowLabel}
            </text>
          ))}
    </g>
  );
});

function ShapeView({ shape, ox, oy }: { shape: Shape; ox: number; oy: number }) {
  const p = pos(shape.position);
  const x = ox + p.x;
  const y = oy + p.y;
  const fill = shape.color ?? (shape.role === 'stage' ? '#3a3f47' : 'none');
  const stroke = shape.border_color ?? (shape.role === 'stage' ? 'none' : '#4d5560');
  const transform = shape.rotation ? `rotate(${shape.rotation} ${x} ${y})` : undefined;
  switch (shape.kind) {
    case 'rectangle':
      return (
        <g transform={transform} class={shape.role === 'stage' ? 'stage' : undefined}>
          <rect x={x} y={y} width={Math.abs(shape.width ?? 0)} height={Math.abs(shape.height ?? 0)} fill={fill} stroke={stroke} />
          {shape.role === 'stage' && (
            <text class="stage-label" x={x + Math.abs(shape.width ?? 0) / 2} y={y + Math.abs(shape.height ?? 0) / 2 + 6}>
              STAGE
            </text>
          )}
        </g>
      );
    case 'circle':
      return <circle cx={x} cy={y} r={shape.radius ?? 0} fill={fill} stroke={stroke} transform={transform} />;
    case 'ellipse':
      return <ellipse cx={x} cy={y} rx={shape.radius_xy?.x ?? 0} ry={shape.radius_xy?.y ?? 0} fill={fill} stroke={stroke} transform={transform} />;
    case 'polygon':
      return <polygon points={(shape.points ?? []).map((q) => `${x + q.x},${y + q.y}`).join(' ')} fill={fill} stroke={stroke} transform={transform} />;
    case 'text':
      return shape.text ? (
        <text class="shape-text" x={x + shape.text.position.x} y={y + shape.text.position.y} transform={transform} fill={shape.text.color ?? '#1b1f24'}>
          {shape.text.text}
        </text>
      ) : null;
  }
}

const Drawings = memo(function Drawings({ plan }: { plan: Plan }) {
  return (
    <g class="drawings">
      {plan.sectors.map((sector, s) => {
        const sp = pos(sector.position);
        return (sector.shapes ?? []).map((shape, i) => <ShapeView key={`${s}-${i}`} shape={shape} ox={sp.x} oy={sp.y} />);
      })}
      {(plan.shapes ?? []).map((shape, i) => (
        <ShapeView key={`p-${i}`} shape={shape} ox={0} oy={0} />
      ))}
    </g>
  );
});

/** Sector names above their first row. */
/** Where a sector's name goes, per list of placed seats (kept while the sector is unchanged). */
const sectorTops = new WeakMap<PlacedSeat[], { x: number; y: number; maxX: number }>();

const SectorNames = memo(function SectorNames({ plan, index }: { plan: Plan; index: SeatIndex }) {
  const tops = new Map<number, { x: number; y: number; maxX: number }>();
  index.sectors.forEach((list, s) => {
    if (!list.length) return;
    let t = sectorTops.get(list);
    if (!t) {
      t = { x: Infinity, y: Infinity, maxX: -Infinity };
      for (const p of list) {
        if (p.x < t.x) t.x = p.x;
        if (p.x > t.maxX) t.maxX = p.x;
        if (p.y < t.y) t.y = p.y;
      }
      sectorTops.set(list, t);
    }
    tops.set(s, t);
  });
  return (
    <g class="sector-names">
      {[...tops].map(([s, t]) => (
        <text key={s} x={(t.x + t.maxX) / 2} y={t.y - r - 10}>
          {plan.sectors[s]?.name}
        </text>
      ))}
    </g>
  );
});

interface CanvasProps {
  plan: Plan;
  index: SeatIndex;
  selection: ReadonlySet<SeatKey>;
  colors: Map<string, string>;
  view: View;
  mode: Mode;
  onView(view: View): void;
  onSelect(keys: SeatKey[], how: 'replace' | 'add' | 'toggle'): void;
  onMoveSelection(dx: number, dy: number): void;
  onRect(mode: 'block' | 'stage', rect: Rect): void;
  onFocal(point: Point): void;
  label: string;
}

type Drag =
  | { kind: 'pan'; sx: number; sy: number; view: View; moved: boolean }
  | { kind: 'box'; start: Point; add: boolean; end: Point }
  | { kind: 'move'; start: Point; end: Point; key: SeatKey }
  | { kind: 'rect'; mode: 'block' | 'stage'; start: Point; end: Point };

const normal = (a: Point, b: Point): Rect => ({ x: Math.min(a.x, b.x), y: Math.min(a.y, b.y), width: Math.abs(a.x - b.x), height: Math.abs(a.y - b.y) });

export function Canvas(props: CanvasProps) {
  const { plan, index, selection, colors, view, mode } = props;
  const svg = useRef<SVGSVGElement>(null);
  const box = useRef<SVGRectElement>(null);
  const ghost = useRef<SVGGElement>(null);
  const drag = useRef<Drag | null>(null);
  const [size, setSize] = useState({ width: 800, height: 500 });
  const latest = useRef(props);
  latest.current = props;

  useEffect(() => {
    const el = svg.current!;
    const observer = new ResizeObserver(() => setSize({ width: el.clientWidth || 1, height: el.clientHeight || 1 }));
    observer.observe(el);
    // Wheel zoom around the pointer; a passive listener could not keep the page from scrolling.
    // The wheel's steps add up within one animation frame: one redraw per frame at most.
    let pending: View | null = null;
    const wheel = (event: WheelEvent) => {
      event.preventDefault();
      const v = pending ?? latest.current.view;
      const rect = el.getBoundingClientRect();
      const px = event.clientX - rect.left;
      const py = event.clientY - rect.top;
      const factor = Math.exp(-event.deltaY * (event.deltaMode === 1 ? 0.05 : 0.0015));
      const scale = Math.min(8, Math.max(0.02, v.scale * factor));
      const first = pending === null;
      pending = { scale, x: v.x + px / v.scale - px / scale, y: v.y + py / v.scale - py / scale };
      if (first) {
        requestAnimationFrame(() => {
          if (pending) latest.current.onView(pending);
          pending = null;
        });
      }
    };
    el.addEventListener('wheel', wheel, { passive: false });
    return () => {
      observer.disconnect();
      el.removeEventListener('wheel', wheel);
    };
  }, []);

  const viewRect: Rect = { x: view.x, y: view.y, width: size.width / view.scale, height: size.height / view.scale };
  const viewBox = (v: View) => `${v.x} ${v.y} ${size.width / v.scale} ${size.height / v.scale}`;
  const lod = detail(view.scale);
  const margin = 40 / view.scale;
  const visible = tilesIn(index, { x: viewRect.x - margin, y: viewRect.y - margin, width: viewRect.width + 2 * margin, height: viewRect.height + 2 * margin });

  // The selection is drawn over the tiles (rings), so selecting never redraws a tile.
  // Only the lists of the sectors the selection is in are scanned (a key starts with its sector's index).
  const selectedSeats: PlacedSeat[] = useMemo(() => {
    const sectors = new Set<number>();
    for (const key of selection) sectors.add(Number(key.slice(0, key.indexOf('.'))));
    return [...sectors].sort((a, b) => a - b).flatMap((s) => (index.sectors[s] ?? []).filter((p) => selection.has(p.key)));
  }, [index, selection]);
  const selectionPath = useMemo(() => selectedSeats.map((p) => circle(p.x, p.y, r + 2)).join(''), [selectedSeats]);

  const toPlan = (event: PointerEvent): Point => {
    const rect = svg.current!.getBoundingClientRect();
    return { x: view.x + (event.clientX - rect.left) / view.scale, y: view.y + (event.clientY - rect.top) / view.scale };
  };

  const showBox = (a: Point, b: Point) => {
    const n = normal(a, b);
    const el = box.current!;
    el.setAttribute('x', String(n.x));
    el.setAttribute('y', String(n.y));
    el.setAttribute('width', String(n.width));
    el.setAttribute('height', String(n.height));
    el.setAttribute('display', 'inline');
  };

  const onPointerDown = (event: PointerEvent) => {
    if (event.button !== 0 && event.button !== 1) return;
    const el = svg.current!;
    el.setPointerCapture(event.pointerId);
    const p = toPlan(event);
    if (mode === 'pan' || event.button === 1) {
      drag.current = { kind: 'pan', sx: event.clientX, sy: event.clientY, view, moved: false };
      return;
    }
    if (mode === 'block' || mode === 'stage') {
      drag.current = { kind: 'rect', mode, start: p, end: p };
      showBox(p, p);
      return;
    }
    if (mode === 'focal') return;
    const hit = seatAt(index, p.x, p.y);
    if (hit) {
      if (event.shiftKey || event.ctrlKey || event.metaKey) {
        props.onSelect([hit.key], 'toggle');
        return;
      }
      if (!selection.has(hit.key)) props.onSelect([hit.key], 'replace');
      drag.current = { kind: 'move', start: p, end: p, key: hit.key };
      return;
    }
    drag.current = { kind: 'box', start: p, end: p, add: event.shiftKey };
  };

  const onPointerMove = (event: PointerEvent) => {
    const d = drag.current;
    if (!d) return;
    if (d.kind === 'pan') {
      const dx = (event.clientX - d.sx) / d.view.scale;
      const dy = (event.clientY - d.sy) / d.view.scale;
      d.moved = true;
      svg.current!.setAttribute('viewBox', viewBox({ ...d.view, x: d.view.x - dx, y: d.view.y - dy }));
      return;
    }
    d.end = toPlan(event);
    if (d.kind === 'box' || d.kind === 'rect') showBox(d.start, d.end);
    if (d.kind === 'move') ghost.current!.setAttribute('transform', `translate(${d.end.x - d.start.x} ${d.end.y - d.start.y})`);
  };

  const onPointerUp = (event: PointerEvent) => {
    const d = drag.current;
    drag.current = null;
    box.current!.setAttribute('display', 'none');
    if (mode === 'focal' && !d) {
      const p = toPlan(event);
      props.onFocal({ x: Math.round(p.x), y: Math.round(p.y) });
      return;
    }
    if (!d) return;
    if (d.kind === 'pan') {
      if (d.moved) props.onView({ ...d.view, x: d.view.x - (event.clientX - d.sx) / d.view.scale, y: d.view.y - (event.clientY - d.sy) / d.view.scale });
      return;
    }
    if (d.kind === 'move') {
      ghost.current!.removeAttribute('transform');
      const dx = Math.round(d.end.x - d.start.x);
      const dy = Math.round(d.end.y - d.start.y);
      if (Math.abs(dx) + Math.abs(dy) >= 2) props.onMoveSelection(dx, dy);
      // A click (no drag) on a seat of a larger selection selects that seat alone.
      else if (selection.size > 1) props.onSelect([d.key], 'replace');
      return;
    }
    const rect = normal(d.start, d.end);
    if (d.kind === 'rect') {
      props.onRect(d.mode, { x: Math.round(rect.x), y: Math.round(rect.y), width: Math.round(rect.width), height: Math.round(rect.height) });
      return;
    }
    // A click on nothing clears the selection (unless shift adds); a box selects what it holds.
    if (rect.width * view.scale < 3 && rect.height * view.scale < 3) {
      if (!d.add) props.onSelect([], 'replace');
      return;
    }
    props.onSelect(seatsInRect(index, rect), d.add ? 'add' : 'replace');
  };

  const focal = plan.focal_point;
  return (
    <svg
      ref={svg}
      class={`canvas mode-${mode}`}
      viewBox={viewBox(view)}
      // (lower case: SVG attributes keep their case, and only `tabindex` makes the canvas focusable)
      tabindex={0}
      role="application"
      aria-label={props.label}
      aria-roledescription="seat map canvas"
      data-lod={lod}
      data-tiles={visible.length}
      data-tiles-total={index.tiles.size}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerUp}
      onPointerCancel={() => {
        drag.current = null;
        box.current!.setAttribute('display', 'none');
      }}
    >
      {plan.size && <rect class="plan-area" x={0} y={0} width={plan.size.width} height={plan.size.height} />}
      <Drawings plan={plan} />
      <SectorNames plan={plan} index={index} />
      <g class="seats">
        {visible.map((tile) => (
          <SeatTile key={tile.id} tile={tile} colors={colors} lod={lod} />
        ))}
      </g>
      <g ref={ghost} class="selection">
        <path d={selectionPath} />
      </g>
      {focal && (
        <g class="focal" aria-hidden="true">
          <circle cx={focal.x} cy={focal.y} r={9} />
          <path d={`M${focal.x - 16} ${focal.y}h32M${focal.x} ${focal.y - 16}v32`} />
        </g>
      )}
      <rect ref={box} class="box" display="none" />
    </svg>
  );
}
