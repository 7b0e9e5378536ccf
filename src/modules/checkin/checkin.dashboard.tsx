import type { FastifyInstance } from 'fastify';
import QRCode from 'qrcode';
import * as checkin from './checkin-admin.service.js';
import { formOf, formPost, idParam, organisersFor, pageContext, sendPage } from '../admin/dashboard/kit/dashboard.http.js';
import * as F from '../admin/dashboard/kit/dashboard.form.js';
import { ActionButton, Card, Checkboxes, chosenOrganiser, Field, OrganiserSelect, PostForm, ShowOnce, Table } from '../admin/dashboard/kit/dashboard.controls.js';
import { Page } from '../admin/dashboard/kit/dashboard.page.js';
import { when } from '../admin/dashboard/kit/dashboard.time.js';

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

const scanRows = (scans: Awaited<ReturnType<typeof checkin.listScansFor>>, timeZone: string) =>
  scans.map((s) => (
    <tr>
      <td>
        {when(s.scanned_at, timeZone)}
        {s.offline ? (
          <>
            {' '}
            <span class="badge">offline</span>
          </>
        ) : null}
      </td>
      <td>{s.device_name}</td>
      <td>
        <span class={`badge ${s.result === 'valid' || s.result === 'exited' ? 'live' : 'off'}`}>{RESULT_LABELS[s.result] ?? s.result}</span>
      </td>
      <td>{s.ticket_id ?? ''}</td>
      <td>{s.buyer_name ?? ''}</td>
      <td>{s.first_scan ? `${when(s.first_scan.scanned_at, timeZone)} at ${s.first_scan.device_name}` : ''}</td>
    </tr>
  ));

const percent = (part: number, whole: number) => (whole ? `${Math.round((part / whole) * 100)} %` : '');

