import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ok } from '../../http/envelope.js';
import { adminActorOf as actorOf, adminErrors, adminOperation, Params, ReferenceParam, refuseUnknownFields } from '../../http/admin-api.js';
import { Envelope } from '../../http/schemas.js';
import { API_REFUND_REASON, Refund, RefundCreate, Reservation, ReservationCreate, TicketResend } from './checkout.admin.schemas.js';
import { createReservationAs, refundOrderAs, resendTicketsAs } from './order-actions.service.js';

/**
 * The admin API's actions on orders: the ticket e-mail sent again, refunds, reservations (audited).
 * The admin shell (modules/admin/admin.routes.ts) mounts it behind its token hook (req.adminActor);
 * src/app.ts hands it in.
 */
const checkoutAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  const d = (operationId: string, summary: string) => adminOperation('orders', operationId, summary);

  app.post(
    '/orders/:reference/resend-tickets',
    {
      schema: {
        ...d('resendTickets', "Queue the order's ticket e-mail once more to the buyer (audited); one e-mail per call"),
        params: ReferenceParam,
        response: { 202: Envelope(TicketResend), ...adminErrors },
      },
    },
    async (req, reply) => reply.status(202).send(ok(await resendTicketsAs(ctx, actorOf(req), req.params.reference), 'Ticket e-mail queued', 202)),
  );
  app.post(
    '/orders/:reference/refund',
    {
      schema: {
        ...d(
          'refundOrder',
          'Refund a completed order, whole or chosen tickets (ticket_ids): seats released, tickets voided, a refund order with negative amounts recorded, ' +
            'the card payment refunded through the provider (models A and C; 502 payment_provider_refused when it refuses, and nothing changes), ' +
            'the buyer e-mailed (models A-C), order.refunded sent (audited)',
        ),
        params: ReferenceParam,
        body: RefundCreate,
        response: { 201: Envelope(Refund), 502: { $ref: 'ErrorEnvelope' }, ...adminErrors },
      },
      // D56/D58: a field the refund does not know is refused, never dropped (a misspelt ticket_ids
      // must not refund the whole order).
      preValidation: refuseUnknownFields(RefundCreate),
    },
    async (req, reply) =>
      reply
        .status(201)
        .send(
          ok(
            await refundOrderAs(ctx, actorOf(req), req.params.reference, req.body.reason ?? API_REFUND_REASON, { ticketIds: req.body.ticket_ids, allowUsed: req.body.allow_used }),
            'Order refunded',
            201,
          ),
        ),
  );
  app.post(
    '/channels/:channelId/reservations',
    {
      schema: {
        ...d('createReservation', 'Issue an order without payment (type reservation): seats sold, tickets issued (audited)'),
        params: Params.channel,
        body: ReservationCreate,
        response: { 201: Envelope(Reservation), ...adminErrors },
      },
    },
    async (req, reply) =>
      reply.status(201).send(ok(await createReservationAs(ctx, actorOf(req), req.params.channelId, req.body), 'Reservation issued', 201)),
  );
};

export default checkoutAdminRoutes;
