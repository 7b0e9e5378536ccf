import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok } from '../../../http/envelope.js';
import { NotificationResponse } from '../portal.schemas.js';
import { handleNotification } from './payments.service.js';

const errors = { 403: { $ref: 'ErrorEnvelope' }, 404: { $ref: 'ErrorEnvelope' } };

/** Each card provider's notification route. */
const NOTIFICATIONS = [
  {
    provider: 'sandbox',
    url: '/payments/sandbox/notifications',
    rateLimitNone: 'signed notifications of the payment provider',
    operationId: 'receiveSandboxNotification',
    summary: 'Signed notification of the built-in sandbox card provider',
  },
  {
    provider: 'stripe',
    url: '/payments/stripe/webhook',
    rateLimitNone: 'signed webhooks of the payment provider',
    operationId: 'receiveStripeWebhook',
    summary: 'Stripe webhook (checkout.session.* events); signature checked with STRIPE_WEBHOOK_SECRET',
  },
] as const;

/**
 * Provider notifications (server to server). Signatures are computed over the exact bytes, so this
 * scope keeps JSON bodies as raw strings; each handler verifies before it parses.
 */
const paymentNotificationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  for (const n of NOTIFICATIONS) {
    app.post(
      n.url,
      {
        config: { rateLimits: { none: n.rateLimitNone } },
        schema: { tags: ['Portal'], operationId: n.operationId, summary: n.summary, response: { 200: NotificationResponse, ...errors } },
      },
      async (request) => ok(await handleNotification(app.ctx, n.provider, String(request.body ?? ''), request.headers), 'Notification processed'),
    );
  }
};

export default paymentNotificationRoutes;
