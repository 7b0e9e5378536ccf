import { describe, expect, it } from 'vitest';
import { gridCol, gridRow, rowLines, sectorGrid, stageSide, type LayoutSeat } from '../../src/lib/seat-layout.js';

const grid = (sectorId: number, rows: string[], y0: number, dy: number): LayoutSeat[] =>
  rows.flatMap((row, i) => [0, 1, 2].map((x) => ({ sectorId, row, x: x + (i % 2) * 0.5, y: y0 + i * dy })));

describe('seat layout: rows and the stage', () => {
  it('lists each row of each sector once, with where it starts, in drawing order', () => {
    const lines = rowLines([...grid(1, ['A', 'B'], 0, 1), ...grid(2, ['1', '2', '10'], 5, 1)]);
    expect(lines.map((l) => `${l.sectorId}:${l.row}@${l.y}/${l.minX}-${l.maxX}`)).toEqual(['1:A@0/0-2', '1:B@1/0.5-2.5', '2:1@5/0-2', '2:2@6/0.5-2.5', '2:10@7/0-2']);
  });

  it('puts the stage on the side of the front rows ("A", "1": natural order, "10" after "2")', () => {
    expect(stageSide(rowLines(grid(1, ['A', 'B', 'C'], 0, 1)))).toBe('top');
    // Row A drawn at the bottom (y grows downwards): the stage is below.
    expect(stageSide(rowLines(grid(1, ['A', 'B', 'C'], 10, -1)))).toBe('bottom');
    expect(stageSide(rowLines(grid(1, ['2', '10', '1'], 10, -1)))).toBe('top');
    // The sectors vote; one row only or no seats: the top.
    expect(stageSide(rowLines([...grid(1, ['A', 'B'], 10, -1), ...grid(2, ['A', 'B'], 20, -1), ...grid(3, ['A', 'B'], 0, 1)]))).toBe('bottom');
    expect(stageSide(rowLines(grid(1, ['A'], 0, 1)))).toBe('top');
    expect(stageSide([])).toBe('top');
  });
});

describe('seat layout: the grid of a sector (the portal\'s seat buttons, the dashboard\'s heat map)', () => {
  it('puts each seat in a whole cell from the top left seat; empty sectors span nothing', () => {
    const seats = [{ x: 2, y: 10 }, { x: 3.4, y: 10 }, { x: 2.5, y: 11.6 }, { x: 6, y: 12 }];
    const g = sectorGrid(seats);
    expect(g).toEqual({ minX: 2, minY: 10, cols: 5, rows: 3 });
    expect(seats.map((s) => [gridCol(g, s.x), gridRow(g, s.y)])).toEqual([[0, 0], [1, 0], [1, 2], [4, 2]]);
    expect(sectorGrid([])).toEqual({ minX: 0, minY: 0, cols: 0, rows: 0 });
  });
});
