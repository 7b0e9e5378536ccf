import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok } from '../../../http/envelope.js';
import { NotificationResponse } from '../portal.schemas.js';
import { handleNotification } from './payments.service.js';

const errors = { 403: { $ref: 'ErrorEnvelope' }, 404: { $ref: 'ErrorEnvelope' } };

/**
 * Provider notifications (server to server). Signatures are computed over the exact bytes, so this
 * scope keeps JSON bodies as raw strings; each handler verifies before it parses.
 */
const paymentNotificationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  app.post(
    '/payments/sandbox/notifications',
    {
      config: { rateLimits: { none: 'signed notifications of the payment provider' } },
      schema: {
        tags: ['Portal'],
        operationId: 'receiveSandboxNotification',
        summary: 'Signed notification of the built-in sandbox card provider',
        response: { 200: NotificationResponse, ...errors },
      },
    },
    async (request) => {
      const outcome = await handleNotification(app.ctx, 'sandbox', String(request.body ?? ''), request.headers);
      return ok(outcome, 'Notification processed');
    },
  );

  app.post(
    '/payments/stripe/webhook',
    {
      config: { rateLimits: { none: 'signed webhooks of the payment provider' } },
      schema: {
        tags: ['Portal'],
        operationId: 'receiveStripeWebhook',
        summary: 'Stripe webhook (checkout.session.* events); signature checked with STRIPE_WEBHOOK_SECRET',
        response: { 200: NotificationResponse, ...errors },
      },
    },
    async (request) => {
      const outcome = await handleNotification(app.ctx, 'stripe', String(request.body ?? ''), request.headers);
      return ok(outcome, 'Notification processed');
    },
  );
};

export default paymentNotificationRoutes;
