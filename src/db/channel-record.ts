import type { Branding, IntegrationMode } from './schema/index.js';
import { salesChannels } from './schema/index.js';

// Below the modules because the auth hook puts a channel on every B2B request (src/app-context.ts)
// and most modules read it: one shape, selected by the channels and auth repos alike.

/** A sales channel as the services read it. */
export interface ChannelRecord {
  id: number;
  organiserId: number;
  slug: string;
  name: string;
  integrationMode: IntegrationMode;
  checkoutUrl: string | null;
  /** The partner's own site (the portal links back to it); null when unset. */
  websiteUrl: string | null;
  branding: Branding;
  cartTtlSeconds: number | null;
  defaultLang: string;
}

/** The columns of a `ChannelRecord`, for `db.select(channelColumns)`. */
export const channelColumns = {
  id: salesChannels.id,
  organiserId: salesChannels.organiserId,
  slug: salesChannels.slug,
  name: salesChannels.name,
  integrationMode: salesChannels.integrationMode,
  checkoutUrl: salesChannels.checkoutUrl,
  websiteUrl: salesChannels.websiteUrl,
  branding: salesChannels.branding,
  cartTtlSeconds: salesChannels.cartTtlSeconds,
  defaultLang: salesChannels.defaultLang,
};
