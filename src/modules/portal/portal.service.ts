import type { AppContext } from '../../app-context.js';
import { notFound } from '../../http/errors.js';
import { findChannelBySlug, type ChannelRecord } from '../channels/channels.repo.js';

/** The channel named in a public portal path; an unknown slug is 404. */
export async function publicChannel(ctx: AppContext, slug: string): Promise<ChannelRecord> {
  const channel = await findChannelBySlug(ctx.db, slug);
  if (!channel) throw notFound('Sales channel');
  return channel;
}
