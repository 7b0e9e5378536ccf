import { Type } from 'typebox';
import { ChannelSlug } from '../../http/schemas.js';
import { INTEGRATION_MODES, type IntegrationMode } from '../../db/schema/index.js';
import { needsCheckoutUrl } from '../../lib/integration-policy.js';
import { urlProblem } from '../../lib/url-rules.js';
import {
  LANGUAGES,
  channelEventIds,
  createChannel,
  listChannels,
  listOrganisers,
  type ChannelEventsChoice,
} from '../../modules/channels/channels.service.js';
import { UsageError } from '../args.js';
import { defineCommand, defineListCommand } from '../command.js';
import { idOption } from './options.js';

// The SPEC's model letters are what people say; the mode names are what the API sends.
const MODE_BY_LETTER: Record<string, IntegrationMode> = {
  A: 'portal_only',
  B: 'portal_external_payment',
  C: 'widget_platform_payment',
  D: 'widget_external_payment',
};

function parseMode(raw: string): IntegrationMode {
  const mode = MODE_BY_LETTER[raw.toUpperCase()] ?? raw;
  if (!(INTEGRATION_MODES as readonly string[]).includes(mode)) {
    throw new UsageError(`--mode must be A, B, C, D or one of ${INTEGRATION_MODES.join(', ')} (got "${raw}")`);
  }
  return mode as IntegrationMode;
}

/** `all`, or a comma-separated list of event ids. */
const parseEvents = (raw: string | undefined): ChannelEventsChoice =>
  raw === undefined ? [] : raw === 'all' ? 'all' : raw.split(',').map((id) => Number(id.trim()));

const list = defineListCommand({
  name: 'channels:list',
  summary: 'List the sales channels',
  rows: listChannels,
  table: (c) => ({ id: c.id, slug: c.slug, mode: c.integrationMode, organiser: c.organiserId, name: c.name, checkout_url: c.checkoutUrl }),
  empty: 'No sales channels yet (channels:create, catalogue:import or demo:load).',
});

const create = defineCommand({
  name: 'channels:create',
  summary: 'Create a sales channel (then keys:generate gives it a widget key)',
  options: {
    slug: {
      type: 'string',
      required: true,
      placeholder: '<slug>',
      help: 'the name in the API paths',
      schema: ChannelSlug,
      problem: 'must be 1 to 63 of a-z, 0-9 and "-", starting with a letter or digit',
    },
    name: { type: 'string', required: true, placeholder: '<name>', help: "the channel's display name" },
    mode: { type: 'string', required: true, placeholder: '<A|B|C|D|integration_mode>', help: 'the model letter or the integration_mode name' },
    'organiser-id': idOption('the organiser whose events it sells (organisers:list)'),
    'checkout-url': { type: 'string', placeholder: '<url>', help: "the channel's checkout page (required for model B)" },
    'cart-ttl': {
      type: 'string',
      placeholder: '<seconds>',
      help: 'how long a cart holds its seats, instead of CART_TTL_SECONDS',
      schema: Type.Integer({ minimum: 60, maximum: 2_147_483_647 }),
      problem: 'must be a whole number >= 60',
    },
    lang: {
      type: 'string',
      placeholder: `<${LANGUAGES.join('|')}>`,
      help: "the channel's default language",
      schema: Type.Union(LANGUAGES.map((l) => Type.Literal(l))),
      problem: `must be one of ${LANGUAGES.join(', ')}`,
    },
    events: {
      type: 'string',
      placeholder: 'all|<id,id,...>',
      help: 'the events it sells (a channel sells only linked events)',
      schema: Type.String({ pattern: '^(all|\\s*[1-9][0-9]{0,9}\\s*(,\\s*[1-9][0-9]{0,9}\\s*)*)$' }),
      problem: 'must be all or a comma-separated list of event ids',
    },
  },
  async run(ctx, { values }) {
    const mode = parseMode(values.mode);
    const checkoutUrl = values['checkout-url'];
    if (needsCheckoutUrl(mode) && !checkoutUrl) {
      throw new UsageError('--checkout-url is required for model B (portal_external_payment)');
    }
    const urlIssue = checkoutUrl === undefined ? null : urlProblem(checkoutUrl, ctx.config.appEnv);
    if (urlIssue) throw new UsageError(`--checkout-url ${urlIssue} (got "${checkoutUrl}")`);
    const channel = await createChannel(
      ctx,
      {
        slug: values.slug,
        name: values.name,
        integrationMode: mode,
        organiserId: values['organiser-id'],
        checkoutUrl: checkoutUrl ?? null,
        cartTtlSeconds: values['cart-ttl'] ?? null,
        ...(values.lang === undefined ? {} : { defaultLang: values.lang }),
      },
      parseEvents(values.events),
    );
    const events = await channelEventIds(ctx, channel.id);
    console.log(`Created sales channel "${channel.slug}" (id ${channel.id}, ${channel.integrationMode}).`);
    console.log(events.length ? `It sells events ${events.join(', ')}.` : 'It sells no events yet (pass --events all or --events <ids>).');
    console.log(`Next: taquilla keys:generate --channel ${channel.slug}`);
  },
});

const organisers = defineListCommand({
  name: 'organisers:list',
  summary: 'List the organisers (the --organiser-id of channels:create)',
  rows: listOrganisers,
  empty: 'No organisers yet (catalogue:import or demo:load creates them).',
});

export const commands = [list, create, organisers];
