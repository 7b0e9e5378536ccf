// src/cli/command.ts — the shape of one operator command. Each command group is a file in
// src/cli/commands/<group>.ts exporting `commands: CliCommand[]`; src/cli/index.ts lists the groups.
import type { AppContext } from '../app-context.js';

export interface CliArgs {
  positional: string[];
  flags: Record<string, string | boolean>;
}

export interface CliCommand {
  name: string;
  summary: string;
  usage: string;
  /** Returns the process exit code (0 when omitted). */
  run(ctx: AppContext, args: CliArgs): Promise<number | void>;
}
