import http from 'node:http';
import type { Page } from 'playwright-core';
import type { AddressInfo } from 'node:net';
import { readingLayout } from '../src/modules/catalogue/layout-reading.js';

/** Synthetic data in the shapes of D33-D35 for the widget benchmark. */

const rates = [
  { id: 1, name: 'General', price: 30, meta: {} },
  { id: 2, name: 'Reducida', price: 22.5, meta: {} },
];

/** `seatCount` seats in four sectors laid out side by side; about 30 % sold and 10 % held. */
export function syntheticSession(seatCount: number) {
  const sectorsCount = 4;
  const perSector = Math.ceil(seatCount / sectorsCount);
  const perRow = 25;
  const seats = [];
  let id = 1;
  for (let s = 0; s < sectorsCount; s++) {
    for (let i = 0; i < perSector && id <= seatCount; i++, id++) {
      const row = Math.floor(i / perRow);
      const n = i % perRow;
      const r = (id * 2654435761) % 100;
      seats.push({
        id,
        sector_id: s + 1,
        row: String(row + 1),
        number: String(n + 1),
        x: (s % 2) * (perRow + 3) + n,
        y: Math.floor(s / 2) * (Math.ceil(perSector / perRow) + 3) + row,
        status: r < 30 ? 'sold' : r < 40 ? 'held' : 'available',
        rates,
      });
    }
  }
  const sectors = Array.from({ length: sectorsCount }, (_, s) => ({
    id: s + 1,
    name: `Sector ${s + 1}`,
    numbered: true,
    capacity: perSector,
    available: perSector,
    rates,
  }));
  sectors.push({ id: 99, name: 'Pista', numbered: false, capacity: 500, available: 500, rates });
  return { session: { id: 1, event_id: 1, start_datetime: '2026-12-31T19:00:00+00:00' }, elements: { seats, sectors } };
}

const envelope = (data: unknown) => JSON.stringify({ status: 200, success: true, data, message: 'OK' });

/**
 * A local HTTP server answering the widget's calls with synthetic data (and serving a bare host
 * page and the widget script), so the benchmark measures the widget, not a database.
 */
