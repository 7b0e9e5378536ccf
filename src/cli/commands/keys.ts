import { isoWithOffset } from '../../lib/time.js';
import type { AppContext } from '../../app-context.js';
import type { ChannelRecord } from '../../db/channel-record.js';
import type { CredentialScope } from '../../lib/integration-policy.js';
import { generateChannelKey, listChannelKeys, revokeChannelKey } from '../../modules/auth/auth.service.js';
import { getChannelBySlug } from '../../modules/channels/channels.service.js';
import { defineCommand, type CliCommand, type CommandInput, type OptionSpec } from '../command.js';
import { printJson, printTable } from '../output.js';
import { idOption, JSON_OPTION } from './options.js';

// Widget keys by default; `--server` for the channel's server keys (D39), which never go in a page.

const NAMES: Record<CredentialScope, string> = { widget: 'Widget key', server: 'Server key' };

/** The options every keys command takes: the channel, and --server for its server keys. */
const KEYS_OF = {
  channel: { type: 'string', required: true, placeholder: '<slug>', help: "the channel's slug" },
  server: { type: 'boolean', help: "the channel's server keys (D39) instead of its widget keys" },
} as const;

/**
 * A keys command: its options start from KEYS_OF's, and it runs on the channel they name (404 if
 * none) and the keys they choose: the widget keys, or the server keys with --server.
 */
function defineKeysCommand<const O extends typeof KEYS_OF & Record<string, OptionSpec>>(command: {
  name: string;
  summary: string;
  options: O;
  run(ctx: AppContext, keys: { scope: CredentialScope; channel: ChannelRecord }, values: CommandInput<O>['values']): Promise<number | void>;
}): CliCommand {
  return defineCommand<O>({
    ...command,
    async run(ctx, { values }) {
      const { channel, server } = values as { channel: string; server?: boolean };
      return command.run(ctx, { scope: server ? 'server' : 'widget', channel: await getChannelBySlug(ctx, channel) }, values);
    },
  });
}

const generate = defineKeysCommand({
  name: 'keys:generate',
  summary: 'Generate a widget key, or with --server a server key, for a channel (printed once, stored only as a hash)',
  options: { ...KEYS_OF, json: JSON_OPTION },
  async run(ctx, { scope, channel }, values) {
    const key = await generateChannelKey(ctx, scope, channel.id);
    if (values.json) {
      return printJson({ sales_channel_slug: channel.slug, key_id: key.id, [`${scope}_key`]: key.key, created_at: isoWithOffset(key.created_at) });
    }
    console.log(`${NAMES[scope]} ${key.id} for "${channel.slug}". It is shown only this once; store it now:`);
    console.log(key.key);
    if (scope === 'server') console.log("Keep it on the channel's server: never put it in a web page.");
  },
});

const list = defineKeysCommand({
  name: 'keys:list',
  summary: 'List the widget keys, or with --server the server keys, of a channel (last four characters only)',
  options: { ...KEYS_OF, json: JSON_OPTION },
  async run(ctx, { scope, channel }, values) {
    const rows = (await listChannelKeys(ctx, scope, channel.id)).map((k) => ({
      id: k.id,
      ends_with: `...${k.lastFour}`,
      created_at: isoWithOffset(k.createdAt),
      revoked_at: isoWithOffset(k.revokedAt),
    }));
    if (values.json) return printJson(rows);
    const generateHint = `keys:generate --channel ${channel.slug}${scope === 'server' ? ' --server' : ''}`;
    printTable(rows, `"${channel.slug}" has no ${NAMES[scope].toLowerCase()}s (${generateHint}).`);
  },
});

const revoke = defineKeysCommand({
  name: 'keys:revoke',
  summary: 'Revoke a widget key (every widget token of the channel stops at once) or, with --server, a server key (its tokens stop at once)',
  options: { channel: KEYS_OF.channel, 'key-id': idOption('the id keys:list shows'), server: KEYS_OF.server },
  async run(ctx, { scope, channel }, values) {
    const keyId = values['key-id'];
    await revokeChannelKey(ctx, scope, channel.id, keyId);
    console.log(`Revoked ${NAMES[scope].toLowerCase()} ${keyId} of "${channel.slug}"; its live tokens are revoked too.`);
  },
});

export const commands = [generate, list, revoke];
