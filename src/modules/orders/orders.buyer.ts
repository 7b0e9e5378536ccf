import crypto from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { ChannelRecord } from '../../db/channel-record.js';
import { policyOf } from '../../lib/integration-policy.js';

/**
 * Who a cart's holds count against for the hold caps (D44), written on the order when it is
 * created (`orders.buyer_key`). Null: no per-buyer caps, only MAX_ITEMS_PER_ORDER (a server-scope
 * token acts for many buyers; admin reservations). The channel is part of every key, so one
 * client_id or one browser on two channels is two buyers.
 */
export type BuyerKey = string | null;

/**
 * The buyer of a B2B request: a widget-scope token's channel and client_id (D38; tokens without a
 * client_id form one group, and so one buyer). A server-scope token gets no per-buyer caps.
 */
export function b2bBuyer(channelId: number, credential: { scope: 'widget' | 'server'; clientId: string }): BuyerKey {
  return credential.scope === 'server' ? null : `w:${channelId}:${credential.clientId}`;
}

/**
 * The buyer of a portal request: the browser's buyer cookie (portal.buyer.ts) when it carries a
 * valid one, else the client address. The address is stored only as a keyed hash (personal data).
 */
export function portalBuyer(channelId: number, who: { cookieId: string } | { address: string }, secret: string): BuyerKey {
  if ('cookieId' in who) return `p:${channelId}:c:${who.cookieId}`;
  const hashed = crypto.createHmac('sha256', secret).update(`buyer-address:${who.address}`).digest('base64url').slice(0, 32);
  return `p:${channelId}:a:${hashed}`;
}

/**
 * The channel as a cart use case sees it, with who asks (D57). `cartCaller`: the buyer key of a
 * widget-scope token of a widget model (C, D), to which only the carts of that same buyer (and the
 * carts no widget buyer created) are open; absent or null for everyone else (server-scope tokens,
 * the portal), to which every cart of the channel is open. The B2B cart routes pass
 * `b2bCartChannel`; it flows unchanged through the cart services to the order lookups of
 * orders.repo.ts and cart_hold_seat, where the SQL rule cart_open_to (src/db/functions) applies it.
 */
export type CartChannel = ChannelRecord & { readonly cartCaller?: BuyerKey };

/**
 * The channel of a B2B cart request with its caller (D57); a copy, the channel record itself is
 * shared. Every B2B route that takes an order token passes it to the cart services;
 * test/orders/cart-owner.test.ts checks each such route of the app against the rule.
 */
export function cartChannelOf(request: Pick<FastifyRequest, 'channel' | 'credential'>): CartChannel {
  const channel = request.channel!;
  const credential = request.credential!;
  const bound = credential.scope === 'widget' && policyOf(channel.integrationMode).allowsWidget;
  return { ...channel, cartCaller: bound ? b2bBuyer(channel.id, credential) : null };
}
