// Part of `npm run build`, after tsc: copies what the compiled service reads next to its own files (tsc copies
// only JavaScript): the SQL of src/db/migrations (and a baseline's list of the migrations it replaces) and src/db/functions (read by dist/src/db/migrate.js)
// and the example pages of examples/ (read by dist/examples/widget-channel-server.js in development).
import fs from 'node:fs';
import path from 'node:path';
import { writePgliteTemplate } from '../src/db/pglite-template.js';

const root = path.resolve(import.meta.dirname, '..');
const copies: [string, string][] = [
  ['src/db/migrations', '.sql'],
  ['src/db/migrations', '.replaces'],
  ['src/db/functions', '.sql'],
  ['examples', '.html'],
];
for (const [dir, ext] of copies) {
  const to = path.join(root, 'dist', dir);
  // Emptied first: a file deleted from src must not live on in dist (a dropped migration, say).
  for (const old of fs.existsSync(to) ? fs.readdirSync(to) : []) if (old.endsWith(ext)) fs.rmSync(path.join(to, old));
  fs.mkdirSync(to, { recursive: true });
  for (const file of fs.readdirSync(path.join(root, dir))) {
    if (file.endsWith(ext)) fs.copyFileSync(path.join(root, dir, file), path.join(to, file));
  }
}

// The migrated template of fresh embedded databases (src/db/pglite-template.ts).
console.log(`PGlite template of fresh data folders: ${await writePgliteTemplate()}`);
