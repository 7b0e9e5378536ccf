// Writes test/fixtures/pretix/theatre-2000.json: a 2,000-seat theatre in pretix's seating-plan format
// with every property pretix's schema has. Deterministic (no random ids): `npx tsx
// test/catalogue/pretix-fixture.ts > test/fixtures/pretix/theatre-2000.json`.
import { pathToFileURL } from 'node:url';

const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

export function theatrePlan() {
  let id = 0;
  const zone = (name: string, zoneId: string, x: number, y: number, rows: number, perRow: number, category: (r: number) => string) => ({
    name,
    zone_id: zoneId,
    uuid: uuid(++id),
    position: { x, y },
    rows: Array.from({ length: rows }, (_, r) => ({
      row_number: String(r + 1),
      row_label: `Row ${r + 1}`,
      seat_label: r % 2 ? null : 'Seat %s',
      uuid: uuid(++id),
      row_number_position: (['start', 'end', 'both', null] as const)[r % 4],
      position: { x: 12.5 * (r % 3), y: 28.75 * r },
      seats: Array.from({ length: perRow }, (_, s) => ({
        seat_guid: `${zoneId}-${r + 1}-${s + 1}`,
        seat_number: String(s + 1),
        uuid: uuid(++id),
        ...(s === 0 ? { start_direction: '>' } : s === perRow - 1 ? { start_direction: '<' } : {}),
        ...(s % 7 === 0 ? { radius: 12 } : {}),
        // a curved row: fractional positions on purpose
        position: { x: s * 26.1, y: Math.round(Math.abs(s - perRow / 2) ** 2 * 0.05 * 1000) / 1000 },
        category: category(r),
      })),
    })),
  });
  const stalls = zone('Stalls', 'stalls', 100, 200, 40, 40, (r) => (r < 10 ? 'Premium' : 'Standard'));
  const balcony = zone('Balcony', 'balcony', 150, 1500, 10, 30, () => 'Balcony');
  const boxes = zone('Boxes', 'boxes', 20, 300, 10, 10, () => 'Premium');
  return {
    name: 'Teatro de las Pruebas',
    categories: [
      { name: 'Premium', color: '#d4af37' },
      { name: 'Standard', color: '#3366cc' },
      { name: 'Balcony' },
    ],
    zones: [
      {
        ...stalls,
        areas: [
          { shape: 'rectangle', color: '#333333', border_color: '#000000', position: { x: 300, y: -150 }, rotation: 0, uuid: uuid(++id), rectangle: { width: 500, height: 80 }, text: { text: 'Stage', color: '#ffffff', size: 24, position: { x: 250, y: 40 } } },
          { shape: 'polygon', color: '#eeeeee', position: { x: 0, y: 0 }, uuid: uuid(++id), polygon: { points: [{ x: 0, y: 0 }, { x: 40.5, y: 10 }, { x: 20, y: 60.25 }] } },
        ],
      },
      { ...balcony, areas: [{ shape: 'text', position: { x: 10, y: -30 }, uuid: uuid(++id), text: { text: 'Balcony', position: { x: 0, y: 0 } } }] },
      {
        ...boxes,
        areas: [
          { shape: 'circle', color: '#ffcccc', position: { x: -10, y: -10 }, uuid: uuid(++id), circle: { radius: 8 } },
          { shape: 'ellipse', border_color: '#999999', position: { x: 50, y: 50 }, rotation: 45.5, uuid: uuid(++id), ellipse: { radius: { x: 30, y: 12.5 } } },
        ],
      },
      { name: 'Stage', zone_id: 'stage', position: { x: 0, y: 0 }, rows: [], areas: [] },
    ],
    size: { width: 1400, height: 2000 },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) console.log(JSON.stringify(theatrePlan(), null, 2));
