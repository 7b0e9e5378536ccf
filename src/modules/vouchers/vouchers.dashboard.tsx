import type { FastifyInstance } from 'fastify';
import { actorOf, formOf, idParam, organisersFor, pageContext, redirect, sendPage } from '../admin/dashboard/kit/dashboard.http.js';
import * as F from '../admin/dashboard/kit/dashboard.form.js';
import { Card, Field, OrganiserSelect, PostForm, Select, Table } from '../admin/dashboard/kit/dashboard.controls.js';
import { Page } from '../admin/dashboard/kit/dashboard.page.js';
import { localInput, when } from '../admin/dashboard/kit/dashboard.time.js';
import * as vouchers from './vouchers-admin.service.js';

// Dashboard pages for vouchers. Amounts are entered as decimal numbers of the deployment currency;
// voucher validity is still typed in UTC (its labels say so). The dashboard shell
// (modules/admin/dashboard/dashboard.routes.tsx) mounts them behind its sign-in and CSRF hooks.

function VoucherFields({ v = {} }: { v?: Partial<vouchers.VoucherView> }) {
  return (
    <>
      <Field name="code" label="Code" value={v.code} required attrs={{ pattern: '[A-Za-z0-9_\\-]{1,64}', autocapitalize: 'characters' }} />
      <Select
        name="kind"
        label="Kind"
        options={[
          ['percent', 'percent off'],
          ['fixed', 'fixed amount off the order'],
        ]}
        selected={v.kind}
      />
      <Field name="value" label="Value" type="number" value={v.value} required hint="% or currency amount" attrs={{ step: '0.01', min: '0.01' }} />
      <Field name="max_uses" label="Maximum uses" type="number" value={v.max_uses} hint="empty = unlimited" attrs={{ min: 1 }} />
      <Field name="valid_from" label="Valid from (UTC)" type="datetime-local" value={localInput(v.valid_from ?? null)} />
      <Field name="valid_until" label="Valid until (UTC)" type="datetime-local" value={localInput(v.valid_until ?? null)} />
      <Field name="event_id" label="Only for event id" type="number" value={v.event_id} attrs={{ min: 1 }} />
      <Field name="session_id" label="Only for session id" type="number" value={v.session_id} attrs={{ min: 1 }} />
      <Field name="rate_id" label="Only for rate id" type="number" value={v.rate_id} attrs={{ min: 1 }} />
    </>
  );
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

  app.get('/vouchers', async (request, reply) => {
    const pc = pageContext(request, 'vouchers');
    const list = await vouchers.listVouchersFor(ctx, pc.actor);
    const organisers = pc.actor.role === 'admin' ? await organisersFor(ctx, pc.actor) : [];
    return sendPage(
      reply,
      <Page pc={pc} title="Vouchers">
        <Card id="list-h" title="Vouchers">
          <Table
            head={['Code', 'Discount', 'Uses', 'Valid', 'Organiser']}
            rows={list.map((v) => (
              <tr>
                <td>
                  <a href={`/admin/vouchers/${v.id}`}>{v.code}</a>
                </td>
                <td>{v.kind === 'percent' ? `${v.value} %` : v.value.toFixed(2)}</td>
                <td>{v.max_uses ?? 'unlimited'}</td>
                <td>{`${when(v.valid_from, pc.timeZone) || '…'} – ${when(v.valid_until, pc.timeZone) || '…'}`}</td>
                <td>{v.organiser_id}</td>
              </tr>
            ))}
          />
        </Card>
        <Card id="new-h" title="New voucher">
          <PostForm pc={pc} action="/admin/vouchers" submit="Create voucher">
            <OrganiserSelect pc={pc} organisers={organisers} />
            <VoucherFields />
          </PostForm>
        </Card>
      </Page>,
    );
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
    return sendPage(
      reply,
      <Page pc={pc} title={`Voucher ${voucher.code}`}>
        <p>
          <a href="/admin/vouchers">All vouchers</a>
        </p>
        <Card id="edit-h" title="Voucher">
          <PostForm pc={pc} action={`/admin/vouchers/${id}`} submit="Save voucher">
            <VoucherFields v={voucher} />
          </PostForm>
        </Card>
      </Page>,
    );
  });

  app.post('/vouchers/:voucherId', async (request, reply) => {
    const id = idParam(request, 'voucherId');
    await vouchers.updateVoucherAs(ctx, actorOf(request), id, voucherInput(formOf(request)));
    return redirect(reply, `/admin/vouchers/${id}?notice=saved`);
  });
}
