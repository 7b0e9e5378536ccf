import type { FastifyInstance } from 'fastify';
import QRCode from 'qrcode';
import * as checkin from './checkin-admin.service.js';
import type { Actor } from '../../platform/actor.js';
import { formOf, idParam, organisersFor, pageContext, redirect, sendPage } from '../admin/dashboard/kit/dashboard.http.js';
import * as F from '../admin/dashboard/kit/dashboard.form.js';
import { html, type SafeHtml } from '../admin/dashboard/kit/dashboard.html.js';
import { actionButton, checkboxes, csrf, field, page, select, table, when } from '../admin/dashboard/kit/dashboard.layout.js';

// Dashboard pages of check-in (issue 18, docs/checkin.md): lists and devices at /admin/checkin, the
// live door view of a list (counts per session and gate, scans, who tried to enter twice), and the
// one-time page of a new device with its setup QR code.

const RESULT_LABELS: Record<string, string> = {
  valid: 'in',
  already_used: 'already used',
  invalid: 'invalid',
  wrong_list: 'wrong list',
  refunded: 'refunded',
  not_yet_valid: 'not yet valid',
  exited: 'out',
};

function scanRows(scans: Awaited<ReturnType<typeof checkin.listScansFor>>, timeZone: string): SafeHtml[] {
  return scans.map(
    (s) => html`<tr><td>${when(s.scanned_at, timeZone)}${s.offline ? html` <span class="badge">offline</span>` : ''}</td><td>${s.device_name}</td>
      <td><span class="badge ${s.result === 'valid' || s.result === 'exited' ? 'live' : 'off'}">${RESULT_LABELS[s.result] ?? s.result}</span></td>
      <td>${s.ticket_id ?? ''}</td><td>${s.buyer_name ?? ''}</td>
      <td>${s.first_scan ? `${when(s.first_scan.scanned_at, timeZone)} at ${s.first_scan.device_name}` : ''}</td></tr>`,
  );
}

const percent = (part: number, whole: number) => (whole ? `${Math.round((part / whole) * 100)} %` : '');

