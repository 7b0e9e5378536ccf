import type { AppContext } from '../../app-context.js';
import { AppError, invalidData } from '../../http/errors.js';
import type { AppEnv } from '../../config.js';
import { INTEGRATION_MODES, type Branding } from '../../db/schema/index.js';
import { needsCheckoutUrl, policyOf } from '../../lib/integration-policy.js';
import { colourProblem, urlProblem } from '../../lib/url-rules.js';
import { LANGUAGES } from '../../platform/i18n.js';
import { readIntegrationChecklist } from '../../platform/integration-checklist.js';
import * as repo from './channels.repo.js';
import * as organisersRepo from '../../platform/organisers.repo.js';
import type { ChannelRecord } from '../../db/channel-record.js';
import type { NewChannel } from './channels.repo.js';

// The languages a channel may choose are the service's own (platform/i18n).
export { LANGUAGES };

/** The channel configuration of SPEC "Channel configuration", read from the integration policy. */
export function channelConfig(ctx: AppContext, channel: ChannelRecord) {
  const policy = policyOf(channel.integrationMode);
  return {
    sales_channel_slug: channel.slug,
    name: channel.name,
    integration_mode: channel.integrationMode,
    allows_widget: policy.allowsWidget,
    checkout_url: policy.portalCheckout === 'external_page' ? channel.checkoutUrl : null,
    portal_checkout_base_url: policy.widgetCheckoutButton ? ctx.config.portalCheckoutBaseUrl : null,
    requires_external_payment_callback: policy.channelCollectsPayment,
    show_checkout_button: policy.widgetCheckoutButton,
    widget_url: ctx.config.widgetUrl,
    default_lang: channel.defaultLang,
    languages: [...LANGUAGES],
    currency: ctx.config.currency,
    // The widget writes session times in the deployment's zone, as the portal, PDF and e-mail do (issue 16).
    timezone: ctx.config.timezone,
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

/** The branding keys a channel may set; the portal and the widget read exactly these. */
const BRANDING_KEYS = ['name', 'logo_url', 'primary_color', 'accent_color', 'font_family'] as const;

/**
 * Field errors of a channel's branding (keys `branding.<key>`), the same for every entry point:
 * known keys only, texts of at most 300 characters, colours `#rrggbb`, the logo an http(s) URL (D50).
 * Empty values mean "the default" and are not checked.
 */
export function brandingProblems(branding: Branding | Record<string, unknown>, appEnv: AppEnv): Record<string, string[]> {
  const f: Record<string, string[]> = {};
  for (const [key, value] of Object.entries(branding)) {
    if (typeof value === 'string' && value.trim() === '') continue;
    const problem = !(BRANDING_KEYS as readonly string[]).includes(key)
      ? 'is not allowed'
      : typeof value !== 'string' || value.length > 300
        ? 'must be a text of at most 300 characters'
        : key.endsWith('_color')
          ? colourProblem(value.trim())
          : key === 'logo_url'
            ? urlProblem(value.trim(), appEnv)
            : null;
    if (problem) f[`branding.${key}`] = [problem];
  }
  return f;
}

function validateChannel(input: Partial<NewChannel>, appEnv: AppEnv): void {
  const checkoutProblem = input.checkoutUrl ? urlProblem(input.checkoutUrl, appEnv) : null;
  const websiteProblem = input.websiteUrl ? urlProblem(input.websiteUrl, appEnv) : null;
  const fields = {
    ...brandingProblems(input.branding ?? {}, appEnv),
    ...(checkoutProblem ? { checkout_url: [checkoutProblem] } : {}),
    ...(websiteProblem ? { website_url: [websiteProblem] } : {}),
  };
  if (Object.keys(fields).length) throw invalidData(fields);
  if (input.integrationMode && !INTEGRATION_MODES.includes(input.integrationMode)) {
    throw invalidData({ integration_mode: [`must be one of ${INTEGRATION_MODES.join(', ')}`] });
  }
  if (input.integrationMode && needsCheckoutUrl(input.integrationMode) && !input.checkoutUrl) {
    throw invalidData({ checkout_url: ['is required for portal_external_payment (model B)'] });
  }
}

/** Which events a new channel sells: every event of its organiser, or the listed ids. */
export type ChannelEventsChoice = 'all' | number[];

/**
 * Creates a sales channel (operator CLI, import, admin), optionally with the events it sells
 * (a channel sells only the events linked to it), in one transaction.
 */
export async function createChannel(ctx: AppContext, input: NewChannel, events: ChannelEventsChoice = []): Promise<ChannelRecord> {
  validateChannel(input, ctx.config.appEnv);
  return ctx.db.transaction(async (tx) => {
    if (!(await organisersRepo.organiserExists(tx, input.organiserId))) {
      throw invalidData({ organiser_id: [`unknown organiser ${input.organiserId}`] });
    }
    if (await repo.findChannelBySlug(tx, input.slug)) {
      throw new AppError('conflict.channel_slug_taken', { slug: input.slug });
    }
    const channel = await repo.insertChannel(tx, input);
    const eventIds = events === 'all' ? await repo.organiserEventIds(tx, input.organiserId) : events;
    if (eventIds.length) {
      const own = new Set(await repo.organiserEventIds(tx, input.organiserId));
      const foreign = eventIds.filter((id) => !own.has(id));
      if (foreign.length) {
        throw invalidData({ events: [`not events of organiser ${input.organiserId}: ${foreign.join(', ')}`] });
      }
      await repo.linkChannelEvents(tx, channel.id, eventIds);
    }
    return channel;
  });
}

/** The channel with this slug; 404 when there is none. */
export async function getChannelBySlug(ctx: AppContext, slug: string): Promise<ChannelRecord> {
  const channel = await findChannelBySlug(ctx, slug);
  if (!channel) throw new AppError('not_found.sales_channel', { slug });
  return channel;
}

/** The channel with this slug, or null. */
export const findChannelBySlug = (ctx: AppContext, slug: string) => repo.findChannelBySlug(ctx.db, slug);

/** The channel with this id, or null. */
export const findChannelById = (ctx: AppContext, id: number) => repo.findChannelById(ctx.db, id);

/** Ids of the events a channel sells. */
export const channelEventIds = (ctx: AppContext, channelId: number) => repo.channelEventIds(ctx.db, channelId);

/** Every organiser (owners of channels and catalogues), by id. */
export const listOrganisers = async (ctx: AppContext) => (await organisersRepo.listOrganisers(ctx.db)).map(({ id, name }) => ({ id, name }));

/** Every channel, by slug. */
export const listChannels = (ctx: AppContext) => repo.listChannels(ctx.db);

/** The channel's pre-production integration checklist (docs/preproduction.md). */
export const integrationChecklist = (ctx: AppContext, channel: Pick<ChannelRecord, 'id' | 'integrationMode'>) =>
  readIntegrationChecklist(ctx.db, channel);
