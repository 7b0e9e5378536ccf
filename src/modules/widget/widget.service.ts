import crypto from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { PROJECT_ROOT } from '../../lib/project-root.js';

/** Where `npm run build:widget` writes the script. */
export const WIDGET_DIST = path.join(PROJECT_ROOT, 'widget/dist/v1/widget.iife.js');

export interface WidgetBundle {
  code: Buffer;
  /** Short content hash: the versioned file name and the `x-widget-build` header. */
  hash: string;
  /** Strong ETag over the bytes. */
  etag: string;
  /** Subresource Integrity value of the bytes (`sha384-<base64>`), for `<script integrity>`. */
  integrity: string;
  mtimeMs: number;
}

let cached: { path: string; bundle: WidgetBundle } | null = null;

/**
 * The built widget, read once and kept in memory; re-read when the file changes on disk (a rebuild
 * during development). Null when the widget has not been built.
 */
export async function loadWidgetBundle(path: string): Promise<WidgetBundle | null> {
  let info;
  try {
    info = await stat(path);
  } catch {
    return null;
  }
  if (cached && cached.path === path && cached.bundle.mtimeMs === info.mtimeMs) return cached.bundle;
  const code = await readFile(path);
  const digest = crypto.createHash('sha256').update(code).digest('hex');
  const integrity = `sha384-${crypto.createHash('sha384').update(code).digest('base64')}`;
  const bundle = { code, hash: digest.slice(0, 12), etag: `"${digest.slice(0, 32)}"`, integrity, mtimeMs: info.mtimeMs };
  cached = { path, bundle };
  return bundle;
}
