import type { AppEnv } from '../../config.js';
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
import { UsageError, intValue, optionalFlag, rejectUnknownFlags, requireFlag } from '../args.js';
import type { CliArgs, CliCommand } from '../command.js';
import { printJson, printTable } from '../output.js';

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

function parseSlug(raw: string): string {
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(raw)) {
    throw new UsageError(`--slug must be 1 to 63 of a-z, 0-9 and "-", starting with a letter or digit (got "${raw}")`);
  }
  return raw;
}

function parseUrl(raw: string, appEnv: AppEnv): string {
  const problem = urlProblem(raw, appEnv);
  if (problem) throw new UsageError(`--checkout-url ${problem} (got "${raw}")`);
  return raw;
}

function parseLang(raw: string): string {
  if (!(LANGUAGES as readonly string[]).includes(raw)) {
    throw new UsageError(`--lang must be one of ${LANGUAGES.join(', ')} (got "${raw}")`);
  }
  return raw;
}

function parseEvents(raw: string | undefined): ChannelEventsChoice {
  if (raw === undefined) return [];
  if (raw === 'all') return 'all';
  return raw.split(',').map((id) => intValue('events', id.trim()));
}

const list: CliCommand = {
  name: 'channels:list',
  summary: 'List the sales channels',
  usage: 'channels:list [--json]',
  async run(ctx, args: CliArgs) {
    rejectUnknownFlags(args, ['json']);
    const channels = await listChannels(ctx);
    if (args.flags.json) return printJson(channels);
    printTable(
      channels.map((c) => ({
        id: c.id,
        slug: c.slug,
        mode: c.integrationMode,
        organiser: c.organiserId,
        name: c.name,
        checkout_url: c.checkoutUrl,
      })),
      'No sales channels yet (channels:create, catalogue:import or demo:load).',
    );
  },
};

const create: CliCommand = {
  name: 'channels:create',
  summary: 'Create a sales channel (then keys:generate gives it a widget key)',
  usage:
    'channels:create --slug <slug> --name <name> --mode <A|B|C|D|integration_mode> --organiser-id <id>\n' +
    '                [--checkout-url <url>] [--cart-ttl <seconds>] [--lang <es|en>] [--events all|<id,id,...>]',
  async run(ctx, args) {
    rejectUnknownFlags(args, ['slug', 'name', 'mode', 'organiser-id', 'checkout-url', 'cart-ttl', 'lang', 'events']);
    const cartTtl = optionalFlag(args, 'cart-ttl');
    const checkoutUrl = optionalFlag(args, 'checkout-url');
    const lang = optionalFlag(args, 'lang');
    const mode = parseMode(requireFlag(args, 'mode'));
    if (needsCheckoutUrl(mode) && !checkoutUrl) {
      throw new UsageError('--checkout-url is required for model B (portal_external_payment)');
    }
    const channel = await createChannel(
      ctx,
      {
        slug: parseSlug(requireFlag(args, 'slug')),
        name: requireFlag(args, 'name'),
        integrationMode: mode,
        organiserId: intValue('organiser-id', requireFlag(args, 'organiser-id')),
        checkoutUrl: checkoutUrl === undefined ? null : parseUrl(checkoutUrl, ctx.config.appEnv),
        cartTtlSeconds: cartTtl === undefined ? null : intValue('cart-ttl', cartTtl, 60),
        ...(lang === undefined ? {} : { defaultLang: parseLang(lang) }),
      },
      parseEvents(optionalFlag(args, 'events')),
    );
    const events = await channelEventIds(ctx, channel.id);
    console.log(`Created sales channel "${channel.slug}" (id ${channel.id}, ${channel.integrationMode}).`);
    console.log(events.length ? `It sells events ${events.join(', ')}.` : 'It sells no events yet (pass --events all or --events <ids>).');
    console.log(`Next: taquilla keys:generate --channel ${channel.slug}`);
  },
};

const organisers: CliCommand = {
  name: 'organisers:list',
  summary: 'List the organisers (the --organiser-id of channels:create)',
  usage: 'organisers:list [--json]',
  async run(ctx, args) {
    rejectUnknownFlags(args, ['json']);
    const rows = await listOrganisers(ctx);
    if (args.flags.json) return printJson(rows);
    printTable(rows, 'No organisers yet (catalogue:import or demo:load creates them).');
  },
};

export const commands: CliCommand[] = [list, create, organisers];
