import type { FastifyInstance } from 'fastify';
import * as channels from '../channels/channels-admin.service.js';
import { WEBHOOK_EVENT_TYPES } from './webhooks.outbox.js';
import * as webhooks from './webhooks.service.js';
import { formOf, idParam, pageContext, redirect, sendPage } from '../admin/dashboard/kit/dashboard.http.js';
import * as F from '../admin/dashboard/kit/dashboard.form.js';
import { html, type SafeHtml } from '../admin/dashboard/kit/dashboard.html.js';
import { actionButton, csrf, field, page, table, when, type PageContext } from '../admin/dashboard/kit/dashboard.layout.js';

// The webhook pages of a channel (D51, docs/webhooks.md): its endpoints, a new secret shown once,
// and per endpoint the deliveries with every attempt and a "Redeliver" button.

const base = (channelId: number) => `/admin/channels/${channelId}/webhooks`;
const eventTypesOf = (form: F.Form): string[] => [form.event_types ?? []].flat().filter((v): v is string => typeof v === 'string');

function eventTypeBoxes(checked: readonly string[]): SafeHtml {
  return html`<fieldset class="field wide"><legend>Events to send</legend>
  ${WEBHOOK_EVENT_TYPES.map((t) => html`<label><input type="checkbox" name="event_types" value="${t}"${checked.includes(t) ? html` checked` : ''}> ${t}</label>`)}
  </fieldset>`;
}

const statusBadge = (e: webhooks.EndpointView) =>
  e.enabled
    ? html`<span class="badge live">enabled</span>`
    : html`<span class="badge off">${e.disabled_reason === 'gone' ? 'disabled: it answered 410 Gone' : 'disabled'}</span>`;

/** The secret page after a creation or a rotation: the only time the secret is shown. */
function secretPage(pc: PageContext, channelId: number, endpoint: webhooks.EndpointView, secret: string, rotated: boolean): SafeHtml {
  return page(
    pc,
    rotated ? 'New webhook secret' : 'Webhook endpoint added',
    html`<section class="card" aria-labelledby="secret-h"><h2 id="secret-h">Copy the signing secret now</h2>
<p><strong>This is the only time the secret is shown.</strong> Store it in the configuration of the server at ${endpoint.url}: it verifies the
<code>webhook-signature</code> header of every event (docs/webhooks.md).${rotated ? ' The previous secret also signs for the next 24 hours, so that you can switch without losing an event.' : ''}</p>
<div class="field"><label for="new-secret">Signing secret</label>
<div class="secret"><input id="new-secret" readonly value="${secret}" autocomplete="off" spellcheck="false">
<button type="button" data-copy-target="new-secret" data-copy-status="copy-status">Copy</button></div>
<p id="copy-status" role="status" aria-live="polite" class="hint"></p></div>
<p><a href="${base(channelId)}">Back to the webhooks</a></p>
</section>`,
  );
}

