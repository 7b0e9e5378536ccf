import type { FastifyInstance, FastifyRequest } from 'fastify';
import { buyerCookieId } from '../../http/buyer-cookie.js';
import { portalBuyer, type BuyerKey } from '../orders/orders.buyer.js';
import { portalQueueClient } from '../queue/queue.service.js';

// The portal's buyer identity for the hold caps (D44). The storefront has no login and keeps its
// cart token in localStorage, so a buyer is the browser: every storefront page gives a browser
// without one a random buyer id in a signed, HTTP-only cookie, and the cart API reads it. A
// request without a valid cookie (a script that ignores cookies) is keyed by its client address
// instead, so it shares the caps of everything else from that address that sends no cookie.
// A client that fetches a page for a fresh cookie before every cart escapes the per-buyer caps;
// the per-address rate limits of the portal (D45) are what bound it (docs/cart.md "Hold caps").

/**
 * The client id this browser joins a waiting room with (D60): derived from its buyer cookie, which
 * scripts cannot read, so the storefront page hands it to the page's script, and a portal cart
 * create checks the pass against it. '' without a cookie (no pass matches it).
 */
export function portalQueueHolder(app: FastifyInstance, request: FastifyRequest): string {
  const cookieId = buyerCookieId(request);
  return cookieId ? portalQueueClient(app.ctx.config.signingSecret, cookieId) : '';
}

/** The buyer a portal cart is created for: the browser's cookie, else the client address. */
export function portalBuyerOf(app: FastifyInstance, request: FastifyRequest, channelId: number): BuyerKey {
  const cookieId = buyerCookieId(request);
  return portalBuyer(channelId, cookieId ? { cookieId } : { address: request.ip }, app.ctx.config.signingSecret);
}
