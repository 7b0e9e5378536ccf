import { fileURLToPath } from 'node:url';
import { mergeConfig, type UserConfig } from 'vite';

/**
 * The Vite configuration every browser app of the repository shares (widget/, checkin/, designer/,
 * portal/): built from the folder of its vite.config.ts (`configUrl`: its import.meta.url), no
 * public folder, Preact's JSX through esbuild's automatic runtime (no framework plugin needed),
 * Preact's production build, minified by esbuild into the folder's dist/ (emptied first) without
 * source maps. `input`: the app's entry points, relative to its folder (a library build names its
 * own). `app` adds what is the app's own and overrides the rest (Vite's mergeConfig).
 */
export function browserApp(configUrl: string, app: UserConfig, input?: string | Record<string, string>): UserConfig {
  const inFolder = (file: string) => fileURLToPath(new URL(file, configUrl));
  return mergeConfig<UserConfig, UserConfig>(
    {
      root: inFolder('.'),
      publicDir: false,
      esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
      define: { 'process.env.NODE_ENV': JSON.stringify('production') },
      build: {
        outDir: 'dist',
        emptyOutDir: true,
        minify: 'esbuild',
        sourcemap: false,
        ...(input && {
          rollupOptions: {
            input: typeof input === 'string' ? inFolder(input) : Object.fromEntries(Object.entries(input).map(([name, file]) => [name, inFolder(file)])),
          },
        }),
      },
    },
    app,
  );
}
