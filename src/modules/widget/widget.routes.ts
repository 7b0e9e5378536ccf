import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../http/errors.js';
import { usePagePolicy } from '../../http/security-headers.js';
import { loadWidgetBundle, WIDGET_DIST } from './widget.service.js';

/**
 * Serves the widget script (DECISIONS D2) under `/widget`:
 * - `/widget/v1/widget.iife.js`, the address integrators embed: short cache plus a strong ETag, so
 *   browsers revalidate cheaply (304) and pick up a fix within minutes;
 * - `/widget/v1/widget.<hash>.iife.js`, the same bytes under a content-hashed name: cached for a
 *   year, for pages that want to pin one build.
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
      .header('x-widget-build', bundle.hash);
    const inm = request.headers['if-none-match'];
    if (inm && inm.split(/\s*,\s*/).some((t) => t === bundle.etag || t === `W/${bundle.etag}` || t === '*')) {
      return reply.status(304).send();
    }
    return reply.send(bundle.code);
  }

  app.get('/v1/widget.iife.js', { schema: { hide: true } }, (request, reply) => serve(request, reply, false));
  app.get('/v1/widget.:hash.iife.js', { schema: { hide: true } }, (request, reply) => serve(request, reply, true));

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
