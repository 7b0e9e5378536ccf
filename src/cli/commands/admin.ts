import type { Readable } from 'node:stream';
import { randomBase62 } from '../../lib/secrets.js';
import { CLI_ACTOR } from '../../platform/actor.js';
import { createApiToken, createUser } from '../../modules/admin/accounts.service.js';
import { UsageError } from '../args.js';
import { defineCommand } from '../command.js';
import { idOption } from './options.js';

// Back-office accounts from the operator command line: the first admin is created here.

/** The first line of a stream (the password of --password-stdin), without its line ending. */
async function readFirstLine(stream: Readable): Promise<string> {
  let text = '';
  for await (const chunk of stream) {
    text += chunk.toString();
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0] ?? '';
}

/** Where --password-stdin reads from; tests swap it. */
export const io = { stdin: process.stdin as Readable };

const EMAIL_OPTION = { type: 'string', required: true, placeholder: '<email>', help: "the account's e-mail address" } as const;
const PASSWORD = { type: 'string', placeholder: '<password>', help: 'the password (at least 12 characters); visible in the process list' } as const;
const PASSWORD_STDIN = { type: 'boolean', help: 'read the password from the first line of stdin' } as const;

const passwordFrom = async (values: { password?: string; 'password-stdin'?: boolean }): Promise<string | undefined> =>
  values['password-stdin'] ? readFirstLine(io.stdin) : values.password;

const adminCreate = defineCommand({
  name: 'admin:create',
  summary: 'Create an admin account for the dashboard and the admin API (give --password or --password-stdin)',
  options: { email: EMAIL_OPTION, password: PASSWORD, 'password-stdin': PASSWORD_STDIN },
  async run(ctx, { values }) {
    const password = await passwordFrom(values);
    if (!password) throw new UsageError('--password or --password-stdin is required (at least 12 characters)');
    const user = await createUser(ctx, CLI_ACTOR, { email: values.email, password, role: 'admin' });
    console.log(`admin ${user.email} created (id ${user.id})`);
  },
});

const promoterCreate = defineCommand({
  name: 'promoter:create',
  summary: "Create a promoter account limited to one organiser's data (without a password, one is generated and shown once)",
  options: {
    email: EMAIL_OPTION,
    'organiser-id': idOption('the organiser whose data it sees'),
    password: PASSWORD,
    'password-stdin': PASSWORD_STDIN,
  },
  async run(ctx, { values }) {
    const given = await passwordFrom(values);
    // Without a password, one is generated and shown once: hand it to the promoter securely.
    const password = given || randomBase62(20);
    const user = await createUser(ctx, CLI_ACTOR, { email: values.email, password, role: 'promoter', organiserId: values['organiser-id'] });
    console.log(`promoter ${user.email} created (id ${user.id}, organiser ${user.organiser_id})`);
    if (!given) console.log(`password (shown once): ${password}`);
  },
});

const adminToken = defineCommand({
  name: 'admin:token',
  summary: 'Issue an admin API token for a user (printed once)',
  options: {
    email: { ...EMAIL_OPTION, help: 'the e-mail address of the account it acts as' },
    name: { type: 'string', required: true, placeholder: '<what it is for>', help: 'what the token is for (shown in the audit log)' },
  },
  async run(ctx, { values }) {
    const issued = await createApiToken(ctx, CLI_ACTOR, { email: values.email, name: values.name });
    console.log(issued.token);
    console.error(`admin API token "${issued.name}" for ${issued.user_email}: shown once, store it now`);
  },
});

export const commands = [adminCreate, promoterCreate, adminToken];
