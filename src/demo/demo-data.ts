import { sql } from 'drizzle-orm';
import type { AppContext } from '../app-context.js';
import { queryRows } from '../db/client.js';
import { importCatalogue, type ImportSummary } from '../modules/catalogue/import.service.js';
import { createReservation } from '../modules/checkout/reservation.service.js';
import type { CatalogueDocument } from '../modules/catalogue/import.schemas.js';

const DAY = 24 * 3600 * 1000;

/** Evening `days` ahead of `now` at 19:00 UTC, so demo sessions are always in the future. */
function eveningIn(now: Date, days: number): string {
  const d = new Date(now.getTime() + days * DAY);
  d.setUTCHours(19, 0, 0, 0);
  return d.toISOString();
}

const rows = (rowCount: number, perRow: number, y0: number) =>
  Array.from({ length: rowCount }, (_, i) => ({ row: String.fromCharCode(65 + i), seats: perRow, x: 0, y: y0 + i, dx: 1 }));

/**
 * The on-sale (D60), loaded with DEMO_ONSALE=true (the default in development): a waiting room
 * whose pre-queue is open from the start and whose sales start a few minutes after it, so that
 * `npm start` shows the countdown, the draw and the admissions. Off in the test suites: a session
 * not yet on sale, behind a queue, refuses a cart without a pass, and the tests rely on a catalogue
 * (D37) any seat of which can be bought at once.
 */
function onSaleEvent(now: Date, rates: CatalogueDocument['events'][number]['sessions'][number]['rates']): CatalogueDocument['events'][number] {
  return {
    key: 'estreno',
    organiser: 'demo',
    venue: 'teatro',
    default_lang: 'es',
    names: { es: 'Estreno con cola virtual', en: 'Premiere with a waiting room' },
    descriptions: { es: 'Las entradas salen a la venta a los pocos minutos: espera tu turno en la cola.', en: 'Tickets go on sale a few minutes after start: wait for your turn in the queue.' },
    sessions: [
      {
        key: 'e1',
        start_datetime: eveningIn(now, 60),
        sales_start_at: new Date(Math.ceil((now.getTime() + 3 * 60_000) / 60_000) * 60_000).toISOString(),
        queue: { enabled: true, admission_per_minute: 30, pass_ttl_seconds: 600, opens_minutes_before: 30, challenge: 'none' },
        rates,
      },
    ],
  };
}

/** The small hall of the sold-out session: one numbered sector of two rows of four seats. */
const SOLD_OUT_VENUE = 'Sala de Cámara';

/**
 * A sold-out session (D69), loaded with DEMO_SOLD_OUT=true (the default in development): a chamber
 * recital in a hall of eight seats, all sold at load by a box-office reservation (below), so that the
 * portal and the widget show it sold out and offer its waiting list. Off in the test suites, like
 * the on-sale: they rely on the D37 catalogue and its counts.
 */
const soldOutVenue = (): CatalogueDocument['venues'][number] => ({
  key: 'camara',
  organiser: 'demo',
  name: SOLD_OUT_VENUE,
  address: 'Calle Mayor 1',
  city: 'Madrid',
  sectors: [{ key: 'sala', name: 'Sala', numbered: true, rows: rows(2, 4, 0) }],
});

function soldOutEvent(now: Date, rates: CatalogueDocument['events'][number]['sessions'][number]['rates']): CatalogueDocument['events'][number] {
  return {
    key: 'recital',
    organiser: 'demo',
    venue: 'camara',
    default_lang: 'es',
    names: { es: 'Recital de cámara (agotado)', en: 'Chamber recital (sold out)' },
    descriptions: {
      es: 'Ocho butacas, todas vendidas: apúntate a la lista de espera y te avisamos por correo si se libera una.',
      en: 'Eight seats, all sold: join the waiting list and we e-mail you if one is freed.',
    },
    fees: [{ name: 'Gastos de gestión', kind: 'fixed', amount: 1.5 }],
    sessions: [{ key: 'r1', start_datetime: eveningIn(now, 40), rates }],
  };
}

