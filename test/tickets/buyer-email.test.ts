import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { loadConfig } from '../../src/config.js';
import { queryRows } from '../../src/db/client.js';
import { processEmailQueue } from '../../src/modules/tickets/email-queue.service.js';
import { headerProblem, headersOf, senderDomainProblem, SmtpPeer } from '../smtp-peer.js';
import { DEMO, tokenFor, type TestApp } from '../helpers.js';
import { confirmedOrder } from '../checkout/fixtures.js';
import { appWithStrictMailServer, type AppWithMailServer } from './mail-fixtures.js';

// Issue 31 items 4 and 5: buyer e-mails a strict mail server takes (Reply-To, whole HTML document
// with lang, random Message-IDs, quoted display names), the order links (all tickets in one PDF,
// .ics) and "find my order".

let mail: AppWithMailServer;
let t: TestApp;
let peer: SmtpPeer;
let token: string;
beforeAll(async () => {
  ({ t, peer } = mail = await appWithStrictMailServer('Teatro, Real <tickets@taquilla.test>'));
  token = await tokenFor(t.app, DEMO.b.slug, DEMO.b.key);
  await t.ctx.db.execute(sql`UPDATE organisers SET reply_to_email = 'taquilla@teatro.example'`);
}, 120_000);
afterAll(() => mail?.close());

const confirmed = (email: string, seats = 1) => confirmedOrder(t, { channel: DEMO.b.slug, token, email, seats });

const mailsTo = (email: string) => peer.received.filter((m) => m.to.includes(email));

describe('the strict SMTP peer', () => {
  it('refuses a bare IP sender domain and an unquoted comma in a display name, as Postfix does', () => {
    expect(senderDomainProblem('tickets@127.0.0.1')).toMatch(/bare IP/);
    expect(senderDomainProblem('tickets@localhost')).toMatch(/fully-qualified/);
    expect(senderDomainProblem('tickets@[127.0.0.1]')).toBeNull();
    expect(senderDomainProblem('tickets@taquilla.test')).toBeNull();
    const head = (from: string) => `From: ${from}\r\nDate: Wed, 25 Nov 2026 10:00:00 +0000\r\nMessage-ID: <a1@x.test>\r\nTo: a@b.test\r\n\r\nbody`;
    expect(headerProblem(head('Teatro, Real <t@x.test>'))).toMatch(/one mailbox/);
    expect(headerProblem(head('"Teatro, Real" <t@x.test>'))).toBeNull();
    expect(headerProblem(head('t@127.0.0.1'))).toBeNull();
    expect(headerProblem(head('Teatro <t@x.test>').replace('<a1@x.test>', 'tickets-1'))).toMatch(/Message-ID/);
  });
});

describe('sender', () => {
  it('an IP host is written as an address literal, in production too; a comma in the name is quoted', () => {
    expect(loadConfig({ APP_ENV: 'test', PUBLIC_BASE_URL: 'http://127.0.0.1:3000' }).mailFrom).toBe('Taquilla <tickets@[127.0.0.1]>');
    expect(loadConfig({ APP_ENV: 'test', PUBLIC_BASE_URL: 'http://[::1]:3000' }).mailFrom).toBe('Taquilla <tickets@[IPv6:::1]>');
    expect(loadConfig({ APP_ENV: 'test', MAIL_FROM: 'Teatro, Real <t@x.example>' }).mailFrom).toBe('"Teatro, Real" <t@x.example>');
    expect(loadConfig({ APP_ENV: 'test', MAIL_FROM: '"Teatro, Real" <t@x.example>' }).mailFrom).toBe('"Teatro, Real" <t@x.example>');
    expect(loadConfig({ APP_ENV: 'production', PUBLIC_BASE_URL: 'https://10.0.0.5', SIGNING_SECRET: 's'.repeat(40), DATABASE_URL: 'postgresql://u@db/t', STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_WEBHOOK_SECRET: 'whsec_x' }).mailFrom).toBe(
      'Taquilla <tickets@[10.0.0.5]>',
    );
  });
});

describe('the ticket e-mail through a strict relay', () => {
  it('is accepted: quoted sender name, Reply-To of the box office, a whole HTML document with lang, a random Message-ID', async () => {
    await confirmed('strict-one@example.com', 2);
    await confirmed('strict-two@example.com');
    const result = await processEmailQueue(t.ctx);
    expect(peer.refused).toEqual([]);
    expect(result.sent).toBeGreaterThanOrEqual(2);
    const [one] = mailsTo('strict-one@example.com');
    const [two] = mailsTo('strict-two@example.com');
    const h1 = headersOf(one!.raw);
    expect(h1.get('from')).toBe('"Teatro, Real" <tickets@taquilla.test>');
    expect(h1.get('reply-to')).toBe('taquilla@teatro.example');
    // The HTML part, quoted-printable decoded.
    const html = one!.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    expect(html).toMatch(/<!DOCTYPE html><html lang="es">/);
    expect(html).toMatch(/<meta charset="utf-8"/);
    // Random, not a row number: two messages share nothing but the domain.
    const id1 = h1.get('message-id')!;
    const id2 = headersOf(two!.raw).get('message-id')!;
    expect(id1).toMatch(/^<[0-9a-f-]{36}@taquilla\.test>$/);
    expect(id1).not.toBe(id2);
    // The order links: all tickets in one PDF and the calendar.
    expect(html).toMatch(/api\/tickets\/orders\/[A-Za-z0-9_-]+\.pdf\?expires=/);
    expect(html).toMatch(/api\/tickets\/orders\/[A-Za-z0-9_-]+\.ics\?expires=/);
  });
});

