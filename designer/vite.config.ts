import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The seat-map designer of the dashboard: one module script and one stylesheet with fixed names
 * (designer/dist/designer.js, designer.css); the dashboard page links them with a content hash in
 * the query (src/modules/admin/dashboard/dashboard-designer.routes.ts).
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  publicDir: false,
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    minify: 'esbuild',
    sourcemap: false,
    cssCodeSplit: false,
    rollupOptions: {
      input: fileURLToPath(new URL('src/main.tsx', import.meta.url)),
      output: { format: 'es', entryFileNames: 'designer.js', assetFileNames: 'designer[extname]', inlineDynamicImports: true },
    },
  },
});
