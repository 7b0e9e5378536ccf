import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The project's folder (the one with package.json), found from this file, whether it runs as
 * TypeScript from src/ (tsx: development, tests) or compiled from dist/src/ (`npm start`): files
 * that are built or kept outside src (the widget bundle, the portal's assets) are read from here.
 */
function findProjectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('package.json not found above src/lib/project-root');
    dir = parent;
  }
  return dir;
}

export const PROJECT_ROOT = findProjectRoot();
