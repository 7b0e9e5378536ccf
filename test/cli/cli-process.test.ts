import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { runNode, runTsx } from '../process.js';

// The operator command as a real process, on a fresh embedded database in DATA_DIR.
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'taquilla-cli-'));
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

it('tsx src/cli/index.ts and bin/taquilla.js run commands against DATA_DIR, with exit codes', async () => {
  const load = await runTsx('src/cli/index.ts', ['demo:load'], { DATA_DIR: dataDir });
  expect(load.stderr).toContain('applied migration 0340_baseline.sql');
  expect(load.stdout).toContain('Demo catalogue loaded');
  expect(load.code).toBe(0);

  const list = await runNode(['bin/taquilla.js', 'channels:list', '--json'], { DATA_DIR: dataDir });
  expect(list.code).toBe(0);
  expect(list.stderr).toBe('');
  expect(JSON.parse(list.stdout).map((c: { slug: string }) => c.slug)).toEqual(['demo-a', 'demo-b', 'demo-c', 'demo-d']);

  const unknown = await runTsx('src/cli/index.ts', ['keys:list', '--channel', 'nope'], { DATA_DIR: dataDir });
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toContain('Sales channel "nope" not found');

  const badConfig = await runTsx('src/cli/index.ts', ['channels:list'], { DATA_DIR: dataDir, DB_POOL_SIZE: 'many' });
  expect(badConfig.code).toBe(3);
  expect(badConfig.stderr).toContain('DB_POOL_SIZE must be a whole number');
}, 300_000);
