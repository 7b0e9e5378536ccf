import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chooseSeats, prepareLayout, type LayoutSeat, type LayoutSector } from '../../src/modules/orders/best-available.js';

// D61's rules on generated layouts (fast-check), against a brute force written from the rules, not
// from the implementation: sectors of rows of seats at unit spacing with aisles (a gap of 2 or
// more), random free seats, wheelchair places and companion seats.
// - a block of `quantity` free ordinary seats side by side in one row exists => the choice is one;
// - some such block leaves no single free seat stranded in its row => the chosen one strands none;
// - `accessible: a` => exactly a wheelchair places in one block with the rest beside them;
// - never a taken seat, never one seat twice; `together: false` splits only when no block exists.

interface GenSeat {
  id: number;
  x: number;
  free: boolean;
  wheelchair: boolean;
  companion: boolean;
}
interface GenLayout {
  rows: { sectorId: number; row: string; seats: GenSeat[] }[];
}

const seatArb = fc.record({
  gap: fc.constantFrom(1, 1, 1, 1, 1, 1, 1, 3),
  free: fc.boolean(),
  flag: fc.constantFrom('none', 'none', 'none', 'none', 'wheelchair', 'companion'),
});

/** Sectors of rows; the first gap of every row is 1 (the sector's spacing), an aisle is a gap of 3. */
const layoutArb = (flags: boolean) =>
  fc
    .array(fc.array(fc.array(seatArb, { minLength: 2, maxLength: 14 }), { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 3 })
    .map((sectors): GenLayout => {
      let id = 1;
      const rows: GenLayout['rows'] = [];
      sectors.forEach((sector, si) =>
        sector.forEach((row, ri) => {
          let x = 0;
          rows.push({
            sectorId: si + 1,
            row: String(ri + 1),
            seats: row.map((s, k) => {
              x += k === 0 ? 0 : k === 1 ? 1 : s.gap;
              const flag = flags ? s.flag : 'none';
              return { id: id++, x, free: s.free, wheelchair: flag === 'wheelchair', companion: flag === 'companion' };
            }),
          });
        }),
      );
      return { rows };
    });

function prepared(layout: GenLayout) {
  const seats: LayoutSeat[] = layout.rows.flatMap((r) =>
    r.seats.map((s) => ({ id: s.id, sectorId: r.sectorId, row: r.row, x: s.x, y: r.sectorId * 100 + Number(r.row), wheelchair: s.wheelchair, companion: s.companion })),
  );
  const sectors: LayoutSector[] = [...new Set(layout.rows.map((r) => r.sectorId))].map((id) => ({ id, order: id }));
  return prepareLayout(seats, sectors);
}

/** Every block of n seats side by side (gap 1) in one row whose seats pass `ok`, with whether it strands a seat. */
function blocks(layout: GenLayout, n: number, ok: (s: GenSeat) => boolean) {
  const out: { ids: number[]; orphan: boolean; seats: GenSeat[] }[] = [];
  for (const row of layout.rows) {
    const seats = row.seats;
    for (let i = 0; i + n <= seats.length; i++) {
      const block = seats.slice(i, i + n);
      if (!block.every(ok) || block.some((s, k) => k > 0 && s.x - block[k - 1]!.x !== 1)) continue;
      // The free seats side by side with the block on each side, up to a taken seat, an aisle or the end.
      const run = (from: number, step: number) => {
        let count = 0;
        for (let k = from; k >= 0 && k < seats.length && ok(seats[k]!) && Math.abs(seats[k]!.x - seats[k - step]!.x) === 1; k += step) count++;
        return count;
      };
      out.push({ ids: block.map((s) => s.id), seats: block, orphan: run(i - 1, -1) === 1 || run(i + n, 1) === 1 });
    }
  }
  return out;
}

const ordinary = (s: GenSeat) => s.free && !s.wheelchair && !s.companion;
const byId = (layout: GenLayout) => new Map(layout.rows.flatMap((r) => r.seats.map((s) => [s.id, { ...s, row: r }] as const)));
const isFree = (layout: GenLayout) => {
  const seats = byId(layout);
  return (id: number) => seats.get(id)!.free;
};
/** The ids form one block of one row, side by side, in row order. */
const isBlock = (layout: GenLayout, ids: number[]) => blocks(layout, ids.length, () => true).some((b) => b.ids.join() === ids.join());

const RUNS = { numRuns: 400 };

describe('best available on generated layouts (D61)', () => {
  it('together: one block in one row when one exists; no stranded seat when a block avoids it; else no choice', () => {
    fc.assert(
      fc.property(layoutArb(true), fc.integer({ min: 1, max: 6 }), (layout, n) => {
        const choice = chooseSeats(prepared(layout), isFree(layout), { quantity: n, accessible: 0, together: true, sectors: null });
        const candidates = blocks(layout, n, ordinary);
        if (candidates.length === 0) {
          expect(choice).toBeNull();
          return;
        }
        expect(choice).not.toBeNull();
        expect(choice!.together).toBe(true);
        const chosen = candidates.find((b) => b.ids.join() === choice!.ids.join());
        expect(chosen, `chose ${choice!.ids} among ${JSON.stringify(candidates.map((b) => b.ids))}`).toBeDefined();
        if (candidates.some((b) => !b.orphan)) expect(chosen!.orphan).toBe(false);
      }),
      RUNS,
    );
  });

  it('together: false splits only when no block exists, into distinct free ordinary seats, or nothing when too few are free', () => {
    fc.assert(
      fc.property(layoutArb(true), fc.integer({ min: 1, max: 8 }), (layout, n) => {
        const choice = chooseSeats(prepared(layout), isFree(layout), { quantity: n, accessible: 0, together: false, sectors: null });
        const seats = byId(layout);
        const freeOrdinary = [...seats.values()].filter(ordinary).length;
        if (freeOrdinary < n) {
          expect(choice).toBeNull();
          return;
        }
        expect(choice).not.toBeNull();
        expect(new Set(choice!.ids).size).toBe(n);
        expect(choice!.ids.every((id) => ordinary(seats.get(id)!))).toBe(true);
        expect(choice!.together).toBe(blocks(layout, n, ordinary).length > 0);
      }),
      RUNS,
    );
  });

  it('accessible: a wheelchair places with companions beside them, in one block of free seats, whenever such a block exists', () => {
    fc.assert(
      fc.property(layoutArb(true), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 0, max: 2 }), (layout, a, companions) => {
        const n = a + companions;
        const choice = chooseSeats(prepared(layout), isFree(layout), { quantity: n, accessible: a, together: true, sectors: null });
        const candidates = blocks(layout, n, (s) => s.free).filter((b) => b.seats.filter((s) => s.wheelchair).length === a);
        if (candidates.length === 0) {
          expect(choice).toBeNull();
          return;
        }
        expect(choice).not.toBeNull();
        const seats = byId(layout);
        expect(choice!.ids.filter((id) => seats.get(id)!.wheelchair)).toHaveLength(a);
        expect(choice!.ids.every((id) => seats.get(id)!.free)).toBe(true);
        expect(isBlock(layout, choice!.ids)).toBe(true);
        // Companion seats before ordinary ones: a block with as many companion seats as the best one.
        const companionsIn = (ids: number[]) => ids.filter((id) => seats.get(id)!.companion).length;
        const best = Math.max(...candidates.map((b) => companionsIn(b.ids)));
        expect(companionsIn(choice!.ids)).toBe(best);
      }),
      RUNS,
    );
  });

  it('a request restricted to sectors takes seats of those sectors only', () => {
    fc.assert(
      fc.property(layoutArb(false), fc.integer({ min: 1, max: 4 }), (layout, n) => {
        const only = new Set([1]);
        const choice = chooseSeats(prepared(layout), isFree(layout), { quantity: n, accessible: 0, together: false, sectors: only });
        const seats = byId(layout);
        if (choice) expect(choice.ids.every((id) => seats.get(id)!.row.sectorId === 1)).toBe(true);
      }),
      RUNS,
    );
  });
});
