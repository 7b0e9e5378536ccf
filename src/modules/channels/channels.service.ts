import type { AppContext } from '../../app-context.js';
import { AppError } from '../../http/errors.js';
import { INTEGRATION_MODES, type IntegrationMode } from '../../db/schema/index.js';
import { tokenCache } from '../auth/auth.service.js';
import * as repo from './channels.repo.js';
import type { ChannelRecord, NewChannel } from './channels.repo.js';

export const LANGUAGES = ['es', 'en'] as const;

const usesWidget = (mode: IntegrationMode) => mode === 'widget_platform_payment' || mode === 'widget_external_payment';
const channelCollectsPayment = (mode: IntegrationMode) =>
  mode === 'portal_external_payment' || mode === 'widget_external_payment';

/** The channel configuration of SPEC "Channel configuration", derived from the integration mode. */
export function channelConfig(ctx: AppContext, channel: ChannelRecord) {
  const mode = channel.integrationMode;
  return {
    sales_channel_slug: channel.slug,
    name: channel.name,
    integration_mode: mode,
    allows_widget: usesWidget(mode),
    checkout_url: mode === 'portal_external_payment' ? channel.checkoutUrl : null,
    portal_checkout_base_url: mode === 'widget_platform_payment' ? ctx.config.portalCheckoutBaseUrl : null,
    requires_external_payment_callback: channelCollectsPayment(mode),
    show_checkout_button: mode === 'widget_platform_payment',
    widget_url: ctx.config.widgetUrl,
    default_lang: channel.defaultLang,
    languages: [...LANGUAGES],
    currency: ctx.config.currency,
    cart_ttl_seconds: channel.cartTtlSeconds ?? ctx.config.cartTtlSeconds,
    branding: {
      name: channel.branding.name ?? channel.name,
      logo_url: channel.branding.logo_url ?? null,
      primary_color: channel.branding.primary_color ?? '#1f4fd1',
      accent_color: channel.branding.accent_color ?? '#0b7a3b',
      font_family: channel.branding.font_family ?? null,
    },
  };
}

function validateChannel(input: Partial<NewChannel>): void {
  if (input.integrationMode && !INTEGRATION_MODES.includes(input.integrationMode)) {
    throw new AppError('validation_failed', 'The given data was invalid', {
      integration_mode: [`must be one of ${INTEGRATION_MODES.join(', ')}`],
    });
  }
  if (input.integrationMode === 'portal_external_payment' && !input.checkoutUrl) {
    throw new AppError('validation_failed', 'The given data was invalid', {
      checkout_url: ['is required for portal_external_payment (model B)'],
    });
  }
}

/** Creates a sales channel (operator CLI, import, admin). */
export async function createChannel(ctx: AppContext, input: NewChannel): Promise<ChannelRecord> {
  validateChannel(input);
  if (await repo.findChannelBySlug(ctx.db, input.slug)) {
    throw new AppError('conflict', `A sales channel with slug "${input.slug}" already exists`);
  }
  return repo.insertChannel(ctx.db, input);
}

/** Every channel, by slug. */
export const listChannels = (ctx: AppContext) => repo.listChannels(ctx.db);

/** Forget cached tokens of a channel whose settings changed, so the change shows at once. */
export const channelChanged = (ctx: AppContext, channelId: number) => tokenCache(ctx).dropChannel(channelId);
