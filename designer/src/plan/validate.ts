import type { Plan, Point, Sector } from './types.js';

// The checks the venues API makes on a Taquilla layout (src/modules/catalogue/layout.schemas.ts
// and layoutProblems in layouts.service.ts), made in the browser before saving so that the designer
// can point at the sector or row. Keys are the same paths under `plan` the API's 422 names.

const MAX_LAYOUT_SEATS = 100_000;
const COORD = 1_000_000;

export type Problems = Record<string, string[]>;

export function planProblems(plan: Plan): Problems | null {
  const errors: Problems = {};
  const add = (path: string, text: string) => (errors[`plan.${path}`] ??= []).push(text);
  const point = (path: string, p: Point | null | undefined) => {
    if (!p) return;
    if (!Number.isFinite(p.x) || Math.abs(p.x) > COORD) add(`${path}.x`, `must be a number between -${COORD} and ${COORD}`);
    if (!Number.isFinite(p.y) || Math.abs(p.y) > COORD) add(`${path}.y`, `must be a number between -${COORD} and ${COORD}`);
  };
  if (plan.sectors.length > 1000) add('sectors', 'at most 1000 sectors');
  point('focal_point', plan.focal_point);
  (plan.categories ?? []).forEach((c, i) => {
    if (c.name.length > 300) add(`categories.${i}.name`, 'must be at most 300 characters');
  });
  const names = new Set<string>();
  let seats = 0;
  plan.sectors.forEach((sector, i) => {
    if (names.has(sector.name)) add(`sectors.${i}.name`, `repeats the sector "${sector.name}": sector names are unique in a layout`);
    names.add(sector.name);
    const own = sectorProblems(sector, i);
    for (const [path, text] of own.problems) add(path, text);
    seats += own.seats;
  });
  if (seats > MAX_LAYOUT_SEATS) add('sectors', `holds ${seats} seats; at most ${MAX_LAYOUT_SEATS}`);
  return Object.keys(errors).length ? errors : null;
}

/**
 * The checks of one sector on its own, remembered per sector object and index: an edit makes new
 * objects only for the sectors it changes, so validating a 100,000-seat plan after moving one block
 * checks that block's seats, not every seat.
 */
const checked = new WeakMap<Sector, { index: number; seats: number; problems: [string, string][] }>();

function sectorProblems(sector: Sector, i: number): { seats: number; problems: [string, string][] } {
  const known = checked.get(sector);
  if (known && known.index === i) return known;
  const problems: [string, string][] = [];
  const add = (path: string, text: string) => problems.push([path, text]);
  const point = (path: string, p: Point | null | undefined) => {
    if (!p) return;
    if (!Number.isFinite(p.x) || Math.abs(p.x) > COORD) add(`${path}.x`, `must be a number between -${COORD} and ${COORD}`);
    if (!Number.isFinite(p.y) || Math.abs(p.y) > COORD) add(`${path}.y`, `must be a number between -${COORD} and ${COORD}`);
  };
  let seats = 0;
  if (sector.name.length < 1 || sector.name.length > 300) add(`sectors.${i}.name`, 'must be 1 to 300 characters');
  point(`sectors.${i}.position`, sector.position);
  if (sector.numbered && sector.capacity !== undefined) add(`sectors.${i}.capacity`, 'is for unnumbered sectors only: a numbered sector holds its seats');
  if (!sector.numbered && sector.capacity === undefined) add(`sectors.${i}.capacity`, 'is required for an unnumbered sector');
  if (sector.capacity !== undefined && (!Number.isInteger(sector.capacity) || sector.capacity < 1 || sector.capacity > MAX_LAYOUT_SEATS)) {
    add(`sectors.${i}.capacity`, `must be a whole number from 1 to ${MAX_LAYOUT_SEATS}`);
  }
  if (!sector.numbered && sector.rows?.length) add(`sectors.${i}.rows`, 'an unnumbered sector has a capacity, not rows');
  const places = new Set<string>();
  sector.rows?.forEach((row, r) => {
    if (row.label.length < 1 || row.label.length > 100) add(`sectors.${i}.rows.${r}.label`, 'must be 1 to 100 characters');
    if (row.priority !== undefined && (!Number.isInteger(row.priority) || Math.abs(row.priority) > 1000)) {
      add(`sectors.${i}.rows.${r}.priority`, 'must be a whole number from -1000 to 1000');
    }
    point(`sectors.${i}.rows.${r}.position`, row.position);
    row.seats.forEach((seat, s) => {
      if (seat.number.length < 1 || seat.number.length > 100) add(`sectors.${i}.rows.${r}.seats.${s}.number`, 'must be 1 to 100 characters');
      // The label's length first: "A" + "12" and "A1" + "2" are different places.
      const place = `${row.label.length}:${row.label}${seat.number}`;
      if (places.has(place)) add(`sectors.${i}.rows.${r}.seats.${s}.number`, `repeats seat ${seat.number} of row ${row.label}`);
      if (seat.wheelchair && seat.companion) add(`sectors.${i}.rows.${r}.seats.${s}.companion`, 'a wheelchair place is not also a companion seat');
      point(`sectors.${i}.rows.${r}.seats.${s}`, seat);
      places.add(place);
      seats++;
    });
  });
  const out = { index: i, seats, problems };
  checked.set(sector, out);
  return out;
}

/** A problem's path in words: "plan.sectors.1.rows.0.seats.3.number" → "Sector 2, row 1, seat 4: number". */
export function describePath(plan: Plan, path: string): string {
  const m = /^plan\.sectors\.(\d+)(?:\.rows\.(\d+)(?:\.seats\.(\d+))?)?(?:\.(\w+))?/.exec(path);
  if (!m) return path.replace(/^plan\./, '');
  const sector = plan.sectors[Number(m[1])];
  const row = m[2] !== undefined ? sector?.rows?.[Number(m[2])] : undefined;
  const seat = m[3] !== undefined ? row?.seats[Number(m[3])] : undefined;
  const parts = [`Sector "${sector?.name ?? Number(m[1]) + 1}"`];
  if (row) parts.push(`row ${row.label}`);
  if (seat) parts.push(`seat ${seat.number}`);
  return parts.join(', ') + (m[4] ? ` (${m[4]})` : '');
}
