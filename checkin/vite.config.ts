import crypto from 'node:crypto';
import { defineConfig, type Plugin } from 'vite';
import { browserApp } from '../vite.browser-app.js';
import { ICON_SIZES, icon, manifest } from './build-assets.js';

/**
 * Adds the manifest and icons, then writes the list of the app shell and a version (a hash of the
 * whole build) into the service worker, which must not be content-hashed: its address is fixed.
 */
function appShell(): Plugin {
  return {
    name: 'checkin-app-shell',
    generateBundle(_options, bundle) {
      this.emitFile({ type: 'asset', fileName: 'manifest.webmanifest', source: manifest() });
      for (const size of ICON_SIZES) this.emitFile({ type: 'asset', fileName: `icon-${size}.png`, source: icon(size) });
      const sw = bundle['sw.js'];
      if (!sw || sw.type !== 'chunk') throw new Error('checkin: no sw.js chunk');
      const files = Object.keys(bundle).filter((f) => f !== 'sw.js' && f !== 'index.html').sort();
      const hash = crypto.createHash('sha256');
      for (const f of files) {
        const item = bundle[f]!;
        hash.update(f).update(item.type === 'chunk' ? item.code : item.source);
      }
      const shell = ['/checkin/', ...files.map((f) => `/checkin/${f}`)];
      sw.code = sw.code
        .replace(/["']__CHECKIN_SHELL__["']/, shell.map((s) => JSON.stringify(s)).join(','))
        .replace('__CHECKIN_VERSION__', hash.digest('hex').slice(0, 16));
    },
  };
}

/** The scanner at /checkin: a page, its module script and style, the service worker at /checkin/sw.js. */
export default defineConfig(
  browserApp(
    import.meta.url,
    {
      base: '/checkin/',
      plugins: [appShell()],
      build: {
        // WebCrypto Ed25519 needs Chromium 137+, Safari 17+, Firefox 129+ anyway.
        target: 'es2022',
        rollupOptions: { output: { entryFileNames: (chunk) => (chunk.name === 'sw' ? 'sw.js' : 'assets/[name]-[hash].js') } },
      },
    },
    { index: 'index.html', sw: 'src/sw.ts' },
  ),
);
