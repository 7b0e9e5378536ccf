import { describe, expect, it } from 'vitest';
import { buildHitGrid, seatIndexAt } from '../../widget/src/hit-grid.js';

const grid = (points: [number, number][]) => buildHitGrid(Float64Array.from(points.map((p) => p[0])), Float64Array.from(points.map((p) => p[1])));

/** The same answer by a scan of every seat. */
function scan(points: [number, number][], x: number, y: number, r: number) {
  let best = -1;
  let bestD = r * r;
  points.forEach(([px, py], i) => {
    const d = (px - x) ** 2 + (py - y) ** 2;
    if (d <= bestD) {
      bestD = d;
      best = i;
    }
  });
  return best;
}

describe('the widget canvas layer hit-test grid', () => {
  it('finds the seat under a point, the nearest one, and none between rows', () => {
    const points: [number, number][] = [
      [0, 0],
      [1, 0],
      [2, 0],
      [0, 2],
      [1, 2],
    ];
    const g = grid(points);
    expect(seatIndexAt(g, 1.1, 0.2, 0.5)).toBe(1);
    expect(seatIndexAt(g, 1.6, 0, 0.5)).toBe(2);
    expect(seatIndexAt(g, 0.2, 1.9, 0.5)).toBe(3);
    expect(seatIndexAt(g, 1, 1, 0.5)).toBe(-1);
    expect(seatIndexAt(g, -3, -3, 0.5)).toBe(-1);
    expect(seatIndexAt(g, 50, 50, 0.5)).toBe(-1);
  });

  it('agrees with a scan of every seat on a large irregular map', () => {
    const points: [number, number][] = [];
    let r = 7;
    const rnd = () => ((r = (r * 16807) % 2147483647) / 2147483647);
    for (let i = 0; i < 20_000; i++) points.push([Math.round(rnd() * 300 * 10) / 10, Math.round(rnd() * 200 * 10) / 10]);
    const g = grid(points);
    for (let k = 0; k < 2000; k++) {
      const x = rnd() * 310 - 5;
      const y = rnd() * 210 - 5;
      const got = seatIndexAt(g, x, y, 0.5);
      const want = scan(points, x, y, 0.5);
      // Equal distances may pick either seat: compare the distances.
      if (got !== want) expect(Math.hypot(points[got]![0] - x, points[got]![1] - y)).toBeCloseTo(Math.hypot(points[want]![0] - x, points[want]![1] - y), 9);
    }
  });

  it('keeps the grid small for seats spread far apart (large cells) and works with no seats', () => {
    const points: [number, number][] = [
      [0, 0],
      [100_000, 100_000],
    ];
    const g = grid(points);
    expect(g.cols * g.rows).toBeLessThanOrEqual(1024);
    expect(seatIndexAt(g, 100_000.2, 99_999.9, 0.5)).toBe(1);
    expect(seatIndexAt(g, 0, 0.3, 0.5)).toBe(0);
    const empty = grid([]);
    expect(seatIndexAt(empty, 0, 0, 0.5)).toBe(-1);
  });
});
