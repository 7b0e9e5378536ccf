import { parseArgs } from 'node:util';
import { Type, type TSchema } from 'typebox';
import { schemaErrors, type FieldErrors } from '../http/errors.js';
import type { CliCommand, CommandInput, OptionSpec } from './command.js';

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
  constructor(
    message: string,
    /** The same mistakes as field errors keyed by option (`--cart-ttl`), the envelope's shape. */
    readonly fields?: FieldErrors,
  ) {
    super(message);
  }
}

/** Every command takes --help (-h); it is not declared by each. */
const HELP_OPTION = { help: { type: 'boolean', short: 'h' } } as const;

/** parseArgs' own messages name Node's conventions; ours say what to fix in the operator's terms. */
function usageErrorOf(err: Error & { code?: string }): UsageError {
  const quoted = /'([^']+)'/.exec(err.message)?.[1] ?? '';
  const option = quoted.split(' ')[0];
  switch (err.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return new UsageError(`unknown option ${option}`);
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return new UsageError(`unexpected argument "${quoted}"`);
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return new UsageError(/does not take an argument/.test(err.message) ? `${option} takes no value` : `${option} needs a value`);
    default:
      return new UsageError(err.message);
  }
}

/**
 * A value as its schema's type: a whole number for an integer schema (digits only: "1.5" and
 * "1e3" stay strings and fail the check), the string otherwise.
 */
function typed(spec: OptionSpec, raw: string): unknown {
  return (spec.schema as { type?: string } | undefined)?.type === 'integer' && /^\d+$/.test(raw) ? Number(raw) : raw;
}

/** The option values against their declared schemas (TypeBox), as field errors keyed by option. */
function checkValues(options: Record<string, OptionSpec>, values: Record<string, unknown>): FieldErrors | null {
  const fields: FieldErrors = {};
  for (const [name, spec] of Object.entries(options)) {
    const value = values[name];
    if (value === undefined || !spec.schema) continue;
    const schema: TSchema = spec.multiple ? Type.Array(spec.schema) : spec.schema;
    const errors = schemaErrors(schema, value, name);
    if (!errors) continue;
    const shown = Array.isArray(value) ? value.join(', ') : String(value);
    fields[`--${name}`] = [`${spec.problem ?? Object.values(errors).flat()[0]} (got "${shown}")`];
  }
  return Object.keys(fields).length ? fields : null;
}

/**
 * Parses a command's argv (after the command name) with node:util parseArgs, strict: an unknown
 * option, a missing value, a value given to a flag or an unexpected argument is a UsageError.
 * Then the declaration's rules: required options and positionals, no empty values, the schemas.
 */
export function parseCommandLine(command: CliCommand, argv: string[]): { help: boolean; input: CommandInput } {
  // parseArgs refuses keys set to undefined: pass only what the declaration gives.
  const declared = Object.fromEntries(
    Object.entries(command.options).map(([name, { type, short, multiple, default: fallback }]) => [
      name,
      { type, ...(short === undefined ? {} : { short }), ...(multiple ? { multiple } : {}), ...(fallback === undefined ? {} : { default: fallback }) },
    ]),
  );
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      options: { ...declared, ...HELP_OPTION },
      allowPositionals: (command.positionals ?? []).length > 0,
      strict: true,
    });
  } catch (err) {
    throw usageErrorOf(err as Error & { code?: string });
  }
  const { help, ...raw } = parsed.values as Record<string, string | boolean | (string | boolean)[] | undefined>;
  if (help) return { help: true, input: { values: {}, positionals: [] } };

  const declaredPositionals = command.positionals ?? [];
  const positionals = parsed.positionals;
  if (positionals.length > declaredPositionals.length) {
    throw new UsageError(`${command.name} takes ${declaredPositionals.map((p) => `<${p.name}>`).join(' ')}, not ${positionals.length} arguments`);
  }
  const missingPositional = declaredPositionals.slice(positionals.length).find((p) => p.required);
  if (missingPositional) throw new UsageError(`<${missingPositional.name}> is required`);

  const values: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(command.options)) {
    const value = raw[name];
    if (value === undefined) {
      if (spec.required) throw new UsageError(`--${name} is required`);
      continue;
    }
    if (spec.type === 'string' && [value].flat().some((v) => v === '')) throw new UsageError(`--${name} needs a value`);
    values[name] = Array.isArray(value) ? value.map((v) => typed(spec, String(v))) : typeof value === 'string' ? typed(spec, value) : value;
  }
  const problems = checkValues(command.options, values);
  if (problems) {
    throw new UsageError(Object.entries(problems).map(([option, texts]) => `${option} ${texts.join('; ')}`).join('\n'), problems);
  }
  return { help: false, input: { values: values as CommandInput['values'], positionals } };
}
