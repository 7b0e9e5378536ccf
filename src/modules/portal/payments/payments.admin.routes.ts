import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { adminRouter } from '../../../http/admin-routes.js';
import type { PaymentStatus } from '../../../db/schema/index.js';
import * as channels from '../../channels/channels-admin.service.js';
import { listPaymentsFor } from './payments-admin.service.js';
import { PaymentRow, PaymentsQuery } from './payments.admin.schemas.js';

/**
 * The card payments of the admin API (D73). The admin shell (modules/admin/admin.routes.ts) mounts
 * it behind its token hook (req.adminActor); src/app.ts hands it in.
 */
const paymentsAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  const route = adminRouter(app, 'orders');

  route.get(
    '/payments',
    {
      operationId: 'listPayments',
      summary: 'Card payments of the channels you may see, newest first; ?status=refund_required lists the money to give back (D73)',
      querystring: PaymentsQuery,
      data: Type.Array(PaymentRow),
    },
    async (req, actor) => {
      const q = req.query;
      if (q.channel_id) await channels.getChannelFor(ctx, actor, q.channel_id);
      return listPaymentsFor(ctx, actor, { status: q.status as PaymentStatus | undefined, channelId: q.channel_id, before: q.before, limit: q.limit });
    },
  );
};

export default paymentsAdminRoutes;
