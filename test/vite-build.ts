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
  // Every app's config is made by the browser apps' factory at the top of the repository.
  const factory = statSync(path.join(root, '..', 'vite.browser-app.ts')).mtimeMs;
  if (built > Math.max(...sources, factory)) return;
  await productionBuild(path.join(root, 'vite.config.ts'));
}

/**
 * `vite build` of one config as `npm run build` makes it. Vite takes NODE_ENV over the mode, and
 * vitest sets it to "test": built under it, the widget came out 102.9 KB instead of 90.1 KB, so
 * the browser tests would test another bundle than the one served in production.
 */
export async function productionBuild(configFile: string): Promise<void> {
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({ configFile, mode: 'production', logLevel: 'warn' });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
}
