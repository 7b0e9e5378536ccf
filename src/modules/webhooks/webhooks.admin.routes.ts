import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Params } from '../../http/admin-api.js';
import { adminRouter } from '../../http/admin-routes.js';
import * as webhooks from './webhooks.service.js';
import * as W from './webhooks.schemas.js';

/**
 * The webhook endpoints of a channel in the admin API (D51, docs/webhooks.md), mounted by the admin
 * shell (modules/admin/admin.routes.ts) so that its token hook covers them; src/app.ts hands it in.
 */
const webhookAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  const route = adminRouter(app, 'webhooks');

  route.get(
    '/channels/:channelId/webhooks',
    { operationId: 'listWebhookEndpoints', summary: "A channel's webhook endpoints (secrets are never shown again)", params: Params.channel, data: Type.Array(W.WebhookEndpoint) },
    (req, actor) => webhooks.listEndpointsFor(ctx, actor, req.params.channelId),
  );
  route.post(
    '/channels/:channelId/webhooks',
    {
      operationId: 'createWebhookEndpoint',
      summary: 'Register a webhook endpoint; the answer carries its signing secret, shown only this once',
      params: Params.channel,
      body: W.WebhookEndpointCreate,
      data: W.WebhookEndpointWithSecret,
      status: 201,
      message: 'Webhook endpoint created; its secret is shown only this once',
    },
    (req, actor) => webhooks.createEndpointAs(ctx, actor, req.params.channelId, req.body),
  );
  route.get('/channels/:channelId/webhooks/:endpointId', { operationId: 'getWebhookEndpoint', summary: 'One webhook endpoint', params: W.WebhookParams.endpoint, data: W.WebhookEndpoint }, (req, actor) =>
    webhooks.getEndpointFor(ctx, actor, req.params.channelId, req.params.endpointId),
  );
  route.patch(
    '/channels/:channelId/webhooks/:endpointId',
    {
      operationId: 'updateWebhookEndpoint',
      summary: 'Edit a webhook endpoint: URL, event types, description, enabled (re-enabling resumes its pending deliveries)',
      params: W.WebhookParams.endpoint,
      body: W.WebhookEndpointUpdate,
      data: W.WebhookEndpoint,
      message: 'Webhook endpoint updated',
    },
    (req, actor) => webhooks.updateEndpointAs(ctx, actor, req.params.channelId, req.params.endpointId, req.body),
  );
  route.delete(
    '/channels/:channelId/webhooks/:endpointId',
    { operationId: 'deleteWebhookEndpoint', summary: 'Delete a webhook endpoint with its deliveries and their log', params: W.WebhookParams.endpoint, data: Type.Null(), message: 'Webhook endpoint deleted' },
    async (req, actor) => {
      await webhooks.deleteEndpointAs(ctx, actor, req.params.channelId, req.params.endpointId);
      return null;
    },
  );
  route.post(
    '/channels/:channelId/webhooks/:endpointId/rotate-secret',
    {
      operationId: 'rotateWebhookSecret',
      summary: 'Replace the signing secret (shown only this once); the previous one also signs for 24 hours',
      params: W.WebhookParams.endpoint,
      data: W.WebhookEndpointWithSecret,
      message: 'Secret rotated; it is shown only this once',
    },
    (req, actor) => webhooks.rotateSecretAs(ctx, actor, req.params.channelId, req.params.endpointId),
  );
  route.get(
    '/channels/:channelId/webhooks/:endpointId/deliveries',
    {
      operationId: 'listWebhookDeliveries',
      summary: "An endpoint's deliveries, newest first, each with its attempts (status, time, duration, response excerpt)",
      params: W.WebhookParams.endpoint,
      querystring: W.DeliveriesQuery,
      data: Type.Array(W.WebhookDelivery),
    },
    (req, actor) => webhooks.listDeliveriesFor(ctx, actor, req.params.channelId, req.params.endpointId, { status: req.query.status, beforeId: req.query.before_id, limit: req.query.limit }),
  );
  route.post(
    '/channels/:channelId/webhooks/:endpointId/deliveries/:deliveryId/redeliver',
    {
      operationId: 'redeliverWebhook',
      summary: 'Send a delivery again now, with the same webhook-id and body; the attempt is logged',
      params: W.WebhookParams.delivery,
      data: W.WebhookAttemptResult,
      message: (result) => (result.delivered ? 'Delivered' : 'Not delivered'),
    },
    (req, actor) => webhooks.redeliverAs(ctx, actor, req.params.channelId, req.params.endpointId, req.params.deliveryId),
  );
};

export default webhookAdminRoutes;
