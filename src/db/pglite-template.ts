import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { PROJECT_ROOT } from '../lib/project-root.js';
import { openDatabase } from './client.js';
import { migrate, MIGRATIONS_DIR, sqlFiles } from './migrate.js';

// A fresh embedded database spends most of its first start in initdb (seconds). `npm run build`
// therefore makes one migrated data folder and keeps its dump; a service starting on an empty
// DATA_DIR loads that dump instead (PGlite's loadDataDir), and its start-up migration then applies
// only what is newer than the build. The dump is tied to the PGlite version that wrote it.

// Not compressed: 40 MB on disk, but a fresh start skips half a second of gunzip.
const TEMPLATE_FILE = path.join(PROJECT_ROOT, 'dist', 'pglite-template.tar');
const VERSION_FILE = `${TEMPLATE_FILE}.version`;

/** The installed PGlite's version: a dump of another version's data folder must not be loaded. */
function pgliteVersion(): string {
  let dir = path.dirname(fileURLToPath(import.meta.resolve('@electric-sql/pglite')));
  for (;;) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) {
      const pkg = JSON.parse(fs.readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === '@electric-sql/pglite') return pkg.version ?? 'unknown';
    }
    if (path.dirname(dir) === dir) return 'unknown';
    dir = path.dirname(dir);
  }
}

/**
 * Writes the dump (a plain tar) of a freshly migrated PGlite data folder to `file`: the build's
 * template, and the test suite's starting point.
 */
export async function dumpMigratedPglite(file: string): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'taquilla-pglite-'));
  try {
    const dataDir = path.join(dir, 'data');
    const database = await openDatabase({ pgliteDir: dataDir, owner: 'build' });
    await migrate(database);
    await database.close();
    // Reopened bare only to dump it: the Database wrapper does not expose its PGlite client.
    const migrated = await PGlite.create(dataDir);
    const dump = await migrated.dumpDataDir('none');
    await migrated.close();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `npm run build`: the template of fresh data folders, with the PGlite version that wrote it; kept
 * when it is newer than every migration and of this PGlite version (a rebuild of the code only).
 */
export async function writePgliteTemplate(): Promise<'written' | 'up to date'> {
  const version = pgliteVersion();
  const newestMigration = Math.max(...sqlFiles(MIGRATIONS_DIR).map((f) => fs.statSync(path.join(MIGRATIONS_DIR, f)).mtimeMs));
  const current =
    fs.existsSync(TEMPLATE_FILE) &&
    fs.existsSync(VERSION_FILE) &&
    fs.readFileSync(VERSION_FILE, 'utf8') === version &&
    fs.statSync(TEMPLATE_FILE).mtimeMs > newestMigration;
  if (current) return 'up to date';
  await dumpMigratedPglite(TEMPLATE_FILE);
  fs.writeFileSync(VERSION_FILE, version);
  return 'written';
}

/**
 * The build's template for an embedded database folder that holds no database yet; undefined when
 * the folder has one, when there is no template (no build), or when it was written by another
 * PGlite version (then PGlite runs initdb as before).
 */
export function pgliteTemplateFor(pgliteDir: string): Blob | undefined {
  if (fs.existsSync(path.join(pgliteDir, 'PG_VERSION'))) return undefined;
  if (!fs.existsSync(TEMPLATE_FILE) || !fs.existsSync(VERSION_FILE)) return undefined;
  if (fs.readFileSync(VERSION_FILE, 'utf8') !== pgliteVersion()) return undefined;
  return new Blob([fs.readFileSync(TEMPLATE_FILE)]);
}
