import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { absoluteSeats, curveSector, makeBlock, relabelRows, renumberSector, rowIndex, rowLabel, seatNumbers, skewSector, type Parity } from '../../designer/src/plan/geometry.js';
import { commit, redo, start, undo } from '../../designer/src/plan/history.js';
import * as ops from '../../designer/src/plan/ops.js';
import { indexSeats, seatAt, seatsInRect, tilesIn } from '../../designer/src/plan/spatial.js';
import type { Plan, Sector } from '../../designer/src/plan/types.js';
import { planProblems } from '../../designer/src/plan/validate.js';
import { Layout } from '../../src/modules/catalogue/layout.schemas.js';
import { layoutProblems } from '../../src/modules/catalogue/layouts.service.js';
import { schemaErrors } from '../../src/http/errors.js';

// The designer's plan logic (designer/src/plan): pure functions, checked here against examples,
// properties, and the server's own rules for layouts (D64).

const plan = (...sectors: Sector[]): Plan => ({ name: 'T', categories: [{ name: 'Platea', color: '#3366cc' }], sectors, shapes: [] });
const keysOf = (sector: Sector) => (sector.rows ?? []).flatMap((r) => r.seats.map((s) => `${r.label}|${s.number}`));

const blockArb = fc.record({
  rows: fc.integer({ min: 1, max: 12 }),
  seatsPerRow: fc.integer({ min: 1, max: 40 }),
  direction: fc.constantFrom('ltr' as const, 'rtl' as const),
  parity: fc.constantFrom<Parity>('all', 'odd', 'even'),
  start: fc.integer({ min: 1, max: 300 }),
  firstRow: fc.integer({ min: 0, max: 700 }).map(rowLabel),
  origin: fc.record({ x: fc.integer({ min: -500, max: 5000 }), y: fc.integer({ min: -500, max: 5000 }) }),
});

describe('row labels and seat numbers', () => {
  it('labels rows A..Z, AA, AB.. and reads them back', () => {
    expect([0, 1, 25, 26, 27, 51, 52, 701, 702].map(rowLabel)).toEqual(['A', 'B', 'Z', 'AA', 'AB', 'AZ', 'BA', 'ZZ', 'AAA']);
    fc.assert(fc.property(fc.integer({ min: 0, max: 100_000 }), (n) => rowIndex(rowLabel(n)) === n));
    expect(rowIndex('1')).toBeNull();
  });

  it('numbers seats left to right, right to left, odd and even', () => {
    expect(seatNumbers(4, { direction: 'ltr', parity: 'all' })).toEqual(['1', '2', '3', '4']);
    expect(seatNumbers(4, { direction: 'rtl', parity: 'all' })).toEqual(['4', '3', '2', '1']);
    expect(seatNumbers(3, { direction: 'ltr', parity: 'odd' })).toEqual(['1', '3', '5']);
    expect(seatNumbers(3, { direction: 'rtl', parity: 'even' })).toEqual(['6', '4', '2']);
    expect(seatNumbers(3, { direction: 'ltr', parity: 'even', start: 7 })).toEqual(['8', '10', '12']);
  });
});

