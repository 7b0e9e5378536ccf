import { fileURLToPath } from 'node:url';
import { buildIfStale } from '../vite-build.js';

/** Builds the scanner (checkin/) once per test run when a source is newer than checkin/dist. */
export default async function setup(): Promise<void> {
  await buildIfStale(fileURLToPath(new URL('../../checkin/', import.meta.url)), ['sw.js']);
}
