import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { ok } from '../../http/envelope.js';
import { adminErrors, Params } from '../../http/admin-api.js';
import { Envelope } from '../../http/schemas.js';
import * as webhooks from './webhooks.service.js';
import * as W from './webhooks.schemas.js';

const actorOf = (request: FastifyRequest) => request.adminActor!;

/**
 * The webhook endpoints of a channel in the admin API (D51, docs/webhooks.md), mounted by the admin
 * shell (modules/admin/admin.routes.ts) so that its token hook covers them; src/app.ts hands it in.
 */
const webhookAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  const d = (operationId: string, summary: string) => ({ tags: ['Admin: webhooks'], operationId, summary });

  app.get(
    '/channels/:channelId/webhooks',
    { schema: { ...d('listWebhookEndpoints', "A channel's webhook endpoints (secrets are never shown again)"), params: Params.channel, response: { 200: Envelope(Type.Array(W.WebhookEndpoint)), ...adminErrors } } },
    async (req) => ok(await webhooks.listEndpointsFor(ctx, actorOf(req), req.params.channelId)),
  );
  app.post(
    '/channels/:channelId/webhooks',
    {
      schema: {
        ...d('createWebhookEndpoint', 'Register a webhook endpoint; the answer carries its signing secret, shown only this once'),
        params: Params.channel,
        body: W.WebhookEndpointCreate,
        response: { 201: Envelope(W.WebhookEndpointWithSecret), ...adminErrors },
      },
    },
    async (req, reply) =>
      reply.status(201).send(ok(await webhooks.createEndpointAs(ctx, actorOf(req), req.params.channelId, req.body), 'Webhook endpoint created; its secret is shown only this once', 201)),
  );
  app.get(
    '/channels/:channelId/webhooks/:endpointId',
    { schema: { ...d('getWebhookEndpoint', 'One webhook endpoint'), params: W.WebhookParams.endpoint, response: { 200: Envelope(W.WebhookEndpoint), ...adminErrors } } },
    async (req) => ok(await webhooks.getEndpointFor(ctx, actorOf(req), req.params.channelId, req.params.endpointId)),
  );
  app.patch(
    '/channels/:channelId/webhooks/:endpointId',
    {
      schema: {
        ...d('updateWebhookEndpoint', 'Edit a webhook endpoint: URL, event types, description, enabled (re-enabling resumes its pending deliveries)'),
        params: W.WebhookParams.endpoint,
        body: W.WebhookEndpointUpdate,
        response: { 200: Envelope(W.WebhookEndpoint), ...adminErrors },
      },
    },
    async (req) => ok(await webhooks.updateEndpointAs(ctx, actorOf(req), req.params.channelId, req.params.endpointId, req.body), 'Webhook endpoint updated'),
  );
  app.delete(
    '/channels/:channelId/webhooks/:endpointId',
    { schema: { ...d('deleteWebhookEndpoint', 'Delete a webhook endpoint with its deliveries and their log'), params: W.WebhookParams.endpoint, response: { 200: Envelope(Type.Null()), ...adminErrors } } },
    async (req) => {
      await webhooks.deleteEndpointAs(ctx, actorOf(req), req.params.channelId, req.params.endpointId);
      return ok(null, 'Webhook endpoint deleted');
    },
  );
  app.post(
    '/channels/:channelId/webhooks/:endpointId/rotate-secret',
    {
      schema: {
        ...d('rotateWebhookSecret', 'Replace the signing secret (shown only this once); the previous one also signs for 24 hours'),
        params: W.WebhookParams.endpoint,
        response: { 200: Envelope(W.WebhookEndpointWithSecret), ...adminErrors },
      },
    },
    async (req) => ok(await webhooks.rotateSecretAs(ctx, actorOf(req), req.params.channelId, req.params.endpointId), 'Secret rotated; it is shown only this once'),
  );
  app.get(
    '/channels/:channelId/webhooks/:endpointId/deliveries',
    {
      schema: {
        ...d('listWebhookDeliveries', "An endpoint's deliveries, newest first, each with its attempts (status, time, duration, response excerpt)"),
        params: W.WebhookParams.endpoint,
        querystring: W.DeliveriesQuery,
        response: { 200: Envelope(Type.Array(W.WebhookDelivery)), ...adminErrors },
      },
    },
    async (req) =>
      ok(await webhooks.listDeliveriesFor(ctx, actorOf(req), req.params.channelId, req.params.endpointId, { status: req.query.status, beforeId: req.query.before_id, limit: req.query.limit })),
  );
  app.post(
    '/channels/:channelId/webhooks/:endpointId/deliveries/:deliveryId/redeliver',
    {
      schema: {
        ...d('redeliverWebhook', 'Send a delivery again now, with the same webhook-id and body; the attempt is logged'),
        params: W.WebhookParams.delivery,
        response: { 200: Envelope(W.WebhookAttemptResult), ...adminErrors },
      },
    },
    async (req) => {
      const result = await webhooks.redeliverAs(ctx, actorOf(req), req.params.channelId, req.params.endpointId, req.params.deliveryId);
      return ok(result, result.delivered ? 'Delivered' : 'Not delivered');
    },
  );
};

export default webhookAdminRoutes;
