import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const root = fileURLToPath(new URL('../../designer/', import.meta.url));

/** Builds the seat-map designer (designer/) once per test run when a source is newer than designer/dist. */
export default async function setup(): Promise<void> {
  const sources = readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && !path.join(e.parentPath, e.name).startsWith(path.join(root, 'dist')))
    .map((e) => statSync(path.join(e.parentPath, e.name)).mtimeMs);
  let built = 0;
  try {
    built = Math.min(statSync(path.join(root, 'dist/designer.js')).mtimeMs, statSync(path.join(root, 'dist/designer.css')).mtimeMs);
  } catch {
    built = 0;
  }
  if (built > Math.max(...sources)) return;
  await build({ configFile: path.join(root, 'vite.config.ts'), mode: 'production', logLevel: 'warn' });
}
