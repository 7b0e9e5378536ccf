import { useEffect, useLayoutEffect, useMemo, useRef } from 'preact/hooks';
import type { Translate } from '../i18n.js';
import { freeBySector, neighbour, sectorView, zoomBox, type Direction, type SeatMap as Model, type SeatView } from '../seat-map-model.js';
import { CANVAS_FROM, CanvasSeatLayer } from './canvas-layer.js';
import { SeatLayer, seatPoints, type SeatState } from './seat-layer.js';

/**
 * The seat map in SVG, built for thousands of seats: the seats are drawn and updated by SeatLayer
 * outside Preact's diff (built once per map with DOM calls, then single-seat updates), one click and
 * one key handler on the <svg> (event delegation), pan by a CSS transform during the drag, zoom by
 * the viewBox. Keyboard: one seat is in the tab order (roving focus), arrows move between seats,
 * Enter or Space selects. Row names, sector names and the stage are drawn in the SVG from the
 * data (seat-map-model); the zoom and sector buttons sit in a bar above the map, never over seats;
 * two fingers pinch to zoom; "zoom to sector" shows seats at a finger's size (>= 24 px).
 * From CANVAS_FROM seats on, the seats are painted on a canvas under the <svg> (canvas-layer.ts):
 * a click finds its seat through a grid, and the tab stop is the one seat element in the SVG.
 */

interface Props {
  map: Model;
  mine: Set<number>;
  busy: boolean;
  t: Translate;
  onToggle: (seatId: number) => void;
}

type Box = { x: number; y: number; w: number; h: number };

function seatLabel(t: Translate, map: Model, seat: SeatView, mine: boolean): string {
  const sector = map.sectors.find((x) => x.id === seat.sectorId);
  const where = t('seatLabel', { sector: sector?.name ?? '', row: seat.row, number: seat.number });
  return `${where}: ${t(mine ? 'mine' : (seat.status as 'available' | 'held' | 'sold' | 'blocked'))}`;
}

const KEYS: Record<string, Direction> = { ArrowLeft: 'left', ArrowRight: 'right', ArrowUp: 'up', ArrowDown: 'down' };

