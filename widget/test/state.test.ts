import { describe, expect, it } from 'vitest';
import { itemCount, orderFingerprint, secondsLeft, seatIdsInOrder } from '../src/order.js';
import { formatCountdown } from '../../ui/format.js';
import {
  clientId,
  forgetOrder,
  loadOrder,
  memoryStorage,
  ordersOfOtherSessions,
  saveOrder,
} from '../src/persistence.js';
import { applyAvailability, buildSeatMap, freeBySector, MIN_PX_PER_UNIT, neighbour, seatMapFromLayout, sectorSeats, sectorView, zoomBox } from '../src/seat-map-model.js';
import type { Order, SessionDetail, SessionLayout } from '../src/types.js';
import { readingLayout } from '../../src/modules/catalogue/layout-reading.js';

const NOW = Date.parse('2026-11-21T10:00:00Z');

function order(items: number, expiresAt: string | null): Order {
  return {
    order_token: 'tok-1',
    status: 'pending',
    total_amount: 31.5 * items,
    expires_at: expiresAt,
    currency: 'EUR',
    events: [
      {
        id: 1,
        sessions: [
          {
            id: 7,
            items: Array.from({ length: items }, (_, i) => ({
              id: i + 1,
              session_seat_id: 100 + i,
              sector_id: 1,
              rate_id: 1,
              base_amount: 30,
              discount_amount: 0,
              fee_amount: 1.5,
              total_amount: 31.5,
            })),
          },
        ],
      },
    ],
    vouchers: [],
  };
}

describe('countdown', () => {
  it('is hidden without an order, with an empty order, and without expires_at', () => {
    expect(secondsLeft(null, NOW)).toBeNull();
    expect(secondsLeft(order(0, null), NOW)).toBeNull();
    // An empty cart shows no countdown even if the server still sent a time (SPEC "Widget" rule 2).
    expect(secondsLeft(order(0, '2026-11-21T10:15:00Z'), NOW)).toBeNull();
    expect(secondsLeft(order(2, null), NOW)).toBeNull();
  });

  it('counts whole seconds down to expires_at, never below zero', () => {
    expect(secondsLeft(order(1, '2026-11-21T10:15:00Z'), NOW)).toBe(900);
    expect(secondsLeft(order(1, '2026-11-21T10:15:00Z'), NOW + 899_001)).toBe(1);
    expect(secondsLeft(order(1, '2026-11-21T10:15:00Z'), NOW + 900_000)).toBe(0);
    expect(secondsLeft(order(1, '2026-11-21T10:15:00+01:00'), NOW)).toBe(0);
    expect(formatCountdown(900)).toBe('15:00');
    expect(formatCountdown(61)).toBe('01:01');
  });

  it('shows again when an item is added to an emptied order', () => {
    expect(secondsLeft(order(0, null), NOW)).toBeNull();
    expect(secondsLeft(order(1, '2026-11-21T10:15:00Z'), NOW)).toBe(900);
  });
});

describe('order helpers', () => {
  it('counts items and lists the seats of the order', () => {
    const o = order(3, '2026-11-21T10:15:00Z');
    expect(itemCount(o)).toBe(3);
    expect([...seatIdsInOrder(o)]).toEqual([100, 101, 102]);
    expect(itemCount(null)).toBe(0);
  });

  it('fingerprints change with any field the host can see', () => {
    const a = order(1, '2026-11-21T10:15:00Z');
    const b = { ...a, total_amount: 20 };
    expect(orderFingerprint(a)).toBe(orderFingerprint(structuredClone(a)));
    expect(orderFingerprint(a)).not.toBe(orderFingerprint(b));
    expect(orderFingerprint(null)).toBe('null');
  });
});

