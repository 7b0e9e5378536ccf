import { useEffect, useLayoutEffect, useMemo, useRef } from 'preact/hooks';
import type { Translate } from '../i18n.js';
import { neighbour, zoomBox, type Direction, type SeatMap as Model, type SeatView, type SectorView } from '../seat-map-model.js';

/**
 * The seat map in SVG, built for thousands of seats: one <g> per sector whose seats are plain
 * <circle>s written as one markup string (no component per seat), one click and one key handler on
 * the <svg> (event delegation), pan and zoom by changing the viewBox only. Keyboard: one seat is in
 * the tab order (roving focus), arrows move between seats, Enter or Space selects.
 */

interface Props {
  map: Model;
  mine: Set<number>;
  busy: boolean;
  t: Translate;
  onToggle: (seatId: number) => void;
}

type Box = { x: number; y: number; w: number; h: number };

const CLASS: Record<string, string> = { available: 'a', held: 'h', sold: 'x', blocked: 'x' };
/** Size is a cue besides colour: free and yours large, held medium, sold small. */
const RADIUS: Record<string, string> = { a: '.4', m: '.4', h: '.3', x: '.2' };

function seatLabel(t: Translate, map: Model, seat: SeatView, mine: boolean): string {
  const sector = map.sectors.find((x) => x.id === seat.sectorId);
  const where = t('seatLabel', { sector: sector?.name ?? '', row: seat.row, number: seat.number });
  return `${where}: ${t(mine ? 'mine' : (seat.status as 'available' | 'held' | 'sold' | 'blocked'))}`;
}

/**
 * One sector's seats as markup: the bare minimum per seat (class, position, id). The accessible
 * name, role and tab stop are put on the one focused seat only (see `label`), which keeps 5,000
 * seats cheap to parse and keeps the accessibility tree to what the keyboard user is on.
 */
function sectorMarkup(sector: SectorView, mine: Set<number>): string {
  let out = '';
  for (const seat of sector.seats) {
    const cls = mine.has(seat.id) ? 'm' : CLASS[seat.status]!;
    out += `<circle class="s ${cls}" cx="${seat.x}" cy="${seat.y}" r="${RADIUS[cls]}" data-id="${seat.id}"></circle>`;
  }
  return out;
}

const KEYS: Record<string, Direction> = { ArrowLeft: 'left', ArrowRight: 'right', ArrowUp: 'up', ArrowDown: 'down' };

export function SeatMap({ map, mine, busy, t, onToggle }: Props) {
  const svgRef = useRef<SVGSVGElement>(null);
  const full = map.box;
  const view = useRef<Box>({ ...full });
  const focusId = useRef<number | null>(null);
  const hadFocus = useRef(false);
  const drag = useRef<{ x: number; y: number; dx: number; dy: number; moved: boolean } | null>(null);
  const suppressClick = useRef(false);
  const frame = useRef(0);

  // The seat in the tab order: the last focused one, else the first free seat.
  if (focusId.current === null || !map.seats.has(focusId.current)) {
    const first = [...map.seats.values()].find((s) => s.status === 'available') ?? map.seats.values().next().value;
    focusId.current = first ? first.id : null;
  }

  const numbered = map.sectors.filter((s) => s.seats.length > 0);
  const markup = useMemo(() => numbered.map((s) => sectorMarkup(s, mine)), [map, mine]);

  function setViewBox(box: Box) {
    view.current = box;
    if (frame.current) return;
    frame.current = requestAnimationFrame(() => {
      frame.current = 0;
      const b = view.current;
      svgRef.current?.setAttribute('viewBox', `${b.x} ${b.y} ${b.w} ${b.h}`);
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

  const seatEl = (id: number | null) => (id === null ? null : svgRef.current?.querySelector<SVGElement>(`[data-id="${id}"]`));

  // Markup was rebuilt: label the tab-stop seat again and give it back the focus it had.
  useLayoutEffect(() => {
    const id = focusId.current;
    const el = seatEl(id);
    const seat = id === null ? undefined : map.seats.get(id);
    if (!el || !seat) return;
    label(el, seat);
    if (hadFocus.current) el.focus();
  }, [markup]);

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

  function seatOf(target: EventTarget | null): number | null {
    const el = (target as Element | null)?.closest?.('[data-id]');
    return el ? Number(el.getAttribute('data-id')) : null;
  }

  function moveFocus(to: SeatView) {
    unlabel(seatEl(focusId.current));
    focusId.current = to.id;
    const el = seatEl(to.id);
    if (!el) return;
    label(el, to);
    el.focus();
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
    const id = seatOf(e.target);
    if (id === null || busy) return;
    const seat = map.seats.get(id);
    if (!seat) return;
    if (focusId.current !== id) {
      unlabel(seatEl(focusId.current));
      focusId.current = id;
    }
    onToggle(id);
  }

  // Panning moves the already painted SVG with a CSS transform (compositing only, no repaint of
  // thousands of seats per frame); the move is folded into the viewBox when the drag ends.
  function onPointerDown(e: PointerEvent) {
    if (e.button !== 0) return;
    drag.current = { x: e.clientX, y: e.clientY, dx: 0, dy: 0, moved: false };
  }

  function onPointerMove(e: PointerEvent) {
    const d = drag.current;
    if (!d) return;
    d.dx = e.clientX - d.x;
    d.dy = e.clientY - d.y;
    if (!d.moved && Math.abs(d.dx) + Math.abs(d.dy) < 5) return;
    const svg = svgRef.current!;
    if (!d.moved) {
      d.moved = true;
      svg.setPointerCapture?.(e.pointerId);
      // No hit testing of thousands of seats on every move while panning.
      svg.classList.add('panning');
    }
    svg.style.transform = `translate3d(${d.dx}px, ${d.dy}px, 0)`;
  }

  function onPointerUp() {
    const d = drag.current;
    drag.current = null;
    if (!d?.moved) return;
    suppressClick.current = true;
    const svg = svgRef.current!;
    const rect = svg.getBoundingClientRect();
    const b = view.current;
    // Map units per pixel with preserveAspectRatio "meet": the larger of both ratios.
    const scale = Math.max(b.w / rect.width, b.h / rect.height);
    view.current = { ...b, x: b.x - d.dx * scale, y: b.y - d.dy * scale };
    svg.setAttribute('viewBox', `${view.current.x} ${view.current.y} ${b.w} ${b.h}`);
    svg.style.transform = '';
    svg.classList.remove('panning');
  }

  const b = view.current;
  return (
    <div class="mapbox">
      <p id="tw-map-help" class="sr">
        {t('mapHelp')}
      </p>
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
        onFocusIn={() => (hadFocus.current = true)}
        onFocusOut={(e: FocusEvent) => {
          hadFocus.current = !!(e.relatedTarget && svgRef.current?.contains(e.relatedTarget as Node));
        }}
      >
        {numbered.map((sector, i) => (
          <g key={sector.id} role="group" aria-label={sector.name} data-sector={sector.id} dangerouslySetInnerHTML={{ __html: markup[i]! }} />
        ))}
      </svg>
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
  );
}

/** The legend repeats each state's shape and pattern, so colour is never the only cue. */
export function Legend({ t }: { t: Translate }) {
  const entries: [string, 'available' | 'mine' | 'held' | 'sold'][] = [
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
            <circle class={`s ${cls}`} r={RADIUS[cls]} />
          </svg>
          {t(key)}
        </li>
      ))}
    </ul>
  );
}
