import type { FastifyInstance, FastifyRequest } from 'fastify';
import { assertSameChannel, authenticate } from './auth.service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The credential behind the bearer token (D39): its scope and its D38 client_id ('' when none). */
    credential?: { scope: 'widget' | 'server'; clientId: string };
  }
}

/**
 * Guards every route registered in `app` (an encapsulated context under
 * `/sales-channel/v1/:salesChannelSlug`): 401 without a live token, 403 when the token belongs to
 * another channel than the slug in the path. Sets `request.channel` and `request.credential`.
 */
export function requireChannelToken(app: FastifyInstance): void {
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const { channel, credential } = await authenticate(app.ctx, request.bearer?.hash ?? null);
    const { salesChannelSlug } = request.params as { salesChannelSlug: string };
    assertSameChannel(channel, salesChannelSlug);
    request.channel = channel;
    request.credential = credential;
  });
}
