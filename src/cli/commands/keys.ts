import { isoWithOffset } from '../../lib/time.js';
import { generateKeyForChannel, revokeWidgetKey } from '../../modules/auth/auth.service.js';
import { getChannelBySlug, listWidgetKeys } from '../../modules/channels/channels.service.js';
import { intValue, rejectUnknownFlags, requireFlag } from '../args.js';
import type { CliCommand } from '../command.js';
import { printJson, printTable } from '../output.js';

const generate: CliCommand = {
  name: 'keys:generate',
  summary: 'Generate a widget key for a channel (printed once, stored only as a hash)',
  usage: 'keys:generate --channel <slug> [--json]',
  async run(ctx, args) {
    rejectUnknownFlags(args, ['channel', 'json']);
    const channel = await getChannelBySlug(ctx, requireFlag(args, 'channel'));
    const key = await generateKeyForChannel(ctx, channel.id);
    if (args.flags.json) {
      return printJson({ sales_channel_slug: channel.slug, key_id: key.id, widget_key: key.widget_key, created_at: isoWithOffset(key.created_at) });
    }
    console.log(`Widget key ${key.id} for "${channel.slug}". It is shown only this once; store it now:`);
    console.log(key.widget_key);
  },
};

const list: CliCommand = {
  name: 'keys:list',
  summary: 'List the widget keys of a channel (last four characters only)',
  usage: 'keys:list --channel <slug> [--json]',
  async run(ctx, args) {
    rejectUnknownFlags(args, ['channel', 'json']);
    const channel = await getChannelBySlug(ctx, requireFlag(args, 'channel'));
    const rows = (await listWidgetKeys(ctx, channel.id)).map((k) => ({
      id: k.id,
      ends_with: `...${k.lastFour}`,
      created_at: isoWithOffset(k.createdAt),
      revoked_at: isoWithOffset(k.revokedAt),
    }));
    if (args.flags.json) return printJson(rows);
    printTable(rows, `"${channel.slug}" has no widget keys (keys:generate --channel ${channel.slug}).`);
  },
};

const revoke: CliCommand = {
  name: 'keys:revoke',
  summary: 'Revoke a widget key; every token of the channel stops working at once',
  usage: 'keys:revoke --channel <slug> --key-id <id>',
  async run(ctx, args) {
    rejectUnknownFlags(args, ['channel', 'key-id']);
    const channel = await getChannelBySlug(ctx, requireFlag(args, 'channel'));
    const keyId = intValue('key-id', requireFlag(args, 'key-id'));
    await revokeWidgetKey(ctx, channel.id, keyId);
    console.log(`Revoked widget key ${keyId} of "${channel.slug}"; its live tokens are revoked too.`);
  },
};

export const commands: CliCommand[] = [generate, list, revoke];
