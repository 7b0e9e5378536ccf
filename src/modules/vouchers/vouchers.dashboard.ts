import type { FastifyInstance } from 'fastify';
import type { Actor } from '../../platform/actor.js';
import { formOf, idParam, organisersFor, pageContext, redirect, sendPage } from '../admin/dashboard/kit/dashboard.http.js';
import * as F from '../admin/dashboard/kit/dashboard.form.js';
import { html } from '../admin/dashboard/kit/dashboard.html.js';
import { csrf, field, localInput, page, select, table, when } from '../admin/dashboard/kit/dashboard.layout.js';
import * as vouchers from './vouchers-admin.service.js';

// Dashboard pages for vouchers. Amounts are entered as decimal numbers of the deployment currency;
// voucher validity is still typed in UTC (its labels say so). The dashboard shell
// (modules/admin/dashboard/dashboard.routes.ts) mounts them behind its sign-in and CSRF hooks.

function voucherFields(v: Partial<vouchers.VoucherView> = {}) {
  return html`${field('code', 'Code', { value: v.code, required: true, attrs: html` pattern="[A-Za-z0-9_\\-]{1,64}" autocapitalize="characters"` })}
  ${select('kind', 'Kind', [['percent', 'percent off'], ['fixed', 'fixed amount off the order']], v.kind)}
  ${field('value', 'Value', { type: 'number', value: v.value, required: true, hint: '% or currency amount', attrs: html` step="0.01" min="0.01"` })}
  ${field('max_uses', 'Maximum uses', { type: 'number', value: v.max_uses, hint: 'empty = unlimited', attrs: html` min="1"` })}
  ${field('valid_from', 'Valid from (UTC)', { type: 'datetime-local', value: localInput(v.valid_from ?? null) })}
  ${field('valid_until', 'Valid until (UTC)', { type: 'datetime-local', value: localInput(v.valid_until ?? null) })}
  ${field('event_id', 'Only for event id', { type: 'number', value: v.event_id, attrs: html` min="1"` })}
  ${field('session_id', 'Only for session id', { type: 'number', value: v.session_id, attrs: html` min="1"` })}
  ${field('rate_id', 'Only for rate id', { type: 'number', value: v.rate_id, attrs: html` min="1"` })}
`;
}

function voucherInput(form: F.Form): vouchers.VoucherInput {
  return {
    code: F.text(form, 'code'),
    kind: F.text(form, 'kind') as 'percent' | 'fixed',
    value: F.number(form, 'value'),
    max_uses: F.nullableNumber(form, 'max_uses'),
    valid_from: F.utcDateTime(form, 'valid_from'),
    valid_until: F.utcDateTime(form, 'valid_until'),
    event_id: F.nullableNumber(form, 'event_id'),
    session_id: F.nullableNumber(form, 'session_id'),
    rate_id: F.nullableNumber(form, 'rate_id'),
  };
}

export default async function vouchersDashboard(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;
  const actorOf = (request: { dashboard: { actor: Actor } | null }) => request.dashboard!.actor;

  app.get('/vouchers', async (request, reply) => {
    const pc = pageContext(request, 'vouchers');
    const list = await vouchers.listVouchersFor(ctx, pc.actor);
    const organisers = pc.actor.role === 'admin' ? await organisersFor(ctx, pc.actor) : [];
    const body = html`
<section class="card" aria-labelledby="list-h"><h2 id="list-h">Vouchers</h2>
${table(
  ['Code', 'Discount', 'Uses', 'Valid', 'Organiser'],
  list.map(
    (v) => html`<tr><td><a href="/admin/vouchers/${v.id}">${v.code}</a></td><td>${v.kind === 'percent' ? `${v.value} %` : v.value.toFixed(2)}</td>
      <td>${v.max_uses ?? 'unlimited'}</td><td>${when(v.valid_from, pc.timeZone) || '…'} – ${when(v.valid_until, pc.timeZone) || '…'}</td><td>${v.organiser_id}</td></tr>`,
  ),
)}</section>
<section class="card" aria-labelledby="new-h"><h2 id="new-h">New voucher</h2>
<form class="grid" method="post" action="/admin/vouchers">${csrf(pc)}
  ${pc.actor.role === 'admin' ? select('organiser_id', 'Organiser', organisers.map((o) => [o.id, `${o.name} (${o.id})`])) : ''}
  ${voucherFields()}
  <div class="field"><button type="submit">Create voucher</button></div>
</form></section>`;
    return sendPage(reply, page(pc, 'Vouchers', body));
  });

  app.post('/vouchers', async (request, reply) => {
    const form = formOf(request);
    const actor = actorOf(request);
    const voucher = await vouchers.createVoucherAs(ctx, actor, { ...voucherInput(form), organiser_id: actor.role === 'admin' ? F.number(form, 'organiser_id') : undefined });
    return redirect(reply, `/admin/vouchers/${voucher.id}?notice=created`);
  });

  app.get('/vouchers/:voucherId', async (request, reply) => {
    const pc = pageContext(request, 'vouchers');
    const id = idParam(request, 'voucherId');
    const voucher = await vouchers.getVoucherFor(ctx, pc.actor, id);
    const body = html`<p><a href="/admin/vouchers">All vouchers</a></p>
<section class="card" aria-labelledby="edit-h"><h2 id="edit-h">Voucher</h2>
<form class="grid" method="post" action="/admin/vouchers/${id}">${csrf(pc)}
  ${voucherFields(voucher)}
  <div class="field"><button type="submit">Save voucher</button></div>
</form></section>`;
    return sendPage(reply, page(pc, `Voucher ${voucher.code}`, body));
  });

  app.post('/vouchers/:voucherId', async (request, reply) => {
    const id = idParam(request, 'voucherId');
    await vouchers.updateVoucherAs(ctx, actorOf(request), id, voucherInput(formOf(request)));
    return redirect(reply, `/admin/vouchers/${id}?notice=saved`);
  });
}
