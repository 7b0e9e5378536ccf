import type { AppContext } from '../../app-context.js';
import { AppError, notFound } from '../../http/errors.js';
import { findChannelBySlug, type ChannelRecord } from '../channels/channels.repo.js';
import { addSectorItems, createOrder, type SectorRequest } from '../orders/orders.service.js';
import { freeZonePlaces } from './portal.repo.js';

/** The channel named in a public portal path; an unknown slug is 404. */
export async function publicChannel(ctx: AppContext, slug: string): Promise<ChannelRecord> {
  const channel = await findChannelBySlug(ctx.db, slug);
  if (!channel) throw notFound('Sales channel');
  return channel;
}

/**
 * Starts a storefront cart with places of an unnumbered zone. The cart service creates an order
 * with its first item (D17), so one free place is named (another buyer may take it first: the
 * next one is tried) and the rest are added through the same sector service as the B2B route.
 */
export async function createZoneCart(ctx: AppContext, channel: ChannelRecord, lang: string, req: SectorRequest) {
  const candidates = await freeZonePlaces(ctx.db, req.sector_id, req.rate_id, ctx.clock.now(), 5);
  if (candidates.length === 0) throw new AppError('zone_capacity_exceeded', `Not enough free places for ${req.quantity} tickets`);
  for (const [i, id] of candidates.entries()) {
    try {
      const { order } = await createOrder(ctx, channel, lang, { session_seat_id: id, rate_id: req.rate_id });
      if (req.quantity === 1) return order;
      return await addSectorItems(ctx, channel, order.order_token, lang, { ...req, quantity: req.quantity - 1 });
    } catch (err) {
      const lastTry = i === candidates.length - 1;
      if (!(err instanceof AppError && err.code === 'seat_unavailable') || lastTry) throw err;
    }
  }
  throw new AppError('zone_capacity_exceeded', `Not enough free places for ${req.quantity} tickets`);
}