/**
 * Sells every seat of the sold-out session through the service's own reservation path (the one of
 * `orders:reserve` and the admin API: seats sold, tickets issued, figures counted), on demo-d: a
 * model D channel sends no ticket e-mail (D32), so the demo's outbox stays empty. Refunding one of
 * its tickets (dashboard, admin API or `orders:refund`) frees a seat for the head of the list.
 */
async function sellOutSoldOutSession(ctx: AppContext): Promise<void> {
  const seats = await queryRows<{ id: number; rate_id: number }>(
    ctx.db,
    sql`SELECT ss.id, (SELECT min(r.id) FROM rates r WHERE r.session_id = ss.session_id) AS rate_id
        FROM session_seats ss JOIN sectors sec ON sec.id = ss.sector_id JOIN venues v ON v.id = sec.venue_id
        WHERE v.name = ${SOLD_OUT_VENUE} ORDER BY ss.id`,
  );
  if (seats.length === 0) return;
  await createReservation(ctx, {
    channelSlug: 'demo-d',
    items: seats.map((s) => ({ session_seat_id: Number(s.id), rate_id: Number(s.rate_id) })),
    buyer: { name: 'Taquilla', surname: 'Reserva de sala', email: 'reservas@example.com', phone: null },
    lang: 'es',
  });
}

/**
 * demo-b's checkout page (model B): the example channel's, served by the service itself under
 * /widget/examples in development (examples/widget-channel-server.ts), so it follows the public
 * address (PUBLIC_BASE_URL, PORT) instead of naming a port of its own.
 */
const demoCheckoutUrl = (publicBaseUrl: string) => `${publicBaseUrl}/widget/examples/model-b/checkout`;

/**
 * A start at another address (PORT or PUBLIC_BASE_URL changed) moves demo-b's checkout address
 * with it, unless an operator has set one of their own (anything but a demo checkout address).
 */
export async function followPublicAddress(ctx: AppContext): Promise<void> {
  if (ctx.config.appEnv === 'production') return;
  await ctx.db.execute(sql`UPDATE sales_channels SET checkout_url = ${demoCheckoutUrl(ctx.config.publicBaseUrl)}
    WHERE slug = 'demo-b' AND (checkout_url LIKE '%/widget/examples/model-b/checkout' OR checkout_url = 'http://localhost:4000/checkout')`);
}

