// src/cli/command.ts — the shape of one operator command. Each command group is a file in
// src/cli/commands/<group>.ts exporting `commands: CliCommand[]`; src/cli/index.ts lists the groups.
// A command declares its options and positionals once: the parser (args.ts), the usage line and
// the --help text are all derived from that declaration.
import type { Static, TSchema } from 'typebox';
import type { AppContext } from '../app-context.js';
import { JSON_OPTION } from './commands/options.js';
import { printJson, printTable, type TableRow } from './output.js';

/** One `--option`: what node:util parseArgs needs, plus what the help and the checks need. */
export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  default?: string | boolean;
  /** Missing is a usage error (exit 2). */
  required?: boolean;
  /** How the value reads in the usage line, e.g. `<slug>`. */
  placeholder?: string;
  help: string;
  /** The rule a value must meet (TypeBox); an integer schema gets the value as a number. */
  schema?: TSchema;
  /** How the rule reads in an error ("must be a whole number >= 60"); TypeBox's message otherwise. */
  problem?: string;
}

interface PositionalSpec {
  name: string;
  help: string;
  required?: boolean;
}

type OptionSpecs = Record<string, OptionSpec>;

type OneValue<S extends OptionSpec> = S extends { schema: infer T extends TSchema }
  ? Static<T>
  : S extends { type: 'boolean' }
    ? boolean
    : string;
type OptionValue<S extends OptionSpec> = S extends { multiple: true } ? OneValue<S>[] : OneValue<S>;

/** The parsed values of a command's options: present for required ones and ones with a default. */
type OptionValues<O extends OptionSpecs> = {
  [K in keyof O]: O[K] extends { required: true } | { default: string | boolean } ? OptionValue<O[K]> : OptionValue<O[K]> | undefined;
};

export interface CommandInput<O extends OptionSpecs = OptionSpecs> {
  values: OptionValues<O>;
  positionals: string[];
}

export interface CliCommand<O extends OptionSpecs = OptionSpecs> {
  name: string;
  summary: string;
  options: O;
  positionals?: PositionalSpec[];
  /** Returns the process exit code (0 when omitted). */
  run(ctx: AppContext, input: CommandInput<O>): Promise<number | void>;
}

/** Declares a command; `run` sees its option values typed from the declaration. */
export function defineCommand<const O extends OptionSpecs>(command: CliCommand<O>): CliCommand {
  return command as unknown as CliCommand;
}

const optionForm = (name: string, spec: OptionSpec) =>
  spec.type === 'boolean' ? `--${name}` : `--${name} ${spec.placeholder ?? '<value>'}`;

/** `name <positional> --required <value> [--optional <value>]`, in declaration order. */
export function usageOf(command: CliCommand): string {
  const parts = [command.name];
  for (const p of command.positionals ?? []) parts.push(p.required ? `<${p.name}>` : `[<${p.name}>]`);
  for (const [name, spec] of Object.entries(command.options)) {
    const form = optionForm(name, spec) + (spec.multiple ? ' ...' : '');
    parts.push(spec.required ? form : `[${form}]`);
  }
  return parts.join(' ');
}

/** The text of `taquilla help <command>` and `<command> --help`. */
export function helpOf(command: CliCommand): string {
  const rows: [string, string][] = [
    ...(command.positionals ?? []).map((p): [string, string] => [`<${p.name}>`, p.help]),
    ...Object.entries(command.options).map(([name, spec]): [string, string] => [
      (spec.short ? `-${spec.short}, ` : '') + optionForm(name, spec),
      spec.help + (spec.required ? ' (required)' : '') + (spec.default !== undefined ? ` (default ${String(spec.default)})` : ''),
    ]),
    ['-h, --help', 'this text'],
  ];
  const width = Math.max(...rows.map(([form]) => form.length));
  return [`usage: taquilla ${usageOf(command)}`, '', command.summary, '', ...rows.map(([form, text]) => `  ${form.padEnd(width)}  ${text}`)].join('\n');
}

interface ListCommand<T> {
  name: string;
  summary: string;
  /** The rows, as `--json` prints them. */
  rows(ctx: AppContext): Promise<T[]>;
  /** What the table shows of a row (the row itself when omitted). */
  table?: (row: T) => TableRow;
  /** The line printed instead of an empty table. */
  empty?: string;
}

/** A `<things>:list` command: a table of the rows, or with `--json` the rows as JSON. */
export function defineListCommand<T>(command: ListCommand<T> & { table: (row: T) => TableRow }): CliCommand;
export function defineListCommand<T extends TableRow>(command: ListCommand<T>): CliCommand;
export function defineListCommand<T>({ rows, table, empty, ...command }: ListCommand<T>): CliCommand {
  return defineCommand({
    ...command,
    options: { json: JSON_OPTION },
    async run(ctx, { values }) {
      const found = await rows(ctx);
      if (values.json) return printJson(found);
      printTable(table ? found.map(table) : (found as TableRow[]), empty);
    },
  });
}
