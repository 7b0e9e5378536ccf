import type { FastifyInstance } from 'fastify';
import type { ComponentChildren } from 'preact';
import * as catalogue from './catalogue-admin.service.js';
import { formOf, formPost, idParam, organisersFor, pageContext, redirectWithNotice, refusedFields, sendPage } from '../admin/dashboard/kit/dashboard.http.js';
import * as F from '../admin/dashboard/kit/dashboard.form.js';
import { ActionButton, Card, type Choices, Field, PostForm, Select, Table } from '../admin/dashboard/kit/dashboard.controls.js';
import { Csrf, Page, type PageContext } from '../admin/dashboard/kit/dashboard.page.js';
import { when } from '../admin/dashboard/kit/dashboard.time.js';
import { eventName } from '../admin/dashboard/kit/dashboard.names.js';
import { cancelSessionAs } from './session-changes.service.js';
import { copyRatesAs, deleteRateAs, rateSourcesFor, type RateSource } from './session-rates.service.js';
import { createSeriesAs, MAX_SERIES_SESSIONS, previewSeriesAs, type SeriesDate, type SeriesInput } from './session-series.service.js';
import { isoToZonedInput, zonedToIso } from '../../lib/zoned-time.js';

// Dashboard pages for events, sessions, rates and fees. Amounts are entered as decimal numbers of
// the deployment currency. Session times are typed and shown in the deployment's zone (TIMEZONE).
// The dashboard shell (modules/admin/dashboard/dashboard.routes.tsx) mounts them behind its sign-in
// and CSRF hooks; src/app.ts hands them in.

const LANGS = ['es', 'en'] as const;
const EVENT_STATUS = catalogue.EVENT_STATUSES.map((s) => [s, s] as [string, string]);
const SESSION_STATUS = catalogue.SESSION_STATUSES.map((s) => [s, s] as [string, string]);
const FEE_KINDS: Choices = { fixed: 'fixed amount per ticket', percent: 'percentage of the base price' };

/** A session to copy rates from, as a picker names it: event, start in the zone, how many rates. */
const rateSourceOptions = (sources: RateSource[], timeZone: string, except?: number): [string | number, string][] =>
  sources.filter((s) => s.id !== except).map((s) => [s.id, `${s.event_name} · ${when(s.start_datetime, timeZone)} (${s.rates} rate${s.rates === 1 ? '' : 's'})`]);

/** The series form's fields as the service takes them. */
const seriesInput = (form: F.Form): SeriesInput => ({
  start_date: F.text(form, 'start_date'),
  time: F.text(form, 'time'),
  repeat: F.text(form, 'repeat') as SeriesInput['repeat'],
  count: F.number(form, 'count') ?? NaN,
  duration_minutes: F.nullableNumber(form, 'duration_minutes'),
  rates_from_session_id: F.nullableNumber(form, 'rates_from_session_id'),
});

/**
 * A table row that edits one record in place (a fee, a rate): its fields and a Save in the first
 * cell (spanning `span` columns), a Delete in the last; both buttons say which record they act on.
 * The record's routes are `action` (save) and `action`/delete.
 */
function EditRow({ pc, record, action, span, children }: { pc: PageContext; record: string; action: string; span?: number; children: ComponentChildren }) {
  return (
    <tr>
      <td colspan={span}>
        <PostForm pc={pc} action={action} submit="Save" submitCls="secondary" submitName={`Save ${record}`}>
          {children}
        </PostForm>
      </td>
      <td>
        <ActionButton pc={pc} action={`${action}/delete`} label="Delete" cls="danger" accessibleName={`Delete ${record}`} />
      </td>
    </tr>
  );
}

