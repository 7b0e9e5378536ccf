import { describe, expect, it } from 'vitest';
import { rowLines, sectorGrid, stageSide, type LayoutSeat } from '../../src/lib/seat-layout.js';
import { makeBlock } from '../../designer/src/plan/geometry.js';

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
  const cells = (seats: { row: string; x: number; y: number }[]) => {
    const g = sectorGrid(seats);
    return { cols: g.cols, rows: g.rows, cells: seats.map((s) => [g.col(s.x), g.line(s.row)]) };
  };

  it('a catalogue one unit per seat keeps its coordinates as cells, aisles included; empty sectors span nothing', () => {
    const seats = [{ row: 'A', x: 2, y: 10 }, { row: 'A', x: 3, y: 10 }, { row: 'A', x: 6, y: 10 }, { row: 'B', x: 2.5, y: 11 }, { row: 'C', x: 6, y: 13 }];
    expect(cells(seats)).toEqual({ cols: 5, rows: 4, cells: [[0, 0], [1, 0], [4, 0], [1, 1], [4, 3]] });
    expect(sectorGrid([])).toMatchObject({ cols: 0, rows: 0 });
  });

  it('a designer block (seats 30 units apart), curved and skewed, gets one cell per seat and each row on a line of its own', () => {
    for (const shape of ['straight', 'curved', 'skewed'] as const) {
      const block = makeBlock({ name: 'Platea', rows: 10, seatsPerRow: 20, origin: { x: 80, y: 140 }, direction: 'ltr', parity: 'all' });
      const seats = block.rows!.flatMap((row, r) =>
        row.seats.map((seat, i) => ({
          row: row.label,
          x: seat.x + (shape === 'skewed' ? r * 15 : 0),
          // A curve lowers a row's ends (by 60 at the ends, as the designer's Curve does).
          y: row.position!.y + seat.y + (shape === 'curved' ? 60 * ((i - 9.5) / 9.5) ** 2 : 0),
        })),
      );
      const g = sectorGrid(seats);
      expect(g.rows, shape).toBe(10);
      expect(block.rows!.map((row) => g.line(row.label)), shape).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      // No two seats share a cell, and a row's seats are side by side, one column apart.
      const taken = new Set(seats.map((s) => `${g.col(s.x)}/${g.line(s.row)}`));
      expect(taken.size, shape).toBe(200);
      const rowA = seats.filter((s) => s.row === 'A').map((s) => g.col(s.x));
      expect(rowA, shape).toEqual(Array.from({ length: 20 }, (_, i) => i));
      expect(g.cols, shape).toBe(shape === 'skewed' ? 20 + Math.round((9 * 15) / (block.rows![0]!.seats[1]!.x - block.rows![0]!.seats[0]!.x)) : 20);
    }
  });
});