describe('browser persistence (D32, D38)', () => {
  it('creates one client id per browser and keeps it', () => {
    const storage = memoryStorage();
    const id = clientId(storage);
    expect(id).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(clientId(storage)).toBe(id);
    expect(clientId(memoryStorage())).not.toBe(id);
  });

  it('replaces a tampered client id with a valid one', () => {
    const storage = memoryStorage();
    storage.setItem('taquilla:client_id', 'not valid!');
    expect(clientId(storage)).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
  });

  it('stores the active order per channel and session and reloads it while live', () => {
    const storage = memoryStorage();
    saveOrder(storage, { channelSlug: 'demo-d', sessionId: 1, orderToken: 'a', expiresAt: '2026-11-21T10:15:00Z' });
    saveOrder(storage, { channelSlug: 'demo-c', sessionId: 1, orderToken: 'b', expiresAt: '2026-11-21T10:15:00Z' });
    expect(loadOrder(storage, 'demo-d', 1)?.orderToken).toBe('a');
    expect(loadOrder(storage, 'demo-c', 1)?.orderToken).toBe('b');
    expect(loadOrder(storage, 'demo-d', 2)).toBeNull();
  });

  it('loads an entry whatever its expiry says (the service judges the order, on its clock) until it is forgotten', () => {
    const storage = memoryStorage();
    saveOrder(storage, { channelSlug: 'demo-d', sessionId: 1, orderToken: 'a', expiresAt: '2026-11-21T09:59:59Z' });
    expect(loadOrder(storage, 'demo-d', 1)?.orderToken).toBe('a');
    saveOrder(storage, { channelSlug: 'demo-d', sessionId: 1, orderToken: 'a', expiresAt: null });
    expect(loadOrder(storage, 'demo-d', 1)?.orderToken).toBe('a');
    forgetOrder(storage, 'demo-d', 1);
    expect(loadOrder(storage, 'demo-d', 1)).toBeNull();
    expect(storage.length).toBe(0);
  });

  it('finds the stored orders of other sessions of the same channel only', () => {
    const storage = memoryStorage();
    saveOrder(storage, { channelSlug: 'demo-d', sessionId: 1, orderToken: 'old', expiresAt: null });
    saveOrder(storage, { channelSlug: 'demo-d', sessionId: 2, orderToken: 'current', expiresAt: null });
    saveOrder(storage, { channelSlug: 'demo-dd', sessionId: 3, orderToken: 'other-channel', expiresAt: null });
    storage.setItem('taquilla:order:demo-d:9', '{broken');
    expect(ordersOfOtherSessions(storage, 'demo-d', 2).map((o) => o.orderToken)).toEqual(['old']);
  });
});

function detail(): SessionDetail {
  const rates = [
    { id: 1, name: 'General', price: 30 },
    { id: 2, name: 'Reducida', price: 22.5 },
  ];
  const seat = (id: number, row: string, number: number, x: number, y: number, status = 'available') => ({
    id,
    sector_id: 10,
    row,
    number: String(number),
    x,
    y,
    status,
    rates,
  });
  return {
    session: { id: 7, event_id: 1 },
    elements: {
      sectors: [
        { id: 10, name: 'Platea', numbered: true, capacity: 6, available: 4, rates },
        { id: 11, name: 'Pista', numbered: false, capacity: 200, available: 150, rates },
      ],
      seats: [seat(6, 'B', 3, 2, 1), seat(1, 'A', 1, 0, 0), seat(2, 'A', 2, 1, 0, 'sold'), seat(3, 'A', 3, 2, 0, 'held'), seat(4, 'B', 1, 0, 1), seat(5, 'B', 2, 1, 1)],
    },
  };
}

