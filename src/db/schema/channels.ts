import { pgTable, integer, smallint, text, jsonb, primaryKey } from 'drizzle-orm/pg-core';
import { ts, serialId, bigserialId, createdAt, timestamps, organiserOwned } from './columns.js';

export const INTEGRATION_MODES = [
  'portal_only',
  'portal_external_payment',
  'widget_platform_payment',
  'widget_external_payment',
] as const;
export type IntegrationMode = (typeof INTEGRATION_MODES)[number];

export interface Branding {
  name?: string;
  logo_url?: string;
  primary_color?: string;
  accent_color?: string;
  font_family?: string;
}

export const salesChannels = pgTable('sales_channels', {
  ...organiserOwned(),
  slug: text('slug').notNull(),
  name: text('name').notNull(),
  integrationMode: text('integration_mode').$type<IntegrationMode>().notNull(),
  checkoutUrl: text('checkout_url'),
  websiteUrl: text('website_url'),
  branding: jsonb('branding').$type<Branding>().notNull().default({}),
  cartTtlSeconds: integer('cart_ttl_seconds'),
  defaultLang: text('default_lang').notNull().default('es'),
  ...timestamps(),
});

export const channelEvents = pgTable(
  'channel_events',
  {
    channelId: integer('channel_id').notNull(),
    eventId: integer('event_id').notNull(),
  },
  (t) => [primaryKey({ columns: [t.channelId, t.eventId] })],
);

/** A channel's key (widget `pk_` or server `sk_`): stored as its hash and last four characters. */
const channelKeyColumns = () => ({
  id: serialId(),
  channelId: integer('channel_id').notNull(),
  keyHash: text('key_hash').notNull(),
  lastFour: text('last_four').notNull(),
  createdAt: createdAt().defaultNow(),
  revokedAt: ts('revoked_at'),
});

export const widgetKeys = pgTable('widget_keys', channelKeyColumns());

/** Server keys (`sk_`, D39): the credential of the channel's own server, hashed like widget keys. */
export const serverKeys = pgTable('server_keys', channelKeyColumns());

/**
 * How many tokens of a channel and scope are live: the sum of its rows (migration 0130, D41). Kept
 * by a trigger on access_tokens; read by issue_access_token (src/db/functions).
 */
export const accessTokenCounts = pgTable(
  'access_token_counts',
  {
    channelId: integer('channel_id').notNull(),
    scope: text('scope').$type<'widget' | 'server'>().notNull(),
    shard: smallint('shard').notNull(),
    live: integer('live').notNull(),
  },
  (t) => [primaryKey({ columns: [t.channelId, t.scope, t.shard] })],
);

export const accessTokens = pgTable('access_tokens', {
  id: bigserialId(),
  channelId: integer('channel_id').notNull(),
  /** `widget` or `server`: the kind of key the token was issued for (D39, migration 0070). */
  scope: text('scope').$type<'widget' | 'server'>().notNull(),
  /** The key the token was issued from: exactly one of the two, matching the scope. */
  widgetKeyId: integer('widget_key_id'),
  serverKeyId: integer('server_key_id'),
  clientId: text('client_id').notNull().default(''),
  tokenHash: text('token_hash').notNull(),
  createdAt: createdAt().defaultNow(),
  expiresAt: ts('expires_at').notNull(),
  revokedAt: ts('revoked_at'),
});