/** The fixed demo catalogue of DECISIONS D37, as an import document. */
function demoCatalogue(now: Date, publicBaseUrl: string, withOnSale: boolean, withSoldOut: boolean): CatalogueDocument {
  const rates = [
    { key: 'general', name: 'General', names: { es: 'General', en: 'General admission' }, price: 30 },
    { key: 'reduced', name: 'Reducida', names: { es: 'Reducida', en: 'Concession' }, price: 22.5, meta: { requires_id: true } },
  ];
  return {
    organisers: [{ key: 'demo', name: 'Demo Producciones' }],
    venues: [
      {
        key: 'teatro',
        organiser: 'demo',
        name: 'Teatro Demo',
        address: 'Calle Mayor 1',
        city: 'Madrid',
        sectors: [
          { key: 'platea', name: 'Platea', numbered: true, rows: rows(20, 20, 0) },
          { key: 'anfiteatro', name: 'Anfiteatro', numbered: true, rows: rows(8, 20, 24) },
          { key: 'pista', name: 'Pista', numbered: false, capacity: 200 },
        ],
      },
      ...(withSoldOut ? [soldOutVenue()] : []),
    ],
    events: [
      {
        key: 'concierto',
        organiser: 'demo',
        venue: 'teatro',
        default_lang: 'es',
        names: { es: 'Concierto de Año Nuevo', en: "New Year's Concert" },
        descriptions: { es: 'Valses y polcas con la orquesta de la casa.', en: 'Waltzes and polkas by the house orchestra.' },
        fees: [{ name: 'Gastos de gestión', kind: 'fixed', amount: 1.5 }],
        sessions: [
          { key: 'c1', start_datetime: eveningIn(now, 30), rates },
          { key: 'c2', start_datetime: eveningIn(now, 31), rates },
        ],
      },
      {
        key: 'teatro',
        organiser: 'demo',
        venue: 'teatro',
        default_lang: 'es',
        names: { es: 'La vida es sueño', en: 'Life Is a Dream' },
        descriptions: { es: 'El clásico de Calderón.', en: "Calderón's classic." },
        fees: [{ name: 'Gastos de gestión', kind: 'percent', amount: 5 }],
        sessions: [{ key: 't1', start_datetime: eveningIn(now, 45), rates }],
      },
      ...(withOnSale ? [onSaleEvent(now, rates)] : []),
      ...(withSoldOut ? [soldOutEvent(now, rates)] : []),
    ],
    vouchers: [
      { organiser: 'demo', code: 'DEMO10', kind: 'percent', value: 10 },
      { organiser: 'demo', code: 'DEMO5', kind: 'fixed', value: 5 },
    ],
    channels: [
      { organiser: 'demo', slug: 'demo-a', name: 'Demo A (portal)', integration_mode: 'portal_only', events: 'all', widget_keys: ['wk_demo_a'], server_keys: ['sk_demo_a'] },
      {
        organiser: 'demo',
        slug: 'demo-b',
        name: 'Demo B (portal, own checkout)',
        integration_mode: 'portal_external_payment',
        checkout_url: demoCheckoutUrl(publicBaseUrl),
        events: 'all',
        widget_keys: ['wk_demo_b'], server_keys: ['sk_demo_b'],
      },
      { organiser: 'demo', slug: 'demo-c', name: 'Demo C (widget, portal payment)', integration_mode: 'widget_platform_payment', events: 'all', widget_keys: ['wk_demo_c'], server_keys: ['sk_demo_c'] },
      { organiser: 'demo', slug: 'demo-d', name: 'Demo D (widget, own payment)', integration_mode: 'widget_external_payment', events: 'all', widget_keys: ['wk_demo_d'], server_keys: ['sk_demo_d'] },
    ],
  };
}

/** Loads the demo catalogue unless the database already has channels. Refused in production (D3). */
export async function loadDemoDataIfEmpty(ctx: AppContext): Promise<ImportSummary | null> {
  if (ctx.config.appEnv === 'production') throw new Error('demo data is refused when APP_ENV=production');
  const [existing] = await queryRows<{ n: number }>(ctx.db, sql`SELECT count(*)::int AS n FROM sales_channels`);
  if (Number(existing?.n) > 0) return null;
  const summary = await importCatalogue(ctx, demoCatalogue(ctx.clock.now(), ctx.config.publicBaseUrl, ctx.config.demoOnSale, ctx.config.demoSoldOut));
  await flagAccessibleSeats(ctx);
  if (ctx.config.demoSoldOut) await sellOutSoldOutSession(ctx);
  return summary;
}

/**
 * A few wheelchair places, each with a companion seat beside it (D61 `accessible`, D64 flags), at
 * both ends of the last row of each numbered sector: seats 1 and 20 are wheelchair places, 2 and 19
 * their companions. The import has no field for them yet (the venues work brings layouts that do).
 */
async function flagAccessibleSeats(ctx: AppContext): Promise<void> {
  await ctx.db.execute(sql`
    UPDATE seats st SET wheelchair = st.number IN ('1', '20'), companion = st.number IN ('2', '19')
    FROM sectors sec JOIN venues v ON v.id = sec.venue_id
    WHERE sec.id = st.sector_id AND v.name = 'Teatro Demo' AND sec.numbered AND st.number IN ('1', '2', '19', '20')
      AND st.row = (SELECT max(s2.row) FROM seats s2 WHERE s2.sector_id = sec.id)`);
}
