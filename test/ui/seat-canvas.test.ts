import { describe, expect, it } from 'vitest';
import { decodeSector, encodeSector, fittedCell, withStates, type GridSeat } from '../../ui/seat-canvas.js';

// The compact seat list of the UI kit's compact map (issue 29): what the page carries for a big
// session's sector decodes to every seat with its id, grid place, row name, number and state.

describe('compact seat list', () => {
  it('round-trips seats: counting numbers, lettered numbers, gaps, two row names on one grid row', () => {
    const seats: (GridSeat & { free: boolean })[] = [
      ...Array.from({ length: 12 }, (_, i) => ({ id: 100 + i, row: 'A', number: String(i + 1), r: 0, c: i, free: i % 3 !== 0 })),
      // gaps in ids and columns, numbers that do not count up
      { id: 500, row: 'B', number: '2', r: 1, c: 0, free: true },
      { id: 498, row: 'B', number: '4', r: 1, c: 3, free: false },
      { id: 520, row: 'B', number: '6A', r: 1, c: 7, free: true },
      // a second row name on the same grid row (a box beside the stalls)
      { id: 900, row: 'Palco 1', number: '1', r: 1, c: 10, free: true },
    ];
    // The places (kept per layout: every seat free), then this moment's states.
    const places = encodeSector(7, seats, 12, 2);
    expect(decodeSector(places).free.every(Boolean)).toBe(true);
    const compact = withStates(places, (id) => seats.find((s) => s.id === id)!.free);
    // JSON, as the page carries it.
    const grid = decodeSector(JSON.parse(JSON.stringify(compact)));
    expect(grid.id).toBe(7);
    const decoded = grid.ids.map((id, i) => ({ id, row: grid.rowName[i], number: grid.number[i], r: grid.r[i], c: grid.c[i], free: grid.free[i] }));
    expect(decoded.sort((a, b) => a.id - b.id)).toEqual([...seats].sort((a, b) => a.id - b.id));
    for (const s of seats) expect(grid.ids[grid.at.get(s.r * 12 + s.c)!]).toBe(s.id);
    expect(grid.labels).toEqual([['A', 0], ['B', 1], ['Palco 1', 1]]);
    // Counting numbers travel as their first number only.
    expect(compact.lines[0]![4]).toBe(1);
  });

  it('a fitted seat is at most a zoomed one and at least 3 px', () => {
    expect(fittedCell(390, 100)).toBe(3);
    expect(fittedCell(1280, 10)).toBe(28);
    expect(fittedCell(724, 50)).toBe(14);
  });
});
