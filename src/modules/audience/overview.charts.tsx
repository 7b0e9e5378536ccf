import { rowLines, sectorGrid, stageSide } from '../../lib/seat-layout.js';
import type { PlaceStatus, SeatMap, SeatMapSector } from './overview.repo.js';

// The sales overview's charts (D66), drawn on the server: no script, no outside service, nothing
// the dashboard's Content-Security-Policy would refuse (no style attribute: sizes are SVG
// attributes and admin.css classes).

export interface Segment {
  value: number;
  /** What the value counts ("sold"); with `text`, how the figure is written ("12.00 EUR net"). */
  label: string;
  text?: string;
  /** A class of admin.css's palette: sold, held, free, blocked, refund. */
  cls: string;
}

const figureText = (segments: Segment[]) => segments.map((s) => s.text ?? `${s.value} ${s.label}`).join(' · ');

/** One stacked bar on a scale of `max`, stretched to its box by admin.css; an image for the eye only. */
function Bar({ segments, max }: { segments: Segment[]; max: number }) {
  let x = 0;
  return (
    <svg class="bar" viewBox={`0 0 ${max} 10`} preserveAspectRatio="none" aria-hidden="true" focusable="false">
      {segments.map((s) => {
        const rect = s.value > 0 ? <rect class={`bar-${s.cls}`} x={x} y="0" width={s.value} height="10" /> : null;
        x += Math.max(0, s.value);
        return rect;
      })}
    </svg>
  );
}

/** The colours of a chart's segments with what they mean. */
function Legend({ kinds }: { kinds: { label: string; cls: string }[] }) {
  return (
    <ul class="legend">
      {kinds.map((k) => (
        <li>
          <svg viewBox="0 0 10 10" aria-hidden="true" focusable="false">
            <rect class={`bar-${k.cls}`} width="10" height="10" />
          </svg>
          {k.label}
        </li>
      ))}
    </ul>
  );
}

/**
 * Horizontal stacked bars, one per row, scaled to the largest row. The labels and figures are
 * HTML text beside (on a phone: above) each bar, at the page's type size whatever the width;
 * the bars only show the proportions of the figures written next to them.
 */
export function BarChart({ title, rows }: { title: string; rows: { label: string; segments: Segment[] }[] }) {
  const max = Math.max(1, ...rows.map((r) => r.segments.reduce((s, g) => s + Math.max(0, g.value), 0)));
  const kinds = rows[0]?.segments ?? [];
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <ul class="bars">
        {rows.map((r) => (
          <li>
            <span class="bar-label">{r.label}</span>
            <Bar segments={r.segments} max={max} />
            <span class="bar-figures">{figureText(r.segments)}</span>
          </li>
        ))}
      </ul>
      {kinds.length > 1 ? <Legend kinds={kinds} /> : null}
    </figure>
  );
}

const STATUSES: PlaceStatus[] = ['sold', 'held', 'free', 'blocked'];
const STATUS_LABEL: Record<PlaceStatus, string> = { sold: 'sold', held: 'held in a cart', free: 'free', blocked: 'blocked' };
const counts = (f: Pick<SeatMapSector, PlaceStatus>) => STATUSES.map((s) => `${f[s]} ${STATUS_LABEL[s]}`).join(', ');
const placesOf = (f: Pick<SeatMapSector, PlaceStatus>) => f.sold + f.held + f.free + f.blocked;

/** Largest drawing of a sector, in CSS px (it shrinks to the card's width), and of one seat. */
const MAX_WIDTH = 1000;
const MAX_HEIGHT = 640;
const MAX_CELL = 16;

/**
 * One numbered sector as a heat map: each seat on the portal's grid (seat-layout's sectorGrid),
 * coloured by its status. One <path> per status draws every seat of that status: a run of seats
 * side by side on a row is one stroke dashed seat by seat (".8 .2": each seat a square of 0.8,
 * a gap of 0.2), so a sold-out row of 100 seats is a dozen characters and 20,000 seats stay a
 * few hundred kilobytes at most.
 */
