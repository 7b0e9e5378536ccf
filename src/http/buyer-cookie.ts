import cookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hmac, randomBase62 } from '../lib/secrets.js';

// The storefront's buyer cookie: a random buyer id in a signed, HTTP-only cookie that every portal
// storefront page gives a browser without one (docs/cart.md "Hold caps"). Read by the portal's cart
// API (the buyer of the hold caps, D44) and by the waiting room's join (the portal's queue client,
// D60); what each makes of the id is its module's (portal.buyer.ts, queue.service.ts).

export const BUYER_COOKIE = 'taquilla_buyer';
const BUYER_ID = /^[A-Za-z0-9]{24}$/;
const COOKIE_MAX_AGE_SECONDS = 30 * 86_400;

/** Cookie parsing and signing in one portal scope (pages or cart API); the key signs nothing else. */
export async function registerBuyerCookies(app: FastifyInstance): Promise<void> {
  await app.register(cookie, { secret: hmac(app.ctx.config.signingSecret, 'portal-buyer-cookie') });
}

/** The id of the request's buyer cookie when it carries a valid, signed one. */
export function buyerCookieId(request: FastifyRequest): string | null {
  const raw = request.cookies[BUYER_COOKIE];
  if (!raw) return null;
  const { valid, value } = request.unsignCookie(raw);
  return valid && value && BUYER_ID.test(value) ? value : null;
}

/** Gives the browser a buyer cookie unless it already has a valid one (storefront pages). */
export function ensureBuyerCookie(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply): string {
  const existing = buyerCookieId(request);
  if (existing) return existing;
  const id = randomBase62(24);
  reply.setCookie(BUYER_COOKIE, id, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: app.ctx.config.publicBaseUrl.startsWith('https:'),
    maxAge: COOKIE_MAX_AGE_SECONDS,
    signed: true,
  });
  return id;
}

