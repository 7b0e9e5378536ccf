import { isoWithOffset } from '../../lib/time.js';
import type { CredentialScope } from '../../lib/integration-policy.js';
import { generateChannelKey, listChannelKeys, revokeChannelKey } from '../../modules/auth/auth.service.js';
import { getChannelBySlug } from '../../modules/channels/channels.service.js';
import { defineCommand } from '../command.js';
import { printJson, printTable } from '../output.js';
import { ID, JSON_OPTION } from './options.js';

// Widget keys by default; `--server` for the channel's server keys (D39), which never go in a page.

const NAMES: Record<CredentialScope, string> = { widget: 'Widget key', server: 'Server key' };
const scopeOf = (server: boolean | undefined): CredentialScope => (server ? 'server' : 'widget');

const CHANNEL = { type: 'string', required: true, placeholder: '<slug>', help: "the channel's slug" } as const;
const SERVER = { type: 'boolean', help: "the channel's server keys (D39) instead of its widget keys" } as const;

const generate = defineCommand({
  name: 'keys:generate',
  summary: 'Generate a widget key, or with --server a server key, for a channel (printed once, stored only as a hash)',
  options: { channel: CHANNEL, server: SERVER, json: JSON_OPTION },
  async run(ctx, { values }) {
    const scope = scopeOf(values.server);
    const channel = await getChannelBySlug(ctx, values.channel);
    const key = await generateChannelKey(ctx, scope, channel.id);
    if (values.json) {
      return printJson({ sales_channel_slug: channel.slug, key_id: key.id, [`${scope}_key`]: key.key, created_at: isoWithOffset(key.created_at) });
    }
    console.log(`${NAMES[scope]} ${key.id} for "${channel.slug}". It is shown only this once; store it now:`);
    console.log(key.key);
    if (scope === 'server') console.log("Keep it on the channel's server: never put it in a web page.");
  },
});

const list = defineCommand({
  name: 'keys:list',
  summary: 'List the widget keys, or with --server the server keys, of a channel (last four characters only)',
  options: { channel: CHANNEL, server: SERVER, json: JSON_OPTION },
  async run(ctx, { values }) {
    const scope = scopeOf(values.server);
    const channel = await getChannelBySlug(ctx, values.channel);
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

const revoke = defineCommand({
  name: 'keys:revoke',
  summary: 'Revoke a widget key (every widget token of the channel stops at once) or, with --server, a server key (its tokens stop at once)',
  options: {
    channel: CHANNEL,
    'key-id': { type: 'string', required: true, placeholder: '<id>', help: 'the id keys:list shows', ...ID },
    server: SERVER,
  },
  async run(ctx, { values }) {
    const scope = scopeOf(values.server);
    const channel = await getChannelBySlug(ctx, values.channel);
    const keyId = values['key-id'];
    await revokeChannelKey(ctx, scope, channel.id, keyId);
    console.log(`Revoked ${NAMES[scope].toLowerCase()} ${keyId} of "${channel.slug}"; its live tokens are revoked too.`);
  },
});

export const commands = [generate, list, revoke];
