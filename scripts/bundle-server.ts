// Part of `npm run build:server`, after tsc: the compiled service bundled into one file,
// dist/server.mjs, which `npm start` runs (issue 19: a restart within 2 s). Loading the service
// as tsc writes it reads about 1,800 modules from disk, most of them dependencies; Node takes over a
// second for that on the project's 2-core machine, and the one file a few hundred milliseconds.
//
// Left outside the bundle, loaded from node_modules as before: packages that read files beside
// their own code (PGlite's WebAssembly, pdfkit's fonts, the API docs' page, pino's worker-thread
// transports) and optional drivers. Our own modules keep their own `import.meta.url` (rewritten to
// the file tsc wrote), so that what they read beside themselves (the SQL of src/db, the example
// pages) and their "am I the program?" checks mean what they meant unbundled.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const outfile = path.join(root, 'dist/server.mjs');

// exceljs: loaded on the first XLSX download only (src/lib/xlsx.ts), not parsed at every start.
const EXTERNAL = ['@electric-sql/pglite', 'pdfkit', '@fastify/swagger-ui', 'pino', 'pino-pretty', 'thread-stream', 'ioredis', 'pg-native', 'exceljs'];

/** `import.meta.url` of each of our compiled modules: its own file's URL, as seen from the bundle. */
const ownImportMetaUrl: Plugin = {
  name: 'own-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /[\\/]dist[\\/](src|examples)[\\/].*\.js$/ }, async (args) => {
      const fs = await import('node:fs/promises');
      const source = await fs.readFile(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return undefined;
      const relative = path.relative(path.dirname(outfile), args.path).split(path.sep).join('/');
      const own = `new URL(${JSON.stringify(`./${relative}`)}, import.meta.url).href`;
      return { contents: source.replaceAll('import.meta.url', own), loader: 'js' };
    });
  },
};

const result = await build({
  entryPoints: [path.join(root, 'dist/src/server.js')],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: EXTERNAL,
  // CommonJS dependencies call require() for the external packages: give the bundle one.
  banner: { js: "import { createRequire as __taquillaRequire } from 'node:module'; const require = __taquillaRequire(import.meta.url);" },
  // Mapped back through tsc's maps to src/: `node --enable-source-maps dist/server.mjs` names them.
  sourcemap: 'linked',
  plugins: [ownImportMetaUrl],
  logLevel: 'warning',
  metafile: true,
});
const inputs = Object.keys(result.metafile.inputs).length;
console.log(`dist/server.mjs: ${inputs} modules in one file (${pathToFileURL(outfile).pathname})`);
