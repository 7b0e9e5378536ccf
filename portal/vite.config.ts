import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The portal's script: its entry (portal/src/main.js) and the UI kit it uses (ui/: formats, texts,
 * proof of work, components), bundled into one ES module with a fixed name, portal/dist/portal.js (and the solver's chunk),
 * which the pages load as /portal-assets/portal.js (src/modules/portal/pages/portal.pages.tsx).
 * Preact goes in only with the components that need it; JSX through esbuild's automatic runtime.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  publicDir: false,
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2020',
    minify: 'esbuild',
    sourcemap: false,
    // The proof-of-work solver is a chunk of its own (portal-pow-<hash>.js), loaded only by a session
    // whose waiting room asks for it; no preload helper (the chunk is one small file).
    modulePreload: false,
    rollupOptions: {
      input: fileURLToPath(new URL('src/main.js', import.meta.url)),
      output: { format: 'es', entryFileNames: 'portal.js', chunkFileNames: 'portal-[name]-[hash].js' },
    },
  },
});
