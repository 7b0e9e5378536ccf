import type { FastifyInstance, FastifyRequest } from 'fastify';
import { listEventsFor } from '../catalogue/catalogue-admin.service.js';
import { formOf, idParam, pageContext, redirect, sendPage } from '../admin/dashboard/kit/dashboard.http.js';
import * as F from '../admin/dashboard/kit/dashboard.form.js';
import { Card, Field, PostForm, SubmitRow, Table } from '../admin/dashboard/kit/dashboard.controls.js';
import { Page, type PageContext } from '../admin/dashboard/kit/dashboard.page.js';
import { when } from '../admin/dashboard/kit/dashboard.time.js';
import { attachment, XLSX_TYPE } from '../../lib/download.js';
import { attendeeCsvFor, attendeeXlsxFor, listAttendeesFor } from './attendees.service.js';
import { BarChart, HeatMap, type Segment } from './overview.charts.js';
import type { SeatMap } from './overview.repo.js';
import { salesOverviewFor, sessionOverviewFor } from './overview.service.js';
import { eraseBuyer } from './personal-data.service.js';
import { sessionWaitingListFor } from '../waitinglist/waitinglist.service.js';
import { BODY_MAX, listSessionMessagesFor, sendSessionMessageAs, SUBJECT_MAX } from './session-messages.service.js';
import { money } from '../admin/dashboard/kit/dashboard.money.js';
import { eventName } from '../admin/dashboard/kit/dashboard.names.js';

// The audience pages of the dashboard (D66-D68): the sales overview of each event and of each of
// its sessions, with charts and the session's seat map as a heat map drawn here as SVG
// (overview.charts.tsx: no script, no outside service), a session's attendee list and waiting list
// (D69), and the erasure of a buyer.


const inventorySegments = (f: { sold: number; held: number; free: number; blocked: number }): Segment[] => [
  { value: f.sold, label: 'sold', cls: 'sold' },
  { value: f.held, label: 'held', cls: 'held' },
  { value: f.free, label: 'free', cls: 'free' },
  { value: f.blocked, label: 'blocked', cls: 'blocked' },
];

type Overview = Awaited<ReturnType<typeof salesOverviewFor>>;

/**
 * A waiting list's figures (D69): of an event's sessions on its overview, of one session on its
 * list's page (`boughtTickets`: with the tickets bought through offers).
 */
function WaitingListFacts({ f, boughtTickets = false }: { f: Omit<Overview['waiting_list'], 'sessions'>; boughtTickets?: boolean }) {
  return (
    <dl class="facts">
      <dt>Waiting</dt>
      <dd>
        {f.waiting} ({f.waiting_tickets} tickets)
      </dd>
      <dt>Offers</dt>
      <dd>
        {f.offers}: {f.offered} open, {f.converted} bought{boughtTickets ? ` (${f.converted_tickets} tickets)` : ''}, {f.lapsed} not taken
      </dd>
      <dt>Conversion</dt>
      <dd>{f.conversion_rate === null ? 'no offer has ended yet' : `${Math.round(f.conversion_rate * 100)} %`}</dd>
    </dl>
  );
}

/**
 * The sections of an overview (D66), of a whole event or of one session (`seatMap`: the session's
 * heat map stands where the event's per-session chart and table do). Wrapped in .overview: its
 * tables keep their first column in view while they scroll sideways on a phone.
 */