export default async function webhooksDashboard(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;

  app.get('/channels/:channelId/webhooks', async (request, reply) => {
    const pc = pageContext(request, 'channels');
    const id = idParam(request, 'channelId');
    const channel = await channels.getChannelFor(ctx, pc.actor, id);
    const endpoints = await webhooks.listEndpointsFor(ctx, pc.actor, id);
    const body = html`
<p><a href="/admin/channels/${id}">Back to the channel</a> · Events are signed (Standard Webhooks) and retried for more than 3 days; see docs/webhooks.md.</p>
<section class="card" aria-labelledby="endpoints-h"><h2 id="endpoints-h">Endpoints</h2>
${table(
  ['URL', 'Events', 'Status', ''],
  endpoints.map(
    (e) => html`<tr><td><a href="${base(id)}/${e.id}">${e.url}</a>${e.description ? html`<br><span class="hint">${e.description}</span>` : ''}</td>
      <td>${e.event_types.join(', ')}</td><td>${statusBadge(e)}</td>
      <td>${actionButton(pc, `${base(id)}/${e.id}/${e.enabled ? 'disable' : 'enable'}`, e.enabled ? 'Disable' : 'Enable', 'secondary', `${e.enabled ? 'Disable' : 'Enable'} ${e.url}`)}
      ${actionButton(pc, `${base(id)}/${e.id}/rotate`, 'Rotate secret', 'secondary', `Rotate the secret of ${e.url}`)}
      ${actionButton(pc, `${base(id)}/${e.id}/delete`, 'Delete', 'danger', `Delete ${e.url}`)}</td></tr>`,
  ),
  'Click an endpoint for its deliveries and their attempts',
)}
</section>
<section class="card" aria-labelledby="add-h"><h2 id="add-h">Add an endpoint</h2>
<form class="grid" method="post" action="${base(id)}">${csrf(pc)}
  ${field('url', 'URL', { type: 'url', required: true, wide: true, hint: ctx.config.appEnv === 'production' ? 'https only' : 'http or https' })}
  ${field('description', 'Description', { attrs: html` maxlength="200"` })}
  ${eventTypeBoxes(WEBHOOK_EVENT_TYPES.filter((t) => t.startsWith('order.') || t.startsWith('session.')))}
  <div class="field"><button type="submit">Add endpoint</button></div>
</form></section>`;
    return sendPage(reply, page(pc, `Webhooks of ${channel.slug}`, body));
  });

  app.post('/channels/:channelId/webhooks', async (request, reply) => {
    const pc = pageContext(request, 'channels');
    const id = idParam(request, 'channelId');
    const form = formOf(request);
    const created = await webhooks.createEndpointAs(ctx, pc.actor, id, {
      url: F.text(form, 'url'),
      description: F.text(form, 'description'),
      event_types: eventTypesOf(form),
    });
    return sendPage(reply, secretPage(pc, id, created, created.secret, false), 201);
  });

  app.post('/channels/:channelId/webhooks/:endpointId/rotate', async (request, reply) => {
    const pc = pageContext(request, 'channels');
    const id = idParam(request, 'channelId');
    const rotated = await webhooks.rotateSecretAs(ctx, pc.actor, id, idParam(request, 'endpointId'));
    return sendPage(reply, secretPage(pc, id, rotated, rotated.secret, true));
  });

  for (const [action, enabled] of [['enable', true], ['disable', false]] as const) {
    app.post(`/channels/:channelId/webhooks/:endpointId/${action}`, async (request, reply) => {
      const id = idParam(request, 'channelId');
      await webhooks.updateEndpointAs(ctx, request.dashboard!.actor, id, idParam(request, 'endpointId'), { enabled });
      return redirect(reply, `${base(id)}?notice=saved`);
    });
  }

  app.post('/channels/:channelId/webhooks/:endpointId/delete', async (request, reply) => {
    const id = idParam(request, 'channelId');
    await webhooks.deleteEndpointAs(ctx, request.dashboard!.actor, id, idParam(request, 'endpointId'));
    return redirect(reply, `${base(id)}?notice=deleted`);
  });

  app.get('/channels/:channelId/webhooks/:endpointId', async (request, reply) => {
    const pc = pageContext(request, 'channels');
    const id = idParam(request, 'channelId');
    const endpointId = idParam(request, 'endpointId');
    const endpoint = await webhooks.getEndpointFor(ctx, pc.actor, id, endpointId);
    const deliveries = await webhooks.listDeliveriesFor(ctx, pc.actor, id, endpointId, { limit: 100 });
    const attemptList = (d: webhooks.DeliveryView) =>
      d.attempts.length === 0
        ? html`<span class="hint">not sent yet</span>`
        : html`<ol class="attempts">${d.attempts.map(
            (a) => html`<li>${when(a.attempted_at, pc.timeZone)} · <strong>${a.status_code ?? 'no answer'}</strong> · ${a.duration_ms} ms${a.manual ? ' · by hand' : ''}
              ${a.error ? html`<br><span class="hint">${a.error}</span>` : ''}${a.response_excerpt ? html`<br><code>${a.response_excerpt.slice(0, 200)}</code>` : ''}</li>`,
          )}</ol>`;
    const body = html`
<p><a href="${base(id)}">Back to the webhooks</a></p>
<section class="card" aria-labelledby="ep-h"><h2 id="ep-h">${endpoint.url}</h2>
<p>${statusBadge(endpoint)} · ${endpoint.event_types.join(', ')}</p>
<form class="grid" method="post" action="${base(id)}/${endpointId}">${csrf(pc)}
  ${field('url', 'URL', { type: 'url', value: endpoint.url, required: true, wide: true })}
  ${field('description', 'Description', { value: endpoint.description, attrs: html` maxlength="200"` })}
  ${eventTypeBoxes(endpoint.event_types)}
  <div class="field"><button type="submit">Save</button></div>
</form></section>
<section class="card" aria-labelledby="deliveries-h"><h2 id="deliveries-h">Deliveries</h2>
${table(
  ['Event', 'webhook-id', 'Status', 'Attempts (time, status, duration, answer)', ''],
  deliveries.map(
    (d) => html`<tr><td>${d.type}<br><span class="hint">${when(d.created_at, pc.timeZone)}</span></td><td><code>${d.webhook_id}</code></td>
      <td>${d.status}${d.next_attempt_at ? html`<br><span class="hint">next ${when(d.next_attempt_at, pc.timeZone)}</span>` : ''}</td>
      <td>${attemptList(d)}</td>
      <td>${actionButton(pc, `${base(id)}/${endpointId}/deliveries/${d.id}/redeliver`, 'Redeliver', 'secondary', `Redeliver ${d.type} ${d.webhook_id}`)}</td></tr>`,
  ),
  'Newest first; a redelivery sends the same webhook-id and body again',
)}
</section>`;
    return sendPage(reply, page(pc, 'Webhook endpoint', body));
  });

  app.post('/channels/:channelId/webhooks/:endpointId', async (request, reply) => {
    const id = idParam(request, 'channelId');
    const endpointId = idParam(request, 'endpointId');
    const form = formOf(request);
    await webhooks.updateEndpointAs(ctx, request.dashboard!.actor, id, endpointId, {
      url: F.text(form, 'url'),
      description: F.text(form, 'description'),
      event_types: eventTypesOf(form),
    });
    return redirect(reply, `${base(id)}/${endpointId}?notice=saved`);
  });

  app.post('/channels/:channelId/webhooks/:endpointId/deliveries/:deliveryId/redeliver', async (request, reply) => {
    const id = idParam(request, 'channelId');
    const endpointId = idParam(request, 'endpointId');
    await webhooks.redeliverAs(ctx, request.dashboard!.actor, id, endpointId, idParam(request, 'deliveryId'));
    return redirect(reply, `${base(id)}/${endpointId}?notice=redelivered`);
  });
}