export function SeatMap({ map, mine, busy, t, onToggle }: Props) {
  const svgRef = useRef<SVGSVGElement>(null);
  const seatsRef = useRef<SVGGElement>(null);
  const layer = useRef<SeatLayer | CanvasSeatLayer | null>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const painted = map.seats.size >= CANVAS_FROM;
  const full = map.box;
  const view = useRef<Box>({ ...full });
  const focusId = useRef<number | null>(null);
  const hadFocus = useRef(false);
  const drag = useRef<{ x: number; y: number; dx: number; dy: number; moved: boolean } | null>(null);
  const suppressClick = useRef(false);
  const shieldRef = useRef<HTMLDivElement>(null);
  const panRef = useRef<HTMLDivElement>(null);
  const frame = useRef(0);
  /** Pointers down on the map (two = a pinch) and the pinch's start. */
  const pointers = useRef(new Map<number, { x: number; y: number }>());
  const pinch = useRef<{ dist: number; box: Box; cx: number; cy: number } | null>(null);
  const free = useMemo(() => freeBySector(map, mine), [map, mine]);

  // The seat in the tab order: the last focused one, else the first free seat.
  if (focusId.current === null || !map.seats.has(focusId.current)) {
    const { seats } = map;
    const firstFree = seats.status.indexOf(0);
    focusId.current = seats.size ? seats.idAt(Math.max(0, firstFree)) : null;
  }

  function setViewBox(box: Box) {
    view.current = box;
    if (frame.current) return;
    frame.current = requestAnimationFrame(() => {
      frame.current = 0;
      const b = view.current;
      svgRef.current?.setAttribute('viewBox', `${b.x} ${b.y} ${b.w} ${b.h}`);
      if (layer.current instanceof CanvasSeatLayer) layer.current.setView(b);
    });
  }

  /** Gives the seat element the tab stop, its role and its accessible name. */
  function label(el: Element, seat: SeatView) {
    const isMine = mine.has(seat.id);
    el.setAttribute('tabindex', '0');
    el.setAttribute('role', 'checkbox');
    el.setAttribute('aria-checked', String(isMine));
    el.setAttribute('aria-label', seatLabel(t, map, seat, isMine));
    if (!isMine && seat.status !== 'available') el.setAttribute('aria-disabled', 'true');
    else el.removeAttribute('aria-disabled');
  }

  function unlabel(el: Element | null | undefined) {
    if (!el) return;
    for (const a of ['tabindex', 'role', 'aria-checked', 'aria-label', 'aria-disabled']) el.removeAttribute(a);
  }

  const seatEl = (id: number | null) => (id === null ? null : (layer.current?.element(id) ?? null));

  // Draw the seats on the first render, then update only the seats that changed; the tab-stop seat
  // gets its (possibly new) state in its label, and the focus back if the seats were redrawn.
  useLayoutEffect(() => {
    if (!layer.current) layer.current = painted ? new CanvasSeatLayer(seatsRef.current!, canvasRef.current!, map, mine, view.current) : new SeatLayer(seatsRef.current!, map, mine);
    else layer.current.update(map, mine);
    const id = focusId.current;
    const el = seatEl(id);
    const seat = id === null ? undefined : map.seats.get(id);
    if (!el || !seat) return;
    label(el, seat);
    if (hadFocus.current && (el.getRootNode() as ShadowRoot).activeElement !== el) (el as SVGElement).focus();
  }, [map, mine]);

  useEffect(() => {
    const svg = svgRef.current;
    if (!svg) return;
    const onWheel = (e: WheelEvent) => {
      e.preventDefault();
      const rect = svg.getBoundingClientRect();
      const b = view.current;
      const cx = b.x + ((e.clientX - rect.left) / rect.width) * b.w;
      const cy = b.y + ((e.clientY - rect.top) / rect.height) * b.h;
      setViewBox(zoomBox(b, full, e.deltaY > 0 ? 1.2 : 1 / 1.2, cx, cy));
    };
    svg.addEventListener('wheel', onWheel, { passive: false });
    return () => {
      svg.removeEventListener('wheel', onWheel);
      if (frame.current) cancelAnimationFrame(frame.current);
    };
  }, [full]);

  useEffect(() => () => (layer.current instanceof CanvasSeatLayer ? layer.current.destroy() : undefined), []);

  function seatOf(target: EventTarget | null): number | null {
    const el = (target as Element | null)?.closest?.('[data-id]');
    return el ? Number(el.getAttribute('data-id')) : null;
  }

  /** The painted seat under a pointer (canvas layer): the point in map units, as the <svg> shows its viewBox. */
  function paintedSeatAt(clientX: number, clientY: number): number | null {
    const l = layer.current;
    const svg = svgRef.current;
    if (!(l instanceof CanvasSeatLayer) || !svg) return null;
    const rect = svg.getBoundingClientRect();
    const b = view.current;
    const scale = Math.min(rect.width / b.w, rect.height / b.h);
    const x = b.x + (clientX - rect.left - (rect.width - b.w * scale) / 2) / scale;
    const y = b.y + (clientY - rect.top - (rect.height - b.h * scale) / 2) / scale;
    return l.seatAt(x, y)?.id ?? null;
  }

  function moveFocus(to: SeatView) {
    unlabel(seatEl(focusId.current));
    focusId.current = to.id;
    const el = seatEl(to.id);
    if (!el) return;
    label(el, to);
    (el as SVGElement).focus();
    const b = view.current;
    if (to.x < b.x || to.x > b.x + b.w || to.y < b.y || to.y > b.y + b.h) {
      setViewBox({ ...b, x: to.x - b.w / 2, y: to.y - b.h / 2 });
    }
  }

  function onKeyDown(e: KeyboardEvent) {
    const id = seatOf(e.target);
    if (e.key === '+' || e.key === '=') return setViewBox(zoomBox(view.current, full, 1 / 1.4));
    if (e.key === '-') return setViewBox(zoomBox(view.current, full, 1.4));
    if (id === null) return;
    const seat = map.seats.get(id);
    if (!seat) return;
    const dir = KEYS[e.key];
    if (dir) {
      e.preventDefault();
      const next = neighbour(map, seat, dir);
      if (next) moveFocus(next);
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      if (!busy) onToggle(id);
    }
  }

  function onClick(e: MouseEvent) {
    if (suppressClick.current) {
      suppressClick.current = false;
      return;
    }
    const id = seatOf(e.target) ?? paintedSeatAt(e.clientX, e.clientY);
    if (id === null || busy) return;
    const seat = map.seats.get(id);
    if (!seat) return;
    if (focusId.current !== id) {
      // The clicked seat becomes the tab stop at once (a click that changes nothing, on a sold
      // seat say, must not leave the map without one); its label follows the cart change.
      unlabel(seatEl(focusId.current));
      focusId.current = id;
      const el = seatEl(id);
      if (el) label(el, seat);
    }
    onToggle(id);
  }

  // Panning moves the already painted SVG with a CSS transform (compositing only: no style, layout
  // or paint of thousands of seats per frame); the move is folded into the viewBox when the drag
  // ends. Nothing else changes during the drag: a class or cursor on the <svg> would restyle every
  // seat (inherited properties), so the "grabbing" cursor comes from a shield shown over the map,
  // which also spares hit-testing thousands of seats on every move.
  function onPointerDown(e: PointerEvent) {
    if (e.button !== 0) return;
    // A painted map's hit-test grid, built at the first press rather than before the first paint.
    if (layer.current instanceof CanvasSeatLayer) layer.current.prepareHits();
    pointers.current.set(e.pointerId, { x: e.clientX, y: e.clientY });
    if (pointers.current.size === 2) return startPinch();
    suppressClick.current = false;
    drag.current = { x: e.clientX, y: e.clientY, dx: 0, dy: 0, moved: false };
  }

  /** Two fingers: the drag so far is undone and the map zooms around the fingers' midpoint. */
  function startPinch() {
    const [a, b] = [...pointers.current.values()] as [{ x: number; y: number }, { x: number; y: number }];
    const svg = svgRef.current!;
    if (drag.current?.moved) {
      panRef.current!.style.transform = '';
      shieldRef.current!.hidden = true;
    }
    drag.current = null;
    suppressClick.current = true;
    const rect = svg.getBoundingClientRect();
    const box = view.current;
    const scale = Math.max(box.w / rect.width, box.h / rect.height);
    const cx = box.x + ((a.x + b.x) / 2 - rect.left) * scale;
    const cy = box.y + ((a.y + b.y) / 2 - rect.top) * scale;
    pinch.current = { dist: Math.hypot(a.x - b.x, a.y - b.y) || 1, box, cx, cy };
  }

  function onPointerMove(e: PointerEvent) {
    if (pointers.current.has(e.pointerId)) pointers.current.set(e.pointerId, { x: e.clientX, y: e.clientY });
    const p = pinch.current;
    if (p) {
      const [a, b] = [...pointers.current.values()];
      if (!a || !b) return;
      const dist = Math.hypot(a.x - b.x, a.y - b.y) || 1;
      setViewBox(zoomBox(p.box, full, p.dist / dist, p.cx, p.cy));
      return;
    }
    const d = drag.current;
    if (!d) return;
    d.dx = e.clientX - d.x;
    d.dy = e.clientY - d.y;
    if (!d.moved && Math.abs(d.dx) + Math.abs(d.dy) < 5) return;
    const svg = svgRef.current!;
    if (!d.moved) {
      d.moved = true;
      svg.setPointerCapture?.(e.pointerId);
      shieldRef.current!.hidden = false;
    }
    panRef.current!.style.transform = `translate3d(${d.dx}px, ${d.dy}px, 0)`;
  }

  function onPointerUp(e: PointerEvent) {
    pointers.current.delete(e.pointerId);
    if (pinch.current) {
      if (pointers.current.size < 2) pinch.current = null;
      return;
    }
    const d = drag.current;
    drag.current = null;
    if (!d?.moved) return;
    suppressClick.current = true;
    const svg = svgRef.current!;
    const rect = svg.getBoundingClientRect();
    const b = view.current;
    // Map units per pixel with preserveAspectRatio "meet": the larger of both ratios. The rect
    // includes the current translation, which does not change its size.
    const scale = Math.max(b.w / rect.width, b.h / rect.height);
    view.current = { ...b, x: b.x - d.dx * scale, y: b.y - d.dy * scale };
    svg.setAttribute('viewBox', `${view.current.x} ${view.current.y} ${b.w} ${b.h}`);
    if (layer.current instanceof CanvasSeatLayer) layer.current.setView(view.current);
    panRef.current!.style.transform = '';
    shieldRef.current!.hidden = true;
  }

  function zoomToSector(sectorId: number) {
    const rect = svgRef.current?.getBoundingClientRect();
    const box = rect && sectorView(map, sectorId, rect.width, rect.height);
    if (box) setViewBox(box);
  }

  const numbered = map.sectors.filter((x) => x.numbered && x.count > 0);
  const b = view.current;
  return (
    // Focus is followed on the box, not on the <svg>: Chromium makes an SVG element with focus
    // listeners focusable, and a press on the map would then focus (and outline) the whole <svg>.
    <div
      class="mapbox"
      onFocusIn={(e: FocusEvent) => (hadFocus.current = !!svgRef.current?.contains(e.target as Node))}
      onFocusOut={(e: FocusEvent) => {
        hadFocus.current = !!(e.relatedTarget && svgRef.current?.contains(e.relatedTarget as Node));
      }}
    >
      <p id="tw-map-help" class="sr">
        {t('mapHelp')}
      </p>
      {/* The map's controls: a bar of their own above the seats, so they never cover one. */}
      <div class="maptools">
        <ul class="sectors" aria-label={t('sectors')}>
          {numbered.map((sector) => (
            <li key={sector.id}>
              <button type="button" data-sector-zoom={sector.id} aria-label={t('zoomSector', { sector: sector.name, n: free.get(sector.id) ?? 0 })} onClick={() => zoomToSector(sector.id)}>
                {sector.name} <span class="count" data-free={sector.id}>{free.get(sector.id) ?? 0}</span>
              </button>
            </li>
          ))}
        </ul>
        <div class="zoom">
          <button type="button" aria-label={t('zoomIn')} onClick={() => setViewBox(zoomBox(view.current, full, 1 / 1.4))}>
            +
          </button>
          <button type="button" aria-label={t('zoomOut')} onClick={() => setViewBox(zoomBox(view.current, full, 1.4))}>
            −
          </button>
          <button type="button" aria-label={t('zoomReset')} onClick={() => setViewBox({ ...full })}>
            ⤢
          </button>
        </div>
      </div>
      {/* The pan layer: an HTML box of its own compositing layer. A transform on the <svg> itself
          repaints every seat each frame; on this wrapper the compositor only moves the pixels. */}
      <div ref={panRef} class="pan">
        {painted && <canvas ref={canvasRef} class="seats" aria-hidden="true" />}
        <svg
          ref={svgRef}
          class="map"
          viewBox={`${b.x} ${b.y} ${b.w} ${b.h}`}
          role="group"
          aria-label={t('map')}
          aria-describedby="tw-map-help"
          onClick={onClick}
          onKeyDown={onKeyDown}
          onPointerDown={onPointerDown}
          onPointerMove={onPointerMove}
          onPointerUp={onPointerUp}
          onPointerCancel={onPointerUp}
        >
          <MapLabels map={map} t={t} rowNames={!painted} />
          {/* SeatLayer's: Preact renders this group empty and never touches its children. */}
          <g ref={seatsRef} />
        </svg>
      </div>
      <div ref={shieldRef} class="shield" hidden />
    </div>
  );
}

