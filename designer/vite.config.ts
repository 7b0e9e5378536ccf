import { defineConfig } from 'vite';
import { browserApp } from '../vite.browser-app.js';

/**
 * The seat-map designer of the dashboard: one module script and one stylesheet with fixed names
 * (designer/dist/designer.js, designer.css); the dashboard page links them with a content hash in
 * the query (src/modules/admin/dashboard/dashboard-designer.routes.ts).
 */
export default defineConfig(
  browserApp(
    import.meta.url,
    {
      build: {
        target: 'es2022',
        cssCodeSplit: false,
        rollupOptions: { output: { format: 'es', entryFileNames: 'designer.js', assetFileNames: 'designer[extname]', inlineDynamicImports: true } },
      },
    },
    'src/main.tsx',
  ),
);
