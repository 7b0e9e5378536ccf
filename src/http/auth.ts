import type { FastifyInstance, FastifyRequest } from 'fastify';
import { assertSameChannel, authenticate } from '../modules/auth/auth.service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The credential behind the bearer token (B2B routes): its scope and its client_id (D38; '' when none). */
    credential?: { scope: 'widget' | 'server'; clientId: string };
  }
}

/**
 * Guards every route registered in `app` (an encapsulated context under
 * `/sales-channel/v1/:salesChannelSlug`): 401 without a live token, 403 when the token belongs to
 * another channel than the slug in the path.
 */
export function requireChannelToken(app: FastifyInstance): void {
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const { channel, clientId } = await authenticate(app.ctx, request.headers.authorization);
    const { salesChannelSlug } = request.params as { salesChannelSlug: string };
    assertSameChannel(channel, salesChannelSlug);
    request.channel = channel;
    // Every token is issued from a widget key until server keys exist (D39, i13-scopes).
    request.credential = { scope: 'widget', clientId };
  });
}
