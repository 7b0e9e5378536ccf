import fs from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../http/errors.js';
import { importCatalogue } from '../../modules/catalogue/import.service.js';
import { defineCommand } from '../command.js';
import { printJson, printTable } from '../output.js';

/** Reads and parses a JSON file; a missing file or bad JSON is an operation failure, not a usage error. */
async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    throw new AppError('not_found.file', { file, reason: (err as NodeJS.ErrnoException).code ?? (err as Error).message });
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new AppError('bad_request.not_json', { file, reason: (err as Error).message });
  }
}

const importCommand = defineCommand({
  name: 'catalogue:import',
  summary: 'Import venues, maps, events, sessions, rates, fees, vouchers and channels from a JSON file (docs/catalogue-import.md)',
  positionals: [{ name: 'file.json', required: true, help: 'the catalogue document' }],
  options: { json: { type: 'boolean', help: 'print the summary as JSON instead of a table' } },
  async run(ctx, { values, positionals }) {
    const file = path.resolve(positionals[0]!);
    const summary = await importCatalogue(ctx, await readJson(file));
    if (values.json) return printJson(summary);
    console.log(`Imported ${path.basename(file)} in one transaction:`);
    // One row per kind: how many the document has, and what the import did with them (issue 29).
    const { created, updated, unchanged } = summary.changes;
    printTable(
      (Object.keys(created) as (keyof typeof created)[]).map((what) => ({ what, count: summary[what], created: created[what], updated: updated[what], unchanged: unchanged[what] })),
    );
    console.log(`seats in the plans: ${summary.seats}`);
    if (summary.sessions_moved > 0) console.log(`sessions moved onto a venue's new layout version: ${summary.sessions_moved}`);
    if (summary.channels > 0) console.log('Channels without fixed widget_keys need one: taquilla keys:generate --channel <slug>');
  },
});

export const commands = [importCommand];
