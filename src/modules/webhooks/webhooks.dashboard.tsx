import type { FastifyInstance } from 'fastify';
import * as channels from '../channels/channels-admin.service.js';
import { WEBHOOK_EVENT_TYPES } from './webhooks.outbox.js';
import * as webhooks from './webhooks.service.js';
import { formOf, formPost, idParam, pageContext, sendPage } from '../admin/dashboard/kit/dashboard.http.js';
import * as F from '../admin/dashboard/kit/dashboard.form.js';
import { ActionButton, Card, Field, HintLine, PostForm, ShowOnce, Table } from '../admin/dashboard/kit/dashboard.controls.js';
import { Page, type PageContext } from '../admin/dashboard/kit/dashboard.page.js';
import { when } from '../admin/dashboard/kit/dashboard.time.js';

// The webhook pages of a channel (D51, docs/webhooks.md): its endpoints, a new secret shown once,
// and per endpoint the deliveries with every attempt and a "Redeliver" button.

const base = (channelId: number) => `/admin/channels/${channelId}/webhooks`;

/** An endpoint as its forms send it (add, edit). */
const endpointInput = (form: F.Form) => ({
  url: F.text(form, 'url'),
  description: F.text(form, 'description'),
  event_types: [form.event_types ?? []].flat().filter((v): v is string => typeof v === 'string'),
});

function EventTypeBoxes({ checked }: { checked: readonly string[] }) {
  return (
    <fieldset class="field wide">
      <legend>Events to send</legend>
      {WEBHOOK_EVENT_TYPES.map((t) => (
        <label>
          <input type="checkbox" name="event_types" value={t} checked={checked.includes(t)} /> {t}
        </label>
      ))}
    </fieldset>
  );
}

/** The endpoint form's fields: a new endpoint's (with the URL's hint, orders and sessions ticked) or `endpoint`'s. */
function EndpointFields({ endpoint, urlHint }: { endpoint?: webhooks.EndpointView; urlHint?: string }) {
  return (
    <>
      <Field name="url" label="URL" type="url" value={endpoint?.url} required wide hint={urlHint} />
      <Field name="description" label="Description" value={endpoint?.description} attrs={{ maxlength: 200 }} />
      <EventTypeBoxes checked={endpoint?.event_types ?? WEBHOOK_EVENT_TYPES.filter((t) => t.startsWith('order.') || t.startsWith('session.'))} />
    </>
  );
}

const StatusBadge = ({ e }: { e: webhooks.EndpointView }) =>
  e.enabled ? <span class="badge live">enabled</span> : <span class="badge off">{e.disabled_reason === 'gone' ? 'disabled: it answered 410 Gone' : 'disabled'}</span>;

/** The secret page after a creation or a rotation: the only time the secret is shown. */
function SecretPage({ pc, channelId, endpoint, secret, rotated }: { pc: PageContext; channelId: number; endpoint: webhooks.EndpointView; secret: string; rotated: boolean }) {
  return (
    <Page pc={pc} title={rotated ? 'New webhook secret' : 'Webhook endpoint added'}>
      <Card id="secret-h" title="Copy the signing secret now">
        <p>
          <strong>This is the only time the secret is shown.</strong> Store it in the configuration of the server at {endpoint.url}: it verifies the <code>webhook-signature</code> header of every
          event (docs/webhooks.md).
          {rotated ? ' The previous secret also signs for the next 24 hours, so that you can switch without losing an event.' : ''}
        </p>
        <ShowOnce id="new-secret" label="Signing secret" value={secret} statusId="copy-status" />
        <p>
          <a href={base(channelId)}>Back to the webhooks</a>
        </p>
      </Card>
    </Page>
  );
}

