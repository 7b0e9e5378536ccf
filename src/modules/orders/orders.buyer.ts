import crypto from 'node:crypto';

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
