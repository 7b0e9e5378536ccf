import type { FastifyInstance } from 'fastify';
import * as catalogue from './catalogue-admin.service.js';
import type { Actor } from '../../platform/actor.js';
import { formOf, idParam, pageContext, redirect, refusedFields, sendPage } from '../admin/dashboard/kit/dashboard.http.js';
import * as F from '../admin/dashboard/kit/dashboard.form.js';
import { html, type SafeHtml } from '../admin/dashboard/kit/dashboard.html.js';
import { actionButton, csrf, field, page, select, table, when, type PageContext } from '../admin/dashboard/kit/dashboard.layout.js';
import { cancelSessionAs } from './session-changes.service.js';
import { copyRatesAs, deleteRateAs, rateSourcesFor, type RateSource } from './session-rates.service.js';
import { createSeriesAs, MAX_SERIES_SESSIONS, previewSeriesAs, type SeriesDate, type SeriesInput } from './session-series.service.js';
import { isoToZonedInput, zonedToIso } from '../../lib/zoned-time.js';

// Dashboard pages for events, sessions, rates and fees. Amounts are entered as decimal numbers of
// the deployment currency. Session times are typed and shown in the deployment's zone (TIMEZONE).
// The dashboard shell (modules/admin/dashboard/dashboard.routes.ts) mounts them behind its sign-in
// and CSRF hooks; src/app.ts hands them in.

const LANGS = ['es', 'en'] as const;
const EVENT_STATUS = catalogue.EVENT_STATUSES.map((s) => [s, s] as [string, string]);
const SESSION_STATUS = catalogue.SESSION_STATUSES.map((s) => [s, s] as [string, string]);
const FEE_KINDS: [string, string][] = [
  ['fixed', 'fixed amount per ticket'],
  ['percent', 'percentage of the base price'],
];
const eventName = (e: { names: Record<string, string>; id: number }) => e.names.en ?? e.names.es ?? Object.values(e.names)[0] ?? `#${e.id}`;

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

function feeRows(pc: PageContext, fees: catalogue.FeeView[]): SafeHtml {
  return table(
    ['Fee', 'Kind', 'Amount', ''],
    fees.map(
      (f) => html`<tr><td colspan="3">
  <form class="grid" method="post" action="/admin/fees/${f.id}">${csrf(pc)}
    ${field('name', 'Name', { value: f.name, required: true })}
    ${select('kind', 'Kind', FEE_KINDS, f.kind)}
    ${field('amount', 'Amount', { type: 'number', value: f.amount, attrs: html` step="0.01" min="0"` })}
    <div class="field"><button type="submit" class="secondary" aria-label="Save fee ${f.name}">Save</button></div>
  </form></td><td>${actionButton(pc, `/admin/fees/${f.id}/delete`, 'Delete', 'danger', `Delete fee ${f.name}`)}</td></tr>`,
    ),
  );
}

const newFeeForm = (pc: PageContext, action: string) => html`<form class="grid" method="post" action="${action}">${csrf(pc)}
  ${field('name', 'Fee name', { required: true })}
  ${select('kind', 'Kind', FEE_KINDS)}
  ${field('amount', 'Amount', { type: 'number', required: true, hint: 'currency amount, or % for percent', attrs: html` step="0.01" min="0"` })}
  <div class="field"><button type="submit">Add fee</button></div></form>`;

