import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers.js';

// The typed client as a package a partner installs (issue 26 item 8): `npm pack` in
// clients/typescript makes a tarball with the built JavaScript and its declarations; installed in an
// empty project beside openapi-fetch (its peer dependency), it is imported by its name, type-checks,
// and talks to a running service.

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const PACKAGE_DIR = path.join(ROOT, 'clients/typescript');
let t: TestApp;
let serviceUrl: string;
let work: string;

beforeAll(async () => {
  t = await buildTestApp();
  serviceUrl = (await t.app.listen({ port: 0, host: '127.0.0.1' })).replace('localhost', '127.0.0.1');
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'taquilla-client-'));
}, 180_000);
afterAll(async () => {
  await t?.close();
  if (work) fs.rmSync(work, { recursive: true, force: true });
  // The package's build output (npm pack's prepack) is not the repository's.
  fs.rmSync(path.join(PACKAGE_DIR, 'dist'), { recursive: true, force: true });
});

describe('the typed client package (clients/typescript)', { timeout: 180_000 }, () => {
  it('packs, installs beside openapi-fetch, imports by name, type-checks and calls the service', async () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(PACKAGE_DIR, 'package.json'), 'utf8'));
    const root = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    expect(manifest.name).toBe('@taquilla/client');
    expect(manifest.version).toMatch(/^\d+\.\d+\.\d+$/);
    // The range the package asks for is the one the repository builds and tests it with.
    expect(manifest.peerDependencies['openapi-fetch']).toBe(root.dependencies['openapi-fetch']);

    // npm pack runs the package's prepack (its own tsc build) and lists what the tarball holds.
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: PACKAGE_DIR, maxBuffer: 10 * 1024 * 1024 });
    const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
    const files = packed!.files.map((f) => f.path).sort();
    expect(files).toEqual(['README.md', 'dist/index.d.ts', 'dist/index.js', 'dist/schema.d.ts', 'dist/schema.js', 'package.json']);

    // An empty project with the package and its peer installed.
    const app = path.join(work, 'app');
    const modules = path.join(app, 'node_modules');
    fs.mkdirSync(path.join(modules, '@taquilla'), { recursive: true });
    await run('tar', ['-xzf', path.join(work, packed!.filename), '-C', work]);
    fs.renameSync(path.join(work, 'package'), path.join(modules, '@taquilla/client'));
    fs.symlinkSync(path.join(ROOT, 'node_modules/openapi-fetch'), path.join(modules, 'openapi-fetch'));
    fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'partner', private: true, type: 'module' }));

    // Its types by name: a path and its answer are typed (a wrong field is an error).
    fs.writeFileSync(
      path.join(app, 'check.ts'),
      `import { createTaquillaClient, type paths } from '@taquilla/client';
const client = createTaquillaClient({ baseUrl: 'https://tickets.example', salesChannelSlug: 'demo-d', widgetKey: 'wk_demo_d' });
type Config = paths['/api/sales-channel/v1/{salesChannelSlug}/config']['get'];
export async function slug(): Promise<string> {
  const res = await client.GET('/api/sales-channel/v1/{salesChannelSlug}/config', { params: { path: { salesChannelSlug: 'demo-d' } } });
  return res.data ? res.data.data.sales_channel_slug : '';
}
export type { Config };
`,
    );
    fs.writeFileSync(
      path.join(app, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, lib: ['ES2023', 'DOM'], types: [] }, files: ['check.ts'] }),
    );
    await run(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: app });

    // And at run time, by name, against the service.
    fs.writeFileSync(
      path.join(app, 'run.mjs'),
      `import { createTaquillaClient } from '@taquilla/client';
const client = createTaquillaClient({ baseUrl: process.argv[2], salesChannelSlug: 'demo-d', widgetKey: 'wk_demo_d', clientId: 'package-test' });
const res = await client.GET('/api/sales-channel/v1/{salesChannelSlug}/config', { params: { path: { salesChannelSlug: 'demo-d' } } });
console.log(JSON.stringify({ status: res.response.status, slug: res.data?.data.sales_channel_slug, mode: res.data?.data.integration_mode }));
`,
    );
    const out = await run(process.execPath, ['run.mjs', serviceUrl], { cwd: app });
    expect(JSON.parse(out.stdout)).toEqual({ status: 200, slug: 'demo-d', mode: 'widget_external_payment' });
  });
});
