import type { FastifyInstance } from 'fastify';
import { formPost, idParam, organisersFor, pageContext, sendPage } from '../admin/dashboard/kit/dashboard.http.js';
import * as F from '../admin/dashboard/kit/dashboard.form.js';
import { Card, chosenOrganiser, Field, OrganiserSelect, PostForm, Select, Table } from '../admin/dashboard/kit/dashboard.controls.js';
import { Page } from '../admin/dashboard/kit/dashboard.page.js';
import { when } from '../admin/dashboard/kit/dashboard.time.js';
import { isoToZonedInput, zonedToIso } from '../../lib/zoned-time.js';
import * as vouchers from './vouchers-admin.service.js';

// Dashboard pages for vouchers. Amounts are entered as decimal numbers of the deployment currency;
// validity is typed and shown in the deployment's zone (TIMEZONE), and a voucher is limited to an
// event, a session or a rate picked by name. The dashboard shell
// (modules/admin/dashboard/dashboard.routes.tsx) mounts them behind its sign-in and CSRF hooks.

type Targets = Awaited<ReturnType<typeof vouchers.voucherTargetsFor>>;

/** The picker's options: "any" first, then the targets by name; a chosen id the list lacks keeps its place. */
function targetOptions(any: string, options: [number, string][], chosen: number | null | undefined): [string | number, string][] {
  const missing = chosen != null && !options.some(([id]) => id === chosen) ? [[chosen, `#${chosen}`] as [number, string]] : [];
  return [['', any], ...missing, ...options];
}

function VoucherFields({ v = {}, targets, zone }: { v?: Partial<vouchers.VoucherView>; targets: Targets; zone: string }) {
  const session = (s: { event_name: string; start_datetime: string }) => `${s.event_name} · ${when(s.start_datetime, zone)}`;
  return (
    <>
      <Field name="code" label="Code" value={v.code} required attrs={{ pattern: '[A-Za-z0-9_\\-]{1,64}', autocapitalize: 'characters' }} />
      <Select name="kind" label="Kind" choices={{ percent: 'percent off', fixed: 'fixed amount off the order' }} selected={v.kind} />
      <Field name="value" label="Value" type="number" value={v.value} required hint="% or currency amount" attrs={{ step: '0.01', min: '0.01' }} />
      <Field name="max_uses" label="Maximum uses" type="number" value={v.max_uses} hint="empty = unlimited" attrs={{ min: 1 }} />
      <Field name="valid_from" label={`Valid from (${zone} time)`} type="datetime-local" value={isoToZonedInput(v.valid_from, zone)} />
      <Field name="valid_until" label={`Valid until (${zone} time)`} type="datetime-local" value={isoToZonedInput(v.valid_until, zone)} />
      <Select name="event_id" label="Only for the event" options={targetOptions('any event', targets.events.map((e) => [e.id, e.name]), v.event_id)} selected={v.event_id} />
      <Select name="session_id" label="Only for the session" options={targetOptions('any session', targets.sessions.map((s) => [s.id, session(s)]), v.session_id)} selected={v.session_id} />
      <Select name="rate_id" label="Only for the rate" options={targetOptions('any rate', targets.rates.map((r) => [r.id, `${session(r)} · ${r.name}`]), v.rate_id)} selected={v.rate_id} />
    </>
  );
}

/** The form as the service takes it; times typed in the deployment's zone. */
function voucherInput(form: F.Form, zone: string): vouchers.VoucherInput {
  return {
    code: F.text(form, 'code'),
    kind: F.text(form, 'kind') as 'percent' | 'fixed',
    value: F.number(form, 'value'),
    max_uses: F.nullableNumber(form, 'max_uses'),
    valid_from: zonedToIso(F.text(form, 'valid_from'), zone),
    valid_until: zonedToIso(F.text(form, 'valid_until'), zone),
    event_id: F.nullableNumber(form, 'event_id'),
    session_id: F.nullableNumber(form, 'session_id'),
    rate_id: F.nullableNumber(form, 'rate_id'),
  };
}

export default async function vouchersDashboard(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;

  app.get('/vouchers', async (request, reply) => {
    const pc = pageContext(request, 'vouchers');
    const [list, organisers, targets] = await Promise.all([vouchers.listVouchersFor(ctx, pc.actor), organisersFor(ctx, pc.actor), vouchers.voucherTargetsFor(ctx, pc.actor)]);
    const organiserName = new Map(organisers.map((o) => [o.id, o.name]));
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
                <td>{organiserName.get(v.organiser_id) ?? v.organiser_id}</td>
              </tr>
            ))}
          />
        </Card>
        <Card id="new-h" title="New voucher">
          <PostForm pc={pc} action="/admin/vouchers" submit="Create voucher">
            <OrganiserSelect pc={pc} organisers={organisers} />
            <VoucherFields targets={targets} zone={pc.timeZone} />
          </PostForm>
        </Card>
      </Page>,
    );
  });

  formPost(app, '/vouchers', async (form, actor) => {
    const voucher = await vouchers.createVoucherAs(ctx, actor, { ...voucherInput(form, ctx.config.timezone), organiser_id: chosenOrganiser(form, actor) });
    return [`/admin/vouchers/${voucher.id}`, 'created'];
  });

  app.get('/vouchers/:voucherId', async (request, reply) => {
    const pc = pageContext(request, 'vouchers');
    const id = idParam(request, 'voucherId');
    const [voucher, targets] = await Promise.all([vouchers.getVoucherFor(ctx, pc.actor, id), vouchers.voucherTargetsFor(ctx, pc.actor)]);
    return sendPage(
      reply,
      <Page pc={pc} title={`Voucher ${voucher.code}`}>
        <p>
          <a href="/admin/vouchers">All vouchers</a>
        </p>
        <Card id="edit-h" title="Voucher">
          <PostForm pc={pc} action={`/admin/vouchers/${id}`} submit="Save voucher">
            <VoucherFields v={voucher} targets={targets} zone={pc.timeZone} />
          </PostForm>
        </Card>
      </Page>,
    );
  });

  formPost(app, '/vouchers/:voucherId', async (form, actor, request) => {
    const id = idParam(request, 'voucherId');
    await vouchers.updateVoucherAs(ctx, actor, id, voucherInput(form, ctx.config.timezone));
    return [`/admin/vouchers/${id}`, 'saved'];
  });
}