describe('seat map model', () => {
  it('builds sectors, seats by id, statuses and the bounding box', () => {
    const map = buildSeatMap(detail(), [{ id: 10, name: 'Platea baja' }]);
    expect(map.sectors.map((s) => [s.name, s.numbered, s.count])).toEqual([
      ['Platea', true, 6],
      ['Pista', false, 0],
    ]);
    expect(map.seats.get(2)?.status).toBe('sold');
    expect(map.seats.get(3)?.status).toBe('held');
    // Reading order: row A left to right, then row B.
    expect(sectorSeats(map, map.sectors[0]!).map((s) => s.id)).toEqual([1, 2, 3, 4, 5, 6]);
    // Seats span x 0-2, y 0-1; room for the row names at the left (2 units) and the stage above
    // row A (gap 1.6, depth 1.4) plus half a unit of margin.
    expect(map.box).toEqual({ x: -2.5, y: -5.5, w: 5.5, h: 7.5 });
    expect(map.stage).toEqual({ side: 'top', x: 0, y: -5, w: 2, h: 1.4 });
    expect(map.rows.map((r) => [r.row, r.minX, r.y])).toEqual([
      ['A', 0, 0],
      ['B', 0, 1],
    ]);
  });

  it('zooms to a sector at a finger\'s size, and counts free seats with the cart', () => {
    const map = buildSeatMap(detail(), null);
    // 390 x 420 px would fit the tiny sector at 78 px a unit: the whole sector, centred.
    const fit = sectorView(map, 10, 390, 420)!;
    expect(fit.w / fit.h).toBeCloseTo(390 / 420);
    expect(390 / fit.w).toBeGreaterThanOrEqual(MIN_PX_PER_UNIT);
    // 60 x 60 px would fit it at 12 px a unit: instead the touch scale, from the row names on.
    const touch = sectorView(map, 10, 60, 60)!;
    expect(60 / touch.w).toBe(MIN_PX_PER_UNIT);
    expect(touch.x).toBe(-2);
    expect(sectorView(map, 11, 390, 420)).toBeNull();
    // Free: seats 1, 4, 5, 6 (2 sold, 3 held); with seat 4 in the cart, 3; a zone keeps its figure.
    expect(freeBySector(map, new Set())).toEqual(new Map([[10, 4], [11, 150]]));
    expect(freeBySector(map, new Set([4]))).toEqual(new Map([[10, 3], [11, 150]]));
  });

  it('builds the same map from the layout columns and an availability snapshot as from the full detail', () => {
    const full = detail();
    const seats = full.elements.seats;
    const bare: SessionDetail = { ...full, elements: { ...full.elements, seats: [] } };
    const layout = {
      session_id: 7,
      seats: { id: seats.map((s) => s.id), sector_id: seats.map((s) => s.sector_id), row: seats.map((s) => s.row), number: seats.map((s) => s.number), x: seats.map((s) => s.x), y: seats.map((s) => s.y) },
    };
    // The snapshot lists the seats that are not free, by status (form=ids); the zone's free places
    // come from it too.
    const snapshot = { cursor: 'c1', snapshot: true, seats_by_status: { available: [], held: [3], sold: [2], blocked: [] }, zones: [{ sector_id: 11, available: 120 }] };
    const fromLayout = seatMapFromLayout(bare, layout, snapshot);
    const expected = buildSeatMap({ ...full, elements: { ...full.elements, sectors: full.elements.sectors.map((s) => (s.id === 11 ? { ...s, available: 120 } : s)) } }, null);
    expect(fromLayout).toEqual(expected);
    expect(fromLayout.seats.get(3)?.status).toBe('held');
    expect(fromLayout.sectors[1]!.available).toBe(120);
    // A seat's rates are its sector's (the layout carries none).
    expect(fromLayout.seats.get(1)!.rates).toBe(fromLayout.sectors[0]!.rates);
  });

  it('builds the same map from a layout in reading order (sectors, rows, bounds from the service) and a snapshot by index', () => {
    const full = detail();
    // A second numbered sector listed first, its seats with later ids: the reading order is not the ids' order.
    const rates = full.elements.sectors[0]!.rates!;
    full.elements.sectors.unshift({ id: 12, name: 'Palco', numbered: true, capacity: 2, available: 1, rates: [rates[0]!] });
    full.elements.seats.push({ ...full.elements.seats[0]!, id: 8, sector_id: 12, row: '1', number: '2', x: 6, y: -3, rates: [rates[0]!], status: 'blocked' });
    full.elements.seats.push({ ...full.elements.seats[0]!, id: 7, sector_id: 12, row: '1', number: '1', x: 5, y: -3, rates: [rates[0]!] });
    const reading = readingLayout(full.elements.seats, full.elements.sectors.map((s) => s.id));
    const layout = { session_id: 7, ...(JSON.parse(reading.json) as Omit<SessionLayout, 'session_id'>) };
    expect(layout.seats.id).toEqual([7, 8, 1, 2, 3, 4, 5, 6]);
    const at = (id: number) => reading.indexOf.get(id)!;
    const snapshot = { cursor: 'c1', snapshot: true, layout: reading.version, index_by_status: { held: [at(3)], sold: [at(2)], blocked: [at(8)] }, zones: [{ sector_id: 11, available: 120 }] };
    const bare: SessionDetail = { ...full, elements: { ...full.elements, seats: [] } };
    const fast = seatMapFromLayout(bare, layout, snapshot);
    const expected = buildSeatMap({ ...full, elements: { ...full.elements, sectors: full.elements.sectors.map((s) => (s.id === 11 ? { ...s, available: 120 } : s)) } }, null);
    expect(fast.sectors).toEqual(expected.sectors);
    expect(fast.rows).toEqual(expected.rows);
    expect(fast.box).toEqual(expected.box);
    expect(fast.stage).toEqual(expected.stage);
    expect(fast.sectorBoxes).toEqual(expected.sectorBoxes);
    expect([...fast.seats.values()]).toEqual([...expected.seats.values()]);
    expect(fast.seats.get(8)?.status).toBe('blocked');
    // The same layout without its extras (an older service) and the snapshot by ids: the same map again.
    const bareLayout = { session_id: 7, seats: layout.seats };
    const byIds = seatMapFromLayout(bare, bareLayout, { cursor: 'c1', snapshot: true, seats_by_status: { held: [3], sold: [2], blocked: [8] }, zones: snapshot.zones });
    expect([...byIds.seats.values()]).toEqual([...expected.seats.values()]);
    expect(byIds.rows).toEqual(expected.rows);
    // Indices of another layout version are not read as this one's.
    const stale = seatMapFromLayout(bare, layout, { ...snapshot, layout: 'another', seats_by_status: { held: [3] } });
    expect([...stale.seats.values()].filter((s) => s.status !== 'available').map((s) => s.id)).toEqual([3]);
  });

  it('applies a live-map answer: changes, a snapshot, the same map when nothing changed', () => {
    const map = buildSeatMap(detail(), null);
    const next = applyAvailability(map, { cursor: 'c2', snapshot: false, seats_by_status: { sold: [1, 999] } });
    expect(next.seats.get(1)?.status).toBe('sold');
    expect(next.seats.get(2)?.status).toBe('sold');
    expect(next.sectors[0]!.available).toBe(3);
    // The map it came from is unchanged (the seat layers compare the two).
    expect(map.seats.get(1)?.status).toBe('available');
    expect(applyAvailability(next, { cursor: 'c3', snapshot: false, seats_by_status: { sold: [1] } })).toBe(next);
    // A snapshot frees every seat it does not list; a zone's count changes alone.
    const snap = applyAvailability(next, { cursor: 'c4', snapshot: true, seats_by_status: { held: [3] }, zones: [{ sector_id: 11, available: 99 }] });
    expect([...snap.seats.values()].filter((s) => s.status !== 'available').map((s) => s.id)).toEqual([3]);
    expect(snap.sectors.map((s) => s.available)).toEqual([5, 99]);
  });

  it('takes coordinates from the maps endpoint when the detail has none', () => {
    const d = detail();
    d.elements.seats = [{ ...d.elements.seats[1]!, x: undefined as unknown as number, y: undefined as unknown as number }];
    const map = buildSeatMap(d, [{ id: 10, seats: [{ id: 999, row: 'A', number: '1', x: 40, y: 12 }] }]);
    expect(map.seats.get(1)).toMatchObject({ x: 40, y: 12 });
  });

  it('moves keyboard focus along the row and to the nearest seat of the next row', () => {
    const map = buildSeatMap(detail(), null);
    const seat = (id: number) => map.seats.get(id)!;
    expect(neighbour(map, seat(1), 'right')?.id).toBe(2);
    expect(neighbour(map, seat(2), 'left')?.id).toBe(1);
    expect(neighbour(map, seat(1), 'left')).toBeNull();
    expect(neighbour(map, seat(2), 'down')?.id).toBe(5);
    expect(neighbour(map, seat(6), 'up')?.id).toBe(3);
    expect(neighbour(map, seat(5), 'down')).toBeNull();
  });

  it('zooms around a point and within limits', () => {
    const full = { x: 0, y: 0, w: 100, h: 50 };
    const zoomed = zoomBox(full, full, 0.5, 50, 25);
    expect(zoomed).toEqual({ x: 25, y: 12.5, w: 50, h: 25 });
    let box = full;
    for (let i = 0; i < 50; i++) box = zoomBox(box, full, 0.5);
    expect(box.w).toBeCloseTo(100 / 40);
    for (let i = 0; i < 50; i++) box = zoomBox(box, full, 2);
    expect(box.w).toBeCloseTo(150);
  });
});
