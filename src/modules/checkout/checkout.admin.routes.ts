import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { adminErrors, Params, ReferenceParam, refuseUnknownFields } from '../../http/admin-api.js';
import { adminRouter } from '../../http/admin-routes.js';
import { API_REFUND_REASON, Refund, RefundCreate, Reservation, ReservationCreate, TicketResend } from './checkout.admin.schemas.js';
import { createReservationAs, refundOrderAs, resendTicketsAs } from './order-actions.service.js';

/**
 * The admin API's actions on orders: the ticket e-mail sent again, refunds, reservations (audited).
 * The admin shell (modules/admin/admin.routes.ts) mounts it behind its token hook (req.adminActor);
 * src/app.ts hands it in.
 */
const checkoutAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  const route = adminRouter(app, 'orders');

  route.post(
    '/orders/:reference/resend-tickets',
    {
      operationId: 'resendTickets',
      summary: "Queue the order's ticket e-mail once more to the buyer (audited); one e-mail per call",
      params: ReferenceParam,
      data: TicketResend,
      status: 202,
      message: 'Ticket e-mail queued',
    },
    (req, actor) => resendTicketsAs(ctx, actor, req.params.reference),
  );
  route.post(
    '/orders/:reference/refund',
    {
      operationId: 'refundOrder',
      summary:
        'Refund a completed order, whole or chosen tickets (ticket_ids): seats released, tickets voided, a refund order with negative amounts recorded, ' +
        'the card payment refunded through the provider (models A and C; 502 payment_provider_refused when it refuses, and nothing changes), ' +
        'the buyer e-mailed (models A-C), order.refunded sent (audited)',
      params: ReferenceParam,
      body: RefundCreate,
      data: Refund,
      status: 201,
      message: 'Order refunded',
      errors: { 502: { $ref: 'ErrorEnvelope' }, ...adminErrors },
      // D56/D58: a field the refund does not know is refused, never dropped (a misspelt ticket_ids
      // must not refund the whole order).
      preValidation: refuseUnknownFields(RefundCreate),
    },
    (req, actor) => refundOrderAs(ctx, actor, req.params.reference, req.body.reason ?? API_REFUND_REASON, { ticketIds: req.body.ticket_ids, allowUsed: req.body.allow_used }),
  );
  route.post(
    '/channels/:channelId/reservations',
    {
      operationId: 'createReservation',
      summary: 'Issue an order without payment (type reservation): seats sold, tickets issued (audited)',
      params: Params.channel,
      body: ReservationCreate,
      data: Reservation,
      status: 201,
      message: 'Reservation issued',
    },
    (req, actor) => createReservationAs(ctx, actor, req.params.channelId, req.body),
  );
};

export default checkoutAdminRoutes;
