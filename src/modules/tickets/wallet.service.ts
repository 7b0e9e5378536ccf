import zlib from 'node:zlib';
import { importPKCS8, SignJWT } from 'jose';
import { PKPass } from 'passkit-generator';
import type { AppContext } from '../../app-context.js';
import type { Config } from '../../config.js';
import { AppError } from '../../http/errors.js';
import { hmac } from '../../lib/secrets.js';
import { isoWithOffset } from '../../lib/time.js';
import type { AppleWalletConfig, GoogleWalletConfig } from '../../platform/wallet.config.js';
import { spokenLanguage } from '../../platform/i18n.js';
import { rememberObject } from './google-wallet.repo.js';
import { qrSecretOf } from './ticket-keys.service.js';
import { developmentAppleSigner, developmentGoogleSigner } from './wallet-development-signer.js';
import { verifyWalletLink, type WalletProvider } from './tickets.links.js';
import { formatSessionDate } from './tickets.pdf.js';
import * as repo from './tickets.repo.js';
import type { TicketDocument } from './tickets.repo.js';

// Wallet passes (D70, docs/wallet.md). The barcode carries the same signed secret as the PDF's QR
// code (D53, qrSecretOf), so scanners need no change. Outside production, a provider left
// unconfigured gets a development signer (wallet-development-signer.ts): key pairs (and for Apple a
// self-signed certificate) generated at the first start and kept in the database; its passes say
// "development pass".

const DEVELOPMENT_LABEL = 'Development pass';

/** The Apple signing material: the deployment's, or the development signer's. */
export async function appleSigner(ctx: AppContext): Promise<AppleWalletConfig | null> {
  const apple = ctx.config.wallet.apple;
  return apple === 'development' ? developmentAppleSigner(ctx) : apple;
}

/** The Google service account: the deployment's, or the development signer's. */
export async function googleSigner(ctx: AppContext): Promise<GoogleWalletConfig | null> {
  const google = ctx.config.wallet.google;
  return google === 'development' ? developmentGoogleSigner(ctx) : google;
}

const walletOffered = (config: Config, provider: WalletProvider) => config.wallet[provider] !== null;

/** The ticket behind a wallet link: 403 for a bad link, 404 when the provider is off or the ticket unknown. */
async function ticketOfLink(ctx: AppContext, provider: WalletProvider, link: { code: string; expires: unknown; signature: unknown }) {
  if (!walletOffered(ctx.config, provider)) {
    throw new AppError('wallet_not_configured', provider === 'apple' ? 'Apple Wallet passes are not offered by this deployment' : 'Google Wallet passes are not offered by this deployment');
  }
  if (!verifyWalletLink(ctx.config, provider, link.code, link.expires, link.signature, ctx.clock.now())) {
    throw new AppError('invalid_signature', 'The ticket link is invalid or has expired');
  }
  const ticket = await repo.ticketByCode(ctx.db, link.code);
  if (!ticket) throw new AppError('not_found', 'Ticket not found');
  return ticket;
}

const seatText = (t: TicketDocument, es: boolean) => {
  if (!t.numbered || !t.seatNumber) return es ? 'Entrada general' : 'General admission';
  return t.row ? `${es ? 'Fila' : 'Row'} ${t.row} · ${es ? 'Asiento' : 'Seat'} ${t.seatNumber}` : `${es ? 'Asiento' : 'Seat'} ${t.seatNumber}`;
};

const holderOf = (t: TicketDocument) => t.buyerName || null;

// ---- Apple: a signed .pkpass

/** A PNG of one colour (Wallet needs icon.png), made with zlib: no image library needed. */
function solidPng(size: number, rgb: [number, number, number]): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: size }, () => rgb).flat())]);
  const raw = Buffer.concat(Array.from({ length: size }, () => row));
  return Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

const hexColour = (hex: string | null): [number, number, number] => {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex ?? '');
  return m ? [parseInt(m[1]!, 16), parseInt(m[2]!, 16), parseInt(m[3]!, 16)] : [17, 24, 39];
};

/** Where devices reach the Apple pass web service (apple-pass-service.ts): Wallet appends `/v1/...`. */
const applePassWebServiceUrl = (config: Config) => `${config.publicBaseUrl}/api/wallet/apple`;