/**
 * The stage, the sectors' names and the rows' names, drawn once per map (a few hundred texts for
 * thousands of seats). Hidden from assistive technology: each seat's name says its sector and row.
 * On a painted map (CANVAS_FROM seats on) the canvas paints the row names: there they would be
 * hundreds of <text>s, whose style, layout and paint cost more on the first frame than the seats.
 */
function MapLabels({ map, t, rowNames }: { map: Model; t: Translate; rowNames: boolean }) {
  const s = map.stage;
  return useMemo(
    () => (
      <g class="labels" aria-hidden="true">
        <rect class="stage" x={s.x} y={s.y} width={s.w} height={s.h} rx={0.4} />
        <text class="stage-label" x={s.x + s.w / 2} y={s.y + s.h / 2}>
          {t('stage')}
        </text>
        {map.sectors.map((sector) => {
          const box = map.sectorBoxes.get(sector.id);
          return box ? (
            <text class="sector-label" x={box.x + 2} y={box.y + 0.9}>
              {sector.name}
            </text>
          ) : null;
        })}
        {(rowNames ? map.rows : []).map((r) => (
          <text class="row-label" x={r.minX - 0.7} y={r.y}>
            {r.row}
          </text>
        ))}
      </g>
    ),
    [map, t, rowNames],
  );
}

/** The legend repeats each state's shape and pattern, so colour is never the only cue. */
export function Legend({ t }: { t: Translate }) {
  const entries: [SeatState, 'available' | 'mine' | 'held' | 'sold'][] = [
    ['a', 'available'],
    ['m', 'mine'],
    ['h', 'held'],
    ['x', 'sold'],
  ];
  return (
    <ul class="legend" aria-label={t('legend')}>
      {entries.map(([cls, key]) => (
        <li key={key}>
          <svg viewBox="-.5 -.5 1 1" aria-hidden="true">
            <polygon class={`s ${cls}`} points={seatPoints(0, 0, cls)} />
          </svg>
          {t(key)}
        </li>
      ))}
    </ul>
  );
}
