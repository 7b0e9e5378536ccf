import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok } from '../../http/envelope.js';
import { isoWithOffset } from '../../lib/time.js';
import { TokenRequest, TokenResponse } from './auth.schemas.js';
import { issueToken } from './auth.service.js';

/** POST /sales-channel/v1/auth/token: the only public B2B route. */
const authRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/auth/token',
    {
      schema: {
        tags: ['Authentication'],
        summary: 'Exchange the channel widget key for a bearer token',
        body: TokenRequest,
        response: { 200: TokenResponse, 401: { $ref: 'ErrorEnvelope' }, 422: { $ref: 'ErrorEnvelope' } },
      },
    },
    async (request) => {
      const { sales_channel_slug, widget_key, client_id } = request.body;
      const token = await issueToken(app.ctx, { slug: sales_channel_slug, widgetKey: widget_key, clientId: client_id });
      return ok({ ...token, expires_at: isoWithOffset(token.expires_at)! }, 'Token issued');
    },
  );
};

export default authRoutes;
