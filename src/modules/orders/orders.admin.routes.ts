import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Params, ReferenceParam } from '../../http/admin-api.js';
import { adminRouter } from '../../http/admin-routes.js';
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
  const route = adminRouter(app, 'orders');

  route.get(
    '/channels/:channelId/orders',
    { operationId: 'listChannelOrders', summary: "A channel's orders, newest first (read-only)", params: Params.channel, querystring: Type.Omit(OrdersQuery, ['channel_id']), data: Type.Array(OrderRow) },
    async (req, actor) => {
      await channels.getChannelFor(ctx, actor, req.params.channelId);
      const q = req.query;
      return listOrdersFor(ctx, actor, { channelId: req.params.channelId, status: q.status, type: q.type, beforeId: q.before_id, search: q.search, limit: q.limit });
    },
  );

  route.get('/orders', { operationId: 'listOrders', summary: 'Orders of the channels you may see, newest first (read-only)', querystring: OrdersQuery, data: Type.Array(OrderRow) }, async (req, actor) => {
    const q = req.query;
    if (q.channel_id) await channels.getChannelFor(ctx, actor, q.channel_id);
    return listOrdersFor(ctx, actor, { channelId: q.channel_id, status: q.status, type: q.type, beforeId: q.before_id, search: q.search, limit: q.limit });
  });
  route.get(
    '/orders/:reference',
    { operationId: 'getAdminOrder', summary: 'One order with its buyer, items, tickets, payments and history (audit log)', params: ReferenceParam, data: OrderDetail },
    (req, actor) => getOrderFor(ctx, actor, req.params.reference),
  );
};

export default ordersAdminRoutes;