describe('blocks', () => {
  it('draws a block of 3 rows x 10 seats, rows A.. and seats 1..10 from the left', () => {
    const s = makeBlock({ name: 'Platea', rows: 3, seatsPerRow: 10, origin: { x: 100, y: 200 }, direction: 'ltr', parity: 'all', category: 'Platea' });
    expect(s.rows!.map((r) => r.label)).toEqual(['A', 'B', 'C']);
    expect(s.rows![0]!.seats.map((x) => x.number)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);
    expect(s.rows![2]!.seats[9]).toEqual({ number: '10', x: 270, y: 0, category: 'Platea' });
    expect(s.rows![1]!.position).toEqual({ x: 0, y: 36 });
    expect(planProblems(plan(s))).toBeNull();
  });

  it('numbering is unique within a sector, whatever the block and its renumbering', () => {
    fc.assert(
      fc.property(blockArb, blockArb, fc.array(fc.integer({ min: 0, max: 11 }), { maxLength: 6 }), (a, b, rows) => {
        const s = makeBlock({ name: 'S', ...a });
        expect(new Set(keysOf(s)).size).toBe(a.rows * a.seatsPerRow);
        const again = renumberSector(s, b, new Set(rows));
        expect(new Set(keysOf(again)).size).toBe(a.rows * a.seatsPerRow);
        expect(planProblems(plan(again))).toBeNull();
        expect(layoutProblems(plan(again) as Layout)).toBeNull();
      }),
    );
  });

  it('curve then un-curve, and skew then un-skew, return the same positions', () => {
    fc.assert(
      fc.property(blockArb, fc.double({ min: -500, max: 500, noNaN: true }), fc.double({ min: -100, max: 100, noNaN: true }), (a, bend, slant) => {
        const s = makeBlock({ name: 'S', ...a });
        const before = absoluteSeats(plan(s));
        const curved = curveSector(s, bend);
        const back = skewSector(skewSector(curveSector(curved, -bend), slant), -slant);
        const after = absoluteSeats(plan(back));
        after.forEach((p, i) => {
          expect(p.x).toBeCloseTo(before[i]!.x, 6);
          expect(p.y).toBeCloseTo(before[i]!.y, 6);
        });
        expect(keysOf(back)).toEqual(keysOf(s));
      }),
    );
  });

  it('curves a row into an arc: the ends move by the amount, the middle stays', () => {
    const s = curveSector(makeBlock({ name: 'S', rows: 1, seatsPerRow: 5, origin: { x: 0, y: 0 }, direction: 'ltr', parity: 'all' }), 40);
    expect(s.rows![0]!.seats.map((x) => x.y)).toEqual([40, 10, 0, 10, 40]);
    const k = skewSector(makeBlock({ name: 'S', rows: 3, seatsPerRow: 2, origin: { x: 0, y: 0 }, direction: 'ltr', parity: 'all' }), 15);
    expect(k.rows!.map((r) => r.position!.x)).toEqual([0, 15, 30]);
  });

  it('renumbers by position: a mirrored row numbers from the right', () => {
    const s = makeBlock({ name: 'S', rows: 1, seatsPerRow: 4, origin: { x: 0, y: 0 }, direction: 'ltr', parity: 'all' });
    const r = renumberSector(s, { direction: 'rtl', parity: 'odd' });
    expect(r.rows![0]!.seats.map((x) => [x.x, x.number])).toEqual([
      [0, '7'],
      [30, '5'],
      [60, '3'],
      [90, '1'],
    ]);
    expect(relabelRows(makeBlock({ name: 'S', rows: 2, seatsPerRow: 1, origin: { x: 0, y: 0 }, direction: 'ltr', parity: 'all' }), 'K').rows!.map((x) => x.label)).toEqual(['K', 'L']);
  });
});

