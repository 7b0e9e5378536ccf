import type { CatalogueDocument } from '../src/modules/catalogue/import.schemas.js';

/** 5,000 numbered seats in 4 sectors of 25 rows x 50, one zone, two translated rates. */
export function benchCatalogue(slug: string, key: string, integrationMode: 'portal_only' | 'widget_external_payment'): CatalogueDocument {
  const sectors = ['Platea', 'Anfiteatro', 'Palco', 'Gallinero'].map((name, s) => ({
    key: `s${s}`,
    name,
    numbered: true,
    rows: Array.from({ length: 25 }, (_, r) => ({ row: String(r + 1), seats: 50, x: 0, y: s * 30 + r, dx: 1 })),
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
