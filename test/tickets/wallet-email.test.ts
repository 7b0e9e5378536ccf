import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processEmailQueue } from '../../src/modules/tickets/email-queue.service.js';
import { composeTicketEmail } from '../../src/modules/tickets/tickets.email.js';
import { ticketsOfOrder } from '../../src/modules/tickets/tickets.repo.js';
import { SmtpPeer } from '../smtp-peer.js';
import { DEMO, tokenFor, type TestApp } from '../helpers.js';
import { confirmedOrder } from '../checkout/fixtures.js';
import { appWithStrictMailServer, type AppWithMailServer } from './mail-fixtures.js';
import { unzip } from './wallet-fixtures.js';

// D70: the ticket e-mail offers "Add to Apple Wallet" / "Add to Google Wallet" per ticket when the
// deployment offers them (the development signer counts), with the order page's signed links.

let mail: AppWithMailServer;
let t: TestApp;
let peer: SmtpPeer;
let token: string;
beforeAll(async () => {
  ({ t, peer } = mail = await appWithStrictMailServer());
  token = await tokenFor(t.app, DEMO.b.slug, DEMO.b.key);
}, 120_000);
afterAll(() => mail?.close());

const confirmed = (email: string, seats: number) => confirmedOrder(t, { channel: DEMO.b.slug, token, email, seats });

/** A message's body with quoted-printable undone (soft breaks, =XX). */
const decoded = (raw: string) =>
  Buffer.from(raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1').toString('utf8');
const local = (url: string) => {
  const u = new URL(url.replace(/&amp;/g, '&'));
  return `${u.pathname}${u.search}`;
};

describe('wallet links in the ticket e-mail', () => {
  it('each ticket has both links over the real SMTP peer, in the order language, and they work', async () => {
    const o = await confirmed('wallet-mail@example.com', 2);
    await processEmailQueue(t.ctx);
    expect(peer.refused).toEqual([]);
    const mail = peer.received.find((m) => m.to.includes('wallet-mail@example.com'));
    expect(mail).toBeDefined();
    const body = decoded(mail!.raw);
    const tickets = await ticketsOfOrder(t.ctx.db, o.id);
    expect(tickets).toHaveLength(2);
    const apple = [...body.matchAll(/<a href="([^"]+\/api\/tickets\/wallet\/apple\/[^"]+)">([^<]+)<\/a>/g)];
    const google = [...body.matchAll(/<a href="([^"]+\/api\/tickets\/wallet\/google\/[^"]+)">([^<]+)<\/a>/g)];
    expect(apple).toHaveLength(2);
    expect(google).toHaveLength(2);
    // the demo orders are in Spanish
    expect(apple.every((m) => m[2] === 'Añadir a Apple Wallet')).toBe(true);
    expect(google.every((m) => m[2] === 'Añadir a Google Wallet')).toBe(true);
    for (const [i, ticket] of tickets.entries()) {
      expect(apple[i]![1]).toContain(`/api/tickets/wallet/apple/${ticket.code}.pkpass?expires=`);
      expect(google[i]![1]).toContain(`/api/tickets/wallet/google/${ticket.code}?expires=`);
    }
    // the plain-text part carries them too
    expect(body).toMatch(/ {2}Añadir a Apple Wallet: http:\/\/taquilla\.test\/api\/tickets\/wallet\/apple\//);

    // they work: the .pkpass of that ticket, and the redirect to Google's save page
    const pass = await t.app.inject({ url: local(apple[0]![1]!) });
    expect(pass.statusCode).toBe(200);
    expect(pass.headers['content-type']).toBe('application/vnd.apple.pkpass');
    const json = JSON.parse(unzip(pass.rawPayload).get('pass.json')!.toString('utf8')) as { serialNumber: string; barcodes: { altText: string }[] };
    expect(json.serialNumber).toBe(`ticket-${tickets[0]!.id}`);
    expect(json.barcodes[0]!.altText).toBe(tickets[0]!.code);
    const save = await t.app.inject({ url: local(google[1]![1]!) });
    expect(save.statusCode).toBe(302);
    expect(save.headers.location).toMatch(/^https:\/\/pay\.google\.com\/gp\/v\/save\//);
  });

  it('a deployment that offers no wallet sends no wallet link', async () => {
    const o = await confirmed('no-wallet@example.com', 1);
    const tickets = await ticketsOfOrder(t.ctx.db, o.id);
    const config = { ...t.ctx.config, wallet: { ...t.ctx.config.wallet, apple: null, google: null } };
    const mail = await composeTicketEmail(config, { id: 1, recipient: 'no-wallet@example.com', resends: 0 }, tickets.map((x) => ({ ...x, qr: x.code })), t.clock.now());
    expect(`${mail.text}${mail.html}`).not.toMatch(/Wallet|\/wallet\//);
    const onlyApple = { ...t.ctx.config, wallet: { ...t.ctx.config.wallet, google: null } };
    const one = await composeTicketEmail(onlyApple, { id: 1, recipient: 'no-wallet@example.com', resends: 0 }, tickets.map((x) => ({ ...x, qr: x.code })), t.clock.now());
    expect(one.text).toContain('Apple Wallet');
    expect(one.text).not.toContain('Google Wallet');
  });
});