function OverviewSections({ pc, o, seatMap }: { pc: PageContext; o: Overview; seatMap: SeatMap | null }) {
  const c = o.currency;
  const t = o.totals;
  const revenueRows = (rows: { name: string; net_amount: number; refund_amount: number }[]) =>
    rows.map((r) => ({
      label: r.name,
      segments: [
        { value: Math.round(r.net_amount), label: 'net', text: `${money(r.net_amount, c)} net`, cls: 'sold' },
        { value: Math.round(r.refund_amount), label: 'refunded', text: `${money(r.refund_amount, c)} refunded`, cls: 'refund' },
      ],
    }));
  const moneyTable = (caption: string, rows: { name: string; tickets: number; refunded_tickets: number; gross_amount: number; fee_amount: number; discount_amount: number; refund_amount: number; net_amount: number }[]) => (
    <Table
      head={['', 'Tickets', 'Refunded', 'Gross', 'Fees', 'Discounts', 'Refunds', 'Net']}
      rows={rows.map((r) => (
        <tr>
          <th scope="row">{r.name}</th>
          <td>{r.tickets}</td>
          <td>{r.refunded_tickets}</td>
          <td>{money(r.gross_amount, c)}</td>
          <td>{money(r.fee_amount, c)}</td>
          <td>{money(r.discount_amount, c)}</td>
          <td>{money(r.refund_amount, c)}</td>
          <td>{money(r.net_amount, c)}</td>
        </tr>
      ))}
      caption={caption}
    />
  );
  const sessionName = (s: { start_datetime: string }) => when(s.start_datetime, pc.timeZone);
  const wl = o.waiting_list;
  return (
    <div class="overview">
      <Card id="totals-h" title="Totals">
        <dl class="facts">
          <dt>Tickets sold</dt>
          <dd>
            {t.tickets} of {t.capacity}
            {t.refunded_tickets ? ` (${t.refunded_tickets} refunded, not counted)` : ''}
          </dd>
          <dt>Held in carts now</dt>
          <dd>{t.held}</dd>
          <dt>Gross</dt>
          <dd>
            {money(t.gross_amount, c)} (fees {money(t.fee_amount, c)}, discounts {money(t.discount_amount, c)})
          </dd>
          <dt>Refunds</dt>
          <dd>{money(t.refund_amount, c)}</dd>
          <dt>Net</dt>
          <dd>
            <strong>{money(t.net_amount, c)}</strong>
          </dd>
          <dt>Checked in</dt>
          <dd>
            {t.checked_in} of {t.tickets}
          </dd>
        </dl>
      </Card>
      {seatMap === null ? (
        <Card id="sessions-h" title="Sessions: sold, held and free">
          <BarChart title="Seats per session" rows={o.sessions.map((s) => ({ label: sessionName(s), segments: inventorySegments(s) }))} />
          <Table
            head={['Session', 'Capacity', 'Sold', 'Held', 'Free', 'Checked in', 'Net', '']}
            rows={o.sessions.map((s) => (
              <tr>
                <th scope="row">
                  <a href={`/admin/sessions/${s.id}/sales`}>{sessionName(s)}</a>
                </th>
                <td>{s.capacity}</td>
                <td>{s.sold}</td>
                <td>{s.held}</td>
                <td>{s.free}</td>
                <td>{s.checked_in}</td>
                <td>{money(s.net_amount, c)}</td>
                <td>
                  <a href={`/admin/sessions/${s.id}/attendees`}>Attendees</a>
                </td>
              </tr>
            ))}
            caption="Per session"
          />
        </Card>
      ) : (
        <Card id="map-h" title="Seat map: sold, held and free">
          <HeatMap map={seatMap} />
        </Card>
      )}
      {o.queue ? <QueueCard q={o.queue} sessions={o.sessions} sessionName={sessionName} /> : null}
      <Card id="wl-h" title="Waiting list">
        <WaitingListFacts f={wl} />
        {seatMap === null ? (
          <Table
            head={['Session', 'Waiting', 'Tickets asked', 'Open offers', 'Bought', 'Not taken', '']}
            rows={o.sessions.map((s) => {
              const w = wl.sessions.find((x) => x.session_id === s.id);
              return (
                <tr>
                  <th scope="row">{sessionName(s)}</th>
                  <td>{w?.waiting ?? 0}</td>
                  <td>{w?.waiting_tickets ?? 0}</td>
                  <td>{w?.offered ?? 0}</td>
                  <td>{w?.converted ?? 0}</td>
                  <td>{w?.lapsed ?? 0}</td>
                  <td>
                    <a href={`/admin/sessions/${s.id}/waiting-list`}>Waiting list</a>
                  </td>
                </tr>
              );
            })}
            caption="Per session"
          />
        ) : (
          <p>
            <a href={`/admin/sessions/${o.session_id}/waiting-list`}>The waiting list of this session</a>
          </p>
        )}
      </Card>
      <Card id="time-h" title="Sales over time">
        <p>
          <a href="?interval=day">Per day</a> · <a href="?interval=hour">Per hour</a> ({pc.timeZone})
        </p>
        <BarChart
          title="Tickets sold"
          rows={o.sales_over_time.points.map((p) => ({ label: o.sales_over_time.interval === 'day' ? p.at.slice(0, 10) : p.at.slice(0, 16).replace('T', ' '), segments: [{ value: p.tickets, label: 'tickets', cls: 'sold' }] }))}
        />
      </Card>
      <Card id="channels-h" title="By channel">
        <BarChart title={`Net and refunded by channel (${c})`} rows={revenueRows(o.channels)} />
        {moneyTable('By channel', o.channels)}
      </Card>
      <Card id="rates-h" title="By rate">
        {moneyTable('By rate', o.rates)}
      </Card>
      <Card id="sectors-h" title="By sector">
        <BarChart title="Seats per sector" rows={o.sectors.map((s) => ({ label: s.name, segments: inventorySegments(s) }))} />
        {moneyTable('By sector', o.sectors)}
      </Card>
    </div>
  );
}

