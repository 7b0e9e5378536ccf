import crypto from 'node:crypto';
import { importSPKI, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { refundOrderAs } from '../../src/modules/checkout/order-actions.service.js';
import { verifiedClaims } from '../../src/modules/tickets/ticket-keys.service.js';
import { signedWalletUrl, TICKET_LINK_TTL_SECONDS } from '../../src/modules/tickets/tickets.links.js';
import { orderTicketLinks } from '../../src/modules/tickets/tickets.service.js';
import { googleSigner } from '../../src/modules/tickets/wallet.service.js';
import { CLI_ACTOR } from '../../src/platform/actor.js';
import { buildTestApp, DEMO, type TestApp } from '../helpers.js';
import { paidByCard, unzip } from './wallet-fixtures.js';

// Wallet passes (D70) with the development signer: the .pkpass, the Google save link, refunds,
// forged links, and production without configuration.

let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp({ env: { PORTAL_RATE_LIMIT_PER_MINUTE: '1000' } });
}, 120_000);
afterAll(() => t?.close());

const local = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

async function walletUrls(orderId: number) {
  return orderTicketLinks(t.ctx, orderId);
}

async function applePass(url: string) {
  const res = await t.app.inject({ url: local(url) });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toBe('application/vnd.apple.pkpass');
  const files = unzip(res.rawPayload);
  return { files, pass: JSON.parse(files.get('pass.json')!.toString('utf8')) };
}

