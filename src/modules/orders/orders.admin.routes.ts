import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok } from '../../http/envelope.js';
import { adminActorOf as actorOf, adminErrors, adminOperation, Params, ReferenceParam } from '../../http/admin-api.js';
import { Envelope } from '../../http/schemas.js';
import * as channels from '../channels/channels-admin.service.js';
import { getOrderFor, listOrdersFor } from './orders-admin.service.js';
import { OrderDetail, OrderRow, OrdersQuery } from './orders.admin.schemas.js';

/**
 * The orders part of the admin API (read-only): a channel's orders, every order you may see, one
 * order. The admin shell (modules/admin/admin.routes.ts) mounts it behind its token hook
 * (req.adminActor); src/app.ts hands it in. Refunds, reservations and the ticket e-mail sent again:
 * checkout/checkout.admin.routes.ts; card payments: portal/payments/payments.admin.routes.ts.
 */
const ordersAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  const d = (operationId: string, summary: string) => adminOperation('orders', operationId, summary);

  app.get(
    '/channels/:channelId/orders',
    {
      schema: {
        ...d('listChannelOrders', "A channel's orders, newest first (read-only)"),
        params: Params.channel,
        querystring: Type.Omit(OrdersQuery, ['channel_id']),
        response: { 200: Envelope(Type.Array(OrderRow)), ...adminErrors },
      },
    },
    async (req) => {
      await channels.getChannelFor(ctx, actorOf(req), req.params.channelId);
      const q = req.query;
      return ok(await listOrdersFor(ctx, actorOf(req), { channelId: req.params.channelId, status: q.status, type: q.type, beforeId: q.before_id, search: q.search, limit: q.limit }));
    },
  );

  app.get(
    '/orders',
    { schema: { ...d('listOrders', 'Orders of the channels you may see, newest first (read-only)'), querystring: OrdersQuery, response: { 200: Envelope(Type.Array(OrderRow)), ...adminErrors } } },
    async (req) => {
      const q = req.query;
      if (q.channel_id) await channels.getChannelFor(ctx, actorOf(req), q.channel_id);
      return ok(await listOrdersFor(ctx, actorOf(req), { channelId: q.channel_id, status: q.status, type: q.type, beforeId: q.before_id, search: q.search, limit: q.limit }));
    },
  );
  app.get(
    '/orders/:reference',
    {
      schema: {
        ...d('getAdminOrder', 'One order with its buyer, items, tickets, payments and history (audit log)'),
        params: ReferenceParam,
        response: { 200: Envelope(OrderDetail), ...adminErrors },
      },
    },
    async (req) => ok(await getOrderFor(ctx, actorOf(req), req.params.reference)),
  );
};

export default ordersAdminRoutes;