/** How the dashboard names a waiting room's state (D60). */
const QUEUE_STATE_TEXT: Record<string, string> = {
  closed: 'Not open yet',
  pre_queue: 'Pre-queue',
  drawing: 'Drawing',
  admitting: 'Admitting',
  ended: 'Ended',
};

type QueueFigures = NonNullable<Awaited<ReturnType<typeof salesOverviewFor>>['queue']>;

/** The waiting rooms of the event's sessions (D66): state, waiting, admitted and rate. */
function QueueCard({ q, sessions, sessionName }: { q: QueueFigures; sessions: { id: number; start_datetime: string }[]; sessionName: (s: { start_datetime: string }) => string }) {
  return (
    <Card id="queue-h" title="Waiting room">
      <dl class="facts">
        <dt>Waiting</dt>
        <dd>{q.queue_length}</dd>
        <dt>Admitted</dt>
        <dd>{q.admitted}</dd>
      </dl>
      <Table
        head={['Session', 'State', 'Waiting', 'Admitted through', 'Per minute']}
        rows={q.sessions.map((w) => {
          const s = sessions.find((x) => x.id === w.session_id);
          return (
            <tr>
              <th scope="row">{s ? sessionName(s) : `Session ${w.session_id}`}</th>
              <td>{QUEUE_STATE_TEXT[w.state] ?? w.state}</td>
              <td>{w.queue_length} waiting</td>
              <td>{w.admitted_through}</td>
              <td>{w.admission_per_minute ?? ''}</td>
            </tr>
          );
        })}
        caption="Per session"
      />
    </Card>
  );
}

/** The chart's buckets that the overview's links ask for: per hour with ?interval=hour, else per day. */
const overviewQuery = (request: FastifyRequest) => ({ interval: (request.query as { interval?: string }).interval === 'hour' ? ('hour' as const) : ('day' as const) });

/** How the dashboard names a waiting-list entry's status (D69). */
const STATUS_TEXT: Record<string, string> = {
  waiting: 'waiting',
  offered: 'offer open',
  converted: 'bought',
  lapsed: 'offer not taken',
  left: 'left the list',
};

