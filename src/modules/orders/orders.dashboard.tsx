import type { FastifyInstance } from 'fastify';
import * as channels from '../channels/channels-admin.service.js';
import { getOrderFor, listOrdersFor, type OrderDetail } from './orders-admin.service.js';
import { pageContext, sendPage } from '../admin/dashboard/kit/dashboard.http.js';
import { ActionButton, Card, Field, HintLine, PostForm, SubmitRow, Table } from '../admin/dashboard/kit/dashboard.controls.js';
import { Page, type PageContext } from '../admin/dashboard/kit/dashboard.page.js';
import { when } from '../admin/dashboard/kit/dashboard.time.js';
import { money } from '../admin/dashboard/kit/dashboard.money.js';

// The box office: order search (reference, buyer's e-mail or name) and one page per order with
// its buyer, items, tickets, payments and history. Refunds and resends are made there only, so
// that the clerk sees whose order it is before acting on it (the forms post to the order actions
// of checkout/checkout.dashboard.ts; card payments: portal/payments/payments.dashboard.tsx). The
// dashboard shell (modules/admin/dashboard/dashboard.routes.tsx) mounts these pages behind its
// sign-in and CSRF hooks; src/app.ts hands them in.

const orderHref = (reference: string) => `/admin/orders/${encodeURIComponent(reference)}`;

/**
 * The first step of a refund (D58): choose the tickets and give a reason; nothing happens until
 * the confirmation page that follows (GET, so it only shows what will be refunded).
 */
function RefundForm({ o }: { o: OrderDetail }) {
  const open = o.items.filter((i) => i.ticket_id !== null && !i.refund_reference);
  return (
    <form class="grid" method="get" action={`${orderHref(o.reference)}/refund`}>
      <fieldset class="field wide">
        <legend>Tickets to refund</legend>
        {open.map((i) => (
          <>
            <label>
              <input type="checkbox" name="ticket_ids" value={i.ticket_id!} checked /> {seatOf(i)} · {money(i.total_amount, o.currency)}
            </label>
            <br />
          </>
        ))}
      </fieldset>
      <Field name="reason" label="Reason for the refund" required wide attrs={{ maxlength: 1000 }} />
      <SubmitRow cls="danger">Review the refund</SubmitRow>
    </form>
  );
}

/** The confirmation step: what will be refunded (tickets, amounts, fees, the card), then the POST. */
function RefundConfirmation({ pc, o, ticketIds, reason }: { pc: PageContext; o: OrderDetail; ticketIds: number[]; reason: string }) {
  const chosen = o.items.filter((i) => i.ticket_id !== null && ticketIds.includes(i.ticket_id) && !i.refund_reference);
  const total = chosen.reduce((n, i) => n + Math.round(i.total_amount * 100), 0) / 100;
  const fees = chosen.reduce((n, i) => n + Math.round(i.fee_amount * 100), 0) / 100;
  const card = o.payment_method === 'card' ? o.payments.find((p) => p.status === 'succeeded') : undefined;
  return (
    <section class="card" aria-labelledby="confirm-h">
      <h2 id="confirm-h">Confirm the refund of {o.reference}</h2>
      <Table
        head={['Ticket', 'Seat', 'Price', 'Of which fees']}
        rows={chosen.map((i) => (
          <tr>
            <td>
              <code>{i.ticket_code ?? ''}</code>
            </td>
            <td>{seatOf(i)}</td>
            <td>{money(i.total_amount, o.currency)}</td>
            <td>{money(i.fee_amount, o.currency)}</td>
          </tr>
        ))}
        caption="The tickets void at once; their seats become available"
      />
      <dl class="facts">
        <dt>Amount</dt>
        <dd>
          up to {money(total, o.currency)} (fees {money(fees, o.currency)} are refunded only if the organiser refunds fees)
        </dd>
        <dt>Money</dt>
        <dd>{card ? `goes back to the buyer's card through ${card.provider} (payment ${card.id})` : 'the channel collected the payment and gives it back itself'}</dd>
        <dt>Reason</dt>
        <dd>{reason}</dd>
      </dl>
      {chosen.length === 0 ? (
        <p class="alert">Choose at least one ticket that is not refunded yet.</p>
      ) : (
        <PostForm pc={pc} action={`${orderHref(o.reference)}/refund`} submit={`Refund ${chosen.length} ticket(s) now`} submitCls="danger">
          <input type="hidden" name="reason" value={reason} />
          {chosen.map((i) => (
            <input type="hidden" name="ticket_ids" value={i.ticket_id!} />
          ))}
          <div class="field wide">
            <label>
              <input type="checkbox" name="allow_used" value="true" /> Refund checked-in tickets too
            </label>
          </div>
        </PostForm>
      )}
      <p>
        <a href={orderHref(o.reference)}>Cancel</a>
      </p>
    </section>
  );
}

