import rateLimit from '@fastify/rate-limit';
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok } from '../../http/envelope.js';
import { AppError } from '../../http/errors.js';
import { LangParam, SlugParam } from '../../http/schemas.js';
import { findChannelBySlug } from '../channels/channels.repo.js';
import { OrderResponse, OrderToken } from '../orders/orders.schemas.js';
import { getOrder } from '../orders/orders.service.js';

/** Requests one client (IP address) may make to the public portal API per window (D25). */
export const PORTAL_RATE_LIMIT = { max: 120, timeWindow: 60_000 };

/** Public portal API under /api/portal: no bearer token, bound to the channel in the path, rate limited. */
const portalRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // Registered inside this plugin, so the limit covers the portal routes only.
  await app.register(rateLimit, PORTAL_RATE_LIMIT);

  app.get(
    '/:salesChannelSlug/:lang/orders/:orderToken',
    {
      schema: {
        tags: ['Portal'],
        summary: 'Read an order without a token (e.g. from a model B checkout page)',
        params: Type.Object({ salesChannelSlug: SlugParam, lang: LangParam, orderToken: OrderToken }),
        response: { 200: OrderResponse, 404: Type.Ref('ErrorEnvelope'), 422: Type.Ref('ErrorEnvelope'), 429: Type.Ref('ErrorEnvelope') },
      },
    },
    async (request) => {
      const { salesChannelSlug, lang, orderToken } = request.params;
      const channel = await findChannelBySlug(app.ctx.db, salesChannelSlug);
      // An unknown channel answers like an unknown order: nothing is revealed (D5).
      if (!channel) throw new AppError('not_found', 'Order not found');
      return ok(await getOrder(app.ctx, channel, orderToken, lang), 'Order');
    },
  );
};

export default portalRoutes;
