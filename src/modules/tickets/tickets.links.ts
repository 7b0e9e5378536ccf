import type { Config } from '../../config.js';
import { hmac, safeEqual } from '../../lib/secrets.js';

/** Ticket PDF links stay valid this long after they were signed (SPEC Limits, D23). */
export const TICKET_LINK_TTL_SECONDS = 7 * 24 * 3600;

const ticketPath = (code: string) => `/api/tickets/${code}.pdf`;

// The expiry is part of the signed text, so neither the path nor the expiry can be changed alone.
const signature = (config: Config, path: string, expires: number) => hmac(config.signingSecret, `${path}\n${expires}`);

/**
 * `${PUBLIC_BASE_URL}<path>?expires=<unix>&signature=<hmac>`, valid 7 days from `now` (the confirm
 * response's URLs, SPEC), or until `validUntil` when that is later (the buyer's e-mail: its links
 * must work at the door of a session a month away, issue 16). Every signed link of this file.
 */
function signedUrl(config: Config, path: string, now: Date, validUntil?: Date): string {
  const expires = Math.max(Math.floor(now.getTime() / 1000) + TICKET_LINK_TTL_SECONDS, validUntil ? Math.floor(validUntil.getTime() / 1000) : 0);
  return `${config.publicBaseUrl}${path}?expires=${expires}&signature=${signature(config, path, expires)}`;
}

/** True when the signature matches the path and expiry and the expiry has not passed. */
function verifyLink(config: Config, path: string, expires: unknown, sig: unknown, now: Date): boolean {
  if (typeof expires !== 'string' || !/^\d{1,12}$/.test(expires) || typeof sig !== 'string' || sig.length > 128) return false;
  const expiresAt = Number(expires);
  // Compare first (constant time), then the clock, so that timing says nothing about the signature.
  const valid = safeEqual(signature(config, path, expiresAt), sig);
  return valid && expiresAt * 1000 > now.getTime();
}

/** `${PUBLIC_BASE_URL}/api/tickets/<code>.pdf?expires=&signature=` (signedUrl). */
export const signedTicketUrl = (config: Config, code: string, now: Date, validUntil?: Date): string => signedUrl(config, ticketPath(code), now, validUntil);

/** True when a ticket link's signature matches and it has not expired. */
export const verifyTicketLink = (config: Config, code: string, expires: unknown, sig: unknown, now: Date): boolean => verifyLink(config, ticketPath(code), expires, sig, now);

/** The e-mail's links last until a day after the session (its end when known, else its start). */
export const sessionPassedAt = (start: Date, end: Date | null) => new Date((end ?? start).getTime() + 24 * 3600 * 1000);

// ---- links of a whole order (D72): every ticket in one PDF, and the session in the buyer's calendar

export type OrderFile = 'pdf' | 'ics';
const orderPath = (orderToken: string, kind: OrderFile) => `/api/tickets/orders/${encodeURIComponent(orderToken)}.${kind}`;

/** `${PUBLIC_BASE_URL}/api/tickets/orders/<order token>.<pdf|ics>?expires=&signature=`, signed as the ticket links. */
export const signedOrderUrl = (config: Config, orderToken: string, kind: OrderFile, now: Date, validUntil?: Date): string =>
  signedUrl(config, orderPath(orderToken, kind), now, validUntil);

/** True when an order link's signature matches and it has not expired. */
export const verifyOrderLink = (config: Config, orderToken: string, kind: OrderFile, expires: unknown, sig: unknown, now: Date): boolean =>
  verifyLink(config, orderPath(orderToken, kind), expires, sig, now);

// ---- wallet links (D70): the ticket as an Apple Wallet pass or a Google Wallet save link

export type WalletProvider = 'apple' | 'google';
const walletPath = (provider: WalletProvider, code: string) => `/api/tickets/wallet/${provider}/${code}${provider === 'apple' ? '.pkpass' : ''}`;

/** `${PUBLIC_BASE_URL}/api/tickets/wallet/apple/<code>.pkpass` or `.../wallet/google/<code>`, signed as the ticket links. */
export const signedWalletUrl = (config: Config, provider: WalletProvider, code: string, now: Date, validUntil?: Date): string =>
  signedUrl(config, walletPath(provider, code), now, validUntil);

/** True when a wallet link's signature matches and it has not expired. */
export const verifyWalletLink = (config: Config, provider: WalletProvider, code: string, expires: unknown, sig: unknown, now: Date): boolean =>
  verifyLink(config, walletPath(provider, code), expires, sig, now);
