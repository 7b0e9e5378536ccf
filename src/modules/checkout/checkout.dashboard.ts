import type { FastifyInstance } from 'fastify';
import { formOf, redirectWithNotice } from '../admin/dashboard/kit/dashboard.http.js';
import * as F from '../admin/dashboard/kit/dashboard.form.js';
import { refundOrderAs, resendTicketsAs } from './order-actions.service.js';

// The order actions of the dashboard: a refund (after the confirmation page of
// orders/orders.dashboard.tsx) and the ticket e-mail sent again, both from an order's page. The
// dashboard shell (modules/admin/dashboard/dashboard.routes.tsx) mounts them behind its sign-in and
// CSRF hooks; src/app.ts hands them in.

const orderHref = (reference: string) => `/admin/orders/${encodeURIComponent(reference)}`;

export default async function checkoutDashboard(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;

  app.post('/orders/:reference/refund', async (request, reply) => {
    const { reference } = request.params as { reference: string };
    const form = formOf(request);
    const ticketIds = F.ids(form, 'ticket_ids');
    await refundOrderAs(ctx, request.dashboard!.actor, reference, F.text(form, 'reason'), {
      ticketIds: ticketIds.length ? ticketIds : undefined,
      allowUsed: F.text(form, 'allow_used') === 'true',
    });
    return redirectWithNotice(reply, `${orderHref(reference)}`, 'refunded');
  });

  app.post('/orders/:reference/resend-tickets', async (request, reply) => {
    const { reference } = request.params as { reference: string };
    await resendTicketsAs(ctx, request.dashboard!.actor, reference);
    return redirectWithNotice(reply, `${orderHref(reference)}`, 'resent');
  });
}
