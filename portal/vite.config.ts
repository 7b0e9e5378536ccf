import { defineConfig } from 'vite';
import { browserApp } from '../vite.browser-app.js';

/**
 * The portal's script: its entry (portal/src/main.js) and the UI kit it uses (ui/: formats, texts,
 * proof of work, components), bundled into one ES module with a fixed name, portal/dist/portal.js (and the solver's chunk),
 * which the pages load as /portal-assets/portal.js (src/modules/portal/pages/portal.pages.tsx).
 * Preact goes in only with the components that need it.
 */
export default defineConfig(
  browserApp(
    import.meta.url,
    {
      build: {
        target: 'es2020',
        // The proof-of-work solver is a chunk of its own (portal-pow-<hash>.js), loaded only by a session
        // whose waiting room asks for it; no preload helper (the chunk is one small file).
        modulePreload: false,
        rollupOptions: { output: { format: 'es', entryFileNames: 'portal.js', chunkFileNames: 'portal-[name]-[hash].js' } },
      },
    },
    'src/main.js',
  ),
);
