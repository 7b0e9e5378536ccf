import { defineConfig } from 'vite';
import { browserApp } from '../vite.browser-app.js';

/**
 * The widget as one IIFE file with a single global `TicketWidget` (D31). Preact is bundled in.
 */
export default defineConfig(
  browserApp(import.meta.url, {
    // ASCII output: the script works whatever charset the host page declares.
    esbuild: { charset: 'ascii' },
    define: {
      // A build for a CDN can bake the API address in; empty = derive it from the script's own URL.
      __TAQUILLA_API_BASE__: JSON.stringify(process.env.WIDGET_API_BASE ?? ''),
    },
    build: {
      outDir: 'dist/v1',
      target: 'es2019',
      lib: {
        entry: 'src/index.tsx',
        name: 'TicketWidget',
        formats: ['iife'],
        fileName: () => 'widget.iife.js',
      },
    },
  }),
);
