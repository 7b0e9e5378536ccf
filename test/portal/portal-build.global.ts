import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { productionBuild } from '../vite-build.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The newest modification time of the files under `dir`. */
const newest = (dir: string) =>
  Math.max(0, ...readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => statSync(path.join(e.parentPath, e.name)).mtimeMs));

/** Builds the portal's script (portal/src, the UI kit ui/, its Vite config and the browser apps' factory vite.browser-app.ts) once per test run when a source is newer than portal/dist/portal.js. */
export default async function setup(): Promise<void> {
  let built = 0;
  try {
    built = statSync(path.join(root, 'portal/dist/portal.js')).mtimeMs;
  } catch {
    built = 0;
  }
  const sources = Math.max(
    newest(path.join(root, 'portal/src')),
    newest(path.join(root, 'ui')),
    statSync(path.join(root, 'portal/vite.config.ts')).mtimeMs,
    statSync(path.join(root, 'vite.browser-app.ts')).mtimeMs,
  );
  if (built > sources) return;
  await productionBuild(path.join(root, 'portal/vite.config.ts'));
}
