import { describe, expect } from 'vitest';
import { appTest } from '../helpers.js';

// The portal's script is a build (portal/src + the UI kit ui/, `npm run build:portal`, built for the
// tests by portal-build.global.ts): /portal-assets/ serves it with the stylesheet and the icon, and
// nothing else of portal/ (its sources, the build's config).

const { it } = appTest();

describe('/portal-assets/', () => {
  it('serves the built script (with the UI kit in it), the stylesheet and the icon, cached for a minute', async ({ t }) => {
    const js = await t.app.inject({ url: '/portal-assets/portal.js' });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toMatch(/javascript/);
    expect(js.headers['cache-control']).toBe('public, max-age=60');
    // Built: no bare import of a package is left for the browser to resolve.
    expect(js.body).not.toMatch(/from\s*["'](preact|\.\.\/\.\.\/ui)/);
    // The proof-of-work solver is its own chunk, served beside it.
    const chunk = /["'](\.\/portal-pow-[\w-]+\.js)["']/.exec(js.body)?.[1];
    expect(chunk).toBeTruthy();
    expect((await t.app.inject({ url: `/portal-assets/${chunk!.slice(2)}` })).statusCode).toBe(200);
    for (const file of ['portal.css', 'favicon.svg']) expect((await t.app.inject({ url: `/portal-assets/${file}` })).statusCode).toBe(200);
  });

  it('does not serve the sources or the build config', async ({ t }) => {
    for (const file of ['src/main.js', 'vite.config.ts', 'dist/portal.js', '../package.json']) {
      expect((await t.app.inject({ url: `/portal-assets/${file}` })).statusCode, file).toBe(404);
    }
  });
});
