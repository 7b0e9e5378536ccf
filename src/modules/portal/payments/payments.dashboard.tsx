import type { FastifyInstance } from 'fastify';
import { PAYMENT_STATUSES, type PaymentStatus } from '../../../db/schema/index.js';
import { pageContext, sendPage } from '../../admin/dashboard/kit/dashboard.http.js';
import { Table } from '../../admin/dashboard/kit/dashboard.controls.js';
import { Page } from '../../admin/dashboard/kit/dashboard.page.js';
import { when } from '../../admin/dashboard/kit/dashboard.time.js';
import { listPaymentsFor } from './payments-admin.service.js';
import { money } from '../../admin/dashboard/kit/dashboard.money.js';

// The card payments page of the dashboard (D73), beside the orders (section "orders"). The
// dashboard shell (modules/admin/dashboard/dashboard.routes.tsx) mounts it behind its sign-in hook.

const orderHref = (reference: string) => `/admin/orders/${encodeURIComponent(reference)}`;

export default async function paymentsDashboard(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;

  // D73: card payments that took money but completed no order, listed until the scheduler has
  // refunded them through the provider (then `refunded`); other statuses on request.
  app.get('/payments', async (request, reply) => {
    const pc = pageContext(request, 'orders');
    const q = request.query as { status?: string };
    const status = (PAYMENT_STATUSES as readonly string[]).includes(q.status ?? '') ? (q.status as PaymentStatus) : 'refund_required';
    const rows = await listPaymentsFor(ctx, pc.actor, { status, limit: 200 });
    return sendPage(
      reply,
      <Page pc={pc} title="Card payments">
        <p>
          {PAYMENT_STATUSES.map((s) => (
            <>
              <a href={`/admin/payments?status=${s}`} aria-current={s === status ? 'page' : undefined}>
                {s.replace('_', ' ')}
              </a>{' '}
            </>
          ))}
        </p>
        {status === 'refund_required' ? (
          <p class="hint">
            Money taken by the card provider that completed no order (a second tab, a late or wrong amount, a closed cart). Each is refunded automatically through the provider, with an e-mail to the
            buyer; it stays here until it is.
          </p>
        ) : null}
        <Table
          head={['Payment', 'Order', 'Buyer', 'Amount', 'Status', 'Reason', 'Refund', 'Created']}
          rows={rows.map((p) => (
            <tr>
              <td>
                <code>{p.id}</code>
                <br />
                <span class="hint">{p.provider}</span>
              </td>
              <td>
                <a href={orderHref(p.order_reference)}>{p.order_reference}</a>
                <br />
                <span class="hint">{p.sales_channel_slug}</span>
              </td>
              <td>
                {p.buyer_name}
                <br />
                <span class="hint">{p.buyer_email}</span>
              </td>
              <td>{money(p.amount, p.currency)}</td>
              <td>{p.status}</td>
              <td>{p.failure_reason ?? ''}</td>
              <td>
                {p.refund_ref ? (
                  <>
                    <code>{p.refund_ref}</code> {when(p.refunded_at, pc.timeZone)}
                  </>
                ) : p.status === 'refund_required' ? (
                  <>
                    {p.refund_attempts} attempt(s)
                    {p.refund_error ? (
                      <>
                        <br />
                        <span class="hint">{p.refund_error}</span>
                      </>
                    ) : null}
                    {p.refund_next_at ? (
                      <>
                        <br />
                        <span class="hint">next {when(p.refund_next_at, pc.timeZone)}</span>
                      </>
                    ) : null}
                  </>
                ) : null}
              </td>
              <td>{when(p.created_at, pc.timeZone)}</td>
            </tr>
          ))}
          caption={status === 'refund_required' ? 'Payments to refund, newest first' : `Payments ${status.replace('_', ' ')}, newest first`}
        />
        <p>
          <a href="/admin/orders">Back to the orders</a>
        </p>
      </Page>,
    );
  });
}