describe('edits', () => {
  const base = () => ops.addSector(plan(), makeBlock({ name: 'Platea', rows: 3, seatsPerRow: 10, origin: { x: 100, y: 200 }, direction: 'ltr', parity: 'all', category: 'Platea' }));

  it('sets flags: a wheelchair place is never also a companion seat', () => {
    let p = ops.setFlag(base(), ['0.0.0', '0.0.1'], 'companion', true);
    p = ops.setFlag(p, ['0.0.0'], 'wheelchair', true);
    expect(p.sectors[0]!.rows![0]!.seats[0]).toEqual({ number: '1', x: 0, y: 0, category: 'Platea', wheelchair: true });
    expect(p.sectors[0]!.rows![0]!.seats[1]!.companion).toBe(true);
    p = ops.setFlag(p, ['0.2.9'], 'restricted_view', true);
    expect(p.sectors[0]!.rows![2]!.seats[9]!.restricted_view).toBe(true);
    expect(ops.setFlag(p, ['0.2.9'], 'restricted_view', false).sectors[0]!.rows![2]!.seats[9]!.restricted_view).toBeUndefined();
    expect(layoutProblems(p as Layout)).toBeNull();
  });

  it('keeps what it does not change: same objects for untouched sectors and rows', () => {
    const p = ops.addSector(base(), ops.unnumberedSector('Pista', 300, { x: 0, y: 600 }));
    const q = ops.setCategory(p, ['0.1.3'], null);
    expect(q.sectors[1]).toBe(p.sectors[1]);
    expect(q.sectors[0]!.rows![0]).toBe(p.sectors[0]!.rows![0]);
    expect(q.sectors[0]!.rows![1]!.seats[3]!.category).toBeUndefined();
    expect(ops.setCategory(q, ['0.1.3'], null)).not.toBe(q.sectors);
  });

  it('deletes seats and their emptied rows; moves seats, or the whole sector when all are selected', () => {
    const p = base();
    const row = Array.from({ length: 10 }, (_, i) => `0.1.${i}`);
    const d = ops.deleteSeats(p, [...row, '0.0.0']);
    expect(d.sectors[0]!.rows!.map((r) => r.label)).toEqual(['A', 'C']);
    expect(ops.seatCount(d)).toBe(19);
    const all = ops.sectorKeys(p, 0);
    const moved = ops.moveSeats(p, all, 10, -5);
    expect(moved.sectors[0]!.position).toEqual({ x: 110, y: 195 });
    expect(moved.sectors[0]!.rows).toBe(p.sectors[0]!.rows);
    const one = ops.moveSeats(p, ['0.0.0'], 5, 0);
    expect(one.sectors[0]!.rows![0]!.seats[0]!.x).toBe(5);
  });

  it('row priority, stage, focal point, categories', () => {
    let p = ops.setRowPriority(base(), ['0.0.4', '0.0.5'], 10);
    expect(p.sectors[0]!.rows!.map((r) => r.priority)).toEqual([10, undefined, undefined]);
    p = ops.setStage(p, { x: 400, y: 20, width: 400, height: 60 });
    p = ops.setStage(p, { x: 410, y: 20, width: 380, height: 60 });
    expect(p.shapes!.filter((s) => s.role === 'stage')).toEqual([{ kind: 'rectangle', role: 'stage', position: { x: 410, y: 20 }, width: 380, height: 60, color: '#3a3f47' }]);
    p = ops.setFocalPoint(p, { x: 600, y: 50 });
    p = ops.updateCategory(p, 'Platea', { name: 'Stalls', color: '#000000' });
    expect(p.sectors[0]!.rows![0]!.seats[0]!.category).toBe('Stalls');
    p = ops.removeCategory(p, 'Stalls');
    expect(p.categories).toEqual([]);
    expect(p.sectors[0]!.rows![0]!.seats[0]!.category).toBeUndefined();
    p = ops.fitSize(p);
    expect(p.size).toEqual({ width: 830, height: 312 });
    expect(schemaErrors(Layout, p, 'plan')).toBeNull();
    expect(layoutProblems(p as Layout)).toBeNull();
  });
});

describe('validation mirrors the server', () => {
  it('finds the same problems as the venues API for broken plans', () => {
    const broken: Plan = {
      sectors: [
        { name: 'A', numbered: true, capacity: 3, rows: [{ label: 'A', seats: [{ number: '1', x: 0, y: 0 }, { number: '1', x: 30, y: 0, wheelchair: true, companion: true }] }] },
        { name: 'A', numbered: false },
        { name: 'B', numbered: false, capacity: 4, rows: [{ label: 'A', seats: [] }] },
      ],
    };
    const server = layoutProblems(broken as Layout)!;
    const ours = planProblems(broken)!;
    for (const key of Object.keys(server)) expect(ours[key]).toEqual(server[key]);
  });

  it('agrees with the server on random edits of blocks', () => {
    const edit = fc.oneof(
      fc.record({ op: fc.constant('flag' as const), row: fc.nat(3), seat: fc.nat(5), flag: fc.constantFrom('wheelchair' as const, 'companion' as const, 'restricted_view' as const) }),
      fc.record({ op: fc.constant('number' as const), row: fc.nat(3), seat: fc.nat(5), number: fc.constantFrom('1', '2', '3') }),
      fc.record({ op: fc.constant('rename' as const), name: fc.constantFrom('S', 'T') }),
    );
    fc.assert(
      fc.property(fc.array(edit, { maxLength: 8 }), (edits) => {
        let p = ops.addSector(plan(), makeBlock({ name: 'S', rows: 4, seatsPerRow: 6, origin: { x: 0, y: 0 }, direction: 'ltr', parity: 'all' }));
        p = ops.addSector(p, makeBlock({ name: 'T', rows: 1, seatsPerRow: 2, origin: { x: 0, y: 300 }, direction: 'ltr', parity: 'all' }));
        for (const e of edits) {
          if (e.op === 'flag') p = { ...p, sectors: p.sectors.map((s, i) => (i === 0 ? { ...s, rows: s.rows!.map((r, ri) => (ri === e.row ? { ...r, seats: r.seats.map((x, si) => (si === e.seat ? { ...x, [e.flag]: true } : x)) } : r)) } : s)) };
          if (e.op === 'number') p = { ...p, sectors: p.sectors.map((s, i) => (i === 0 ? { ...s, rows: s.rows!.map((r, ri) => (ri === e.row ? { ...r, seats: r.seats.map((x, si) => (si === e.seat ? { ...x, number: e.number } : x)) } : r)) } : s)) };
          if (e.op === 'rename') p = ops.renameSector(p, 1, e.name);
        }
        expect(planProblems(p)).toEqual(layoutProblems(p as Layout));
      }),
    );
  });
});

