import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../http/errors.js';
import { usePagePolicy } from '../../http/security-headers.js';
import { loadWidgetBundle, WIDGET_DIST } from './widget.service.js';

/**
 * Serves the widget script (DECISIONS D2) under `/widget`:
 * - `/widget/v1/widget.iife.js`, the address integrators embed: short cache plus a strong ETag, so
 *   browsers revalidate cheaply (304) and pick up a fix within minutes;
 * - `/widget/v1/widget.<hash>.iife.js`, the same bytes under a content-hashed name: cached for a
 *   year, for pages that want to pin one build (with `<script integrity>`: its bytes never change);
 * - `/widget/v1/manifest.json`, which build the moving alias serves now: its hashed address and its
 *   Subresource Integrity value, so a page can pin a build without reading the script's headers.
 *   A hash of the alias itself would be useless for SRI: its bytes change with every deploy.
 * In development the example host pages of models C and D are served under `/examples`.
 */
const widgetRoutes: FastifyPluginAsync = async (app) => {
  async function serve(request: FastifyRequest, reply: FastifyReply, hashed: boolean) {
    const bundle = await loadWidgetBundle(WIDGET_DIST);
    if (!bundle) throw new AppError('not_found', 'The widget is not built; run npm run build:widget');
    const { hash } = request.params as { hash?: string };
    if (hashed && hash !== bundle.hash) throw new AppError('not_found', 'Widget build not found');
    reply
      .header('content-type', 'text/javascript; charset=utf-8')
      .header('etag', bundle.etag)
      .header('cache-control', hashed ? 'public, max-age=31536000, immutable' : 'public, max-age=300, stale-while-revalidate=3600')
      .header('access-control-allow-origin', '*')
      .header('cross-origin-resource-policy', 'cross-origin')
      .header('x-content-type-options', 'nosniff')
      .header('x-widget-build', bundle.hash)
      .header('x-widget-integrity', bundle.integrity);
    if (notModified(request, bundle.etag)) return reply.status(304).send();
    return reply.send(bundle.code);
  }

  function notModified(request: FastifyRequest, etag: string): boolean {
    const inm = request.headers['if-none-match'];
    return !!inm && inm.split(/\s*,\s*/).some((t) => t === etag || t === `W/${etag}` || t === '*');
  }

  async function manifest(request: FastifyRequest, reply: FastifyReply) {
    const bundle = await loadWidgetBundle(WIDGET_DIST);
    if (!bundle) throw new AppError('not_found', 'The widget is not built; run npm run build:widget');
    const file = `widget.${bundle.hash}.iife.js`;
    // The manifest moves with the alias, so it is cached like the alias (a new build within minutes).
    const etag = `"m-${bundle.etag.slice(1)}`;
    reply
      .header('cache-control', 'public, max-age=300, stale-while-revalidate=3600')
      .header('etag', etag)
      .header('access-control-allow-origin', '*')
      .header('cross-origin-resource-policy', 'cross-origin')
      .header('x-content-type-options', 'nosniff');
    if (notModified(request, etag)) return reply.status(304).send();
    return reply.type('application/json; charset=utf-8').send({
      build: bundle.hash,
      file,
      url: `${app.ctx.config.widgetUrl.replace(/\/+$/, '')}/v1/${file}`,
      integrity: bundle.integrity,
      alias: `${app.ctx.config.widgetUrl.replace(/\/+$/, '')}/v1/widget.iife.js`,
    });
  }

  app.get('/v1/widget.iife.js', { schema: { hide: true } }, (request, reply) => serve(request, reply, false));
  app.get('/v1/widget.:hash.iife.js', { schema: { hide: true } }, (request, reply) => serve(request, reply, true));
  app.get('/v1/manifest.json', { schema: { hide: true } }, manifest);

  if (app.ctx.config.appEnv === 'development') {
    // The example channel server of examples/, mounted into the service so `npm start` shows it.
    const { channelExample } = await import('../../../examples/widget-channel-server.js');
    await app.register(
      async (examples) => {
        usePagePolicy(examples, 'widgetExamples');
        // A development aid, not the service's API: none of its routes enters the OpenAPI document.
        examples.addHook('onRoute', (route) => {
          route.schema = { ...route.schema, hide: true };
        });
        await examples.register(channelExample, { serviceUrl: app.ctx.config.publicBaseUrl, widgetUrl: app.ctx.config.widgetUrl });
      },
      { prefix: '/examples' },
    );
  }
};

export default widgetRoutes;
