import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { PDFParse } from 'pdf-parse';
import { bearer, buildTestApp, DEMO, serverTokenFor, type TestApp } from '../helpers.js';
import { buyer, confirmUrl, createPendingOrder } from '../checkout/fixtures.js';
import { queryRows } from '../../src/db/client.js';
import { signedTicketUrl, verifyTicketLink, TICKET_LINK_TTL_SECONDS } from '../../src/modules/tickets/tickets.links.js';

let t: TestApp;
let urls: string[];
let orderId: number;
beforeAll(async () => {
  t = await buildTestApp();
  const token = await serverTokenFor(t.app, DEMO.d.slug, DEMO.d.serverKey); // model D confirms with the server key (D40)
  const o = await createPendingOrder(t.ctx, { channel: 'demo-d', seats: 2 });
  orderId = o.id;
  const res = await t.app.inject({ method: 'POST', url: confirmUrl('demo-d', o.token), headers: bearer(token), payload: { ...buyer, amount: o.total / 100 } });
  urls = res.json().data.ticket_pdf_urls;
}, 120_000); // building the app with the demo catalogue is slow on a busy machine
afterAll(() => t.close());

/** The path and query of a signed URL, for app.inject. */
const local = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

async function pdfText(buffer: Buffer): Promise<string> {
  const parser = new PDFParse({ data: new Uint8Array(buffer) });
  try {
    return (await parser.getText()).text;
  } finally {
    await parser.destroy();
  }
}

describe('ticket PDF through a signed link', () => {
  it('serves a PDF holding the code, the seat, the event, the venue, the rate, the price and the buyer', async () => {
    const res = await t.app.inject({ url: local(urls[0]!) });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    const text = await pdfText(res.rawPayload);
    const [ticket] = await queryRows<{ code: string; row: string; number: string; sector: string; reference: string }>(
      t.ctx.db,
      sql`SELECT t.code, st.row, st.number, sec.name AS sector, o.reference FROM tickets t
          JOIN orders o ON o.id = t.order_id JOIN order_items i ON i.id = t.order_item_id
          JOIN session_seats ss ON ss.id = i.session_seat_id JOIN seats st ON st.id = ss.seat_id
          JOIN sectors sec ON sec.id = i.sector_id
          WHERE t.order_id = ${orderId} ORDER BY t.order_item_id LIMIT 1`,
    );
    expect(urls[0]).toContain(`/api/tickets/${ticket!.code}.pdf`);
    expect(text).toContain(ticket!.code);
    // the designed ticket (issue 16): labels above their values, the seat in its own box
    for (const label of ['SECTOR', 'FILA', 'BUTACA', 'TARIFA', 'PRECIO', 'TITULAR', 'PEDIDO', 'RECINTO', 'FECHA']) expect(text).toContain(label);
    expect(text).toMatch(new RegExp(`\\b${ticket!.row}\\b`));
    expect(text).toMatch(new RegExp(`\\b${ticket!.number}\\b`));
    expect(text).toContain(ticket!.sector);
    expect(text).toContain('Concierto de Año Nuevo');
    expect(text).toContain('Teatro Demo');
    expect(text).toContain('General');
    expect(text).toContain('31,50 €');
    expect(text).toContain('Ana García Núñez');
    expect(text).toContain(ticket!.reference);
    // the venue's address and the terms
    const [venue] = await queryRows<{ address: string | null; city: string | null }>(t.ctx.db, sql`SELECT address, city FROM venues WHERE name = 'Teatro Demo' LIMIT 1`);
    for (const part of [venue!.address, venue!.city]) if (part) expect(text).toContain(part);
    // The terms wrap where the embedded font's widths put the line ends: compare with the lines joined.
    expect(text.replace(/\s+/g, ' ')).toContain('No se admiten cambios ni devoluciones');
    // date and time in TIMEZONE (Europe/Madrid): 19:00 UTC is 20:00 in winter or 21:00 in summer
    expect(text).toMatch(/FECHA\s+.+ (20|21):00/);
    // one page, not two half-blank ones
    expect(res.rawPayload.toString('latin1').match(/\/Type \/Page\b/g)).toHaveLength(1);
  });

  it('each ticket of the order has its own link and PDF', async () => {
    expect(urls).toHaveLength(2);
    const second = await t.app.inject({ url: local(urls[1]!) });
    expect(second.statusCode).toBe(200);
    const code = new URL(urls[1]!).pathname.match(/([A-Za-z0-9]+)\.pdf$/)![1]!;
    expect(await pdfText(second.rawPayload)).toContain(code);
  });
});

describe('signed links (D23)', () => {
  const expectForbidden = async (path: string) => {
    const res = await t.app.inject({ url: path });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ status: 403, success: false, message: 'The ticket link is invalid or has expired', code: 'invalid_signature' });
  };

  it('a tampered signature, expiry or code is 403 invalid_signature', async () => {
    const u = new URL(urls[0]!);
    const sig = u.searchParams.get('signature')!;
    const expires = Number(u.searchParams.get('expires'));
    const flipped = sig.slice(0, -1) + (sig.endsWith('A') ? 'B' : 'A');
    await expectForbidden(`${u.pathname}?expires=${expires}&signature=${flipped}`);
    await expectForbidden(`${u.pathname}?expires=${expires + 3600}&signature=${sig}`);
    const other = new URL(urls[1]!);
    await expectForbidden(`${other.pathname}?expires=${expires}&signature=${sig}`);
    await expectForbidden(`${u.pathname}?expires=${expires}`);
    await expectForbidden(u.pathname);
    await expectForbidden(`/api/tickets/not-a-ticket.pdf?expires=${expires}&signature=${sig}`);
  });

  it('is valid for 7 days and 403 after (injected clock)', async () => {
    const path = local(urls[0]!);
    t.clock.advance(TICKET_LINK_TTL_SECONDS * 1000 - 1000);
    try {
      expect((await t.app.inject({ url: path })).statusCode).toBe(200);
      t.clock.advance(1000);
      await expectForbidden(path);
    } finally {
      t.clock.advance(-TICKET_LINK_TTL_SECONDS * 1000);
    }
    expect((await t.app.inject({ url: path })).statusCode).toBe(200);
  });

  it('a link signed with another secret is refused', () => {
    const now = new Date();
    const url = new URL(signedTicketUrl({ ...t.config, signingSecret: 'another-secret-of-at-least-32-characters' }, 'ABCDEFGHIJKLMNOPQRSTUVWX', now));
    expect(verifyTicketLink(t.config, 'ABCDEFGHIJKLMNOPQRSTUVWX', url.searchParams.get('expires'), url.searchParams.get('signature'), now)).toBe(false);
    const ours = new URL(signedTicketUrl(t.config, 'ABCDEFGHIJKLMNOPQRSTUVWX', now));
    expect(verifyTicketLink(t.config, 'ABCDEFGHIJKLMNOPQRSTUVWX', ours.searchParams.get('expires'), ours.searchParams.get('signature'), now)).toBe(true);
  });

  it('a genuine link to an unknown ticket is 404', async () => {
    const url = signedTicketUrl(t.config, 'ZZZZZZZZZZZZZZZZZZZZZZZZ', t.clock.now());
    const res = await t.app.inject({ url: local(url) });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ status: 404, success: false, code: 'not_found', message: 'Ticket not found' });
  });
});