/** The serial number of a ticket's pass: the ticket id, which a reissue keeps (so the saved pass is updated). */
const passSerialOf = (ticketId: number) => `ticket-${ticketId}`;

/**
 * The pass's `authenticationToken`: an HMAC of its serial number under SIGNING_SECRET, so nothing
 * is stored and only this deployment can make it; the web service recomputes and compares it.
 */
export const passAuthenticationToken = (config: Config, serial: string) => hmac(config.signingSecret, `apple-pass-web-service\n${serial}`);

/** pass.json of a ticket (eventTicket); `voided` for a refunded ticket. */
function passJson(config: Config, signer: AppleWalletConfig, t: TicketDocument, secret: string) {
  const es = spokenLanguage(t.lang) === 'es';
  const dev = signer.mode === 'development';
  const [r, g, b] = hexColour(t.brandColour);
  const seat = seatText(t, es);
  const holder = holderOf(t);
  return {
    formatVersion: 1,
    passTypeIdentifier: signer.passTypeId,
    teamIdentifier: signer.teamId,
    serialNumber: passSerialOf(t.id),
    webServiceURL: applePassWebServiceUrl(config),
    authenticationToken: passAuthenticationToken(config, passSerialOf(t.id)),
    organizationName: t.brandName ?? 'Taquilla',
    description: dev ? `${DEVELOPMENT_LABEL}: ${t.eventName}` : t.eventName,
    logoText: dev ? DEVELOPMENT_LABEL : (t.brandName ?? undefined),
    backgroundColor: `rgb(${r}, ${g}, ${b})`,
    foregroundColor: 'rgb(255, 255, 255)',
    labelColor: 'rgb(220, 220, 220)',
    relevantDate: isoWithOffset(t.sessionStart)!,
    voided: t.status === 'void',
    barcodes: [{ format: 'PKBarcodeFormatQR', message: secret, messageEncoding: 'iso-8859-1', altText: t.code }],
    eventTicket: {
      primaryFields: [{ key: 'event', label: es ? 'Evento' : 'Event', value: t.eventName }],
      secondaryFields: [
        { key: 'when', label: es ? 'Fecha' : 'Date', value: formatSessionDate(t.sessionStart, t.lang, config.timezone) },
        { key: 'venue', label: es ? 'Lugar' : 'Venue', value: t.venueName },
      ],
      auxiliaryFields: [
        { key: 'sector', label: es ? 'Zona' : 'Sector', value: t.sectorName },
        { key: 'seat', label: es ? 'Localidad' : 'Seat', value: seat },
        ...(holder ? [{ key: 'holder', label: es ? 'Titular' : 'Holder', value: holder }] : []),
      ],
      backFields: [
        { key: 'order', label: es ? 'Pedido' : 'Order', value: t.orderReference },
        { key: 'rate', label: es ? 'Tarifa' : 'Rate', value: t.rateName },
        ...(t.venueAddress ? [{ key: 'address', label: es ? 'Dirección' : 'Address', value: [t.venueAddress, t.venueCity].filter(Boolean).join(', ') }] : []),
        ...(t.status === 'void' ? [{ key: 'void', label: es ? 'Estado' : 'Status', value: es ? 'Entrada devuelta: ya no es válida' : 'Refunded ticket: no longer valid' }] : []),
        ...(dev ? [{ key: 'development', label: DEVELOPMENT_LABEL, value: es ? 'Firmado por el firmante de desarrollo: no vale para Wallet real.' : 'Signed by the development signer: real Wallet apps refuse it.' }] : []),
      ],
    },
  };
}

/** The signed .pkpass of the ticket behind a wallet link (a refunded ticket's pass is `voided`). */
export async function applePassFromLink(ctx: AppContext, link: { code: string; expires: unknown; signature: unknown }): Promise<Buffer> {
  return applePassOf(ctx, await ticketOfLink(ctx, 'apple', link));
}

