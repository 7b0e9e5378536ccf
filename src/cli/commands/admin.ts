import type { Readable } from 'node:stream';
import type { AppContext } from '../../app-context.js';
import { AppError } from '../../http/errors.js';
import { randomBase62 } from '../../lib/secrets.js';
import { CLI_ACTOR } from '../../platform/actor.js';
import { createApiToken, createUser } from '../../modules/admin/accounts.service.js';
import type { CliArgs, CliCommand } from '../command.js';

// Back-office accounts from the operator command line: the first admin is created here.

/** The first line of a stream (the password of --password-stdin), without its line ending. */
export async function readFirstLine(stream: Readable): Promise<string> {
  let text = '';
  for await (const chunk of stream) {
    text += chunk.toString();
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0] ?? '';
}

/** Where --password-stdin reads from; tests swap it. */
export const io = { stdin: process.stdin as Readable };

function flag(args: CliArgs, name: string): string | undefined {
  const value = args.flags[name];
  return typeof value === 'string' ? value : undefined;
}

function fail(message: string): number {
  console.error(message);
  return 2;
}

/** Prints an AppError as a one-line message with its field errors; other errors propagate. */
function report(err: unknown): number {
  if (!(err instanceof AppError)) throw err;
  const fields = Object.entries(err.fields ?? {}).map(([f, texts]) => `${f} ${texts.join(', ')}`);
  console.error([err.message, ...fields].join('; '));
  return 1;
}

async function passwordFrom(args: CliArgs): Promise<string | undefined> {
  if (args.flags['password-stdin']) return readFirstLine(io.stdin);
  return flag(args, 'password');
}

export const commands: CliCommand[] = [
  {
    name: 'admin:create',
    summary: 'Create an admin account for the dashboard and the admin API',
    usage: 'admin:create --email <email> (--password <password> | --password-stdin)',
    async run(ctx: AppContext, args: CliArgs) {
      const email = flag(args, 'email');
      if (!email) return fail('--email is required');
      const password = await passwordFrom(args);
      if (!password) return fail('--password or --password-stdin is required (at least 12 characters)');
      try {
        const user = await createUser(ctx, CLI_ACTOR, { email, password, role: 'admin' });
        console.log(`admin ${user.email} created (id ${user.id})`);
      } catch (err) {
        return report(err);
      }
    },
  },
  {
    name: 'promoter:create',
    summary: "Create a promoter account limited to one organiser's data",
    usage: 'promoter:create --email <email> --organiser-id <id> [--password <password> | --password-stdin]',
    async run(ctx: AppContext, args: CliArgs) {
      const email = flag(args, 'email');
      const organiser = flag(args, 'organiser-id');
      if (!email) return fail('--email is required');
      if (!organiser || !/^\d+$/.test(organiser)) return fail('--organiser-id must be the id of an organiser');
      const given = await passwordFrom(args);
      // Without a password, one is generated and shown once: hand it to the promoter securely.
      const password = given || randomBase62(20);
      try {
        const user = await createUser(ctx, CLI_ACTOR, { email, password, role: 'promoter', organiserId: Number(organiser) });
        console.log(`promoter ${user.email} created (id ${user.id}, organiser ${user.organiser_id})`);
        if (!given) console.log(`password (shown once): ${password}`);
      } catch (err) {
        return report(err);
      }
    },
  },
  {
    name: 'admin:token',
    summary: 'Issue an admin API token for a user (printed once)',
    usage: 'admin:token --email <email> --name <what it is for>',
    async run(ctx: AppContext, args: CliArgs) {
      const email = flag(args, 'email');
      const name = flag(args, 'name');
      if (!email || !name) return fail('--email and --name are required');
      try {
        const issued = await createApiToken(ctx, CLI_ACTOR, { email, name });
        console.log(issued.token);
        console.error(`admin API token "${issued.name}" for ${issued.user_email}: shown once, store it now`);
      } catch (err) {
        return report(err);
      }
    },
  },
];
