import type { CatalogueDocument } from '../src/modules/catalogue/import.schemas.js';

/**
 * 5,000 numbered seats in 4 sectors of 25 rows x 50, one zone, two translated rates. A larger
 * `seats` (bench:seat-page's 20,000) keeps the 4 sectors with rows of 100 and more rows.
 */
export function benchCatalogue(slug: string, key: string, integrationMode: 'portal_only' | 'widget_external_payment', seats = 5000): CatalogueDocument {
  const perRow = seats > 5000 ? 100 : 50;
  const rowCount = Math.ceil(seats / 4 / perRow);
  const sectors = ['Platea', 'Anfiteatro', 'Palco', 'Gallinero'].map((name, s) => ({
    key: `s${s}`,
    name,
    numbered: true,
    rows: Array.from({ length: rowCount }, (_, r) => ({ row: String(r + 1), seats: perRow, x: 0, y: s * (rowCount + 5) + r, dx: 1 })),
  }));
  const start = new Date(Date.now() + 30 * 24 * 3600 * 1000).toISOString();
  return {
    organisers: [{ key: 'o', name: 'Bench' }],
    venues: [{ key: 'v', organiser: 'o', name: 'Bench Arena', city: 'Madrid', sectors: [...sectors, { key: 'z', name: 'Pista', numbered: false, capacity: 500 }] }],
    events: [
      {
        key: 'e',
        organiser: 'o',
        venue: 'v',
        default_lang: 'es',
        names: { es: 'Concierto', en: 'Concert' },
        sessions: [
          {
            key: 's',
            start_datetime: start,
            rates: [
              { key: 'g', name: 'General', names: { es: 'General', en: 'General admission' }, price: 30 },
              { key: 'r', name: 'Reducida', names: { es: 'Reducida', en: 'Concession' }, price: 22.5, meta: { requires_id: true } },
            ],
          },
        ],
      },
    ],
    channels: [{ organiser: 'o', slug, name: 'Bench', integration_mode: integrationMode, events: 'all', widget_keys: [key] }],
  };
}

/**
 * A flash sale: one session of `seats` numbered seats (rows of 100), one rate of 50.00 with a fee of
 * 1.00, one model D channel (cart and confirm through the API) with the given keys.
 */
export function flashSaleCatalogue(seats: number, channel: { slug: string; widget_keys?: string[]; server_keys?: string[] }): CatalogueDocument {
  const perRow = 100;
  return {
    organisers: [{ key: 'o', name: 'Bench' }],
    venues: [
      {
        key: 'v',
        organiser: 'o',
        name: 'Arena',
        sectors: [{ key: 's', name: 'Floor', numbered: true, rows: Array.from({ length: Math.ceil(seats / perRow) }, (_, i) => ({ row: `R${i + 1}`, seats: perRow, x: 0, y: i })) }],
      },
    ],
    events: [
      {
        key: 'e',
        organiser: 'o',
        venue: 'v',
        names: { en: 'Flash sale' },
        fees: [{ name: 'Fee', kind: 'fixed', amount: 1 }],
        sessions: [{ key: 's1', start_datetime: new Date(Date.now() + 30 * 86_400_000).toISOString(), rates: [{ key: 'g', name: 'General', price: 50 }] }],
      },
    ],
    channels: [{ organiser: 'o', name: 'Bench', integration_mode: 'widget_external_payment', events: 'all', ...channel }],
  };
}
