import { isoWithOffset } from '../../lib/time.js';
import type { CredentialScope } from '../../lib/integration-policy.js';
import { generateChannelKey, listChannelKeys, revokeChannelKey } from '../../modules/auth/auth.service.js';
import { getChannelBySlug } from '../../modules/channels/channels.service.js';
import { intValue, rejectUnknownFlags, requireFlag, UsageError } from '../args.js';
import type { CliArgs, CliCommand } from '../command.js';
import { printJson, printTable } from '../output.js';

// Widget keys by default; `--server` for the channel's server keys (D39), which never go in a page.

/** The kind of key a command acts on: `--server` (a bare flag) selects the server keys. */
function scopeOf(args: CliArgs): CredentialScope {
  const flag = args.flags.server;
  if (flag === undefined) return 'widget';
  if (flag !== true) throw new UsageError('--server takes no value');
  return 'server';
}

const NAMES: Record<CredentialScope, string> = { widget: 'Widget key', server: 'Server key' };

const generate: CliCommand = {
  name: 'keys:generate',
  summary: 'Generate a widget key, or with --server a server key, for a channel (printed once, stored only as a hash)',
  usage: 'keys:generate --channel <slug> [--server] [--json]',
  async run(ctx, args) {
    rejectUnknownFlags(args, ['channel', 'server', 'json']);
    const scope = scopeOf(args);
    const channel = await getChannelBySlug(ctx, requireFlag(args, 'channel'));
    const key = await generateChannelKey(ctx, scope, channel.id);
    if (args.flags.json) {
      return printJson({ sales_channel_slug: channel.slug, key_id: key.id, [`${scope}_key`]: key.key, created_at: isoWithOffset(key.created_at) });
    }
    console.log(`${NAMES[scope]} ${key.id} for "${channel.slug}". It is shown only this once; store it now:`);
    console.log(key.key);
    if (scope === 'server') console.log("Keep it on the channel's server: never put it in a web page.");
  },
};

const list: CliCommand = {
  name: 'keys:list',
  summary: 'List the widget keys, or with --server the server keys, of a channel (last four characters only)',
  usage: 'keys:list --channel <slug> [--server] [--json]',
  async run(ctx, args) {
    rejectUnknownFlags(args, ['channel', 'server', 'json']);
    const scope = scopeOf(args);
    const channel = await getChannelBySlug(ctx, requireFlag(args, 'channel'));
    const rows = (await listChannelKeys(ctx, scope, channel.id)).map((k) => ({
      id: k.id,
      ends_with: `...${k.lastFour}`,
      created_at: isoWithOffset(k.createdAt),
      revoked_at: isoWithOffset(k.revokedAt),
    }));
    if (args.flags.json) return printJson(rows);
    const generateHint = `keys:generate --channel ${channel.slug}${scope === 'server' ? ' --server' : ''}`;
    printTable(rows, `"${channel.slug}" has no ${NAMES[scope].toLowerCase()}s (${generateHint}).`);
  },
};

const revoke: CliCommand = {
  name: 'keys:revoke',
  summary: 'Revoke a widget key (every widget token of the channel stops at once) or, with --server, a server key (its tokens stop at once)',
  usage: 'keys:revoke --channel <slug> --key-id <id> [--server]',
  async run(ctx, args) {
    rejectUnknownFlags(args, ['channel', 'key-id', 'server']);
    const scope = scopeOf(args);
    const channel = await getChannelBySlug(ctx, requireFlag(args, 'channel'));
    const keyId = intValue('key-id', requireFlag(args, 'key-id'));
    await revokeChannelKey(ctx, scope, channel.id, keyId);
    console.log(`Revoked ${NAMES[scope].toLowerCase()} ${keyId} of "${channel.slug}"; its live tokens are revoked too.`);
  },
};

export const commands: CliCommand[] = [generate, list, revoke];
