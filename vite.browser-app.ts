import { fileURLToPath } from 'node:url';
import { mergeConfig, type UserConfig } from 'vite';

/**
 * The Vite configuration every browser app of the repository shares (widget/, checkin/, designer/,
 * portal/): built from the folder of its vite.config.ts (`configUrl`: its import.meta.url), no
 * public folder, Preact's JSX through esbuild's automatic runtime (no framework plugin needed),
 * Preact's production build, minified by esbuild into the folder's dist/ (emptied first) without
 * source maps. `app` adds what is the app's own and overrides the rest (Vite's mergeConfig).
 */
export function browserApp(configUrl: string, app: UserConfig): UserConfig {
  return mergeConfig<UserConfig, UserConfig>(
    {
      root: fileURLToPath(new URL('.', configUrl)),
      publicDir: false,
      esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
      define: { 'process.env.NODE_ENV': JSON.stringify('production') },
      build: { outDir: 'dist', emptyOutDir: true, minify: 'esbuild', sourcemap: false },
    },
    app,
  );
}