export default async function webhooksDashboard(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;

  app.get('/channels/:channelId/webhooks', async (request, reply) => {
    const pc = pageContext(request, 'channels');
    const id = idParam(request, 'channelId');
    const channel = await channels.getChannelFor(ctx, pc.actor, id);
    const endpoints = await webhooks.listEndpointsFor(ctx, pc.actor, id);
    return sendPage(
      reply,
      <Page pc={pc} title={`Webhooks of ${channel.slug}`}>
        <p>
          <a href={`/admin/channels/${id}`}>Back to the channel</a> · Events are signed (Standard Webhooks) and retried for more than 3 days; see docs/webhooks.md.
        </p>
        <Card id="endpoints-h" title="Endpoints">
          <Table
            head={['URL', 'Events', 'Status', '']}
            rows={endpoints.map((e) => (
              <tr>
                <td>
                  <a href={`${base(id)}/${e.id}`}>{e.url}</a>
                  {e.description ? <HintLine>{e.description}</HintLine> : null}
                </td>
                <td>{e.event_types.join(', ')}</td>
                <td>
                  <StatusBadge e={e} />
                </td>
                <td>
                  <ActionButton pc={pc} action={`${base(id)}/${e.id}/${e.enabled ? 'disable' : 'enable'}`} label={e.enabled ? 'Disable' : 'Enable'} accessibleName={`${e.enabled ? 'Disable' : 'Enable'} ${e.url}`} />{' '}
                  <ActionButton pc={pc} action={`${base(id)}/${e.id}/rotate`} label="Rotate secret" accessibleName={`Rotate the secret of ${e.url}`} />{' '}
                  <ActionButton pc={pc} action={`${base(id)}/${e.id}/delete`} label="Delete" cls="danger" accessibleName={`Delete ${e.url}`} />
                </td>
              </tr>
            ))}
            caption="Click an endpoint for its deliveries and their attempts"
          />
        </Card>
        <Card id="add-h" title="Add an endpoint">
          <PostForm pc={pc} action={base(id)} submit="Add endpoint">
            <EndpointFields urlHint={ctx.config.appEnv === 'production' ? 'https only' : 'http or https'} />
          </PostForm>
        </Card>
      </Page>,
    );
  });

  app.post('/channels/:channelId/webhooks', async (request, reply) => {
    const pc = pageContext(request, 'channels');
    const id = idParam(request, 'channelId');
    const created = await webhooks.createEndpointAs(ctx, pc.actor, id, endpointInput(formOf(request)));
    return sendPage(reply, <SecretPage pc={pc} channelId={id} endpoint={created} secret={created.secret} rotated={false} />, 201);
  });

  app.post('/channels/:channelId/webhooks/:endpointId/rotate', async (request, reply) => {
    const pc = pageContext(request, 'channels');
    const id = idParam(request, 'channelId');
    const rotated = await webhooks.rotateSecretAs(ctx, pc.actor, id, idParam(request, 'endpointId'));
    return sendPage(reply, <SecretPage pc={pc} channelId={id} endpoint={rotated} secret={rotated.secret} rotated />);
  });

  for (const [action, enabled] of [['enable', true], ['disable', false]] as const) {
    formPost(app, `/channels/:channelId/webhooks/:endpointId/${action}`, async (form, actor, request) => {
      const id = idParam(request, 'channelId');
      await webhooks.updateEndpointAs(ctx, actor, id, idParam(request, 'endpointId'), { enabled });
      return [base(id), 'saved'];
    });
  }

  formPost(app, '/channels/:channelId/webhooks/:endpointId/delete', async (form, actor, request) => {
    const id = idParam(request, 'channelId');
    await webhooks.deleteEndpointAs(ctx, actor, id, idParam(request, 'endpointId'));
    return [base(id), 'deleted'];
  });

  app.get('/channels/:channelId/webhooks/:endpointId', async (request, reply) => {
    const pc = pageContext(request, 'channels');
    const id = idParam(request, 'channelId');
    const endpointId = idParam(request, 'endpointId');
    const endpoint = await webhooks.getEndpointFor(ctx, pc.actor, id, endpointId);
    const deliveries = await webhooks.listDeliveriesFor(ctx, pc.actor, id, endpointId, { limit: 100 });
    const attemptList = (d: webhooks.DeliveryView) =>
      d.attempts.length === 0 ? (
        <span class="hint">not sent yet</span>
      ) : (
        <ol class="attempts">
          {d.attempts.map((a) => (
            <li>
              {when(a.attempted_at, pc.timeZone)} · <strong>{a.status_code ?? 'no answer'}</strong> · {a.duration_ms} ms{a.manual ? ' · by hand' : ''}{' '}
              {a.error ? <HintLine>{a.error}</HintLine> : null}
              {a.response_excerpt ? (
                <>
                  <br />
                  <code>{a.response_excerpt.slice(0, 200)}</code>
                </>
              ) : null}
            </li>
          ))}
        </ol>
      );
    return sendPage(
      reply,
      <Page pc={pc} title="Webhook endpoint">
        <p>
          <a href={base(id)}>Back to the webhooks</a>
        </p>
        <Card id="ep-h" title={endpoint.url}>
          <p>
            <StatusBadge e={endpoint} /> · {endpoint.event_types.join(', ')}
          </p>
          <PostForm pc={pc} action={`${base(id)}/${endpointId}`} submit="Save">
            <EndpointFields endpoint={endpoint} />
          </PostForm>
        </Card>
        <Card id="deliveries-h" title="Deliveries">
          <Table
            head={['Event', 'webhook-id', 'Status', 'Attempts (time, status, duration, answer)', '']}
            rows={deliveries.map((d) => (
              <tr>
                <td>
                  {d.type}
                  <HintLine>{when(d.created_at, pc.timeZone)}</HintLine>
                </td>
                <td>
                  <code>{d.webhook_id}</code>
                </td>
                <td>
                  {d.status}
                  {d.next_attempt_at ? <HintLine>next {when(d.next_attempt_at, pc.timeZone)}</HintLine> : null}
                </td>
                <td>{attemptList(d)}</td>
                <td>
                  <ActionButton pc={pc} action={`${base(id)}/${endpointId}/deliveries/${d.id}/redeliver`} label="Redeliver" accessibleName={`Redeliver ${d.type} ${d.webhook_id}`} />
                </td>
              </tr>
            ))}
            caption="Newest first; a redelivery sends the same webhook-id and body again"
          />
        </Card>
      </Page>,
    );
  });

  formPost(app, '/channels/:channelId/webhooks/:endpointId', async (form, actor, request) => {
    const id = idParam(request, 'channelId');
    const endpointId = idParam(request, 'endpointId');
    await webhooks.updateEndpointAs(ctx, actor, id, endpointId, endpointInput(form));
    return [`${base(id)}/${endpointId}`, 'saved'];
  });

  formPost(app, '/channels/:channelId/webhooks/:endpointId/deliveries/:deliveryId/redeliver', async (form, actor, request) => {
    const id = idParam(request, 'channelId');
    const endpointId = idParam(request, 'endpointId');
    await webhooks.redeliverAs(ctx, actor, id, endpointId, idParam(request, 'deliveryId'));
    return [`${base(id)}/${endpointId}`, 'redelivered'];
  });
}