export async function startSyntheticService(
  widgetCode: string,
  seatCount: number,
  options: { layout?: boolean } = {},
): Promise<{ origin: string; close(): Promise<void> }> {
  const data = syntheticSession(seatCount);
  const session = envelope(data);
  // Issue 29's routes for large venues (unless `layout: false`, a service without them): the
  // detail without seats, the layout in columns, the availability (a snapshot, then no changes).
  const withLayout = options.layout !== false;
  const seats = data.elements.seats;
  const bare = envelope({ ...data, elements: { ...data.elements, seats: [] } });
  // The layout as the service answers it: in reading order, with the sectors' ranges, the rows and the bounds.
  const reading = readingLayout(seats, data.elements.sectors.map((x) => x.id));
  const layout = `{"status":200,"success":true,"data":{"session_id":1,${reading.json.slice(1)},"message":"OK"}`;
  // As the service answers it: `changes[]` by default, `seats_by_status` with `form=ids`, `index_by_status` with `form=index`.
  const taken = seats.filter((x) => x.status !== 'available');
  const ofStatus = (status: string, key: (x: (typeof seats)[number]) => number) => taken.filter((x) => x.status === status).map(key);
  const statusLists = (snapshot: boolean, key: (x: (typeof seats)[number]) => number) =>
    snapshot ? { available: [], held: ofStatus('held', key), sold: ofStatus('sold', key), blocked: ofStatus('blocked', key) } : { available: [], held: [], sold: [], blocked: [] };
  const availability = (snapshot: boolean, form: 'changes' | 'ids' | 'index') =>
    envelope({
      session_id: 1,
      cursor: 'bench1',
      snapshot,
      ...(form === 'ids'
        ? { seats_by_status: statusLists(snapshot, (x) => x.id) }
        : form === 'index'
          ? { layout: reading.version, index_by_status: statusLists(snapshot, (x) => reading.indexOf.get(x.id)!) }
          : { changes: snapshot ? taken.map((x) => ({ session_seat_id: x.id, status: x.status })) : [] }),
      zones: data.elements.sectors.map((x) => ({ sector_id: x.id, available: x.available })),
      sale_state: 'on_sale',
      sales_start_at: null,
      sales_end_at: null,
    });
  const answersOf = (form: 'changes' | 'ids' | 'index') => ({ snapshot: availability(true, form), unchanged: availability(false, form) });
  const availabilityForms = { changes: answersOf('changes'), ids: answersOf('ids'), index: answersOf('index') };
  const answers: [RegExp, string][] = [
    [/\/auth\/token$/, envelope({ access_token: 'tk_bench', token_type: 'Bearer', sales_channel_slug: 'bench' })],
    [
      /\/config$/,
      envelope({
        sales_channel_slug: 'bench',
        integration_mode: 'widget_external_payment',
        allows_widget: true,
        checkout_url: null,
        portal_checkout_base_url: null,
        requires_external_payment_callback: true,
        show_checkout_button: false,
        currency: 'EUR',
        branding: { primary_color: '#1f4fd1', accent_color: '#0b7a3b' },
      }),
    ],
    [/\/events$/, envelope([{ id: 1, name: 'Bench', sessions: [{ id: 1, start_datetime: '2026-12-31T19:00:00+00:00' }] }])],
    [/\/maps$/, envelope([])],
    // The session detail only: the waiting room's status document (/queue/v1/sessions/1) is not
    // served, so the widget sees a session without a waiting room (404), as a plain on-sale.
    [/\/events\/1\/sessions\/1$/, session],
  ];
  // A cart, enough for a browser test to pick seats: POST orders (one seat or `items`) and the
  // items routes add to it; GET answers it. Nothing is checked.
  const order = { items: [] as ReturnType<typeof orderItem>[] };
  const orderItem = (id: number, seatId: number, rateId: number) => ({ id, session_seat_id: seatId, sector_id: 1, rate_id: rateId, base_amount: 30, discount_amount: 0, fee_amount: 0, total_amount: 30 });
  const orderBody = () => ({
    order_token: 'ord_bench',
    status: 'pending',
    total_amount: order.items.length * 30,
    expires_at: new Date(Date.now() + 15 * 60_000).toISOString(),
    currency: 'EUR',
    events: [{ id: 1, name: 'Bench', sessions: [{ id: 1, start_datetime: '2026-12-31T19:00:00+00:00', items: order.items }] }],
    vouchers: [],
  });
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const cors = { 'access-control-allow-origin': '*', 'access-control-allow-headers': 'Authorization, Content-Type', 'access-control-allow-methods': 'GET, POST, PUT, DELETE' };
    if (req.method === 'OPTIONS') return res.writeHead(204, cors).end();
    if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return res.end('<!doctype html><html><body><main id="w"></main><script src="/widget/v1/widget.iife.js"></script></body></html>');
    }
    if (path === '/widget/v1/widget.iife.js') {
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
      return res.end(widgetCode);
    }
    const query = (req.url ?? '').split('?')[1] ?? '';
    if (withLayout && req.method === 'GET') {
      const json = (body: string) => res.writeHead(200, { 'content-type': 'application/json', ...cors }).end(body);
      if (/\/events\/1\/sessions\/1$/.test(path) && /(^|&)seats=none(&|$)/.test(query)) return json(bare);
      if (/\/events\/1\/sessions\/1\/layout$/.test(path)) return json(layout);
      if (/\/events\/1\/sessions\/1\/availability$/.test(path)) {
        const form = availabilityForms[(/(^|&)form=(ids|index)(&|$)/.exec(query)?.[2] as 'ids' | 'index' | undefined) ?? 'changes'];
        return json(/(^|&)since=/.test(query) ? form.unchanged : form.snapshot);
      }
    }
    if (req.method === 'POST' && /\/orders(\/[^/]+\/items(-bulk)?)?$/.test(path)) {
      let raw = '';
      req.on('data', (c: Buffer) => (raw += c));
      req.on('end', () => {
        const body = JSON.parse(raw || '{}') as { items?: { session_seat_id: number; rate_id: number }[]; session_seat_id?: number; rate_id?: number };
        for (const it of body.items ?? [body]) order.items.push(orderItem(order.items.length + 1, it.session_seat_id!, it.rate_id!));
        res.writeHead(201, { 'content-type': 'application/json', ...cors }).end(envelope(orderBody()));
      });
      return;
    }
    if (req.method === 'GET' && /\/orders\/ord_bench$/.test(path)) return res.writeHead(200, { 'content-type': 'application/json', ...cors }).end(envelope(orderBody()));
    const hit = answers.find(([re]) => re.test(path));
    if (!hit) return res.writeHead(404, { 'content-type': 'application/json', ...cors }).end('{"success":false}');
    res.writeHead(200, { 'content-type': 'application/json', ...cors });
    res.end(hit[1]);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Page times (performance.now) of one init of the widget: the call, the poll that saw every seat, the next frame. */
export interface InitTimes {
  t0: number;
  drawn: number;
  interactive: number;
}

/**
 * On a page of the synthetic service: TicketWidget.init, then the times until every seat is drawn
 * and a frame has been painted with them (interactive). The map says how many seats it drew in
 * data-drawn (the canvas layer); before it, a seat was a <polygon data-id> in the DOM.
 * bench/widget-profile.ts reads the page's marks and requests against them.
 */
export function initToMapTimes(page: Page, seats: number): Promise<InitTimes> {
  return page.evaluate(
    (n) =>
      new Promise<InitTimes>((resolve) => {
        const w = window as unknown as { TicketWidget: { init(c: object): unknown } };
        const t0 = performance.now();
        w.TicketWidget.init({ container: '#w', channelSlug: 'bench', sessionId: 1, apiKey: 'wk_bench', lang: 'es' });
        const host = document.querySelector('taquilla-widget')!;
        const poll = () => {
          const drawn = host.shadowRoot?.querySelector('[data-drawn]');
          const count = drawn ? Number(drawn.getAttribute('data-drawn')) : (host.shadowRoot?.querySelectorAll('polygon[data-id]').length ?? 0);
          if (count >= n) {
            const seen = performance.now();
            requestAnimationFrame(() => resolve({ t0, drawn: seen, interactive: performance.now() }));
          } else requestAnimationFrame(poll);
        };
        poll();
      }),
    seats,
  );
}

/** Milliseconds from TicketWidget.init to interactive; bench:widget and bench/widget-ab.ts measure with it. */
export async function initToMap(page: Page, seats: number): Promise<number> {
  const { t0, interactive } = await initToMapTimes(page, seats);
  return interactive - t0;
}
