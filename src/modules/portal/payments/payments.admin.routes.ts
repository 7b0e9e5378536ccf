import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok } from '../../../http/envelope.js';
import { adminActorOf as actorOf, adminErrors, adminOperation } from '../../../http/admin-api.js';
import { Envelope } from '../../../http/schemas.js';
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
  const d = (operationId: string, summary: string) => adminOperation('orders', operationId, summary);

  app.get(
    '/payments',
    {
      schema: {
        ...d('listPayments', 'Card payments of the channels you may see, newest first; ?status=refund_required lists the money to give back (D73)'),
        querystring: PaymentsQuery,
        response: { 200: Envelope(Type.Array(PaymentRow)), ...adminErrors },
      },
    },
    async (req) => {
      const q = req.query;
      if (q.channel_id) await channels.getChannelFor(ctx, actorOf(req), q.channel_id);
      return ok(await listPaymentsFor(ctx, actorOf(req), { status: q.status as PaymentStatus | undefined, channelId: q.channel_id, before: q.before, limit: q.limit }));
    },
  );
};

export default paymentsAdminRoutes;