export default async function checkinDashboard(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;
  const actorOf = (request: { dashboard: { actor: Actor } | null }) => request.dashboard!.actor;

  app.get('/checkin', async (request, reply) => {
    const pc = pageContext(request, 'checkin');
    const [lists, devices, choices, organisers] = await Promise.all([
      checkin.listListsFor(ctx, pc.actor),
      checkin.listDevicesFor(ctx, pc.actor),
      checkin.listChoicesFor(ctx, pc.actor),
      organisersFor(ctx, pc.actor),
    ]);
    const listName = new Map(lists.map((l) => [l.id, l.name]));
    const body = html`
<section class="card" aria-labelledby="lists-h"><h2 id="lists-h">Check-in lists</h2>
<p>A list is what a gate may let in: some sessions, optionally only some sectors. Open a list to follow the door live.</p>
${table(
  ['List', 'Sessions', 'Sectors', 'Re-entry', 'Admission opens'],
  lists.map(
    (l) => html`<tr><td><a href="/admin/checkin/lists/${l.id}">${l.name}</a></td><td>${l.session_ids.join(', ')}</td>
      <td>${l.sector_ids ? l.sector_ids.join(', ') : 'all'}</td><td>${l.allow_reentry ? 'yes' : 'no'}</td><td>${l.opens_minutes_before} min before</td></tr>`,
  ),
)}</section>
<section class="card" aria-labelledby="new-list-h"><h2 id="new-list-h">New check-in list</h2>
<form class="grid" method="post" action="/admin/checkin/lists">${csrf(pc)}
  ${pc.actor.role === 'admin' ? select('organiser_id', 'Organiser', organisers.map((o) => [o.id, `${o.name} (${o.id})`])) : ''}
  ${field('name', 'Name', { required: true, attrs: html` maxlength="200"` })}
  ${field('opens_minutes_before', 'Admission opens (minutes before the start)', { type: 'number', value: 360, attrs: html` min="0" max="10080"` })}
  ${checkboxes('session_ids', 'Sessions', choices.sessions.map((s) => [s.id, `${s.event_name} · ${when(s.starts_at, pc.timeZone)} (#${s.id})`]), [])}
  ${checkboxes('sector_ids', 'Only these sectors (none ticked = all)', choices.sectors.map((s) => [s.id, `${s.name} (#${s.id}, venue ${s.venue_id})`]), [])}
  <fieldset class="field wide"><legend>Re-entry</legend><label><input type="checkbox" name="allow_reentry" value="1"> Allow re-entry (gates scan exits too)</label></fieldset>
  <div class="field"><button type="submit">Create list</button></div>
</form></section>
<section class="card" aria-labelledby="devices-h"><h2 id="devices-h">Devices</h2>
<p>One device per gate: a phone with the scanner (<a href="/checkin/">/checkin</a>) or a door scanner. Its token is shown once, with a QR code that sets the scanner up.</p>
${table(
  ['Device', 'Lists', 'Token', 'Last seen', 'Status', ''],
  devices.map(
    (d) => html`<tr><td>${d.name}</td><td>${d.list_ids.map((id) => listName.get(id) ?? `#${id}`).join(', ')}</td><td>…${d.token_last4}</td><td>${when(d.last_seen_at, pc.timeZone)}</td>
      <td>${d.revoked_at ? html`<span class="badge off">revoked ${when(d.revoked_at, pc.timeZone)}</span>` : html`<span class="badge live">active</span>`}</td>
      <td>${d.revoked_at ? '' : actionButton(pc, `/admin/checkin/devices/${d.id}/revoke`, 'Revoke', 'danger', `Revoke device ${d.name}`)}</td></tr>`,
  ),
)}
${lists.length
  ? html`<form class="grid" method="post" action="/admin/checkin/devices">${csrf(pc)}
  ${field('name', 'Device name (the gate)', { required: true, attrs: html` maxlength="100"` })}
  ${checkboxes('list_ids', 'Lists it scans', lists.map((l) => [l.id, l.name]), lists.length === 1 ? [lists[0]!.id] : [])}
  <div class="field"><button type="submit">Create device</button></div></form>`
  : html`<p>Create a list first.</p>`}
</section>`;
    return sendPage(reply, page(pc, 'Check-in', body));
  });

  app.post('/checkin/lists', async (request, reply) => {
    const form = formOf(request);
    const list = await checkin.createListAs(ctx, actorOf(request), {
      organiser_id: F.number(form, 'organiser_id'),
      name: F.text(form, 'name'),
      session_ids: F.ids(form, 'session_ids'),
      sector_ids: F.ids(form, 'sector_ids'),
      allow_reentry: F.text(form, 'allow_reentry') === '1',
      opens_minutes_before: F.number(form, 'opens_minutes_before'),
    });
    return redirect(reply, `/admin/checkin/lists/${list.id}?notice=created`);
  });

  // The door, live: the page reloads itself every 15 seconds.
  app.get('/checkin/lists/:listId', async (request, reply) => {
    const pc = pageContext(request, 'checkin');
    const id = idParam(request, 'listId');
    const [counts, scans, twice] = await Promise.all([
      checkin.listCountsFor(ctx, pc.actor, id),
      checkin.listScansFor(ctx, pc.actor, id, { limit: 50 }),
      checkin.listScansFor(ctx, pc.actor, id, { twice: true, limit: 50 }),
    ]);
    const reentry = counts.list.allow_reentry;
    const body = html`<meta http-equiv="refresh" content="15">
<section class="card" aria-labelledby="sessions-h"><h2 id="sessions-h">Checked in per session</h2>
${table(
  ['Session', 'Starts', 'Checked in', 'Sold', '', ...(reentry ? ['Inside now'] : [])],
  counts.sessions.map(
    (s) => html`<tr><td>${s.event_name} (#${s.session_id})</td><td>${when(s.starts_at, pc.timeZone)}</td><td>${s.checked_in}</td><td>${s.sold}</td><td>${percent(s.checked_in, s.sold)}</td>${reentry ? html`<td>${s.inside}</td>` : ''}</tr>`,
  ),
  'Refreshed every 15 seconds',
)}</section>
<section class="card" aria-labelledby="gates-h"><h2 id="gates-h">Per gate</h2>
${table(['Device', 'Let in', 'Refused'], counts.devices.map((d) => html`<tr><td>${d.device_name}</td><td>${d.entries}</td><td>${d.refused}</td></tr>`))}
</section>
<section class="card" aria-labelledby="twice-h"><h2 id="twice-h">Tried to enter twice</h2>
${table(['Scanned', 'Device', 'Answer', 'Ticket', 'Holder', 'First entry'], scanRows(twice, pc.timeZone), 'Scans answered "already used", newest first')}
</section>
<section class="card" aria-labelledby="scans-h"><h2 id="scans-h">Latest scans</h2>
${table(['Scanned', 'Device', 'Answer', 'Ticket', 'Holder', 'First entry'], scanRows(scans, pc.timeZone), 'The last 50, newest first')}
</section>
<p><a href="/admin/checkin">All lists and devices</a></p>`;
    return sendPage(reply, page(pc, `Check-in · ${counts.list.name}`, body));
  });

  app.post('/checkin/devices', async (request, reply) => {
    const pc = pageContext(request, 'checkin');
    const form = formOf(request);
    const device = await checkin.createDeviceAs(ctx, pc.actor, { name: F.text(form, 'name'), list_ids: F.ids(form, 'list_ids') });
    const svg = await QRCode.toString(device.setup_url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    const body = html`
<section class="card" aria-labelledby="device-h"><h2 id="device-h">Set up ${device.name}</h2>
<p><strong>This is the only time the token is shown.</strong> Scan the QR code with the phone that will be the gate (its camera opens the scanner), or open the setup link on it. Taquilla keeps only a hash of the token.</p>
<img class="qr" width="240" height="240" alt="QR code that sets up ${device.name}" src="data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}">
<div class="field"><label for="setup-url">Setup link</label>
<div class="secret"><input id="setup-url" readonly value="${device.setup_url}" autocomplete="off" spellcheck="false">
<button type="button" data-copy-target="setup-url" data-copy-status="copy-status">Copy</button></div>
<p id="copy-status" role="status" aria-live="polite" class="hint"></p></div>
<div class="field"><label for="device-token">Device token (for a door scanner or the API)</label>
<div class="secret"><input id="device-token" readonly value="${device.token}" autocomplete="off" spellcheck="false"></div></div>
<p><a href="/admin/checkin">Back to check-in</a></p>
</section>`;
    return sendPage(reply, page(pc, 'New device', body), 201);
  });

  app.post('/checkin/devices/:deviceId/revoke', async (request, reply) => {
    await checkin.revokeDeviceAs(ctx, actorOf(request), idParam(request, 'deviceId'));
    return redirect(reply, '/admin/checkin?notice=device_revoked');
  });
}