/** The signed .pkpass of a ticket as it is now (the web service's "latest pass"); Apple must be offered. */
export async function applePassOf(ctx: AppContext, ticket: TicketDocument): Promise<Buffer> {
  const signer = (await appleSigner(ctx))!;
  const secret = await qrSecretOf(ctx, ticket);
  const json = passJson(ctx.config, signer, ticket, secret);
  const icon = solidPng(29, hexColour(ticket.brandColour));
  const pass = new PKPass(
    { 'pass.json': Buffer.from(JSON.stringify(json)), 'icon.png': icon, 'icon@2x.png': solidPng(58, hexColour(ticket.brandColour)) },
    { wwdr: signer.wwdr, signerCert: signer.cert, signerKey: signer.key, signerKeyPassphrase: signer.keyPassphrase },
  );
  return pass.getAsBuffer();
}

// ---- Google: a save link carrying a signed JWT

const googleObjectId = (signer: GoogleWalletConfig, ticketId: number) => `${signer.issuerId}.ticket-${ticketId}`;
/** A session's EventTicketClass: its event, venue and time, shared by the session's tickets. */
export const googleClassId = (signer: GoogleWalletConfig, sessionId: number) => `${signer.issuerId}.session-${sessionId}`;

/** The save-to-wallet JWT's claims: an EventTicketClass (the session) and EventTicketObject (the ticket). */
function googleClaims(config: Config, signer: GoogleWalletConfig, t: TicketDocument, secret: string) {
  const es = spokenLanguage(t.lang) === 'es';
  const language = es ? 'es' : 'en';
  const text = (value: string) => ({ defaultValue: { language, value } });
  const dev = signer.mode === 'development';
  const classId = googleClassId(signer, t.sessionId);
  const holder = holderOf(t);
  return {
    iss: signer.clientEmail,
    aud: 'google',
    typ: 'savetowallet',
    origins: [new URL(config.publicBaseUrl).origin],
    payload: {
      eventTicketClasses: [
        {
          id: classId,
          issuerName: dev ? `${t.brandName ?? 'Taquilla'} (${DEVELOPMENT_LABEL})` : (t.brandName ?? 'Taquilla'),
          reviewStatus: 'UNDER_REVIEW',
          eventName: text(dev ? `${DEVELOPMENT_LABEL}: ${t.eventName}` : t.eventName),
          venue: { name: text(t.venueName), address: text([t.venueAddress, t.venueCity].filter(Boolean).join(', ') || t.venueName) },
          dateTime: { start: isoWithOffset(t.sessionStart)!, ...(t.sessionEnd ? { end: isoWithOffset(t.sessionEnd)! } : {}) },
        },
      ],
      eventTicketObjects: [
        {
          id: googleObjectId(signer, t.id),
          classId,
          state: t.status === 'void' ? 'INACTIVE' : 'ACTIVE',
          barcode: { type: 'QR_CODE', value: secret, alternateText: t.code },
          ticketNumber: t.code,
          ...(holder ? { ticketHolderName: holder } : {}),
          seatInfo: {
            section: text(t.sectorName),
            ...(t.row ? { row: text(t.row) } : {}),
            ...(t.numbered && t.seatNumber ? { seat: text(t.seatNumber) } : {}),
          },
          ticketType: text(t.rateName),
        },
      ],
    },
  };
}

/** `https://pay.google.com/gp/v/save/<jwt>` for the ticket behind a wallet link (INACTIVE when refunded). */
export async function googleSaveUrlFromLink(ctx: AppContext, link: { code: string; expires: unknown; signature: unknown }): Promise<string> {
  const ticket = await ticketOfLink(ctx, 'google', link);
  const signer = (await googleSigner(ctx))!;
  // A configured issuer's object is kept in step with the ticket from now on (google-wallet-sync.ts).
  if (signer.mode === 'configured') await rememberObject(ctx.db, ticket.id, googleObjectId(signer, ticket.id), ctx.clock.now());
  const secret = await qrSecretOf(ctx, ticket);
  const key = await importPKCS8(signer.privateKey, 'RS256');
  const jwt = await new SignJWT(googleClaims(ctx.config, signer, ticket, secret))
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
    .setIssuedAt(Math.floor(ctx.clock.now().getTime() / 1000))
    .sign(key);
  return `https://pay.google.com/gp/v/save/${jwt}`;
}