function FeeRows({ pc, fees }: { pc: PageContext; fees: catalogue.FeeView[] }) {
  return (
    <Table
      head={['Fee', 'Kind', 'Amount', '']}
      rows={fees.map((f) => (
        <EditRow pc={pc} record={`fee ${f.name}`} action={`/admin/fees/${f.id}`} span={3}>
          <Field name="name" label="Name" value={f.name} required />
          <Select name="kind" label="Kind" choices={FEE_KINDS} selected={f.kind} />
          <Field name="amount" label="Amount" type="number" value={f.amount} attrs={{ step: '0.01', min: 0 }} />
        </EditRow>
      ))}
    />
  );
}

const NewFeeForm = ({ pc, action }: { pc: PageContext; action: string }) => (
  <PostForm pc={pc} action={action} submit="Add fee">
    <Field name="name" label="Fee name" required />
    <Select name="kind" label="Kind" choices={FEE_KINDS} />
    <Field name="amount" label="Amount" type="number" required hint="currency amount, or % for percent" attrs={{ step: '0.01', min: 0 }} />
  </PostForm>
);

const TranslationFields = ({ names = {}, descriptions = {} }: { names?: Record<string, string>; descriptions?: Record<string, string> }) => (
  <>
    {LANGS.map((l) => (
      <>
        <Field name={`name_${l}`} label={`Name (${l})`} value={names[l]} />
        <Field name={`description_${l}`} label={`Description (${l})`} value={descriptions[l]} wide />
      </>
    ))}
  </>
);

function translations(form: F.Form) {
  const names: Record<string, string> = {};
  const descriptions: Record<string, string> = {};
  for (const l of LANGS) {
    if (F.text(form, `name_${l}`)) names[l] = F.text(form, `name_${l}`);
    if (F.text(form, `description_${l}`)) descriptions[l] = F.text(form, `description_${l}`);
  }
  return { names, descriptions };
}

/** A session's start and end, typed in the deployment's zone (the new session's form, the session's page). */
const SessionTimeFields = ({ zone, session }: { zone: string; session?: { start_datetime: string; end_datetime: string | null } }) => (
  <>
    <Field name="start_datetime" label={`Starts (${zone} time)`} type="datetime-local" value={isoToZonedInput(session?.start_datetime, zone)} required />
    <Field name="end_datetime" label={`Ends (${zone} time)`} type="datetime-local" value={isoToZonedInput(session?.end_datetime, zone)} />
  </>
);

/** A session's start and end as its forms send them. */
const sessionTimesOf = (form: F.Form, zone: string) => ({
  start_datetime: zonedToIso(F.text(form, 'start_datetime'), zone) ?? '',
  end_datetime: zonedToIso(F.text(form, 'end_datetime'), zone),
});

/** A rate as its forms send it (new rate, rate row). */
const rateOf = (form: F.Form) => ({ name: F.text(form, 'name'), price: F.number(form, 'price'), sector_id: F.nullableNumber(form, 'sector_id') });

/** A fee as its forms send it (new fee of an event or a session, fee row). */
const feeOf = (form: F.Form) => ({ name: F.text(form, 'name'), kind: F.text(form, 'kind') as 'fixed', amount: F.number(form, 'amount') });

