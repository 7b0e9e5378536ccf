import crypto from 'node:crypto';
import { rowLinesOfColumns } from '../../lib/seat-layout.js';
import type { LayoutUnitRow } from './catalogue.schemas.js';

/**
 * The session layout route's body (issue 29) in reading order, with what a map computes from every
 * seat before it can paint: the seats sector by sector (in the order the session detail lists its
 * sectors), then row by row (y), left to right (x); each sector's first seat, count and bounds; the
 * rows with where they start and end; the bounds of all seats. Made once per layout version and
 * sector order (catalogue.service caches it), so that a client does one pass less per item over
 * 100,000 seats on every load. The widget's fallback (widget/src/seat-map-model.ts) computes the
 * same from bare columns with the same functions, in the same order, so both give the same map.
 */
export interface ReadingLayout {
  /** The JSON of `data` minus `session_id`: seats, sectors, rows, bounds, version. */
  json: string;
  /** A seat's index in the reading order by its session_seat_id (the availability's `form=index`). */
  indexOf: Map<number, number>;
  /** Names this order of these seats: the same layout and sector order give the same version on every instance. */
  version: string;
}

interface Bounds {
  min_x: number;
  min_y: number;
  max_x: number;
  max_y: number;
}

function boundsOf(xs: number[], ys: number[], from: number, to: number): Bounds {
  const b = { min_x: Infinity, min_y: Infinity, max_x: -Infinity, max_y: -Infinity };
  for (let i = from; i < to; i++) {
    if (xs[i]! < b.min_x) b.min_x = xs[i]!;
    if (xs[i]! > b.max_x) b.max_x = xs[i]!;
    if (ys[i]! < b.min_y) b.min_y = ys[i]!;
    if (ys[i]! > b.max_y) b.max_y = ys[i]!;
  }
  return b;
}

/** `seats` (any order) in reading order, `sectorOrder` being the session detail's sectors' ids as it lists them. */
export function readingLayout(seats: readonly LayoutUnitRow[], sectorOrder: readonly number[]): ReadingLayout {
  const rankOf = new Map(sectorOrder.map((id, k) => [id, k]));
  // A seat of a sector the detail does not list ranks after the listed ones, in order of appearance.
  const rank = seats.map((s) => {
    const id = Number(s.sector_id);
    let k = rankOf.get(id);
    if (k === undefined) rankOf.set(id, (k = rankOf.size));
    return k;
  });
  const order = seats.map((_, i) => i).sort((a, b) => rank[a]! - rank[b]! || Number(seats[a]!.y) - Number(seats[b]!.y) || Number(seats[a]!.x) - Number(seats[b]!.x));
  const id = order.map((i) => Number(seats[i]!.id));
  const sectorId = order.map((i) => Number(seats[i]!.sector_id));
  const row = order.map((i) => String(seats[i]!.row));
  const number = order.map((i) => String(seats[i]!.number));
  const x = order.map((i) => Number(seats[i]!.x));
  const y = order.map((i) => Number(seats[i]!.y));
  const sectors: ({ id: number; first: number; count: number } & Bounds)[] = [];
  for (let i = 0; i < id.length; ) {
    const first = i;
    while (i < id.length && sectorId[i] === sectorId[first]) i++;
    sectors.push({ id: sectorId[first]!, first, count: i - first, ...boundsOf(x, y, first, i) });
  }
  const lines = rowLinesOfColumns({ sectorId, row, x, y });
  const rows = { sector_id: lines.map((l) => l.sectorId), row: lines.map((l) => l.row), y: lines.map((l) => l.y), min_x: lines.map((l) => l.minX), max_x: lines.map((l) => l.maxX) };
  const bounds = id.length ? boundsOf(x, y, 0, id.length) : null;
  const body = JSON.stringify({ seats: { id, sector_id: sectorId, row, number, x, y }, sectors, rows, bounds });
  const version = crypto.createHash('sha256').update(body).digest('base64url').slice(0, 22);
  return { json: `${body.slice(0, -1)},"version":"${version}"}`, indexOf: new Map(id.map((seat, i) => [seat, i])), version };
}