describe('history', () => {
  it('undo and redo walk immutable states; a new edit drops the redo', () => {
    const a = plan();
    const b = ops.addCategory(a, { name: 'VIP' });
    const c = ops.addCategory(b, { name: 'Palco' });
    let h = commit(commit(start(a), b), c);
    expect(commit(h, c)).toBe(h);
    h = undo(undo(h));
    expect(h.present).toBe(a);
    expect(undo(h)).toBe(h);
    h = redo(h);
    expect(h.present).toBe(b);
    h = commit(h, ops.addCategory(b, { name: 'Anfiteatro' }));
    expect(h.future).toEqual([]);
    expect(redo(h)).toBe(h);
    expect(a.categories).toEqual([{ name: 'Platea', color: '#3366cc' }]);
    let long = start(0 as number);
    for (let i = 1; i <= 300; i++) long = commit(long, i, 200);
    expect(long.past.length).toBe(200);
  });
});

describe('spatial index', () => {
  const big = () => {
    let p = plan();
    // 20,000 seats: 8 blocks of 50 rows x 50 seats.
    for (let b = 0; b < 8; b++) p = ops.addSector(p, makeBlock({ name: `B${b}`, rows: 50, seatsPerRow: 50, origin: { x: (b % 4) * 1600, y: Math.floor(b / 4) * 1900 }, direction: 'ltr', parity: 'all' }));
    return p;
  };

  it('finds seats by point and box, and only the tiles on screen', () => {
    const p = big();
    const { index } = indexSeats(p);
    expect(index.size).toBe(20_000);
    expect(seatAt(index, 1600 + 60 + 2, 36 * 3 - 1)?.key).toBe('1.3.2');
    expect(seatAt(index, 1600 + 45, 18)).toBeNull();
    expect(seatsInRect(index, { x: -5, y: -5, width: 70, height: 45 }).sort()).toEqual(['0.0.0', '0.0.1', '0.0.2', '0.1.0', '0.1.1', '0.1.2'].sort());
    const onScreen = tilesIn(index, { x: 0, y: 0, width: 800, height: 500 });
    const seatsDrawn = onScreen.reduce((n, t) => n + t.seats.length, 0);
    expect(seatsDrawn).toBeLessThan(2000);
  });

  it('keeps the placed seats of sectors that did not change', () => {
    const p = big();
    const first = indexSeats(p);
    const q = ops.setFlag(p, ['3.0.0'], 'wheelchair', true);
    const second = indexSeats(q, { plan: p, perSector: first.perSector });
    expect(second.perSector[0]).toBe(first.perSector[0]);
    expect(second.perSector[3]).not.toBe(first.perSector[3]);
    expect(second.index.seats.find((s) => s.key === '3.0.0')!.seat.wheelchair).toBe(true);
  });
});
