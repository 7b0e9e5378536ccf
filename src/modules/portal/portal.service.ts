import type { AppContext } from '../../app-context.js';
import { appCache } from '../../platform/cache.js';
import { notFound } from '../../http/errors.js';
import type { ChannelRecord } from '../../db/channel-record.js';
import { findChannelBySlug } from '../channels/channels.service.js';
import type { BuyerKey } from '../orders/orders.buyer.js';
import { queueOrderLookup } from '../tickets/tickets.service.js';
import { addSectorItems, cancelOrder, startEmptyCart, type SectorRequest } from '../orders/orders.service.js';

/** The channel named in a public portal path; an unknown slug is 404. */
export async function publicChannel(ctx: AppContext, slug: string): Promise<ChannelRecord> {
  const channel = await findChannelBySlug(ctx, slug);
  if (!channel) throw notFound('Sales channel');
  return channel;
}

/** Channels by slug for the portal's live maps (D62): a poll must not read the database. */
const CHANNEL_MAX_AGE_MS = 10_000;
const channelsBySlug = appCache<string, { channel: ChannelRecord | null }>('portal.channels-by-slug', (ctx) => ({ max: 200, ttl: CHANNEL_MAX_AGE_MS, now: () => ctx.clock.now().getTime() }));

/** `publicChannel`, remembered for 10 s (an unknown slug too, so that a flood of them costs one read each per 10 s). */
export async function cachedPublicChannel(ctx: AppContext, slug: string): Promise<ChannelRecord> {
  const cache = channelsBySlug(ctx);
  let hit = cache.get(slug);
  if (!hit) {
    hit = { channel: await findChannelBySlug(ctx, slug) };
    cache.set(slug, hit);
  }
  if (!hit.channel) throw notFound('Sales channel');
  return hit.channel;
}

/**
 * Starts a storefront cart with places of an unnumbered zone. The B2B create takes a seat (D17),
 * so the cart starts as an empty order (the state an emptied cart has, D13: no expiry) and the
 * places are added by the same sector service as the B2B route; if that fails, the empty order is
 * cancelled again so nothing is left behind.
 */
export async function createZoneCart(ctx: AppContext, channel: ChannelRecord, buyer: BuyerKey, lang: string, req: SectorRequest) {
  const orderToken = await startEmptyCart(ctx, channel, buyer, lang);
  try {
    return await addSectorItems(ctx, channel, orderToken, lang, req);
  } catch (err) {
    await cancelOrder(ctx, channel, orderToken, lang).catch(() => {});
    throw err;
  }
}

/**
 * "Find my order" (D72): queues an e-mail with the links to the address's orders of this channel
 * through the durable queue when it has any; nothing otherwise. The caller answers the same either way.
 */
export async function requestOrderLookup(ctx: AppContext, slug: string, lang: string, email: string): Promise<void> {
  const channel = await publicChannel(ctx, slug);
  await queueOrderLookup(ctx, channel.id, lang, email.trim());
}
