import { defineConfig, type Plugin } from 'vite';
import { browserApp } from '../vite.browser-app.js';

/**
 * Vite wraps every dynamic import in its preload helper (about 0.5 KB of the script, gzip), which
 * fetches a chunk's stylesheets and imports ahead of it. The portal's chunks (the solver, the compact
 * map) have neither, and module preloading is off: the helper is reduced to loading the chunk.
 */
const noPreloadHelper: Plugin = {
  name: 'portal:no-preload-helper',
  enforce: 'pre',
  load: (id) => (id === '\0vite/preload-helper.js' ? { code: 'export const __vitePreload = (load) => load();', moduleSideEffects: false } : null),
};

/**
 * The portal's script: its entry (portal/src/main.js) and the UI kit it uses (ui/: formats, texts,
 * proof of work, waiting room, components), bundled into one ES module with a fixed name, portal/dist/portal.js (and the solver's chunk),
 * which the pages load as /portal-assets/portal.js (src/modules/portal/pages/portal.pages.tsx).
 * Preact goes in only with the components that need it.
 */
export default defineConfig(
  browserApp(
    import.meta.url,
    {
      plugins: [noPreloadHelper],
      build: {
        target: 'es2020',
        // The proof-of-work solver is a chunk of its own (portal-pow-<hash>.js), loaded only by a session
        // whose waiting room asks for it.
        modulePreload: false,
        rollupOptions: { output: { format: 'es', entryFileNames: 'portal.js', chunkFileNames: 'portal-[name]-[hash].js' } },
      },
    },
    'src/main.js',
  ),
);