export default async function catalogueDashboard(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;

  // ---- events
  app.get('/events', async (request, reply) => {
    const pc = pageContext(request, 'events');
    const [events, venues, organisers] = await Promise.all([catalogue.listEventsFor(ctx, pc.actor), catalogue.listVenuesFor(ctx, pc.actor), organisersFor(ctx, pc.actor)]);
    // Names, not ids (issue 29): the venue and the organiser of each event.
    const venueName = new Map(venues.map((v) => [v.id, v.name]));
    const organiserName = new Map(organisers.map((o) => [o.id, o.name]));
    return sendPage(
      reply,
      <Page pc={pc} title="Events">
        <Card id="list-h" title="Events">
          <Table
            head={['Event', 'Status', 'Venue', 'Organiser']}
            rows={events.map((e) => (
              <tr>
                <td>
                  <a href={`/admin/events/${e.id}`}>{eventName(e)}</a>
                </td>
                <td>{e.status}</td>
                <td>{venueName.get(e.venue_id) ?? e.venue_id}</td>
                <td>{organiserName.get(e.organiser_id) ?? e.organiser_id}</td>
              </tr>
            ))}
          />
        </Card>
        <Card id="new-h" title="New event">
          {venues.length === 0 ? (
            <p>
              There is no venue yet: create one and draw its seat map under <a href="/admin/venues">Venues</a> first.
            </p>
          ) : (
            <PostForm pc={pc} action="/admin/events" submit="Create event (draft)">
              <Select name="venue_id" label="Venue" options={venues.map((v) => [v.id, organisers.length > 1 ? `${v.name} · ${organiserName.get(v.organiser_id) ?? v.organiser_id}` : v.name])} />
              <TranslationFields />
            </PostForm>
          )}
        </Card>
      </Page>,
    );
  });

  formPost(app, '/events', async (form, actor) => {
    const venueId = F.number(form, 'venue_id');
    const venue = (await catalogue.listVenuesFor(ctx, actor)).find((v) => v.id === venueId);
    const event = await catalogue.createEventAs(ctx, actor, { organiser_id: venue?.organiser_id, venue_id: venueId ?? 0, ...translations(form) });
    return [`/admin/events/${event.id}`, 'created'];
  });

  /** The event page; `series` carries the series form back with its errors, or its preview. */
  async function eventPage(pc: PageContext, id: number, series: { form: F.Form; errors: Record<string, string[]>; preview: SeriesDate[] | null } | null = null) {
    const event = await catalogue.getEventFor(ctx, pc.actor, id);
    const sources = await rateSourcesFor(ctx, pc.actor);
    const v = series?.form ?? {};
    const e = series?.errors ?? {};
    const zone = pc.timeZone;
    const preview = series?.preview;
    const copyFrom: [string | number, string][] = [['', 'no session (add rates later)'], ...rateSourceOptions(sources, zone)];
    return (
      <Page pc={pc} title={`Event: ${eventName(event)}`}>
        <p>
          Status: <strong>{event.status}</strong> {event.status === 'published' ? null : <ActionButton pc={pc} action={`/admin/events/${id}/publish`} label="Publish event" cls="" />}
        </p>
        <Card id="edit-h" title="Details">
          <PostForm pc={pc} action={`/admin/events/${id}`} submit="Save event">
            <TranslationFields names={event.names} descriptions={event.descriptions} />
            <Select name="default_lang" label="Default language" options={LANGS.map((l) => [l, l])} selected={event.default_lang} />
            <Field name="image_url" label="Image URL" type="url" value={event.image_url} />
            <Select name="status" label="Status" options={EVENT_STATUS} selected={event.status} />
          </PostForm>
        </Card>
        <Card id="sessions-h" title="Sessions">
          <Table
            head={['Starts', 'Ends', 'Status']}
            rows={event.sessions.map((s) => (
              <tr>
                <td>
                  <a href={`/admin/sessions/${s.id}`}>{when(s.start_datetime, zone)}</a>
                </td>
                <td>{when(s.end_datetime, zone)}</td>
                <td>{s.status}</td>
              </tr>
            ))}
          />
          <h3>New session</h3>
          <PostForm pc={pc} action={`/admin/events/${id}/sessions`} submit="Add session (draft)">
            <SessionTimeFields zone={zone} />
            <Select name="rates_from_session_id" label="Copy the rates of" options={copyFrom} />
          </PostForm>
          <h3 id="series-h">A series of sessions</h3>
          <p class="hint">
            For example every Friday at 21:00 for 8 weeks: the first day, the time ({zone} time, kept across summer-time changes), how often and how many (at most {MAX_SERIES_SESSIONS}). Preview the
            dates first; a date the event already has is skipped.
          </p>
          <form class="grid" method="post" action={`/admin/events/${id}/series`} aria-labelledby="series-h">
            <Csrf pc={pc} />
            <Field name="start_date" label="First day" type="date" required value={F.text(v, 'start_date')} errors={e.start_date} />
            <Field name="time" label={`Time (${zone})`} type="time" required value={F.text(v, 'time')} errors={e.time} />
            <Select name="repeat" label="Repeat" choices={{ weekly: 'every week', daily: 'every day' }} selected={F.text(v, 'repeat') || 'weekly'} errors={e.repeat} />
            <Field name="count" label="How many sessions" type="number" required value={F.text(v, 'count')} errors={e.count} attrs={{ min: 1, max: MAX_SERIES_SESSIONS }} />
            <Field name="duration_minutes" label="Duration in minutes (empty: no end)" type="number" value={F.text(v, 'duration_minutes')} errors={e.duration_minutes} attrs={{ min: 1 }} />
            <Select name="rates_from_session_id" label="Copy the rates of" options={copyFrom} selected={F.text(v, 'rates_from_session_id')} errors={e.rates_from_session_id} />
            <div class="field">
              <button type="submit" name="action" value="preview" class="secondary">
                Preview dates
              </button>{' '}
              <button type="submit" name="action" value="create">
                Create sessions (drafts)
              </button>
            </div>
          </form>
          {preview ? (
            <div role="status">
              <h4>
                {preview.length} session{preview.length === 1 ? '' : 's'} would be created
              </h4>
              <ol class="series-preview">
                {preview.map((d) => (
                  <li>
                    {when(d.start_datetime, zone)}
                    {d.end_datetime ? ` – ${when(d.end_datetime, zone)}` : null}
                    {d.exists ? (
                      <>
                        {' '}
                        <span class="badge off">already exists: skipped</span>
                      </>
                    ) : null}
                  </li>
                ))}
              </ol>
            </div>
          ) : null}
        </Card>
        <Card id="fees-h" title="Fees on every session">
          <FeeRows pc={pc} fees={event.fees} />
          <NewFeeForm pc={pc} action={`/admin/events/${id}/fees`} />
        </Card>
      </Page>
    );
  }

  app.get('/events/:eventId', async (request, reply) => sendPage(reply, await eventPage(pageContext(request, 'events'), idParam(request, 'eventId'))));

  app.post('/events/:eventId/series', async (request, reply) => {
    const pc = pageContext(request, 'events');
    const id = idParam(request, 'eventId');
    const form = formOf(request);
    try {
      if (F.text(form, 'action') === 'preview') {
        return sendPage(reply, await eventPage(pc, id, { form, errors: {}, preview: await previewSeriesAs(ctx, pc.actor, id, seriesInput(form)) }));
      }
      await createSeriesAs(ctx, pc.actor, id, seriesInput(form));
      return redirectWithNotice(reply, `/admin/events/${id}`, 'series');
    } catch (err) {
      return sendPage(reply, await eventPage(pc, id, { form, errors: refusedFields(err), preview: null }), 422);
    }
  });

  formPost(app, '/events/:eventId', async (form, actor, request) => {
    const id = idParam(request, 'eventId');
    await catalogue.updateEventAs(ctx, actor, id, {
      ...translations(form),
      default_lang: F.optional(form, 'default_lang'),
      image_url: F.nullable(form, 'image_url'),
      status: F.optional(form, 'status') as catalogue.EventStatus | undefined,
    });
    return [`/admin/events/${id}`, 'saved'];
  });

  formPost(app, '/events/:eventId/publish', async (form, actor, request) => {
    const id = idParam(request, 'eventId');
    await catalogue.publishEventAs(ctx, actor, id);
    return [`/admin/events/${id}`, 'published'];
  });

  formPost(app, '/events/:eventId/sessions', async (form, actor, request) => {
    const session = await catalogue.createSessionAs(ctx, actor, idParam(request, 'eventId'), sessionTimesOf(form, ctx.config.timezone));
    const from = F.number(form, 'rates_from_session_id');
    if (from !== undefined) await copyRatesAs(ctx, actor, session.id, from);
    return [`/admin/sessions/${session.id}`, 'created'];
  });

  formPost(app, '/events/:eventId/fees', async (form, actor, request) => {
    const id = idParam(request, 'eventId');
    await catalogue.createFeeAs(ctx, actor, { eventId: id }, feeOf(form));
    return [`/admin/events/${id}`, 'created'];
  });

  // ---- sessions, rates, fees
  app.get('/sessions/:sessionId', async (request, reply) => {
    const pc = pageContext(request, 'events');
    const id = idParam(request, 'sessionId');
    const session = await catalogue.getSessionFor(ctx, pc.actor, id);
    const venue = (await catalogue.listVenuesFor(ctx, pc.actor)).find((v) => v.id === session.venue_id);
    const sectorOptions: [string | number, string][] = [['', 'every sector'], ...(venue?.sectors ?? []).map((s) => [s.id, s.name] as [number, string])];
    const copyOptions = rateSourceOptions(await rateSourcesFor(ctx, pc.actor), pc.timeZone, id);
    const zone = pc.timeZone;
    const queue = session.queue;
    return sendPage(
      reply,
      <Page pc={pc} title={`Session ${when(session.start_datetime, zone)}`}>
        <p>
          <a href={`/admin/events/${session.event_id}`}>Back to the event</a> · Status: <strong>{session.status}</strong>{' '}
          {session.status === 'on_sale' || session.status === 'cancelled' ? null : <ActionButton pc={pc} action={`/admin/sessions/${id}/publish`} label="Put on sale" cls="" />}{' '}
          {session.sales_start_at || session.sales_end_at ? ` · Sales window: ${when(session.sales_start_at, zone)} – ${when(session.sales_end_at, zone)}` : null}{' '}
          {session.status === 'cancelled' ? null : (
            <>
              {' · '}
              <a href={`/admin/sessions/${id}/cancel`}>Cancel this session…</a>
            </>
          )}
        </p>
        <Card id="edit-h" title="Details">
          <PostForm pc={pc} action={`/admin/sessions/${id}`} submit="Save session">
            <SessionTimeFields zone={zone} session={session} />
            <Select name="status" label="Status" options={SESSION_STATUS} selected={session.status} />
            <Field name="max_tickets_per_buyer" label="Max tickets per buyer (empty: no cap)" type="number" value={session.max_tickets_per_buyer} attrs={{ min: 1 }} />
            <Field name="sales_start_at" label={`Sales start (${zone} time; empty: when put on sale)`} type="datetime-local" value={isoToZonedInput(session.sales_start_at, zone)} />
            <Field name="sales_end_at" label={`Sales end (${zone} time; empty: until the start)`} type="datetime-local" value={isoToZonedInput(session.sales_end_at, zone)} />
          </PostForm>
        </Card>
        <Card id="queue-h" title="Waiting room">
          <p class="hint">
            Buyers who arrive before the sales start wait in a pre-queue that is drawn at random when sales open; later buyers queue in arrival order. Buyers are let in at the rate below and may then start
            carts for the pass time. Needs a sales start (docs/onsale.md).
          </p>
          <PostForm pc={pc} action={`/admin/sessions/${id}/queue`} submit="Save waiting room">
            <div class="field wide">
              <label>
                <input type="checkbox" name="enabled" value="on" checked={!!queue?.enabled} /> Waiting room on
              </label>
            </div>
            <Field name="admission_per_minute" label="Buyers let in per minute" type="number" value={queue?.admission_per_minute ?? ''} attrs={{ min: 1 }} />
            <Field name="pass_ttl_seconds" label="Pass time (seconds)" type="number" value={queue?.pass_ttl_seconds ?? 600} attrs={{ min: 60 }} />
            <Field name="opens_minutes_before" label="Pre-queue opens (minutes before the sales start)" type="number" value={queue?.opens_minutes_before ?? 30} attrs={{ min: 0 }} />
            <Select name="challenge" label="Check at join" choices={{ none: 'none', proof_of_work: "proof of work (a second of the browser's work)" }} selected={queue?.challenge ?? 'none'} />
          </PostForm>
        </Card>
        <Card id="rates-h" title="Rates">
          <Table
            head={['Rate', '']}
            rows={session.rates.map((r) => (
              <EditRow pc={pc} record={`rate ${r.name}`} action={`/admin/rates/${r.id}`}>
                <Field name="name" label="Name" value={r.name} required />
                <Field name="price" label="Price" type="number" value={r.price} attrs={{ step: '0.01', min: 0 }} />
                <Select name="sector_id" label="Sector" options={sectorOptions} selected={r.sector_id ?? ''} />
              </EditRow>
            ))}
          />
          <p class="hint">A rate can be deleted while nothing uses it: no ticket sold or held, no voucher restricted to it.</p>
          {copyOptions.length ? (
            <>
              <h3>Copy rates from another session</h3>
              <PostForm pc={pc} action={`/admin/sessions/${id}/rates/copy`} submit="Copy its rates" submitCls="secondary">
                <Select name="from_session_id" label="Session" options={copyOptions} />
              </PostForm>
              <p class="hint">Rates with a name this session has already are left alone.</p>
            </>
          ) : null}
          <h3>New rate</h3>
          <PostForm pc={pc} action={`/admin/sessions/${id}/rates`} submit="Add rate">
            <Field name="name" label="Name" required />
            <Field name="price" label="Price" type="number" required attrs={{ step: '0.01', min: 0 }} />
            <Select name="sector_id" label="Sector" options={sectorOptions} />
          </PostForm>
        </Card>
        <Card id="fees-h" title="Fees">
          <p class="hint">Fees of the event apply too; they are edited on the event's page.</p>
          <FeeRows pc={pc} fees={session.fees.filter((f) => f.session_id === id)} />
          <NewFeeForm pc={pc} action={`/admin/sessions/${id}/fees`} />
        </Card>
      </Page>,
    );
  });

  formPost(app, '/sessions/:sessionId', async (form, actor, request) => {
    const id = idParam(request, 'sessionId');
    await catalogue.updateSessionAs(ctx, actor, id, {
      ...sessionTimesOf(form, ctx.config.timezone),
      status: F.optional(form, 'status') as catalogue.SessionStatus | undefined,
      max_tickets_per_buyer: F.nullableNumber(form, 'max_tickets_per_buyer'),
      // The sales window is typed in the deployment's time zone (D59).
      ...(form.sales_start_at !== undefined ? { sales_start_at: zonedToIso(F.optional(form, 'sales_start_at'), ctx.config.timezone) } : {}),
      ...(form.sales_end_at !== undefined ? { sales_end_at: zonedToIso(F.optional(form, 'sales_end_at'), ctx.config.timezone) } : {}),
    });
    return [`/admin/sessions/${id}`, 'saved'];
  });

  // D60: the waiting room's settings, a form of their own.
  formPost(app, '/sessions/:sessionId/queue', async (form, actor, request) => {
    const id = idParam(request, 'sessionId');
    await catalogue.updateSessionAs(ctx, actor, id, {
      queue: {
        enabled: F.optional(form, 'enabled') === 'on',
        admission_per_minute: F.number(form, 'admission_per_minute'),
        pass_ttl_seconds: F.number(form, 'pass_ttl_seconds'),
        opens_minutes_before: F.number(form, 'opens_minutes_before'),
        challenge: F.text(form, 'challenge') as 'none' | 'proof_of_work',
      },
    });
    return [`/admin/sessions/${id}`, 'saved'];
  });

  // D74: cancelling ends the live carts at once and tells the channels; this page asks first.
  app.get('/sessions/:sessionId/cancel', async (request, reply) => {
    const pc = pageContext(request, 'events');
    const id = idParam(request, 'sessionId');
    const session = await catalogue.getSessionFor(ctx, pc.actor, id);
    return sendPage(
      reply,
      <Page pc={pc} title="Cancel a session">
        <section class="card" aria-labelledby="cancel-h">
          <h2 id="cancel-h">Cancel the session of {when(session.start_datetime, pc.timeZone)}?</h2>
          <p>
            Its carts end at once and nothing more of it is sold. Its channels are told (<code>session.cancelled</code>). Tickets already sold stay valid unless you refund them here: each order is
            refunded once, and its buyer gets the refund e-mail.
          </p>
          <form class="grid" method="post" action={`/admin/sessions/${id}/cancel`}>
            <Csrf pc={pc} />
            <div class="field wide">
              <label>
                <input type="checkbox" name="refund" value="on" /> Refund every order of this session
              </label>
            </div>
            <div class="field">
              <button type="submit" class="danger">
                Yes, cancel the session
              </button>{' '}
              <a href={`/admin/sessions/${id}`}>No, go back</a>
            </div>
          </form>
        </section>
      </Page>,
    );
  });

  formPost(app, '/sessions/:sessionId/cancel', async (form, actor, request) => {
    const id = idParam(request, 'sessionId');
    const cancelled = await cancelSessionAs(ctx, actor, id, { refund: F.optional(form, 'refund') === 'on' || F.optional(form, 'refund') === 'true' });
    return [`/admin/sessions/${id}`, cancelled.refund_failures.length > 0 ? 'cancelled_refunds_failed' : 'cancelled'];
  });

  formPost(app, '/sessions/:sessionId/publish', async (form, actor, request) => {
    const id = idParam(request, 'sessionId');
    await catalogue.publishSessionAs(ctx, actor, id);
    return [`/admin/sessions/${id}`, 'published'];
  });

  formPost(app, '/sessions/:sessionId/rates', async (form, actor, request) => {
    const id = idParam(request, 'sessionId');
    await catalogue.createRateAs(ctx, actor, id, rateOf(form));
    return [`/admin/sessions/${id}`, 'created'];
  });

  formPost(app, '/sessions/:sessionId/fees', async (form, actor, request) => {
    const id = idParam(request, 'sessionId');
    await catalogue.createFeeAs(ctx, actor, { sessionId: id }, feeOf(form));
    return [`/admin/sessions/${id}`, 'created'];
  });

  formPost(app, '/sessions/:sessionId/rates/copy', async (form, actor, request) => {
    const id = idParam(request, 'sessionId');
    const { added } = await copyRatesAs(ctx, actor, id, F.number(form, 'from_session_id') ?? 0);
    return [`/admin/sessions/${id}`, added.length ? 'rates_copied' : 'rates_none'];
  });

  formPost(app, '/rates/:rateId/delete', async (form, actor, request) => {
    const { session_id } = await deleteRateAs(ctx, actor, idParam(request, 'rateId'));
    return [`/admin/sessions/${session_id}`, 'deleted'];
  });

  formPost(app, '/rates/:rateId', async (form, actor, request) => {
    const rate = await catalogue.updateRateAs(ctx, actor, idParam(request, 'rateId'), rateOf(form));
    return [`/admin/sessions/${rate.session_id}`, 'saved'];
  });

  const feePage = (fee: catalogue.FeeView) => (fee.session_id ? `/admin/sessions/${fee.session_id}` : `/admin/events/${fee.event_id}`);

  formPost(app, '/fees/:feeId', async (form, actor, request) => {
    const fee = await catalogue.updateFeeAs(ctx, actor, idParam(request, 'feeId'), feeOf(form));
    return [feePage(fee), 'saved'];
  });

  formPost(app, '/fees/:feeId/delete', async (form, actor, request) => {
    const id = idParam(request, 'feeId');
    const back = feePage(await catalogue.getFeeFor(ctx, actor, id));
    await catalogue.deleteFeeAs(ctx, actor, id);
    return [back, 'deleted'];
  });
}