/** An audit entry's details as "key: value" lines, for people rather than machines. */
const detailsText = (details: Record<string, unknown>) =>
  Object.entries(details).map(([k, v]) => (
    <>
      <span class="detail">
        {k.replace(/_/g, ' ')}: {typeof v === 'string' ? v : JSON.stringify(v)}
      </span>
      <br />
    </>
  ));

const seatOf = (i: OrderDetail['items'][number]) => (i.row !== null ? `${i.sector_name}, row ${i.row}, seat ${i.seat}` : `${i.sector_name} (unnumbered)`);

function OrderBody({ pc, o }: { pc: PageContext; o: OrderDetail }) {
  const b = o.buyer;
  const refundable = o.type !== 'refund' && o.status === 'completed' && o.items.some((i) => i.ticket_id !== null && !i.refund_reference);
  const resendable = o.type !== 'refund' && o.status === 'completed' && !!b?.email && o.items.some((i) => i.ticket_status === 'valid');
  return (
    <>
      <Card id="summary-h" title="Summary">
        <dl class="facts">
          <dt>Channel</dt>
          <dd>
            <a href={`/admin/channels/${o.channel_id}`}>{o.sales_channel_slug}</a>
          </dd>
          <dt>Type and status</dt>
          <dd>
            {o.type} · {o.status}
            {o.refund_reference ? (
              <>
                {' · refunded by '}
                <a href={orderHref(o.refund_reference)}>{o.refund_reference}</a>
              </>
            ) : null}
          </dd>
          <dt>Total</dt>
          <dd>
            {money(o.total_amount, o.currency)}
            {o.payment_method ? ` · ${o.payment_method}` : ''}
          </dd>
          <dt>Created</dt>
          <dd>{when(o.created_at, pc.timeZone)}</dd>
          <dt>Completed</dt>
          <dd>{when(o.completed_at, pc.timeZone) || '—'}</dd>
        </dl>
      </Card>
      <Card id="buyer-h" title="Buyer">
        {b ? (
          <dl class="facts">
            <dt>Name</dt>
            <dd>
              {b.name} {b.surname}
            </dd>
            <dt>E-mail</dt>
            <dd>
              <a href={`mailto:${b.email}`}>{b.email}</a>
            </dd>
            <dt>Phone</dt>
            <dd>{b.phone ?? '—'}</dd>
            <dt>Language</dt>
            <dd>{o.lang}</dd>
          </dl>
        ) : (
          <p>No buyer details yet.</p>
        )}
      </Card>
      <Card id="items-h" title="Items and tickets">
        <Table
          head={['Event', 'Session', 'Seat', 'Rate', 'Price', 'Ticket']}
          rows={o.items.map((i) => (
            <tr>
              <td>{i.event_name}</td>
              <td>
                {when(i.session_start, pc.timeZone)} · {i.venue_name}
              </td>
              <td>{seatOf(i)}</td>
              <td>{i.rate_name}</td>
              <td>{money(i.total_amount, o.currency)}</td>
              <td>
                {i.ticket_code ? (
                  <>
                    <code>{i.ticket_code}</code> <span class={`badge ${i.ticket_status === 'valid' ? 'live' : 'off'}`}>{i.ticket_status}</span>
                  </>
                ) : (
                  '—'
                )}
              </td>
            </tr>
          ))}
        />
      </Card>
      <Card id="payments-h" title="Payments">
        <Table
          head={['When', 'Provider', 'Status', 'Amount', 'Reason']}
          rows={o.payments.map((p) => (
            <tr>
              <td>{when(p.created_at, pc.timeZone)}</td>
              <td>{p.provider}</td>
              <td>{p.status}</td>
              <td>{money(p.amount, p.currency)}</td>
              <td>{p.failure_reason ?? ''}</td>
            </tr>
          ))}
          caption="Card payments through the portal; other channels confirm with their own payment"
        />
      </Card>
      <Card id="refunds-h" title="Refunds">
        <Table
          head={['When', 'Refund', 'Amount', 'Fees', 'Tickets', 'Card refund', 'Reason']}
          rows={o.refunds.map((r) => (
            <tr>
              <td>{when(r.created_at, pc.timeZone)}</td>
              <td>
                <a href={orderHref(r.reference)}>{r.reference}</a>
              </td>
              <td>{money(r.total_amount, o.currency)}</td>
              <td>{r.fees_refunded ? money(r.fee_amount, o.currency) : 'kept'}</td>
              <td>{r.ticket_ids.length}</td>
              <td>
                {r.provider_refund_reference ? (
                  <>
                    {r.provider} <code>{r.provider_refund_reference}</code>
                  </>
                ) : (
                  '—'
                )}
              </td>
              <td>{r.reason}</td>
            </tr>
          ))}
          caption="Each refund with what went back and the card provider's reference"
        />
      </Card>
      <Card id="history-h" title="History">
        <Table
          head={['When', 'Who', 'What', 'Details']}
          rows={[
            // The order's own milestones, then what back-office users did to it (the audit log).
            <tr>
              <td>{when(o.created_at, pc.timeZone)}</td>
              <td>{o.sales_channel_slug}</td>
              <td>order created</td>
              <td />
            </tr>,
            ...(o.completed_at
              ? [
                  <tr>
                    <td>{when(o.completed_at, pc.timeZone)}</td>
                    <td>{b?.email ?? ''}</td>
                    <td>order completed</td>
                    <td>{o.payment_method ?? ''}</td>
                  </tr>,
                ]
              : []),
            ...o.history.map((h) => (
              <tr>
                <td>{when(h.created_at, pc.timeZone)}</td>
                <td>{h.user_email}</td>
                <td>
                  {h.action}
                  {h.target_id !== o.reference ? ` (${h.target_id})` : ''}
                </td>
                <td>{detailsText(h.details)}</td>
              </tr>
            )),
          ]}
          caption="Oldest first: the order, then the audit log"
        />
      </Card>
      <Card id="actions-h" title="Actions">
        {resendable ? (
          <>
            <p>Send the ticket e-mail again to {b!.email} (one e-mail per click; queued and sent within seconds).</p>
            <ActionButton pc={pc} action={`${orderHref(o.reference)}/resend-tickets`} label="Resend tickets" cls="" />
          </>
        ) : (
          <p class="hint">No tickets to send.</p>
        )}
        {refundable ? (
          <>
            <h3>Refund</h3>
            <p>Refunding releases the seats, voids the tickets, records a refund order and gives a card payment back; you review it before it happens.</p>
            <RefundForm o={o} />
          </>
        ) : null}
      </Card>
      <p>
        <a href="/admin/orders">Back to the orders</a>
      </p>
    </>
  );
}

