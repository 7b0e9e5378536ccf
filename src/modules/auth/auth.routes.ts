import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok } from '../../http/envelope.js';
import { browserOriginRefused } from '../../http/b2b-operation.js';
import { isoWithOffset } from '../../lib/time.js';
import { TokenRequest, TokenResponse } from './auth.schemas.js';
import { issueToken } from './auth.service.js';

/** POST /sales-channel/v1/auth/token: the only public B2B route. */
const authRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/auth/token',
    {
      // Per client address: every request loosely, failed ones strictly (D45).
      config: { rateLimits: ['token', 'token_failures'] },
      schema: {
        tags: ['Authentication'],
        operationId: 'createToken',
        summary: 'Exchange the channel widget key or server key for a bearer token of that scope',
        description:
          'Send `widget_key` (publishable, in buyers\' pages) or `server_key` (the channel\'s server only), not both. ' +
          'In models C and D only a server-scope token may confirm and read the sales report (D40). See docs/authentication.md.',
        body: TokenRequest,
        response: { 200: TokenResponse, 401: { $ref: 'ErrorEnvelope' }, 403: { $ref: 'ErrorEnvelope' }, 422: { $ref: 'ErrorEnvelope' } },
      },
    },
    async (request) => {
      const { sales_channel_slug, widget_key, server_key, client_id } = request.body;
      // A server key sent by a browser has leaked into a page: refuse it as its tokens are (D40).
      if (server_key !== undefined && request.headers.origin !== undefined) {
        throw browserOriginRefused();
      }
      const token = await issueToken(app.ctx, { slug: sales_channel_slug, widgetKey: widget_key, serverKey: server_key, clientId: client_id });
      return ok({ ...token, expires_at: isoWithOffset(token.expires_at)! }, 'Token issued');
    },
  );
};

export default authRoutes;
