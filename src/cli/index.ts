import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../config.js';
import { DataDirBusyError } from '../db/data-dir-lock.js';
import { AppError } from '../http/errors.js';
import { EXIT, UsageError, parseCommandLine } from './args.js';
import { helpOf, usageOf, type CliCommand, type CommandInput } from './command.js';
import { openCliContext, type CliContext } from './context.js';
import { commands as admin } from './commands/admin.js';
import { commands as catalogue } from './commands/catalogue.js';
import { commands as channels } from './commands/channels.js';
import { commands as db } from './commands/db.js';
import { commands as keys } from './commands/keys.js';
import { commands as orders } from './commands/orders.js';
import { commands as checkin } from './commands/checkin.js';
import { commands as privacy } from './commands/privacy.js';
import { commands as venues } from './commands/venues.js';

/** Every command group; a new group is one import above and one entry here. */
export const COMMAND_GROUPS: CliCommand[][] = [channels, keys, catalogue, venues, orders, admin, db, checkin, privacy];

export const COMMANDS: CliCommand[] = COMMAND_GROUPS.flat();

function printHelp(): void {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  console.log('Taquilla operator command line. Usage: taquilla <command> [options]  (or npm run cli -- <command>)\n');
  for (const c of COMMANDS) console.log(`  ${c.name.padEnd(width)}  ${c.summary}`);
  console.log(`  ${'help'.padEnd(width)}  This list; "help <command>" shows a command's options`);
  console.log('\nThe database is the service\'s own: DATABASE_URL, or the embedded PGlite in DATA_DIR (default ./data).');
  console.log('An embedded DATA_DIR has one owner at a time: run commands before npm start, or use the admin API while it runs.');
  console.log('Exit codes: 0 done, 1 refused or failed, 2 wrong command line, 3 bad configuration or database unavailable.');
}

function reportError(err: unknown): number {
  if (err instanceof UsageError) {
    console.error(`error: ${err.message}`);
    return EXIT.usage;
  }
  if (err instanceof ConfigError) {
    console.error(`Configuration error: ${err.message}`);
    return EXIT.environment;
  }
  if (err instanceof AppError) {
    console.error(`error: ${err.message}`);
    for (const [field, messages] of Object.entries(err.fields ?? {})) console.error(`  ${field}: ${messages.join('; ')}`);
    return EXIT.failed;
  }
  console.error(`error: ${(err as Error)?.message ?? String(err)}`);
  return EXIT.failed;
}

/**
 * Runs one command line and returns the exit code. `open` builds the context (the service's
 * configuration and database); commands that need none (help) never open it.
 */
export async function runCli(argv: string[], open: () => Promise<CliContext> = () => openCliContext()): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    const about = name === 'help' && rest[0] ? COMMANDS.find((c) => c.name === rest[0]) : undefined;
    if (about) console.log(helpOf(about));
    else printHelp();
    return EXIT.ok;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    console.error(`error: unknown command "${name}"; "taquilla help" lists the commands`);
    return EXIT.usage;
  }
  // The command line is checked before the database is opened: a typo costs nothing.
  let input: CommandInput;
  try {
    const parsed = parseCommandLine(command, rest);
    if (parsed.help) {
      console.log(helpOf(command));
      return EXIT.ok;
    }
    input = parsed.input;
  } catch (err) {
    const code = reportError(err);
    console.error(`usage: taquilla ${usageOf(command)}`);
    return code;
  }

  let cli: CliContext;
  try {
    cli = await open();
  } catch (err) {
    if (err instanceof ConfigError) return reportError(err);
    if (err instanceof DataDirBusyError) {
      console.error(`error: ${err.message}`);
      return EXIT.environment;
    }
    console.error(`error: cannot open the database: ${(err as Error).message}`);
    return EXIT.environment;
  }
  try {
    for (const file of cli.appliedNow) console.error(`applied migration ${file}`);
    return (await command.run(cli.ctx, input)) ?? EXIT.ok;
  } catch (err) {
    const code = reportError(err);
    if (err instanceof UsageError) console.error(`usage: taquilla ${usageOf(command)}`);
    return code;
  } finally {
    await cli.close().catch(() => {});
  }
}

// Run when started as a program (tsx src/cli/index.ts); bin/taquilla.js calls runCli itself.
const entry = process.argv[1] && fs.realpathSync(process.argv[1]);
if (entry === fileURLToPath(import.meta.url)) {
  process.exitCode = await runCli(process.argv.slice(2));
}
