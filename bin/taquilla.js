#!/usr/bin/env node
// The `taquilla` operator command (package.json "bin"): runs src/cli/index.ts through tsx.
import { register } from 'tsx/esm/api';

register();
const { runCli } = await import('../src/cli/index.ts');
process.exitCode = await runCli(process.argv.slice(2));