function SectorHeatMap({ sector, seats }: { sector: SeatMapSector; seats: SeatMap['seats'] }) {
  const grid = sectorGrid(seats);
  const cell = Math.max(1, Math.min(MAX_CELL, MAX_WIDTH / grid.cols, MAX_HEIGHT / grid.rows));
  const placed = seats.map((s) => ({ r: grid.line(s.row), c: grid.col(s.x), status: s.status })).sort((a, b) => a.r - b.r || a.c - b.c);
  const d: Record<PlaceStatus, string[]> = { sold: [], held: [], free: [], blocked: [] };
  for (let i = 0; i < placed.length; ) {
    const first = placed[i]!;
    let n = 1;
    while (i + n < placed.length) {
      const next = placed[i + n]!;
      if (next.r !== first.r || next.c !== first.c + n || next.status !== first.status) break;
      n += 1;
    }
    d[first.status].push(`M${first.c} ${first.r}.5h${n}`);
    i += n;
  }
  const label = `${sector.name}: ${placesOf(sector)} seats, ${counts(sector)}`;
  return (
    <figure class="heatmap">
      <figcaption>
        <strong>{sector.name}</strong>{' '}
        <span class="hint">
          {placesOf(sector)} seats: {counts(sector)}
        </span>
      </figcaption>
      <svg viewBox={`0 0 ${grid.cols} ${grid.rows}`} width={Math.round(grid.cols * cell)} height={Math.round(grid.rows * cell)} role="img" aria-label={label}>
        {STATUSES.filter((s) => d[s].length).map((s) => (
          <path class={`heat-${s}`} data-status={s} fill="none" stroke-width=".8" stroke-dasharray=".8 .2" d={d[s].join('')} />
        ))}
      </svg>
    </figure>
  );
}

/** A zone (general admission): its places are not drawn one by one, its fill is one bar. */
function ZoneFill({ sector }: { sector: SeatMapSector }) {
  const total = Math.max(1, placesOf(sector));
  let x = 0;
  return (
    <figure class="heatmap zone">
      <figcaption>
        <strong>{sector.name}</strong>{' '}
        <span class="hint">
          (general admission) {placesOf(sector)} places: {counts(sector)}
        </span>
      </figcaption>
      <svg class="bar" viewBox={`0 0 ${total} 10`} preserveAspectRatio="none" role="img" aria-label={`${sector.name}, general admission: ${placesOf(sector)} places, ${counts(sector)}`}>
        {STATUSES.map((s) => {
          const w = sector[s];
          const rect = w > 0 ? <rect class={`bar-${s}`} data-status={s} x={x} y="0" width={w} height="10" /> : null;
          x += w;
          return rect;
        })}
      </svg>
    </figure>
  );
}

/**
 * The session's seat map as a heat map of sold, held, free and blocked places (D66): the numbered
 * sectors seat by seat, the zones as their fill; the counts in text beside each and in total.
 */
export function HeatMap({ map }: { map: SeatMap }) {
  const bySector = new Map<number, SeatMap['seats']>();
  for (const s of map.seats) {
    const list = bySector.get(s.sectorId);
    if (list) list.push(s);
    else bySector.set(s.sectorId, [s]);
  }
  const total = { sold: 0, held: 0, free: 0, blocked: 0 };
  for (const s of map.sectors) for (const k of STATUSES) total[k] += s[k];
  const numbered = map.sectors.filter((s) => s.numbered && bySector.has(s.id));
  const zones = map.sectors.filter((s) => !s.numbered || !bySector.has(s.id));
  const side = numbered.length ? stageSide(rowLines(map.seats)) : null;
  const stage = (
    <p class="stage" aria-hidden="true">
      Stage
    </p>
  );
  return (
    <>
      <p class="heat-summary">
        {placesOf(total)} places: <strong>{total.sold} sold</strong>, {total.held} held in a cart, {total.free} free, {total.blocked} blocked.
      </p>
      <Legend kinds={STATUSES.map((s) => ({ label: `${s[0]!.toUpperCase()}${s.slice(1)} ${total[s]}`, cls: s }))} />
      {side === 'top' ? stage : null}
      <div class="heatmaps">
        {numbered.map((s) => (
          <SectorHeatMap sector={s} seats={bySector.get(s.id)!} />
        ))}
      </div>
      {side === 'bottom' ? stage : null}
      {zones.length ? (
        <div class="heatmaps zones">
          {zones.map((s) => (
            <ZoneFill sector={s} />
          ))}
        </div>
      ) : null}
    </>
  );
}
