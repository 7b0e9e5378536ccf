import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { build } from 'vite';

/**
 * Builds the Vite project at `root` (its vite.config.ts, production) when a source file is newer
 * than the oldest of `outputs` (paths under root/dist) or one of them is missing: what the global
 * setups of the scanner and the designer do once per test run.
 */
export async function buildIfStale(root: string, outputs: string[]): Promise<void> {
  const sources = readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && !path.join(e.parentPath, e.name).startsWith(path.join(root, 'dist')))
    .map((e) => statSync(path.join(e.parentPath, e.name)).mtimeMs);
  let built = 0;
  try {
    built = Math.min(...outputs.map((o) => statSync(path.join(root, 'dist', o)).mtimeMs));
  } catch {
    built = 0;
  }
  if (built > Math.max(...sources)) return;
  await build({ configFile: path.join(root, 'vite.config.ts'), mode: 'production', logLevel: 'warn' });
}
