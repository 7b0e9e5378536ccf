import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** What `npm start` runs (scripts/bundle-server.ts). */
export const SERVER_BUNDLE = path.join(ROOT, 'dist/server.mjs');

function newest(file: string): number {
  const stat = statSync(file);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(file).map((name) => newest(path.join(file, name))));
}

/**
 * Builds the service once per test run when its sources are newer than the bundle: the tests that
 * run the program as `npm start` does (test/server/npm-start-signals, test/fleet) use the build.
 */
export default function setup() {
  let built = 0;
  try {
    built = statSync(SERVER_BUNDLE).mtimeMs;
  } catch {
    built = 0;
  }
  const sources = ['src', 'examples', 'scripts', 'package.json', 'tsconfig.json', 'tsconfig.build.json'].map((f) => newest(path.join(ROOT, f)));
  if (built > Math.max(...sources)) return;
  execFileSync('npm', ['run', 'build:server'], { cwd: ROOT, stdio: 'pipe' });
}
