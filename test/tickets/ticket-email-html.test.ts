import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { composeTicketEmail } from '../../src/modules/tickets/tickets.email.js';
import type { TicketDocument } from '../../src/modules/tickets/tickets.repo.js';

// The ticket e-mail's HTML part is rendered by preact-render-to-string: buyer and catalogue text is
// escaped by construction; the language of the order picks the words (platform/i18n).

const config = loadConfig({ APP_ENV: 'test', PUBLIC_BASE_URL: 'http://taquilla.test', TIMEZONE: 'Europe/Madrid' });
const now = new Date('2026-12-01T10:00:00Z');

const ticket = (over: Partial<TicketDocument>): TicketDocument & { qr: string } => ({
  id: 1,
  code: 'ABCDEFGHJKLMNPQRSTUVWXYZ',
  sessionId: 1,
  issueVersion: 1,
  secretFormat: 1,
  signingKid: null,
  qr: 'ABCDEFGHJKLMNPQRSTUVWXYZ',
  status: 'valid',
  orderId: 1,
  orderReference: 'TQ-TEST0001',
  lang: 'es',
  currency: 'EUR',
  buyerName: 'Ana García',
  buyerEmail: 'ana@example.com',
  eventName: 'Concierto',
  sessionStart: new Date('2026-12-31T19:30:00Z'),
  venueName: 'Teatro Demo',
  venueCity: 'Madrid',
  sectorName: 'Platea',
  numbered: true,
  row: 'A',
  seatNumber: '1',
  sessionSeatId: 1,
  rateName: 'General',
  totalAmount: 3000,
  ...over,
});

describe('ticket e-mail HTML', () => {
  it('escapes the buyer name, the event and the sector; the link stays one attribute', async () => {
    const mail = await composeTicketEmail(config, 7, 'ana@example.com', [ticket({ buyerName: '<b>Ana</b> & "Co"', eventName: '<script>x</script>', sectorName: 'Platea <i>' })], now);
    expect(mail.html).not.toMatch(/<(b|script|i)>/);
    expect(mail.html).toContain('<p>Hola &lt;b>Ana&lt;/b> &amp; &quot;Co&quot;,</p>');
    expect(mail.html).toContain('&lt;script>x&lt;/script>, jueves, 31 de diciembre de 2026, 20:30, en Teatro Demo.');
    expect(mail.html).toMatch(/<li><a href="http:\/\/taquilla\.test\/api\/tickets\/ABCDEFGHJKLMNPQRSTUVWXYZ\.pdf\?expires=\d+&amp;signature=[\w-]+">Platea &lt;i>, fila A, butaca 1<\/a><\/li>/);
    // The plain-text part carries the same words unescaped.
    expect(mail.text).toContain('Hola <b>Ana</b> & "Co",');
  });

  it('an en-GB order is written in English; an unknown language in the default (Spanish)', async () => {
    const en = await composeTicketEmail(config, 8, 'ana@example.com', [ticket({ lang: 'en-GB' })], now);
    expect(en.subject).toBe('Your tickets: Concierto (order TQ-TEST0001)');
    expect(en.html).toContain('Your tickets for Concierto, Thursday');
    const fr = await composeTicketEmail(config, 9, 'ana@example.com', [ticket({ lang: 'fr' })], now);
    expect(fr.subject).toBe('Tus entradas: Concierto (pedido TQ-TEST0001)');
  });
});
