import { hmac, safeEqual } from '../../lib/secrets.js';

/**
 * The queue's signed tokens (D60): a ticket (`qt1.`) names the session, the client and the ticket;
 * a pass (`qp1.`) adds its expiry. Both are `prefix` + base64url(JSON) + `.` + HMAC-SHA256 of what
 * precedes the last dot, under a key derived from the deployment's SIGNING_SECRET, so that every
 * instance checks them without asking anyone and nobody can change a field.
 */
export interface TicketClaims {
  /** session id */
  s: number;
  /** client id (the widget's D38 id; the portal's id derived from its buyer cookie) */
  c: string;
  /** ticket id */
  t: string;
}

export interface PassClaims extends TicketClaims {
  /** expiry, milliseconds since the epoch */
  e: number;
}

const keyOf = (secret: string, kind: string) => hmac(secret, `queue-${kind}-v1`);

function sign(secret: string, kind: 'ticket' | 'pass', claims: object): string {
  const body = `q${kind[0]}1.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  return `${body}.${hmac(keyOf(secret, kind), body)}`;
}

function open(secret: string, kind: 'ticket' | 'pass', token: string): unknown {
  const dot = token.lastIndexOf('.');
  const body = token.slice(0, dot);
  if (dot < 0 || !body.startsWith(`q${kind[0]}1.`) || !safeEqual(token.slice(dot + 1), hmac(keyOf(secret, kind), body))) return null;
  try {
    return JSON.parse(Buffer.from(body.slice(4), 'base64url').toString('utf8'));
  } catch {
    return null;
  }
}

const isTicket = (v: unknown): v is TicketClaims => {
  const c = v as Partial<TicketClaims> | null;
  return !!c && Number.isInteger(c.s) && typeof c.c === 'string' && typeof c.t === 'string';
};

export const signTicket = (secret: string, claims: TicketClaims) => sign(secret, 'ticket', { s: claims.s, c: claims.c, t: claims.t });
export const signPass = (secret: string, claims: PassClaims) => sign(secret, 'pass', { s: claims.s, c: claims.c, t: claims.t, e: claims.e });

/** The ticket's claims when its signature holds, else null. */
export function openTicket(secret: string, token: string): TicketClaims | null {
  const claims = open(secret, 'ticket', token);
  return isTicket(claims) ? claims : null;
}

/** The pass's claims when its signature holds (expired or not), else null. */
export function openPass(secret: string, token: string): PassClaims | null {
  const claims = open(secret, 'pass', token);
  return isTicket(claims) && Number.isFinite((claims as PassClaims).e) ? (claims as PassClaims) : null;
}
