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
  orderToken: 'tok_abc',
  channelSlug: 'demo-a',
  integrationMode: 'portal_only',
  brandName: null,
  brandColour: null,
  orderTotal: 6000,
  lang: 'es',
  currency: 'EUR',
  buyerName: 'Ana García',
  buyerEmail: 'ana@example.com',
  eventName: 'Concierto',
  sessionStart: new Date('2026-12-31T19:30:00Z'),
  sessionEnd: null,
  venueName: 'Teatro Demo',
  venueAddress: 'Calle Mayor 1',
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
    const mail = await composeTicketEmail(config, { id: 7, recipient: 'ana@example.com', resends: 0 }, [ticket({ buyerName: '<b>Ana</b> & "Co"', eventName: '<script>x</script>', sectorName: 'Platea <i>' })], now);
    expect(mail.html).not.toMatch(/<(b|script|i)>/);
    expect(mail.html).toContain('<p>Hola &lt;b>Ana&lt;/b> &amp; &quot;Co&quot;,</p>');
    expect(mail.html).toContain('&lt;script>x&lt;/script>, jueves, 31 de diciembre de 2026, 20:30, en Teatro Demo.');
    expect(mail.html).toMatch(/<li><a href="http:\/\/taquilla\.test\/api\/tickets\/ABCDEFGHJKLMNPQRSTUVWXYZ\.pdf\?expires=\d+&amp;signature=[\w-]+">Platea &lt;i>, fila A, butaca 1<\/a>( · <a href="[^"]+">[^<]+<\/a>)*<\/li>/);
    // The plain-text part carries the same words unescaped.
    expect(mail.text).toContain('Hola <b>Ana</b> & "Co",');
  });

  it('an en-GB order is written in English; an unknown language in the default (Spanish)', async () => {
    const en = await composeTicketEmail(config, { id: 8, recipient: 'ana@example.com', resends: 0 }, [ticket({ lang: 'en-GB' })], now);
    expect(en.subject).toBe('Your tickets: Concierto (order TQ-TEST0001)');
    expect(en.html).toContain('Your tickets for Concierto, Thursday');
    const fr = await composeTicketEmail(config, { id: 9, recipient: 'ana@example.com', resends: 0 }, [ticket({ lang: 'fr' })], now);
    expect(fr.subject).toBe('Tus entradas: Concierto (pedido TQ-TEST0001)');
  });

  it('carries the total, the order page and links valid until a day after a session a month away', async () => {
    const mail = await composeTicketEmail(config, { id: 10, recipient: 'ana@example.com', resends: 0 }, [ticket({})], now);
    expect(mail.from).toBe(config.mailFrom);
    expect(mail.text).toContain('Total del pedido TQ-TEST0001: 60,00');
    expect(mail.text).toContain('http://taquilla.test/demo-a/es/orders/tok_abc');
    expect(mail.html).toContain('<a href="http://taquilla.test/demo-a/es/orders/tok_abc">');
    const expires = [...mail.text.matchAll(/expires=(\d+)/g)].map((m) => Number(m[1]));
    // the ticket's link, its two wallet links (D70), all tickets in one PDF and the calendar (D72), signed alike
    expect(expires).toHaveLength(5);
    expect(new Set(expires).size).toBe(1);
    // the session is 30 days away: not now + 7 days, but a day after the session
    expect(expires[0]).toBe(Date.parse('2027-01-01T19:30:00Z') / 1000);
    expect(mail.text).not.toContain('7 días');
    expect(mail.text).toContain('hasta el');
    // The outbox row's random key (new at each resend by the box office: a new message for the mail client).
    expect((await composeTicketEmail(config, { id: 10, recipient: 'ana@example.com', resends: 0, messageKey: 'k-1' }, [ticket({})], now)).messageId).toBe('<k-1@taquilla.test>');
    expect(mail.messageId).toMatch(/^<[0-9a-f-]{36}@taquilla\.test>$/);
  });

  it('a session tomorrow keeps the 7 days; model D (no order page) has no order link', async () => {
    const mail = await composeTicketEmail(config, { id: 11, recipient: 'ana@example.com', resends: 0 }, [ticket({ sessionStart: new Date('2026-12-02T19:00:00Z'), integrationMode: 'widget_external_payment', lang: 'en' })], now);
    expect(Number(/expires=(\d+)/.exec(mail.text)![1])).toBe(now.getTime() / 1000 + 7 * 24 * 3600);
    expect(mail.text).not.toMatch(/\/en\/orders\//);
    expect(mail.text).toContain('Order TQ-TEST0001 total:');
  });

  it('MAIL_FROM is the sender; a malformed one is refused at start-up', () => {
    expect(loadConfig({ APP_ENV: 'test', MAIL_FROM: 'Teatro Real <entradas@teatro.example>' }).mailFrom).toBe('Teatro Real <entradas@teatro.example>');
    expect(loadConfig({ APP_ENV: 'test', MAIL_FROM: 'entradas@teatro.example' }).mailFrom).toBe('entradas@teatro.example');
    for (const bad of ['Teatro Real', 'Teatro <nope>', 'a@b.example\r\nBcc: x@y.example']) expect(() => loadConfig({ APP_ENV: 'test', MAIL_FROM: bad }), bad).toThrow(/MAIL_FROM/);
  });
});