export default async function audienceDashboard(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;

  app.get('/sales', async (request, reply) => {
    const pc = pageContext(request, 'sales');
    const events = await listEventsFor(ctx, pc.actor);
    return sendPage(
      reply,
      <Page pc={pc} title="Sales">
        <Card id="events-h" title="Events">
          <Table
            head={['Event', 'Status', '']}
            rows={events.map((e) => (
              <tr>
                <td>{eventName(e)}</td>
                <td>{e.status}</td>
                <td>
                  <a href={`/admin/events/${e.id}/sales`}>Sales overview</a>
                </td>
              </tr>
            ))}
          />
        </Card>
      </Page>,
    );
  });

  app.get('/events/:eventId/sales', async (request, reply) => {
    const pc = pageContext(request, 'sales');
    const eventId = idParam(request, 'eventId');
    const o = await salesOverviewFor(ctx, pc.actor, eventId, overviewQuery(request));
    return sendPage(
      reply,
      <Page pc={pc} title="Sales overview">
        <OverviewSections pc={pc} o={o} seatMap={null} />
      </Page>,
    );
  });

  // One session's overview (D66): the same sections narrowed to it, and its seat map as a heat map.
  app.get('/sessions/:sessionId/sales', async (request, reply) => {
    const pc = pageContext(request, 'sales');
    const sessionId = idParam(request, 'sessionId');
    const { overview: o, seatMap } = await sessionOverviewFor(ctx, pc.actor, sessionId, overviewQuery(request));
    const session = o.sessions[0]!;
    return sendPage(
      reply,
      <Page pc={pc} title={`Sales overview: session of ${when(session.start_datetime, pc.timeZone)}`}>
        <p>
          <a href={`/admin/events/${o.event_id}/sales`}>← The event's overview</a> · <a href={`/admin/sessions/${sessionId}/attendees`}>Attendees</a> ·{' '}
          <a href={`/admin/sessions/${sessionId}/waiting-list`}>Waiting list</a>
        </p>
        <OverviewSections pc={pc} o={o} seatMap={seatMap} />
      </Page>,
    );
  });

  // A session's waiting list (D69): its figures and every entry in list order.
  app.get('/sessions/:sessionId/waiting-list', async (request, reply) => {
    const pc = pageContext(request, 'sales');
    const sessionId = idParam(request, 'sessionId');
    const list = await sessionWaitingListFor(ctx, pc.actor, sessionId);
    const f = list.figures;
    return sendPage(
      reply,
      <Page pc={pc} title="Waiting list">
        <Card id="wl-h" title="Waiting list">
          <p>
            Freed seats are held for the first entry they fit for {list.offer_minutes} minutes, with an e-mail to the buyer; an offer not taken passes to the next entry (docs/waiting-list.md).
          </p>
          <WaitingListFacts f={f} boughtTickets />
          <Table
            head={['Position', 'E-mail', 'Name', 'Tickets', 'Joined', 'Status', 'Offer until', 'Order']}
            rows={list.entries.map((e) => (
              <tr>
                <td>{e.position ?? ''}</td>
                <td>{e.email}</td>
                <td>{e.name ?? ''}</td>
                <td>{e.quantity}</td>
                <td>{when(e.created_at, pc.timeZone)}</td>
                <td>{STATUS_TEXT[e.status] ?? e.status}</td>
                <td>{e.offer_expires_at && e.status === 'offered' ? when(e.offer_expires_at, pc.timeZone) : ''}</td>
                <td>{e.order_reference ? <a href={`/admin/orders/${encodeURIComponent(e.order_reference)}`}>{e.order_reference}</a> : ''}</td>
              </tr>
            ))}
            caption={`${list.entries.length} entries`}
          />
        </Card>
      </Page>,
    );
  });

  app.get('/sessions/:sessionId/attendees', async (request, reply) => {
    const pc = pageContext(request, 'sales');
    const sessionId = idParam(request, 'sessionId');
    const { q } = request.query as { q?: string };
    const rows = await listAttendeesFor(ctx, pc.actor, sessionId, { search: q?.slice(0, 200), limit: 500 });
    const messages = await messagesSection(pc, sessionId, (request.query as { sent?: string }).sent);
    return sendPage(
      reply,
      <Page pc={pc} title="Attendees">
        <Card id="att-h" title="Attendees">
          <form class="grid" method="get">
            <Field name="q" label="Search by name, e-mail, order or ticket code" value={q ?? ''} type="search" />
            <SubmitRow>Search</SubmitRow>
          </form>
          <p>
            <a href={`/admin/sessions/${sessionId}/attendees.xlsx`}>Download XLSX</a> · <a href={`/admin/sessions/${sessionId}/attendees.csv`}>Download CSV</a> ·{' '}
            <a href={`/admin/sessions/${sessionId}/attendees.csv?separator=semicolon`}>CSV for a spreadsheet with a decimal comma</a>
          </p>
          <Table
            head={['Holder', 'E-mail', 'Seat', 'Rate', 'Channel', 'Order', 'Checked in']}
            rows={rows.map((r) => (
              <tr>
                <td>{[r.holder_name, r.holder_surname].filter(Boolean).join(' ')}</td>
                <td>{r.email ?? ''}</td>
                <td>{r.row !== null ? `${r.sector}, row ${r.row}, seat ${r.seat}` : r.sector}</td>
                <td>{r.rate}</td>
                <td>{r.channel}</td>
                <td>
                  <a href={`/admin/orders/${encodeURIComponent(r.order_reference)}`}>{r.order_reference}</a>
                </td>
                <td>{r.checked_in ? when(r.checked_in_at, pc.timeZone) : 'no'}</td>
              </tr>
            ))}
            caption={`${rows.length} valid tickets${rows.length === 500 ? ' (the first 500: search or download the CSV)' : ''}`}
          />
        </Card>
        {messages}
      </Page>,
    );
  });

  // D67: a message to every ticket holder of the session, once per address, through the e-mail queue.
  async function messagesSection(pc: ReturnType<typeof pageContext>, sessionId: number, sent: string | undefined) {
    const messages = await listSessionMessagesFor(ctx, pc.actor, sessionId);
    return (
      <Card id="msg-h" title="Message every ticket holder">
        {sent ? (
          <p class="notice" role="status">
            Message queued for {sent} recipient(s).
          </p>
        ) : null}
        <p>
          One e-mail per address of this session's valid tickets, in your organiser's name (replies go to its box office address). Use it for a time change, doors opening earlier, what to bring.
        </p>
        <PostForm pc={pc} action={`/admin/sessions/${sessionId}/messages`} submit="Send to every ticket holder">
          <Field name="subject" label="Subject" required wide attrs={{ maxlength: SUBJECT_MAX }} />
          <div class="field wide">
            <label for="f-body">Message</label>
            <textarea id="f-body" name="body" rows={6} maxlength={BODY_MAX} required />
          </div>
        </PostForm>
        <Table
          head={['Sent', 'By', 'Subject', 'Recipients', 'E-mails sent', 'Waiting', 'Failed']}
          rows={messages.map((m) => (
            <tr>
              <td>{when(m.created_at, pc.timeZone)}</td>
              <td>{m.sent_by}</td>
              <td>{m.subject}</td>
              <td>{m.recipients}</td>
              <td>{m.emails.sent}</td>
              <td>{m.emails.queued}</td>
              <td>{m.emails.failed}</td>
            </tr>
          ))}
          caption={messages.length ? `${messages.length} message(s) sent to this session's ticket holders` : 'No message sent yet'}
        />
      </Card>
    );
  }

  app.post('/sessions/:sessionId/messages', async (request, reply) => {
    const pc = pageContext(request, 'sales');
    const sessionId = idParam(request, 'sessionId');
    const form = formOf(request);
    const message = await sendSessionMessageAs(ctx, pc.actor, sessionId, { subject: F.text(form, 'subject'), body: F.text(form, 'body') });
    return redirect(reply, `/admin/sessions/${sessionId}/attendees?sent=${message.recipients}`);
  });

  app.get('/sessions/:sessionId/attendees.csv', async (request, reply) => {
    const pc = pageContext(request, 'sales');
    const sessionId = idParam(request, 'sessionId');
    const { separator } = request.query as { separator?: string };
    const file = await attendeeCsvFor(ctx, pc.actor, sessionId, { separator: separator === 'semicolon' ? ';' : ',' });
    return reply.type('text/csv; charset=utf-8').header('content-disposition', attachment(file.fileName)).send(file.stream);
  });

  app.get('/sessions/:sessionId/attendees.xlsx', async (request, reply) => {
    const pc = pageContext(request, 'sales');
    const sessionId = idParam(request, 'sessionId');
    const file = await attendeeXlsxFor(ctx, pc.actor, sessionId);
    return reply.type(XLSX_TYPE).header('content-disposition', attachment(file.fileName)).send(file.stream);
  });

  app.get('/privacy', async (request, reply) => {
    const pc = pageContext(request, 'privacy');
    const { erased } = request.query as { erased?: string };
    return sendPage(
      reply,
      <Page pc={pc} title="Personal data">
        <Card id="erase-h" title="Erase a buyer's personal data">
          <p>
            Names, e-mail addresses and phones are overwritten in orders, payments, the e-mail queue, webhook logs and the audit log. Amounts, seats and tickets stay: the tickets still scan. This
            cannot be undone. See docs/privacy.md.
          </p>
          {erased ? (
            <p class="notice" role="status">
              Erased: {erased}.
            </p>
          ) : null}
          {pc.actor.role === 'admin' ? (
            <PostForm pc={pc} action="/admin/privacy/erase" submit="Erase" submitCls="danger">
              <Field name="email" label="Buyer's e-mail address" type="email" required wide />
              <fieldset class="field wide">
                <legend>Confirmation</legend>
                <label>
                  <input type="checkbox" name="confirm" value="1" required /> I understand that this erases the buyer's data for good
                </label>
              </fieldset>
            </PostForm>
          ) : (
            <p>Only an admin may erase a buyer's data.</p>
          )}
        </Card>
      </Page>,
    );
  });

  app.post('/privacy/erase', async (request, reply) => {
    const pc = pageContext(request, 'privacy');
    const form = formOf(request);
    if (F.text(form, 'confirm') !== '1') return redirect(reply, '/admin/privacy');
    const counts = await eraseBuyer(ctx, pc.actor, F.text(form, 'email'));
    const summary = `${counts.customers} buyer records, ${counts.orders} orders, ${counts.payments} payments, ${counts.emails} e-mails, ${counts.log_entries} log entries`;
    return redirect(reply, `/admin/privacy?erased=${encodeURIComponent(summary)}`);
  });
}