const translationFields = (names: Record<string, string> = {}, descriptions: Record<string, string> = {}) =>
  LANGS.map(
    (l) => html`${field(`name_${l}`, `Name (${l})`, { value: names[l] })}${field(`description_${l}`, `Description (${l})`, { value: descriptions[l], wide: true })}`,
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

export default async function catalogueDashboard(app: FastifyInstance): Promise<void> {
  const ctx = app.ctx;
  const actorOf = (request: { dashboard: { actor: Actor } | null }) => request.dashboard!.actor;

  // ---- events
  app.get('/events', async (request, reply) => {
    const pc = pageContext(request, 'events');
    const [events, venues] = await Promise.all([catalogue.listEventsFor(ctx, pc.actor), catalogue.listVenuesFor(ctx, pc.actor)]);
    const body = html`
<section class="card" aria-labelledby="list-h"><h2 id="list-h">Events</h2>
${table(
  ['Event', 'Status', 'Venue', 'Organiser'],
  events.map((e) => html`<tr><td><a href="/admin/events/${e.id}">${eventName(e)}</a></td><td>${e.status}</td><td>${e.venue_id}</td><td>${e.organiser_id}</td></tr>`),
)}</section>
<section class="card" aria-labelledby="new-h"><h2 id="new-h">New event</h2>
${venues.length === 0
  ? html`<p>There is no venue yet: venues and their seat maps come with the catalogue import.</p>`
  : html`<form class="grid" method="post" action="/admin/events">${csrf(pc)}
  ${select('venue_id', 'Venue', venues.map((v) => [v.id, `${v.name} (${v.id})`]))}
  ${translationFields()}
  <div class="field"><button type="submit">Create event (draft)</button></div></form>`}
</section>`;
    return sendPage(reply, page(pc, 'Events', body));
  });

  app.post('/events', async (request, reply) => {
    const form = formOf(request);
    const actor = actorOf(request);
    const venueId = F.number(form, 'venue_id');
    const venue = (await catalogue.listVenuesFor(ctx, actor)).find((v) => v.id === venueId);
    const event = await catalogue.createEventAs(ctx, actor, { organiser_id: venue?.organiser_id, venue_id: venueId ?? 0, ...translations(form) });
    return redirect(reply, `/admin/events/${event.id}?notice=created`);
  });

  /** The event page; `series` carries the series form back with its errors, or its preview. */
  async function eventPage(pc: PageContext, id: number, series: { form: F.Form; errors: Record<string, string[]>; preview: SeriesDate[] | null } | null = null) {
    const event = await catalogue.getEventFor(ctx, pc.actor, id);
    const sources = await rateSourcesFor(ctx, pc.actor);
    const v = series?.form ?? {};
    const e = series?.errors ?? {};
    const zone = pc.timeZone;
    const preview = series?.preview
      ? html`<div role="status"><h4>${series.preview.length} session${series.preview.length === 1 ? '' : 's'} would be created</h4>
<ol class="series-preview">${series.preview.map((d) => html`<li>${when(d.start_datetime, zone)}${d.end_datetime ? html` – ${when(d.end_datetime, zone)}` : ''}${d.exists ? html` <span class="badge off">already exists: skipped</span>` : ''}</li>`)}</ol></div>`
      : '';
    return page(
      pc,
      `Event: ${eventName(event)}`,
      html`
<p>Status: <strong>${event.status}</strong> ${event.status === 'published' ? '' : actionButton(pc, `/admin/events/${id}/publish`, 'Publish event', '')}</p>
<section class="card" aria-labelledby="edit-h"><h2 id="edit-h">Details</h2>
<form class="grid" method="post" action="/admin/events/${id}">${csrf(pc)}
  ${translationFields(event.names, event.descriptions)}
  ${select('default_lang', 'Default language', LANGS.map((l) => [l, l]), event.default_lang)}
  ${field('image_url', 'Image URL', { type: 'url', value: event.image_url })}
  ${select('status', 'Status', EVENT_STATUS, event.status)}
  <div class="field"><button type="submit">Save event</button></div>
</form></section>
<section class="card" aria-labelledby="sessions-h"><h2 id="sessions-h">Sessions</h2>
${table(
  ['Starts', 'Ends', 'Status'],
  event.sessions.map((s) => html`<tr><td><a href="/admin/sessions/${s.id}">${when(s.start_datetime, zone)}</a></td><td>${when(s.end_datetime, zone)}</td><td>${s.status}</td></tr>`),
)}
<h3>New session</h3>
<form class="grid" method="post" action="/admin/events/${id}/sessions">${csrf(pc)}
  ${field('start_datetime', `Starts (${zone} time)`, { type: 'datetime-local', required: true })}
  ${field('end_datetime', `Ends (${zone} time)`, { type: 'datetime-local' })}
  ${select('rates_from_session_id', 'Copy the rates of', [['', 'no session (add rates later)'], ...rateSourceOptions(sources, zone)])}
  <div class="field"><button type="submit">Add session (draft)</button></div>
</form>
<h3 id="series-h">A series of sessions</h3>
<p class="hint">For example every Friday at 21:00 for 8 weeks: the first day, the time (${zone} time, kept across summer-time changes), how often and how many (at most ${MAX_SERIES_SESSIONS}). Preview the dates first; a date the event already has is skipped.</p>
<form class="grid" method="post" action="/admin/events/${id}/series" aria-labelledby="series-h">${csrf(pc)}
  ${field('start_date', 'First day', { type: 'date', required: true, value: F.text(v, 'start_date'), errors: e.start_date })}
  ${field('time', `Time (${zone})`, { type: 'time', required: true, value: F.text(v, 'time'), errors: e.time })}
  ${select('repeat', 'Repeat', [['weekly', 'every week'], ['daily', 'every day']], F.text(v, 'repeat') || 'weekly', e.repeat)}
  ${field('count', 'How many sessions', { type: 'number', required: true, value: F.text(v, 'count'), errors: e.count, attrs: html` min="1" max="${MAX_SERIES_SESSIONS}"` })}
  ${field('duration_minutes', 'Duration in minutes (empty: no end)', { type: 'number', value: F.text(v, 'duration_minutes'), errors: e.duration_minutes, attrs: html` min="1"` })}
  ${select('rates_from_session_id', 'Copy the rates of', [['', 'no session (add rates later)'], ...rateSourceOptions(sources, zone)], F.text(v, 'rates_from_session_id'), e.rates_from_session_id)}
  <div class="field"><button type="submit" name="action" value="preview" class="secondary">Preview dates</button> <button type="submit" name="action" value="create">Create sessions (drafts)</button></div>
</form>
${preview}
</section>
<section class="card" aria-labelledby="fees-h"><h2 id="fees-h">Fees on every session</h2>
${feeRows(pc, event.fees)}
${newFeeForm(pc, `/admin/events/${id}/fees`)}
</section>`,
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
      return redirect(reply, `/admin/events/${id}?notice=series`);
    } catch (err) {
      return sendPage(reply, await eventPage(pc, id, { form, errors: refusedFields(err), preview: null }), 422);
    }
  });

  app.post('/events/:eventId', async (request, reply) => {
    const form = formOf(request);
    const id = idParam(request, 'eventId');
    await catalogue.updateEventAs(ctx, actorOf(request), id, {
      ...translations(form),
      default_lang: F.optional(form, 'default_lang'),
      image_url: F.nullable(form, 'image_url'),
      status: F.optional(form, 'status') as catalogue.EventStatus | undefined,
    });
    return redirect(reply, `/admin/events/${id}?notice=saved`);
  });

  app.post('/events/:eventId/publish', async (request, reply) => {
    const id = idParam(request, 'eventId');
    await catalogue.publishEventAs(ctx, actorOf(request), id);
    return redirect(reply, `/admin/events/${id}?notice=published`);
  });

  app.post('/events/:eventId/sessions', async (request, reply) => {
    const form = formOf(request);
    const tz = ctx.config.timezone;
    const session = await catalogue.createSessionAs(ctx, actorOf(request), idParam(request, 'eventId'), {
      start_datetime: zonedToIso(F.text(form, 'start_datetime'), tz) ?? '',
      end_datetime: zonedToIso(F.text(form, 'end_datetime'), tz),
    });
    const from = F.number(form, 'rates_from_session_id');
    if (from !== undefined) await copyRatesAs(ctx, actorOf(request), session.id, from);
    return redirect(reply, `/admin/sessions/${session.id}?notice=created`);
  });

  app.post('/events/:eventId/fees', async (request, reply) => {
    const form = formOf(request);
    const id = idParam(request, 'eventId');
    await catalogue.createFeeAs(ctx, actorOf(request), { eventId: id }, { name: F.text(form, 'name'), kind: F.text(form, 'kind') as 'fixed', amount: F.number(form, 'amount') });
    return redirect(reply, `/admin/events/${id}?notice=created`);
  });

  // ---- sessions, rates, fees
  app.get('/sessions/:sessionId', async (request, reply) => {
    const pc = pageContext(request, 'events');
    const id = idParam(request, 'sessionId');
    const session = await catalogue.getSessionFor(ctx, pc.actor, id);
    const venue = (await catalogue.listVenuesFor(ctx, pc.actor)).find((v) => v.id === session.venue_id);
    const sectorOptions: [string | number, string][] = [['', 'every sector'], ...(venue?.sectors ?? []).map((s) => [s.id, s.name] as [number, string])];
    const copyOptions = rateSourceOptions(await rateSourcesFor(ctx, pc.actor), pc.timeZone, id);
    const body = html`
<p><a href="/admin/events/${session.event_id}">Back to the event</a> · Status: <strong>${session.status}</strong>
${session.status === 'on_sale' || session.status === 'cancelled' ? '' : actionButton(pc, `/admin/sessions/${id}/publish`, 'Put on sale', '')}
${session.sales_start_at || session.sales_end_at ? html` · Sales window: ${when(session.sales_start_at, pc.timeZone)} – ${when(session.sales_end_at, pc.timeZone)}` : ''}
${session.status === 'cancelled' ? '' : html` · <a href="/admin/sessions/${id}/cancel">Cancel this session…</a>`}</p>
<section class="card" aria-labelledby="edit-h"><h2 id="edit-h">Details</h2>
<form class="grid" method="post" action="/admin/sessions/${id}">${csrf(pc)}
  ${field('start_datetime', `Starts (${pc.timeZone} time)`, { type: 'datetime-local', value: isoToZonedInput(session.start_datetime, pc.timeZone), required: true })}
  ${field('end_datetime', `Ends (${pc.timeZone} time)`, { type: 'datetime-local', value: isoToZonedInput(session.end_datetime, pc.timeZone) })}
  ${select('status', 'Status', SESSION_STATUS, session.status)}
  ${field('max_tickets_per_buyer', 'Max tickets per buyer (empty: no cap)', { type: 'number', value: session.max_tickets_per_buyer, attrs: html` min="1"` })}
  ${field('sales_start_at', `Sales start (${pc.timeZone} time; empty: when put on sale)`, { type: 'datetime-local', value: isoToZonedInput(session.sales_start_at, pc.timeZone) })}
  ${field('sales_end_at', `Sales end (${pc.timeZone} time; empty: until the start)`, { type: 'datetime-local', value: isoToZonedInput(session.sales_end_at, pc.timeZone) })}
  <div class="field"><button type="submit">Save session</button></div>
</form></section>
<section class="card" aria-labelledby="queue-h"><h2 id="queue-h">Waiting room</h2>
<p class="hint">Buyers who arrive before the sales start wait in a pre-queue that is drawn at random when sales open; later buyers queue in arrival order.
Buyers are let in at the rate below and may then start carts for the pass time. Needs a sales start (docs/onsale.md).</p>
<form class="grid" method="post" action="/admin/sessions/${id}/queue">${csrf(pc)}
  <label class="field wide"><span><input type="checkbox" name="enabled" value="on"${session.queue?.enabled ? ' checked' : ''}> Waiting room on</span></label>
  ${field('admission_per_minute', 'Buyers let in per minute', { type: 'number', value: session.queue?.admission_per_minute ?? '', attrs: html` min="1"` })}
  ${field('pass_ttl_seconds', 'Pass time (seconds)', { type: 'number', value: session.queue?.pass_ttl_seconds ?? 600, attrs: html` min="60"` })}
  ${field('opens_minutes_before', 'Pre-queue opens (minutes before the sales start)', { type: 'number', value: session.queue?.opens_minutes_before ?? 30, attrs: html` min="0"` })}
  ${select('challenge', 'Check at join', [['none', 'none'], ['proof_of_work', 'proof of work (a second of the browser\'s work)']], session.queue?.challenge ?? 'none')}
  <div class="field"><button type="submit">Save waiting room</button></div>
</form></section>
<section class="card" aria-labelledby="rates-h"><h2 id="rates-h">Rates</h2>
${table(
  ['Rate', ''],
  session.rates.map(
    (r) => html`<tr><td><form class="grid" method="post" action="/admin/rates/${r.id}">${csrf(pc)}
      ${field('name', 'Name', { value: r.name, required: true })}
      ${field('price', 'Price', { type: 'number', value: r.price, attrs: html` step="0.01" min="0"` })}
      ${select('sector_id', 'Sector', sectorOptions, r.sector_id ?? '')}
      <div class="field"><button type="submit" class="secondary" aria-label="Save rate ${r.name}">Save</button></div></form></td>
      <td>${actionButton(pc, `/admin/rates/${r.id}/delete`, 'Delete', 'danger', `Delete rate ${r.name}`)}</td></tr>`,
  ),
)}
<p class="hint">A rate can be deleted while nothing uses it: no ticket sold or held, no voucher restricted to it.</p>
${copyOptions.length
  ? html`<h3>Copy rates from another session</h3>
<form class="grid" method="post" action="/admin/sessions/${id}/rates/copy">${csrf(pc)}
  ${select('from_session_id', 'Session', copyOptions)}
  <div class="field"><button type="submit" class="secondary">Copy its rates</button></div>
</form><p class="hint">Rates with a name this session has already are left alone.</p>`
  : ''}
<h3>New rate</h3>
<form class="grid" method="post" action="/admin/sessions/${id}/rates">${csrf(pc)}
  ${field('name', 'Name', { required: true })}
  ${field('price', 'Price', { type: 'number', required: true, attrs: html` step="0.01" min="0"` })}
  ${select('sector_id', 'Sector', sectorOptions)}
  <div class="field"><button type="submit">Add rate</button></div>
</form></section>
<section class="card" aria-labelledby="fees-h"><h2 id="fees-h">Fees</h2>
<p class="hint">Fees of the event apply too; they are edited on the event's page.</p>
${feeRows(pc, session.fees.filter((f) => f.session_id === id))}
${newFeeForm(pc, `/admin/sessions/${id}/fees`)}
</section>`;
    return sendPage(reply, page(pc, `Session ${when(session.start_datetime, pc.timeZone)}`, body));
  });

  app.post('/sessions/:sessionId', async (request, reply) => {
    const form = formOf(request);
    const id = idParam(request, 'sessionId');
    await catalogue.updateSessionAs(ctx, actorOf(request), id, {
      // Typed in the deployment's time zone, like the sales window.
      start_datetime: zonedToIso(F.text(form, 'start_datetime'), ctx.config.timezone) ?? '',
      end_datetime: zonedToIso(F.text(form, 'end_datetime'), ctx.config.timezone),
      status: F.optional(form, 'status') as catalogue.SessionStatus | undefined,
      max_tickets_per_buyer: F.nullableNumber(form, 'max_tickets_per_buyer'),
      // The sales window is typed in the deployment's time zone (D59).
      ...(form.sales_start_at !== undefined ? { sales_start_at: zonedToIso(F.optional(form, 'sales_start_at'), ctx.config.timezone) } : {}),
      ...(form.sales_end_at !== undefined ? { sales_end_at: zonedToIso(F.optional(form, 'sales_end_at'), ctx.config.timezone) } : {}),
    });
    return redirect(reply, `/admin/sessions/${id}?notice=saved`);
  });

  // D60: the waiting room's settings, a form of their own.
  app.post('/sessions/:sessionId/queue', async (request, reply) => {
    const form = formOf(request);
    const id = idParam(request, 'sessionId');
    await catalogue.updateSessionAs(ctx, actorOf(request), id, {
      queue: {
        enabled: F.optional(form, 'enabled') === 'on',
        admission_per_minute: F.number(form, 'admission_per_minute'),
        pass_ttl_seconds: F.number(form, 'pass_ttl_seconds'),
        opens_minutes_before: F.number(form, 'opens_minutes_before'),
        challenge: F.text(form, 'challenge') as 'none' | 'proof_of_work',
      },
    });
    return redirect(reply, `/admin/sessions/${id}?notice=saved`);
  });

  // D74: cancelling ends the live carts at once and tells the channels; this page asks first.
  app.get('/sessions/:sessionId/cancel', async (request, reply) => {
    const pc = pageContext(request, 'events');
    const id = idParam(request, 'sessionId');
    const session = await catalogue.getSessionFor(ctx, pc.actor, id);
    const body = html`<section class="card" aria-labelledby="cancel-h"><h2 id="cancel-h">Cancel the session of ${when(session.start_datetime, pc.timeZone)}?</h2>
<p>Its carts end at once and nothing more of it is sold. Its channels are told (<code>session.cancelled</code>).
Tickets already sold stay valid unless you refund them here: each order is refunded once, and its buyer gets the refund e-mail.</p>
<form class="grid" method="post" action="/admin/sessions/${id}/cancel">${csrf(pc)}
  <label class="field wide"><span><input type="checkbox" name="refund" value="on"> Refund every order of this session</span></label>
  <div class="field"><button type="submit" class="danger">Yes, cancel the session</button> <a href="/admin/sessions/${id}">No, go back</a></div>
</form></section>`;
    return sendPage(reply, page(pc, 'Cancel a session', body));
  });

  app.post('/sessions/:sessionId/cancel', async (request, reply) => {
    const form = formOf(request);
    const id = idParam(request, 'sessionId');
    await cancelSessionAs(ctx, actorOf(request), id, { refund: F.optional(form, 'refund') === 'on' || F.optional(form, 'refund') === 'true' });
    return redirect(reply, `/admin/sessions/${id}?notice=cancelled`);
  });

  app.post('/sessions/:sessionId/publish', async (request, reply) => {
    const id = idParam(request, 'sessionId');
    await catalogue.publishSessionAs(ctx, actorOf(request), id);
    return redirect(reply, `/admin/sessions/${id}?notice=published`);
  });

  app.post('/sessions/:sessionId/rates', async (request, reply) => {
    const form = formOf(request);
    const id = idParam(request, 'sessionId');
    await catalogue.createRateAs(ctx, actorOf(request), id, { name: F.text(form, 'name'), price: F.number(form, 'price'), sector_id: F.nullableNumber(form, 'sector_id') });
    return redirect(reply, `/admin/sessions/${id}?notice=created`);
  });

  app.post('/sessions/:sessionId/fees', async (request, reply) => {
    const form = formOf(request);
    const id = idParam(request, 'sessionId');
    await catalogue.createFeeAs(ctx, actorOf(request), { sessionId: id }, { name: F.text(form, 'name'), kind: F.text(form, 'kind') as 'fixed', amount: F.number(form, 'amount') });
    return redirect(reply, `/admin/sessions/${id}?notice=created`);
  });

  app.post('/sessions/:sessionId/rates/copy', async (request, reply) => {
    const id = idParam(request, 'sessionId');
    const { added } = await copyRatesAs(ctx, actorOf(request), id, F.number(formOf(request), 'from_session_id') ?? 0);
    return redirect(reply, `/admin/sessions/${id}?notice=${added.length ? 'rates_copied' : 'rates_none'}`);
  });

  app.post('/rates/:rateId/delete', async (request, reply) => {
    const { session_id } = await deleteRateAs(ctx, actorOf(request), idParam(request, 'rateId'));
    return redirect(reply, `/admin/sessions/${session_id}?notice=deleted`);
  });

  app.post('/rates/:rateId', async (request, reply) => {
    const form = formOf(request);
    const rate = await catalogue.updateRateAs(ctx, actorOf(request), idParam(request, 'rateId'), {
      name: F.text(form, 'name'),
      price: F.number(form, 'price'),
      sector_id: F.nullableNumber(form, 'sector_id'),
    });
    return redirect(reply, `/admin/sessions/${rate.session_id}?notice=saved`);
  });

  const feePage = (fee: catalogue.FeeView) => (fee.session_id ? `/admin/sessions/${fee.session_id}` : `/admin/events/${fee.event_id}`);

  app.post('/fees/:feeId', async (request, reply) => {
    const form = formOf(request);
    const fee = await catalogue.updateFeeAs(ctx, actorOf(request), idParam(request, 'feeId'), {
      name: F.text(form, 'name'),
      kind: F.text(form, 'kind') as 'fixed',
      amount: F.number(form, 'amount'),
    });
    return redirect(reply, `${feePage(fee)}?notice=saved`);
  });

  app.post('/fees/:feeId/delete', async (request, reply) => {
    const actor = actorOf(request);
    const id = idParam(request, 'feeId');
    const back = feePage(await catalogue.getFeeFor(ctx, actor, id));
    await catalogue.deleteFeeAs(ctx, actor, id);
    return redirect(reply, `${back}?notice=deleted`);
  });
}
