import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { productionBuild } from '../vite-build.js';

const root = fileURLToPath(new URL('../../widget/', import.meta.url));
export const WIDGET_FILE = path.join(root, 'dist/v1/widget.iife.js');

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(full));
    else newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

/** Builds the widget once per test run when its sources are newer than widget/dist (browser and route tests serve it). */
export async function buildWidgetIfStale(): Promise<void> {
  let built = 0;
  try {
    built = statSync(WIDGET_FILE).mtimeMs;
  } catch {
    built = 0;
  }
  // The widget also bundles the shared seat layout rules of src/lib and the UI kit (ui/), and its
  // config is made by the browser apps' factory (vite.browser-app.ts).
  const shared = Math.max(
    statSync(path.join(root, '../src/lib/seat-layout.ts')).mtimeMs,
    newestSource(path.join(root, '../ui')),
    statSync(path.join(root, '../vite.browser-app.ts')).mtimeMs,
  );
  const sources = Math.max(newestSource(path.join(root, 'src')), statSync(path.join(root, 'vite.config.ts')).mtimeMs, shared);
  if (built > sources) return;
  await productionBuild(path.join(root, 'vite.config.ts'));
}

export default async function setup() {
  await buildWidgetIfStale();
}
