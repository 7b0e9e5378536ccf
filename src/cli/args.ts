import type { CliArgs } from './command.js';

/** Exit codes of the operator command line (docs/operations.md). */
export const EXIT = {
  ok: 0,
  /** The operation was refused or failed: not found, conflict, invalid data, demo in production. */
  failed: 1,
  /** The command line itself is wrong: unknown command, missing or malformed option. */
  usage: 2,
  /** The configuration is invalid or the database cannot be opened (or a running service owns DATA_DIR, D48). */
  environment: 3,
} as const;

/** A mistake in the command line; the runner prints it with the command's usage and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/**
 * Splits argv into the command name, positional arguments and flags. Accepts `--flag value`,
 * `--flag=value` and bare `--flag` (true). A value never starts with `--`.
 */
export function parseArgv(argv: string[]): { command: string | undefined; args: CliArgs } {
  const positional: string[] = [];
  const flags: Record<string, string | boolean> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg.startsWith('--') && arg.length > 2) {
      const eq = arg.indexOf('=');
      if (eq > 0) {
        flags[arg.slice(2, eq)] = arg.slice(eq + 1);
      } else {
        const next = argv[i + 1];
        if (next !== undefined && !next.startsWith('--')) {
          flags[arg.slice(2)] = next;
          i++;
        } else {
          flags[arg.slice(2)] = true;
        }
      }
    } else {
      positional.push(arg);
    }
  }
  const [command, ...rest] = positional;
  return { command, args: { positional: rest, flags } };
}

/** A flag that must carry a value. */
export function requireFlag(args: CliArgs, name: string): string {
  const value = args.flags[name];
  if (value === undefined) throw new UsageError(`--${name} is required`);
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} needs a value`);
  return value;
}

/** A flag that may be absent; present without a value is a mistake. */
export function optionalFlag(args: CliArgs, name: string): string | undefined {
  const value = args.flags[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} needs a value`);
  return value;
}

/** A whole-number flag value (at least `min`). */
export function intValue(name: string, raw: string, min = 1): number {
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > 2_147_483_647) {
    throw new UsageError(`--${name} must be a whole number >= ${min} (got "${raw}")`);
  }
  return Number(raw);
}

/** Flags this command does not know are mistakes (a typo must not be ignored silently). */
export function rejectUnknownFlags(args: CliArgs, known: string[]): void {
  const unknown = Object.keys(args.flags).filter((f) => !known.includes(f));
  if (unknown.length) throw new UsageError(`unknown option ${unknown.map((f) => `--${f}`).join(', ')}`);
}