async function googleJwt(url: string) {
  const res = await t.app.inject({ url: local(url) });
  expect(res.statusCode).toBe(302);
  const location = res.headers.location as string;
  expect(location).toMatch(/^https:\/\/pay\.google\.com\/gp\/v\/save\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  const jwt = location.slice('https://pay.google.com/gp/v/save/'.length);
  const signer = (await googleSigner(t.ctx))!;
  const publicPem = crypto.createPublicKey(signer.privateKey).export({ type: 'spki', format: 'pem' }) as string;
  const { payload, protectedHeader } = await jwtVerify(jwt, await importSPKI(publicPem, 'RS256'), { audience: 'google', issuer: signer.clientEmail });
  expect(protectedHeader.alg).toBe('RS256');
  return payload as { typ: string; payload: { eventTicketObjects: { state: string; barcode: { type: string; value: string }; id: string }[]; eventTicketClasses: { eventName: { defaultValue: { value: string } } }[] } };
}

describe('Apple Wallet pass (development signer)', () => {
  it('is a zip with pass.json, a correct manifest and a signature; its QR carries the secret the scanner accepts', async () => {
    const o = await paidByCard(t, 1);
    const [ticket] = await walletUrls(o.id);
    expect(ticket!.appleWalletUrl).toContain(`/api/tickets/wallet/apple/${o.tickets[0]!.code}.pkpass?expires=`);
    const { files, pass } = await applePass(ticket!.appleWalletUrl!);
    for (const name of ['pass.json', 'manifest.json', 'signature', 'icon.png']) expect(files.has(name)).toBe(true);
    const manifest = JSON.parse(files.get('manifest.json')!.toString('utf8')) as Record<string, string>;
    const listed = [...files.keys()].filter((n) => n !== 'manifest.json' && n !== 'signature').sort();
    expect(Object.keys(manifest).sort()).toEqual(listed);
    for (const [name, sha1] of Object.entries(manifest)) expect(crypto.createHash('sha1').update(files.get(name)!).digest('hex')).toBe(sha1);
    // the signature is a DER PKCS#7 SignedData (OID 1.2.840.113549.1.7.2)
    const signature = files.get('signature')!;
    expect(signature[0]).toBe(0x30);
    expect(signature.includes(Buffer.from('06092a864886f70d010702', 'hex'))).toBe(true);

    expect(pass).toMatchObject({ formatVersion: 1, voided: false, serialNumber: `ticket-${o.tickets[0]!.id}` });
    expect(pass.eventTicket.primaryFields[0].value).toBe('Concierto de Año Nuevo');
    expect(JSON.stringify(pass)).toContain('Development pass');
    expect(JSON.stringify(pass.eventTicket)).toContain('Teatro Demo');
    expect(JSON.stringify(pass.eventTicket)).toContain('Bo Lee');
    const barcode = pass.barcodes[0];
    expect(barcode.format).toBe('PKBarcodeFormatQR');
    const claims = await verifiedClaims(t.ctx, barcode.message);
    expect(claims).toMatchObject({ ticketId: o.tickets[0]!.id });
    // the session time in TIMEZONE (Europe/Madrid): 19:00 UTC is 20:00 or 21:00
    expect(pass.eventTicket.secondaryFields[0].value).toMatch(/(20|21):00|(8|9):00/);
  });

  it('a refunded ticket: its pass is served voided, and the order page offers no wallet link for it', async () => {
    const o = await paidByCard(t, 2);
    const before = await walletUrls(o.id);
    await refundOrderAs(t.ctx, CLI_ACTOR, o.reference, 'wallet test', { ticketIds: [o.tickets[0]!.id] });
    const { pass } = await applePass(before[0]!.appleWalletUrl!);
    expect(pass.voided).toBe(true);
    expect((await applePass(before[1]!.appleWalletUrl!)).pass.voided).toBe(false);
    const after = await walletUrls(o.id);
    expect(after[0]).toMatchObject({ appleWalletUrl: null, googleWalletUrl: null });
    expect(after[1]!.appleWalletUrl).not.toBeNull();
  });
});

describe('Google Wallet save link (development signer)', () => {
  it('redirects to pay.google.com with a JWT the service account key verifies, carrying the same barcode, ACTIVE then INACTIVE after a refund', async () => {
    const o = await paidByCard(t, 1);
    const [ticket] = await walletUrls(o.id);
    expect(ticket!.googleWalletUrl).toContain(`/api/tickets/wallet/google/${o.tickets[0]!.code}?expires=`);
    const claims = await googleJwt(ticket!.googleWalletUrl!);
    expect(claims.typ).toBe('savetowallet');
    const object = claims.payload.eventTicketObjects[0]!;
    expect(object.state).toBe('ACTIVE');
    expect(object.barcode.type).toBe('QR_CODE');
    expect(await verifiedClaims(t.ctx, object.barcode.value)).toMatchObject({ ticketId: o.tickets[0]!.id });
    const { pass } = await applePass(ticket!.appleWalletUrl!);
    expect(object.barcode.value).toBe(pass.barcodes[0].message);
    expect(claims.payload.eventTicketClasses[0]!.eventName.defaultValue.value).toContain('Concierto de Año Nuevo');

    // an API client asking for JSON gets the save link in the envelope instead of the redirect
    const json = await t.app.inject({ url: local(ticket!.googleWalletUrl!), headers: { accept: 'application/json' } });
    expect(json.statusCode).toBe(200);
    expect(json.json()).toMatchObject({ status: 200, success: true, data: { save_url: expect.stringMatching(/^https:\/\/pay\.google\.com\/gp\/v\/save\//) } });

    await refundOrderAs(t.ctx, CLI_ACTOR, o.reference, 'wallet test');
    expect((await googleJwt(ticket!.googleWalletUrl!)).payload.eventTicketObjects[0]!.state).toBe('INACTIVE');
  });
});

describe('signed links', () => {
  it('a forged, altered or expired link is refused with the D4 envelope', async () => {
    const o = await paidByCard(t, 1);
    const [ticket] = await walletUrls(o.id);
    const code = o.tickets[0]!.code;
    const forged = ticket!.appleWalletUrl!.replace(/signature=[^&]+/, 'signature=AAAA');
    const otherPath = ticket!.appleWalletUrl!.replace('/wallet/apple/', '/wallet/google/').replace('.pkpass', '');
    for (const url of [forged, otherPath, `http://taquilla.test/api/tickets/wallet/apple/${code}.pkpass`, `http://taquilla.test/api/tickets/wallet/google/${code}?expires=99999999999&signature=x`, 'http://taquilla.test/api/tickets/wallet/apple/x.pkpass']) {
      const res = await t.app.inject({ url: local(url) });
      expect(res.statusCode, url).toBe(403);
      expect(res.json()).toEqual({ status: 403, success: false, message: 'The ticket link is invalid or has expired', code: 'invalid_signature' });
    }
    // expired: signed in the past, a week and a bit ago
    const old = new Date(t.clock.now().getTime() - (TICKET_LINK_TTL_SECONDS + 60) * 1000);
    for (const provider of ['apple', 'google'] as const) {
      const res = await t.app.inject({ url: local(signedWalletUrl(t.ctx.config, provider, code, old)) });
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('invalid_signature');
    }
  });

  it('the order page shows both buttons per valid ticket, in the page language', async () => {
    const o = await paidByCard(t, 2);
    const en = await t.app.inject({ url: `/${DEMO.a.slug}/en/orders/${o.token}` });
    expect(en.statusCode).toBe(200);
    expect(en.body.split('Add to Apple Wallet').length - 1).toBe(2);
    expect(en.body.split('Add to Google Wallet').length - 1).toBe(2);
    expect(en.body).toContain(`/api/tickets/wallet/apple/${o.tickets[1]!.code}.pkpass?expires=`);
    const es = await t.app.inject({ url: `/${DEMO.a.slug}/es/orders/${o.token}` });
    expect(es.body).toContain('Añadir a Apple Wallet');
    expect(es.body).toContain('Añadir a Google Wallet');
  });
});

describe('production without wallet configuration', () => {
  const PRODUCTION = { APP_ENV: 'production', SIGNING_SECRET: 's'.repeat(32), STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_WEBHOOK_SECRET: 'whsec_x', PUBLIC_BASE_URL: 'http://taquilla.test' };

  it('offers neither wallet: no links for the order page and the routes answer 404 wallet_not_configured', async () => {
    const config = loadConfig(PRODUCTION);
    expect(config.wallet).toMatchObject({ apple: null, google: null });
    const o = await paidByCard(t, 1);
    const links = await orderTicketLinks({ ...t.ctx, config } as typeof t.ctx, o.id);
    expect(links[0]).toMatchObject({ appleWalletUrl: null, googleWalletUrl: null });
    expect(links[0]!.url).not.toBeNull();

    const prod = await buildTestApp({ env: PRODUCTION, demo: false });
    try {
      for (const provider of ['apple', 'google'] as const) {
        const res = await prod.app.inject({ url: local(signedWalletUrl(prod.ctx.config, provider, o.tickets[0]!.code, prod.clock.now())) });
        expect(res.statusCode).toBe(404);
        expect(res.json()).toMatchObject({ status: 404, success: false, code: 'wallet_not_configured' });
      }
    } finally {
      await prod.close();
    }
  });

  it('a provider half configured stops the start with a clear message', () => {
    expect(() => loadConfig({ ...PRODUCTION, GOOGLE_WALLET_ISSUER_ID: '3388000000012345678' })).toThrow(/GOOGLE_WALLET_SERVICE_ACCOUNT/);
    expect(() => loadConfig({ ...PRODUCTION, APPLE_PASS_TYPE_ID: 'pass.org.example' })).toThrow(/Apple Wallet needs all of .*missing APPLE_PASS_TEAM_ID/);
    expect(() => loadConfig({ ...PRODUCTION, GOOGLE_WALLET_ISSUER_ID: '1', GOOGLE_WALLET_SERVICE_ACCOUNT: '{"client_email":"a@b.c","private_key":"nope"}' })).toThrow(/private_key/);
  });

  it('a complete configuration is read from PEM texts and a JSON key', () => {
    const { privateKey } = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
    const json = JSON.stringify({ type: 'service_account', client_email: 'wallet@project.iam.gserviceaccount.com', private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }) });
    const config = loadConfig({ ...PRODUCTION, GOOGLE_WALLET_ISSUER_ID: '3388000000012345678', GOOGLE_WALLET_SERVICE_ACCOUNT: json });
    expect(config.wallet.google).toMatchObject({ mode: 'configured', issuerId: '3388000000012345678', clientEmail: 'wallet@project.iam.gserviceaccount.com' });
    expect(config.wallet.apple).toBeNull();
  });
});