export default async function checkinDashboard(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;

  app.get('/checkin', async (request, reply) => {
    const pc = pageContext(request, 'checkin');
    const [lists, devices, choices, organisers] = await Promise.all([
      checkin.listListsFor(ctx, pc.actor),
      checkin.listDevicesFor(ctx, pc.actor),
      checkin.listChoicesFor(ctx, pc.actor),
      organisersFor(ctx, pc.actor),
    ]);
    const listName = new Map(lists.map((l) => [l.id, l.name]));
    return sendPage(
      reply,
      <Page pc={pc} title="Check-in">
        <Card id="lists-h" title="Check-in lists">
          <p>A list is what a gate may let in: some sessions, optionally only some sectors. Open a list to follow the door live.</p>
          <Table
            head={['List', 'Sessions', 'Sectors', 'Re-entry', 'Admission opens']}
            rows={lists.map((l) => (
              <tr>
                <td>
                  <a href={`/admin/checkin/lists/${l.id}`}>{l.name}</a>
                </td>
                <td>{l.session_ids.join(', ')}</td>
                <td>{l.sector_ids ? l.sector_ids.join(', ') : 'all'}</td>
                <td>{l.allow_reentry ? 'yes' : 'no'}</td>
                <td>{l.opens_minutes_before} min before</td>
              </tr>
            ))}
          />
        </Card>
        <Card id="new-list-h" title="New check-in list">
          <PostForm pc={pc} action="/admin/checkin/lists" submit="Create list">
            <OrganiserSelect pc={pc} organisers={organisers} />
            <Field name="name" label="Name" required attrs={{ maxlength: 200 }} />
            <Field name="opens_minutes_before" label="Admission opens (minutes before the start)" type="number" value={360} attrs={{ min: 0, max: 10080 }} />
            <Checkboxes name="session_ids" legend="Sessions" options={choices.sessions.map((s) => [s.id, `${s.event_name} · ${when(s.starts_at, pc.timeZone)} (#${s.id})`])} checked={[]} />
            <Checkboxes name="sector_ids" legend="Only these sectors (none ticked = all)" options={choices.sectors.map((s) => [s.id, `${s.name} (#${s.id}, venue ${s.venue_id})`])} checked={[]} />
            <fieldset class="field wide">
              <legend>Re-entry</legend>
              <label>
                <input type="checkbox" name="allow_reentry" value="1" /> Allow re-entry (gates scan exits too)
              </label>
            </fieldset>
          </PostForm>
        </Card>
        <Card id="devices-h" title="Devices">
          <p>
            One device per gate: a phone with the scanner (<a href="/checkin/">/checkin</a>) or a door scanner. Its token is shown once, with a QR code that sets the scanner up.
          </p>
          <Table
            head={['Device', 'Lists', 'Token', 'Last seen', 'Status', '']}
            rows={devices.map((d) => (
              <tr>
                <td>{d.name}</td>
                <td>{d.list_ids.map((id) => listName.get(id) ?? `#${id}`).join(', ')}</td>
                <td>…{d.token_last4}</td>
                <td>{when(d.last_seen_at, pc.timeZone)}</td>
                <td>{d.revoked_at ? <span class="badge off">revoked {when(d.revoked_at, pc.timeZone)}</span> : <span class="badge live">active</span>}</td>
                <td>{d.revoked_at ? null : <ActionButton pc={pc} action={`/admin/checkin/devices/${d.id}/revoke`} label="Revoke" cls="danger" accessibleName={`Revoke device ${d.name}`} />}</td>
              </tr>
            ))}
          />
          {lists.length ? (
            <PostForm pc={pc} action="/admin/checkin/devices" submit="Create device">
              <Field name="name" label="Device name (the gate)" required attrs={{ maxlength: 100 }} />
              <Checkboxes name="list_ids" legend="Lists it scans" options={lists.map((l) => [l.id, l.name])} checked={lists.length === 1 ? [lists[0]!.id] : []} />
            </PostForm>
          ) : (
            <p>Create a list first.</p>
          )}
        </Card>
      </Page>,
    );
  });

  formPost(app, '/checkin/lists', async (form, actor) => {
    const list = await checkin.createListAs(ctx, actor, {
      organiser_id: chosenOrganiser(form, actor),
      name: F.text(form, 'name'),
      session_ids: F.ids(form, 'session_ids'),
      sector_ids: F.ids(form, 'sector_ids'),
      allow_reentry: F.text(form, 'allow_reentry') === '1',
      opens_minutes_before: F.number(form, 'opens_minutes_before'),
    });
    return [`/admin/checkin/lists/${list.id}`, 'created'];
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
    const scanHead = ['Scanned', 'Device', 'Answer', 'Ticket', 'Holder', 'First entry'];
    return sendPage(
      reply,
      <Page pc={pc} title={`Check-in · ${counts.list.name}`}>
        <meta http-equiv="refresh" content="15" />
        <Card id="sessions-h" title="Checked in per session">
          <Table
            head={['Session', 'Starts', 'Checked in', 'Sold', '', ...(reentry ? ['Inside now'] : [])]}
            rows={counts.sessions.map((s) => (
              <tr>
                <td>
                  {s.event_name} (#{s.session_id})
                </td>
                <td>{when(s.starts_at, pc.timeZone)}</td>
                <td>{s.checked_in}</td>
                <td>{s.sold}</td>
                <td>{percent(s.checked_in, s.sold)}</td>
                {reentry ? <td>{s.inside}</td> : null}
              </tr>
            ))}
            caption="Refreshed every 15 seconds"
          />
        </Card>
        <Card id="gates-h" title="Per gate">
          <Table
            head={['Device', 'Let in', 'Refused']}
            rows={counts.devices.map((d) => (
              <tr>
                <td>{d.device_name}</td>
                <td>{d.entries}</td>
                <td>{d.refused}</td>
              </tr>
            ))}
          />
        </Card>
        <Card id="twice-h" title="Tried to enter twice">
          <Table head={scanHead} rows={scanRows(twice, pc.timeZone)} caption={'Scans answered "already used", newest first'} />
        </Card>
        <Card id="scans-h" title="Latest scans">
          <Table head={scanHead} rows={scanRows(scans, pc.timeZone)} caption="The last 50, newest first" />
        </Card>
        <p>
          <a href="/admin/checkin">All lists and devices</a>
        </p>
      </Page>,
    );
  });

  app.post('/checkin/devices', async (request, reply) => {
    const pc = pageContext(request, 'checkin');
    const form = formOf(request);
    const device = await checkin.createDeviceAs(ctx, pc.actor, { name: F.text(form, 'name'), list_ids: F.ids(form, 'list_ids') });
    const svg = await QRCode.toString(device.setup_url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
    return sendPage(
      reply,
      <Page pc={pc} title="New device">
        <section class="card" aria-labelledby="device-h">
          <h2 id="device-h">Set up {device.name}</h2>
          <p>
            <strong>This is the only time the token is shown.</strong> Scan the QR code with the phone that will be the gate (its camera opens the scanner), or open the setup link on it. Taquilla keeps
            only a hash of the token.
          </p>
          <img class="qr" width={240} height={240} alt={`QR code that sets up ${device.name}`} src={`data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`} />
          <ShowOnce id="setup-url" label="Setup link" value={device.setup_url} statusId="copy-status" />
          <div class="field">
            <label for="device-token">Device token (for a door scanner or the API)</label>
            <div class="secret">
              <input id="device-token" readonly value={device.token} autocomplete="off" spellcheck={false} />
            </div>
          </div>
          <p>
            <a href="/admin/checkin">Back to check-in</a>
          </p>
        </section>
      </Page>,
      201,
    );
  });

  formPost(app, '/checkin/devices/:deviceId/revoke', async (form, actor, request) => {
    await checkin.revokeDeviceAs(ctx, actor, idParam(request, 'deviceId'));
    return ['/admin/checkin', 'device_revoked'];
  });
}