export default async function ordersDashboard(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;

  app.get('/orders', async (request, reply) => {
    const pc = pageContext(request, 'orders');
    const q = request.query as { channel_id?: string; before_id?: string; q?: string };
    const channelId = q.channel_id && /^\d{1,9}$/.test(q.channel_id) ? Number(q.channel_id) : undefined;
    const channel = channelId ? await channels.getChannelFor(ctx, pc.actor, channelId) : null;
    const beforeId = q.before_id && /^\d{1,15}$/.test(q.before_id) ? Number(q.before_id) : undefined;
    const search = typeof q.q === 'string' ? q.q.slice(0, 200) : '';
    const rows = await listOrdersFor(ctx, pc.actor, { channelId, beforeId, search, limit: 50 });
    const last = rows.at(-1);
    const more = new URLSearchParams({ ...(channelId ? { channel_id: String(channelId) } : {}), ...(search ? { q: search } : {}), before_id: String(last?.id ?? '') });
    return sendPage(
      reply,
      <Page pc={pc} title="Orders">
        <form class="search" method="get" action="/admin/orders" role="search">
          {channelId ? <input type="hidden" name="channel_id" value={channelId} /> : null}
          <Field name="q" label="Find an order" type="search" value={search} hint="reference, e-mail or name" attrs={{ maxlength: 200, autocapitalize: 'none' }} />
          <SubmitRow>Search</SubmitRow>
        </form>
        {channel ? (
          <p>
            Channel <a href={`/admin/channels/${channel.id}`}>{channel.slug}</a> · <a href="/admin/orders">all channels</a>
          </p>
        ) : null}
        <Table
          head={['Reference', 'Buyer', 'Channel', 'Type', 'Status', 'Total', 'Created']}
          rows={rows.map((o) => (
            <tr>
              <td>
                <a href={orderHref(o.reference)}>{o.reference}</a>
              </td>
              <td>
                {o.buyer_name ?? ''}
                {o.buyer_email ? <HintLine>{o.buyer_email}</HintLine> : null}
              </td>
              <td>{o.sales_channel_slug}</td>
              <td>{o.type}</td>
              <td>{o.status}</td>
              <td>{money(o.total_amount, o.currency)}</td>
              <td>{when(o.created_at, pc.timeZone)}</td>
            </tr>
          ))}
          caption={search ? `Orders matching "${search}", newest first` : 'Newest first. Open an order to resend its tickets or refund it.'}
        />
        {rows.length === 50 && last ? (
          <p>
            <a href={`/admin/orders?${more.toString()}`}>Older orders</a>
          </p>
        ) : null}
        <p>
          <a href="/admin/payments?status=refund_required">Card payments to refund</a> · <a href="/admin/payments?status=refunded">refunded</a>
        </p>
      </Page>,
    );
  });

  app.get('/orders/:reference', async (request, reply) => {
    const pc = pageContext(request, 'orders');
    const { reference } = request.params as { reference: string };
    const order = await getOrderFor(ctx, pc.actor, reference.slice(0, 64));
    return sendPage(
      reply,
      <Page pc={pc} title={`Order ${order.reference}`}>
        <OrderBody pc={pc} o={order} />
      </Page>,
    );
  });

  app.get('/orders/:reference/refund', async (request, reply) => {
    const pc = pageContext(request, 'orders');
    const { reference } = request.params as { reference: string };
    const q = request.query as { ticket_ids?: string | string[]; reason?: string };
    const ids = (Array.isArray(q.ticket_ids) ? q.ticket_ids : q.ticket_ids ? [q.ticket_ids] : []).filter((v) => /^\d{1,15}$/.test(v)).map(Number);
    const order = await getOrderFor(ctx, pc.actor, reference.slice(0, 64));
    return sendPage(
      reply,
      <Page pc={pc} title={`Refund ${order.reference}`}>
        <RefundConfirmation pc={pc} o={order} ticketIds={ids} reason={String(q.reason ?? '').slice(0, 1000)} />
      </Page>,
    );
  });
}
