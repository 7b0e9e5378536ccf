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

const escape = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

function seatLabel(t: Translate, sector: SectorView, seat: SeatView, mine: boolean): string {
  const where = t('seatLabel', { sector: sector.name, row: seat.row, number: seat.number });
  return `${where}: ${t(mine ? 'mine' : (seat.status as 'available' | 'held' | 'sold' | 'blocked'))}`;
}

function sectorMarkup(t: Translate, sector: SectorView, mine: Set<number>, focusId: number | null): string {
  let out = '';
  for (const seat of sector.seats) {
    const isMine = mine.has(seat.id);
    const cls = isMine ? 'm' : CLASS[seat.status];
    const disabled = !isMine && seat.status !== 'available';
    out +=
      `<circle class="s ${cls}" cx="${seat.x}" cy="${seat.y}" r=".4" data-id="${seat.id}" role="checkbox"` +
      ` aria-checked="${isMine}"${disabled ? ' aria-disabled="true"' : ''}` +
      ` tabindex="${seat.id === focusId ? 0 : -1}" aria-label="${escape(seatLabel(t, sector, seat, isMine))}"></circle>`;
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
  const drag = useRef<{ x: number; y: number; box: Box; moved: boolean } | null>(null);
  const suppressClick = useRef(false);
  const frame = useRef(0);

  // The seat in the tab order: the last focused one, else the first free seat.
  if (focusId.current === null || !map.seats.has(focusId.current)) {
    const first = [...map.seats.values()].find((s) => s.status === 'available') ?? map.seats.values().next().value;
    focusId.current = first ? first.id : null;
  }

  const numbered = map.sectors.filter((s) => s.seats.length > 0);
  const markup = useMemo(
    () => numbered.map((s) => sectorMarkup(t, s, mine, focusId.current)),
    // focusId is a ref on purpose: moving focus must not rebuild thousands of seats.
    [map, mine, t],
  );

  function applyView(box: Box) {
    view.current = box;
    if (frame.current) return;
    frame.current = requestAnimationFrame(() => {
      frame.current = 0;
      const b = view.current;
      svgRef.current?.setAttribute('viewBox', `${b.x} ${b.y} ${b.w} ${b.h}`);
    });
  }

  // Markup was rebuilt: put the keyboard focus back on the same seat.
  useLayoutEffect(() => {
    if (!hadFocus.current || focusId.current === null) return;
    const el = svgRef.current?.querySelector<SVGElement>(`[data-id="${focusId.current}"]`);
    el?.focus();
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
      applyView(zoomBox(b, full, e.deltaY > 0 ? 1.2 : 1 / 1.2, cx, cy));
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
    const svg = svgRef.current!;
    svg.querySelector(`[data-id="${focusId.current}"]`)?.setAttribute('tabindex', '-1');
    focusId.current = to.id;
    const el = svg.querySelector<SVGElement>(`[data-id="${to.id}"]`);
    el?.setAttribute('tabindex', '0');
    el?.focus();
    const b = view.current;
    if (to.x < b.x || to.x > b.x + b.w || to.y < b.y || to.y > b.y + b.h) {
      applyView({ ...b, x: to.x - b.w / 2, y: to.y - b.h / 2 });
    }
  }

  function onKeyDown(e: KeyboardEvent) {
    const id = seatOf(e.target);
    if (e.key === '+' || e.key === '=') return applyView(zoomBox(view.current, full, 1 / 1.4));
    if (e.key === '-') return applyView(zoomBox(view.current, full, 1.4));
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
    if (seat) {
      focusId.current = id;
      onToggle(id);
    }
  }

  function onPointerDown(e: PointerEvent) {
    drag.current = { x: e.clientX, y: e.clientY, box: view.current, moved: false };
  }

  function onPointerMove(e: PointerEvent) {
    const d = drag.current;
    if (!d) return;
    const dx = e.clientX - d.x;
    const dy = e.clientY - d.y;
    if (!d.moved && Math.abs(dx) + Math.abs(dy) < 5) return;
    if (!d.moved) {
      d.moved = true;
      svgRef.current?.setPointerCapture?.(e.pointerId);
    }
    const rect = svgRef.current!.getBoundingClientRect();
    // Map units per pixel with preserveAspectRatio "meet": the larger of both ratios.
    const scale = Math.max(d.box.w / rect.width, d.box.h / rect.height);
    applyView({ ...d.box, x: d.box.x - dx * scale, y: d.box.y - dy * scale });
  }

  function onPointerUp() {
    if (drag.current?.moved) suppressClick.current = true;
    drag.current = null;
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
        <defs>
          <pattern id="tw-hatch" width=".3" height=".3" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
            <rect width=".3" height=".3" fill="#c4c9d3" />
            <line x1="0" y1="0" x2="0" y2=".3" stroke="#4a5263" stroke-width=".12" />
          </pattern>
        </defs>
        {numbered.map((sector, i) => (
          <g key={sector.id} role="group" aria-label={sector.name} data-sector={sector.id} dangerouslySetInnerHTML={{ __html: markup[i]! }} />
        ))}
      </svg>
      <div class="zoom">
        <button type="button" aria-label={t('zoomIn')} onClick={() => applyView(zoomBox(view.current, full, 1 / 1.4))}>
          +
        </button>
        <button type="button" aria-label={t('zoomOut')} onClick={() => applyView(zoomBox(view.current, full, 1.4))}>
          −
        </button>
        <button type="button" aria-label={t('zoomReset')} onClick={() => applyView({ ...full })}>
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
            <circle class={`s ${cls}`} r=".4" />
          </svg>
          {t(key)}
        </li>
      ))}
    </ul>
  );
}
