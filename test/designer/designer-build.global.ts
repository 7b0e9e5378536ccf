import { fileURLToPath } from 'node:url';
import { buildIfStale } from '../vite-build.js';

/** Builds the seat-map designer (designer/) once per test run when a source is newer than designer/dist. */
export default async function setup(): Promise<void> {
  await buildIfStale(fileURLToPath(new URL('../../designer/', import.meta.url)), ['designer.js', 'designer.css']);
}
