import { stat } from 'node:fs/promises';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync } from 'fastify';
import { AppError } from '../../http/errors.js';
import { usePagePolicy } from '../../http/security-headers.js';
import { PROJECT_ROOT } from '../../lib/project-root.js';

/** Where `npm run build:checkin` writes the scanner (checkin/vite.config.ts). */
// From the project root: the same folder whether this runs from src/ (tsx) or dist/src/ (npm start).
const SCANNER_DIST = path.join(PROJECT_ROOT, 'checkin', 'dist') + path.sep;

/**
 * The check-in scanner web app (docs/checkin-scanner.md) under `/checkin`: the page and the service
 * worker are revalidated on every load (a new build reaches the doors at their next start), the
 * content-hashed assets are cached for a year, the manifest and icons for a day.
 */
const scannerRoutes: FastifyPluginAsync = async (app) => {
  usePagePolicy(app, 'scanner');
  const built = await stat(`${SCANNER_DIST}index.html`).then(
    () => true,
    () => false,
  );
  // The service worker's scope is /checkin/: the page must live under it.
  app.get('', { schema: { hide: true } }, (_request, reply) => reply.redirect('/checkin/', 301));
  if (!built) {
    app.get('/*', { schema: { hide: true } }, async () => {
      throw new AppError('not_found', 'The scanner is not built; run npm run build:checkin');
    });
    return;
  }
  await app.register(fastifyStatic, {
    root: SCANNER_DIST,
    prefix: '/',
    index: ['index.html'],
    redirect: false,
    cacheControl: false,
    setHeaders(res, file) {
      const name = file.slice(SCANNER_DIST.length);
      if (name.startsWith('assets/')) res.setHeader('cache-control', 'public, max-age=31536000, immutable');
      else if (name === 'index.html' || name === 'sw.js') res.setHeader('cache-control', 'no-cache');
      else res.setHeader('cache-control', 'public, max-age=86400');
      if (name === 'manifest.webmanifest') res.setHeader('content-type', 'application/manifest+json');
    },
  });
};

export default scannerRoutes;
