import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * The widget as one IIFE file with a single global `TicketWidget` (D31). Preact is bundled in; JSX
 * goes through esbuild's automatic runtime, so no framework plugin is needed.
 */
export default defineConfig({
  root,
  // ASCII output: the script works whatever charset the host page declares.
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact', charset: 'ascii' },
  define: {
    // A build for a CDN can bake the API address in; empty = derive it from the script's own URL.
    __TAQUILLA_API_BASE__: JSON.stringify(process.env.WIDGET_API_BASE ?? ''),
    'process.env.NODE_ENV': JSON.stringify('production'),
  },
  build: {
    outDir: 'dist/v1',
    emptyOutDir: true,
    target: 'es2019',
    minify: 'esbuild',
    sourcemap: false,
    lib: {
      entry: 'src/index.tsx',
      name: 'TicketWidget',
      formats: ['iife'],
      fileName: () => 'widget.iife.js',
    },
  },
});
