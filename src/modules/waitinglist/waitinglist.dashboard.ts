import type { FastifyInstance } from 'fastify';
import { idParam, pageContext, sendPage } from '../admin/dashboard/dashboard.http.js';
import { html } from '../admin/dashboard/dashboard.html.js';
import { page, table, when } from '../admin/dashboard/dashboard.layout.js';
import { sessionWaitingListFor } from './waitinglist.service.js';

const STATUS_TEXT: Record<string, string> = {
  waiting: 'waiting',
  offered: 'offer open',
  converted: 'bought',
  lapsed: 'offer not taken',
  left: 'left the list',
};

/** A session's waiting list in the dashboard (D69): its figures and every entry in list order. */
export default async function waitingListDashboard(app: FastifyInstance): Promise<void> {
  app.get('/sessions/:sessionId/waiting-list', async (request, reply) => {
    const pc = pageContext(request, 'sales');
    const sessionId = idParam(request, 'sessionId');
    const list = await sessionWaitingListFor(app.ctx, pc.actor, sessionId);
    const f = list.figures;
    const body = html`<section class="card" aria-labelledby="wl-h"><h2 id="wl-h">Waiting list</h2>
<p>Freed seats are held for the first entry they fit for ${list.offer_minutes} minutes, with an e-mail to the buyer; an offer not taken passes to the next entry (docs/waiting-list.md).</p>
<dl class="facts">
<dt>Waiting</dt><dd>${f.waiting} (${f.waiting_tickets} tickets)</dd>
<dt>Offers</dt><dd>${f.offers}: ${f.offered} open, ${f.converted} bought (${f.converted_tickets} tickets), ${f.lapsed} not taken</dd>
<dt>Conversion</dt><dd>${f.conversion_rate === null ? 'no offer has ended yet' : `${Math.round(f.conversion_rate * 100)} %`}</dd>
</dl>
${table(
  ['Position', 'E-mail', 'Name', 'Tickets', 'Joined', 'Status', 'Offer until', 'Order'],
  list.entries.map(
    (e) => html`<tr><td>${e.position ?? ''}</td><td>${e.email}</td><td>${e.name ?? ''}</td><td>${e.quantity}</td><td>${when(e.created_at, pc.timeZone)}</td>
      <td>${STATUS_TEXT[e.status] ?? e.status}</td><td>${e.offer_expires_at && e.status === 'offered' ? when(e.offer_expires_at, pc.timeZone) : ''}</td>
      <td>${e.order_reference ? html`<a href="/admin/orders/${encodeURIComponent(e.order_reference)}">${e.order_reference}</a>` : ''}</td></tr>`,
  ),
  `${list.entries.length} entries`,
)}</section>`;
    return sendPage(reply, page(pc, 'Waiting list', body));
  });
}