describe('order links', () => {
  it('the .ics is a VTIMEZONE-free iCalendar in UTC; the PDF has one page per ticket; a tampered link is 403', async () => {
    const o = await confirmed('links@example.com', 3);
    const page = await t.app.inject({ url: `/${DEMO.b.slug}/es/orders/${o.token}` });
    const ics = /href="([^"]+\.ics\?[^"]+)"/.exec(page.body)?.[1]?.replace(/&amp;/g, '&');
    const pdf = /href="([^"]+\/orders\/[^"]+\.pdf\?[^"]+)"/.exec(page.body)?.[1]?.replace(/&amp;/g, '&');
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(ics && pdf).toBeTruthy();
    const cal = await t.app.inject({ url: new URL(ics!).pathname + new URL(ics!).search });
    expect(cal.statusCode).toBe(200);
    expect(cal.headers['content-type']).toMatch(/^text\/calendar; charset=utf-8/);
    const lines = cal.body.split('\r\n');
    expect(lines[0]).toBe('BEGIN:VCALENDAR');
    expect(lines).toContain('VERSION:2.0');
    expect(cal.body).not.toContain('VTIMEZONE');
    expect(cal.body).toMatch(/\r\nDTSTART:\d{8}T\d{6}Z\r\n/);
    expect(cal.body).toMatch(/\r\nDTEND:\d{8}T\d{6}Z\r\n/);
    expect(cal.body).toMatch(/\r\nUID:.+\r\n/);
    expect(cal.body.trimEnd().endsWith('END:VCALENDAR')).toBe(true);
    for (const line of lines) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
    const [{ start }] = await queryRows<{ start: Date }>(t.ctx.db, sql`SELECT s.start_datetime AS start FROM sessions s JOIN order_items i ON i.session_id = s.id WHERE i.order_id = ${o.id} LIMIT 1`) as [{ start: Date }];
    expect(cal.body).toContain(`DTSTART:${new Date(start).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '')}`);
    const all = await t.app.inject({ url: new URL(pdf!).pathname + new URL(pdf!).search });
    expect(all.statusCode).toBe(200);
    expect(all.headers['content-type']).toBe('application/pdf');
    expect(all.rawPayload.toString('latin1').match(/\/Type \/Page\b/g)).toHaveLength(3);
    const tampered = await t.app.inject({ url: new URL(pdf!).pathname + new URL(pdf!).search.replace(/signature=./, 'signature=X') });
    expect(tampered.statusCode).toBe(403);
  });
});

describe('find my order', () => {
  const lookup = (email: string, ip = '10.1.1.1') =>
    t.app.inject({ method: 'POST', url: `/api/portal/${DEMO.b.slug}/es/orders/lookup`, payload: { email }, remoteAddress: ip });

  it('answers the same whether or not the address has orders, and e-mails the links once', async () => {
    const o = await confirmed('lookup@example.com');
    await processEmailQueue(t.ctx);
    const before = peer.received.length;
    const yes = await lookup('Lookup@Example.com', '10.2.0.1');
    const no = await lookup('nobody-here@example.com', '10.2.0.2');
    expect(yes.statusCode).toBe(200);
    expect(no.statusCode).toBe(200);
    expect(yes.json().message).toBe(no.json().message);
    expect(Object.keys(yes.json().data)).toEqual(Object.keys(no.json().data));
    await processEmailQueue(t.ctx);
    const sent = peer.received.slice(before);
    expect(peer.refused).toEqual([]);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.to.map((a) => a.toLowerCase())).toEqual(['lookup@example.com']);
    expect(sent[0]!.raw).toContain(o.reference);
    expect(sent[0]!.raw.replace(/=\r?\n/g, '')).toContain(`/orders/${o.token}`);
    expect(headersOf(sent[0]!.raw).get('reply-to')).toBe('taquilla@teatro.example');
    // Nothing more goes out on another run.
    await processEmailQueue(t.ctx);
    expect(peer.received.length).toBe(before + 1);
  });

  it('is rate limited per e-mail address (from any client address) and per client address', async () => {
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push((await lookup('limited@example.com', `10.3.0.${i + 1}`)).statusCode);
    expect(codes).toEqual([200, 200, 200, 429]);
    const byAddress = [];
    for (let i = 0; i < 21; i++) byAddress.push((await lookup(`someone${i}@example.com`, '10.4.0.1')).statusCode);
    expect(byAddress.slice(0, 20).every((c) => c === 200)).toBe(true);
    expect(byAddress[20]).toBe(429);
    expect((await lookup('not-an-address', '10.5.0.1')).statusCode).toBe(422);
    expect((await t.app.inject({ method: 'POST', url: '/api/portal/no-such-channel/es/orders/lookup', payload: { email: 'a@b.example' }, remoteAddress: '10.6.0.1' })).json()).toMatchObject({ status: 404, code: 'not_found' });
  });
});
